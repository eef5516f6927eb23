package resolvers_test

import (
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// newHandler wires the API over db as ilgraph serve does.
func newHandler(db *graph.DB, opt resolvers.Options) *resolvers.Handler {
	opt.Ready = db.Ping
	h := resolvers.NewHandler(explore.New(db, similarity.NewService(db), explore.WithSuggester(suggest.NewService(db, suggest.Options{}))), opt)
	db.SetQueryHook(h.ObserveQuery)
	return h
}
