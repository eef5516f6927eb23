# ilgraph — see README.md. The two commands a new user needs:
#   make run    start a local Neo4j on the ports of NEO4J_URI and NEO4J_HTTP_PORT
#               (default bolt://127.0.0.1:7687, 7474) unless one answers there or
#               NEO4J_URI names another machine; load seeds/, serve the API
#   make test   the same with the test Neo4j (bolt://127.0.0.1:7688 unless NEO4J_URI
#               is set); run every test
# README.md, "Settings", lists every variable.

.PHONY: run test lint race build explorer-vendor explorer-screenshots neo4j-start neo4j-stop neo4j-status neo4j-test-stop generate check-generate fuzz bench clean

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

# A short fuzz run of every fuzz target in the tree (found, not listed, so
# that a new one cannot be left out): scripts/fuzz.
FUZZTIME ?= 20s
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz

# Static checks beyond go vet, pinned: staticcheck (bugs, simplifications,
# unused unexported code) and deadcode (functions no program or test
# reaches, exported ones included). Both fail on any finding.
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE = golang.org/x/tools/cmd/deadcode@v0.52.0
lint:
	go run $(STATICCHECK) ./...
	@out=$$(go run $(DEADCODE) -test ./...); \
	if [ -n "$$out" ]; then echo "deadcode: unreachable functions:" >&2; echo "$$out" >&2; exit 1; fi

# The race detector over the packages whose tests need no database (the
# others run in make test against Neo4j, without it, to keep CI in time).
RACE_PKGS = . ./analysis/ ./explore/ ./httpapi/ ./importer/ ./internal/admission/ ./internal/storetest/ ./internal/versioned/ ./ratelimit/ ./relevance/ ./seeds/ ./session/
race:
	go test -race -count=1 $(RACE_PKGS)

# End-to-end benchmark: BENCH_CASES=100000 make bench for the full run.
bench:
	scripts/bench

clean:
	rm -rf bin

# Refresh the explorer's vendored browser libraries (Cytoscape.js, axe-core)
# from npm at the versions explorer/package.json pins; see docs/explorer.md.
explorer-vendor:
	scripts/explorer-vendor

# Retake the explorer's screenshots in docs/explorer/ with the browser test
# (needs Chromium; starts the test Neo4j unless NEO4J_URI is set, as make
# test does).
explorer-screenshots:
	@if command -v fc-list >/dev/null && [ -z "$$(fc-list :lang=ko)" ]; then \
		echo "explorer-screenshots: no Korean font, the Korean pages would show boxes (apt-get install fonts-nanum)" >&2; exit 1; fi
	@if [ -z "$$NEO4J_URI" ]; then scripts/neo4j-test start && eval "$$(scripts/neo4j-test env)"; fi; \
	UPDATE_SCREENSHOTS=1 go test ./explorer/ -run TestExplorerInBrowser -count=1
