package main

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// newCore wires the application core over a store: the one place that
// decides which stores and which similarity ranker the front doors use.
// One in-memory corpus per corpus version (memstore.Source) is read from
// the graph and shared: the in-memory store answers case lists, facets,
// statistics, co-occurrence and same root cause from it (the core's read
// model), and the similarity index and the suggestion engine are built
// over it in the same read.
func newCore(db *graph.DB) *explore.Service {
	return coreOver(db, newInMemory(db, true))
}

// inMemory is the in-memory side of a core: the source of the corpus and
// what is built over it. Cores given the same corpus share one build.
type inMemory struct {
	src   *memstore.Source
	store *memstore.Store
	sim   *similarity.Service
	sg    *suggest.Service // nil: no suggestion engine
}

// newInMemory wires the in-memory corpus over db, with the suggestion engine
// when suggests: a command that never asks one (ilgraph similar, stats)
// does not build it with the corpus.
func newInMemory(db *graph.DB, suggests bool) *inMemory {
	src := memstore.NewSource(db)
	src.Parse = loader.ParseCase // follows other servers' writes through the change feed
	c := &inMemory{src: src, store: memstore.NewStore(src), sim: similarity.NewService(db, src)}
	if suggests {
		c.sg = suggest.NewService(db, src, suggest.Options{})
	}
	return c
}

func coreOver(db *graph.DB, c *inMemory, opts ...explore.Option) *explore.Service {
	base := []explore.Option{explore.WithReadModel(c.store), explore.WithWrites(db, loader.Validator{DB: db}), explore.WithJudgments(db)}
	if c.sg != nil {
		base = append(base, explore.WithSuggester(c.sg))
	}
	return explore.New(db, c.sim, append(base, opts...)...)
}

// corpusSettings are a server's settings of its in-memory corpus.
type corpusSettings struct {
	// settle is how long after the last write the corpus is built again
	// from Neo4j (memstore.Source.SettleAfter; 0 or less: never).
	settle time.Duration
	// maxStaleness is how long an answer from memory may lag a change made
	// by another process (memstore.Source.SetMaxStaleness; 0: never).
	maxStaleness time.Duration
	// snapshotDir keeps the built corpus on disk (memstore.Source.SnapshotDir;
	// empty: not kept).
	snapshotDir string
}

// newServingCore is newCore for a server: it starts reading the in-memory
// corpus at once, so the first requests find it ready (until it is, the
// core asks Neo4j), and logs when that first build is done and how long it
// took.
func newServingCore(ctx context.Context, db *graph.DB, logger *slog.Logger, cs corpusSettings, opts ...explore.Option) (*explore.Service, *memstore.Source) {
	c := newInMemory(db, true)
	c.src.SetMaxStaleness(cs.maxStaleness)
	c.src.SettleAfter = cs.settle
	if cs.settle <= 0 {
		c.src.SettleAfter = -1
	}
	c.src.SnapshotDir = cs.snapshotDir
	c.src.Logger = logger
	start := time.Now()
	_, _ = c.src.Current(ctx) // a failure shows again on the first request
	go func() {
		built, err := c.src.Get(ctx) // waits for the build Current started
		if err != nil {
			logger.Warn("building the in-memory corpus", "err", err)
			return
		}
		msg := "in-memory corpus built"
		if c.src.FileLoads() > 0 {
			msg = "in-memory corpus read from the snapshot file"
		}
		logger.Info(msg, "cases", built.Len(), "seconds", math.Round(time.Since(start).Seconds()*10)/10)
	}()
	return coreOver(db, c, opts...), c.src
}

// corpusCollectors are the in-memory corpus's metrics: its version, its
// builds from the graph, its catch-ups from the change feed and the changes
// applied without a build — how an operator sees that a replica follows the
// others (docs/scaling.md).
func corpusCollectors(src *memstore.Source) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ilgraph_corpus_version",
			Help: "The corpus version of the in-memory corpus (-1 before the first build); the graph's moves on with every write and load."},
			func() float64 { return float64(src.Version()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ilgraph_corpus_builds_total",
			Help: "Builds of the in-memory corpus from the graph (at start, after a load, when settling after writes)."},
			func() float64 { return float64(src.Builds()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ilgraph_corpus_last_build_seconds",
			Help: "How long the last build of the in-memory corpus from the graph took, reading every case and building every index (0 before the first)."},
			func() float64 { return src.LastBuild().Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ilgraph_corpus_last_follow_seconds",
			Help: "How long the last catch-up from the change feed took, reading the changes and applying them in one batch (0 before the first)."},
			func() float64 { return src.LastFollow().Seconds() }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ilgraph_corpus_follows_total",
			Help: "Catch-ups with the graph by reading the change feed (other replicas' writes) instead of a build."},
			func() float64 { return float64(src.Follows()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ilgraph_corpus_changes_applied_total",
			Help: "Case changes applied to the in-memory corpus without a build: this server's writes and other replicas' from the change feed."},
			func() float64 { return float64(src.ChangesApplied()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "ilgraph_corpus_file_loads_total",
			Help: "Corpora read from the snapshot file (--snapshot-dir) instead of built from the graph: 1 after a start that read it, 0 otherwise."},
			func() float64 { return float64(src.FileLoads()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ilgraph_corpus_file_load_seconds",
			Help: "How long reading the in-memory corpus from the snapshot file took, following the change feed included (0 when it was not read)."},
			func() float64 { return src.LastFileLoad().Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ilgraph_corpus_file_save_seconds",
			Help: "How long the last write of the snapshot file took, in the background after a build (0 before the first)."},
			func() float64 { return src.LastFileSave().Seconds() }),
	}
}

// openCore connects to the Neo4j the environment names and returns the core
// over it (with the suggestion engine when suggests), with the function
// that closes the connection.
func openCore(ctx context.Context, suggests bool) (*explore.Service, func(), error) {
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return nil, nil, err
	}
	return coreOver(db, newInMemory(db, suggests)), func() { db.Close() }, nil
}
