// Package apitest mounts the front doors in the HTTP shell for tests, as
// ilgraph serve does (cmd/ilgraph/serve.go, newAPI): GraphQL at /graphql,
// the GraphQL IDE at /ide, and whichever other doors a test builds.
package apitest

import (
	"maps"
	"net/http"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// Options are the doors' and the shell's settings.
type Options struct {
	GraphQL resolvers.Options
	// Shell's Routes are the other doors, mounted beside GraphQL and the
	// IDE (JSONAPI, MCP); its Logger defaults to GraphQL's, its Admitter to
	// the GraphQL door's.
	Shell httpapi.Options
	NoIDE bool // no GraphQL IDE at /ide (ilgraph serve --ide=false)
}

// New returns the shell with the doors over core.
func New(core *explore.Service, opt Options) *httpapi.Handler {
	gql := resolvers.NewHandler(core, opt.GraphQL)
	routes := map[string]httpapi.Door{resolvers.Pattern: {Handler: gql, Fail: gql.Fail, Name: "graphql"}}
	if !opt.NoIDE {
		ide := explorer.IDEHandler()
		routes["GET /ide"] = httpapi.Door{Handler: ide}
		routes["GET /ide/assets/"] = httpapi.Door{Handler: ide}
	}
	maps.Copy(routes, opt.Shell.Routes)
	s := opt.Shell
	s.Routes = routes
	if s.Logger == nil {
		s.Logger = opt.GraphQL.Logger
	}
	if s.Admitter == nil {
		s.Admitter = gql.Admitter()
	}
	s.Collectors = append(s.Collectors, gql.Collectors()...)
	return httpapi.New(s)
}

// JSONAPI adds the JSON API handler api to routes (made when nil) at its
// patterns, with its error body.
func JSONAPI(routes map[string]httpapi.Door, api http.Handler) map[string]httpapi.Door {
	if routes == nil {
		routes = map[string]httpapi.Door{}
	}
	for _, p := range jsonapi.Patterns {
		routes[p] = httpapi.Door{Handler: api, Fail: jsonapi.Fail, Name: "jsonapi"}
	}
	return routes
}

// MCP is the MCP handler h as a door, with its error body.
func MCP(h http.Handler) httpapi.Door {
	return httpapi.Door{Handler: h, Fail: mcpserver.Fail, Name: "mcp"}
}

// Door is a handler that reads no bodies (the explorer) as a door.
func Door(h http.Handler) httpapi.Door { return httpapi.Door{Handler: h} }

// Core returns the core over db as ilgraph serve wires it
// (cmd/ilgraph/core.go): one in-memory corpus shared by the in-memory store
// (the read model), the similarity ranker and the suggestion engine, writes
// validated by the loader, and judgments of similar cases.
func Core(db *graph.DB) *explore.Service {
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	sg := suggest.NewService(db, src, suggest.Options{})
	return explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithSuggester(sg),
		explore.WithWrites(db, loader.Validator{DB: db}), explore.WithJudgments(db))
}

// AsPrincipal is a test credential for the shell (httpapi.Options.
// Credentials): every request carries p, as if it had authenticated as p.
// Only tests use it; a server's credentials are its tokens'.
func AsPrincipal(p ilgraph.Principal) httpapi.Credential { return testCredential{p} }

type testCredential struct{ p ilgraph.Principal }

func (testCredential) Present(*http.Request) bool { return true }

func (c testCredential) Principal(*http.Request) (ilgraph.Principal, error) { return c.p, nil }
