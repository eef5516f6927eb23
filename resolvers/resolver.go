// Package resolvers is ilgraph's GraphQL front door: gqlgen's generated
// executor (generated.go, models_gen.go; regenerate with go generate ./...)
// and resolvers that translate between GraphQL and the application core
// (package explore). No query logic and no Cypher here: limits, defaults
// and every question live in the core, which the JSON API and MCP share.
//
// The go:generate directive lives in the repository root (generate.go),
// where gqlgen.yml is.
package resolvers

import "github.com/ilgraph/ilgraph/explore"

// Resolver is the root resolver. It holds no per-request state; request
// scoped loaders come from the context (see loaders.go).
type Resolver struct {
	Core *explore.Service
}
