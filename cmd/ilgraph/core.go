package main

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// newCore wires the application core over a store: the one place that
// decides which store and which similarity ranker the front doors use.
// The similarity service's index is also the core's read model of cases ×
// terms (case lists, facets, statistics, co-occurrence, same root cause).
func newCore(db *graph.DB) *explore.Service {
	return coreOver(db, similarity.NewService(db))
}

func coreOver(db *graph.DB, sim *similarity.Service, opts ...explore.Option) *explore.Service {
	opts = append([]explore.Option{explore.WithReadModel(sim), explore.WithSuggester(suggest.NewService(db, suggest.Options{})),
		explore.WithWrites(db, loader.Validator{DB: db})}, opts...)
	return explore.New(db, sim, opts...)
}

// newServingCore is newCore for a server: it starts building the index at
// once, so the first requests find it ready (until it is, the core asks
// Neo4j), and logs when that first build is done and how long it took.
func newServingCore(ctx context.Context, db *graph.DB, logger *slog.Logger, opts ...explore.Option) *explore.Service {
	sim := similarity.NewService(db)
	start := time.Now()
	_, _ = sim.Current(ctx) // a failure shows again on the first request
	go func() {
		ix, err := sim.Index(ctx) // waits for the build Current started
		if err != nil {
			logger.Warn("building the similarity index", "err", err)
			return
		}
		logger.Info("similarity index built", "cases", ix.Len(), "seconds", math.Round(time.Since(start).Seconds()*10)/10)
	}()
	return coreOver(db, sim, opts...)
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
