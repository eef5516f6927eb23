module github.com/ilgraph/ilgraph

go 1.24

require github.com/neo4j/neo4j-go-driver/v5 v5.28.4
