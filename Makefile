# ilgraph — see README.md. The two commands a new user needs:
#   make run    start Neo4j (unless NEO4J_URI is set), load seeds/, serve the API
#   make test   start Neo4j (unless NEO4J_URI is set) and run every test

.PHONY: run test build neo4j-start neo4j-stop neo4j-status neo4j-test-stop generate check-generate fuzz bench clean

run:
	scripts/run

test:
	scripts/test

build:
	go build -o bin/ilgraph ./cmd/ilgraph

neo4j-start:
	scripts/neo4j start

neo4j-stop:
	scripts/neo4j stop

neo4j-status:
	scripts/neo4j status

neo4j-test-stop:
	scripts/neo4j-test stop

# Regenerate the GraphQL executor from schema.graphqls.
generate:
	go generate ./...

# Regenerate, then fail (showing the difference) when the generated files
# (gqlgen writes only into resolvers/, see gqlgen.yml) differ from the
# committed ones: someone changed the schema or gqlgen.yml without running
# make generate, or edited generated code by hand.
GENERATED = resolvers
check-generate: generate
	@changed=$$(git status --porcelain --untracked-files=all -- $(GENERATED)); \
	if [ -n "$$changed" ]; then \
		echo "make check-generate: go generate ./... changed generated files; run make generate and commit them:" >&2; \
		echo "$$changed" >&2; \
		git --no-pager diff -- $(GENERATED) >&2; \
		exit 1; \
	fi; \
	echo "generated files are current"

# A short fuzz run of each fuzz target.
FUZZTIME ?= 20s
fuzz:
	go test ./loader/ -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)
	go test ./graph/ -run '^$$' -fuzz FuzzCompileFilter -fuzztime $(FUZZTIME)
	go test ./analysis/ -run '^$$' -fuzz FuzzTokens -fuzztime $(FUZZTIME)
	go test ./suggest/ -run '^$$' -fuzz FuzzSuggest -fuzztime $(FUZZTIME)

# End-to-end benchmark: BENCH_CASES=100000 make bench for the full run.
bench:
	scripts/bench

clean:
	rm -rf bin
