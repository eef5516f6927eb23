package main

import (
	"context"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// newCore wires the application core over a store: the one place that
// decides which store and which similarity ranker the front doors use.
func newCore(db *graph.DB) *explore.Service {
	return explore.New(db, similarity.NewService(db), explore.WithSuggester(suggest.NewService(db, suggest.Options{})))
}

// openCore connects to the Neo4j the environment names and returns the core
// over it, with the function that closes the connection.
func openCore(ctx context.Context) (*explore.Service, func(), error) {
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return nil, nil, err
	}
	return newCore(db), func() { db.Close() }, nil
}
