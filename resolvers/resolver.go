// Package resolvers is ilgraph's GraphQL layer: gqlgen's generated executor
// (generated.go, models_gen.go; regenerate with go generate ./...) and thin
// resolvers that turn arguments into calls on the graph store. No Cypher
// here.
//
// The go:generate directive lives in the repository root (generate.go),
// where gqlgen.yml is.
package resolvers

import (
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/simindex"
)

// Resolver is the root resolver. It holds no per-request state; request
// scoped loaders come from the context (see loaders.go).
type Resolver struct {
	DB         *graph.DB
	Similarity *simindex.Service
}
