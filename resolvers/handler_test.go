package resolvers_test

import (
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/resolvers"
)

// newHandler wires the API over db in the HTTP shell as ilgraph serve
// does, with the shell's settings from shell when given.
func newHandler(db *graph.DB, opt resolvers.Options, shell ...httpapi.Options) *httpapi.Handler {
	return newHandlerWith(db, apitest.Options{GraphQL: opt}, shell...)
}

func newHandlerWith(db *graph.DB, opt apitest.Options, shell ...httpapi.Options) *httpapi.Handler {
	if len(shell) > 0 {
		opt.Shell = shell[0]
	}
	opt.Shell.Ready = db.Ping
	h := apitest.New(apitest.Core(db), opt)
	db.SetQueryHook(h.ObserveQuery)
	return h
}
