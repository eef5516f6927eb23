package similarity_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/similarity"
)

// benchCases is the corpus size: BENCH_CASES, 10,000 by default (quick);
// the full run uses 100,000.
func benchCases(b *testing.B) int {
	if s := os.Getenv("BENCH_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("BENCH_CASES=%q: want a number ≥ 100", s)
		}
		return n
	}
	return 10_000
}

// BenchmarkSimilarTop10 measures top-10 for one case over the generated
// corpus with the index, and, in the same run, the plain Cypher query that
// computes the same scores (graph.SimilarByCypher). It first checks that
// both give the identical top 10 for every query case, with tags only and
// no rarity weighting (all that the Cypher baseline knows). Reported: ns/op
// for the index with the defaults (text channel and rarity weighting on),
// tags-ns/op for the index with tags only, cypher-ns/op, and speedup =
// cypher / index.
func BenchmarkSimilarTop10(b *testing.B) {
	ctx := context.Background()
	db := neo4jtest.MustOpenKeep(b)
	n := benchCases(b)
	if _, err := gen.EnsureLoaded(ctx, db, corpus.Seeds(b), n, 0); err != nil {
		b.Fatal(err)
	}
	ix, err := similarity.Load(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	if ix.Len() != n {
		b.Fatalf("index has %d cases, want %d", ix.Len(), n)
	}
	opt := ilgraph.SimilarityOptions{K: 10, Weights: ilgraph.DefaultWeights().TagsOnly()}
	var queries []string
	for i := 1; i <= n && len(queries) < 20; i += n / 20 {
		queries = append(queries, gen.ID(i))
	}
	var cypher time.Duration
	for _, id := range queries {
		want := ix.Similar(ix.Features(id), id, opt)
		start := time.Now()
		got, err := graph.NewBench(db).SimilarByCypher(ctx, id, opt.Weights, 10)
		cypher += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(want) {
			b.Fatalf("%s: Cypher gives %d results, the index %d", id, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID {
				b.Fatalf("%s: top-10 differs at #%d: Cypher %s (%.9f), index %s (%.9f)", id, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
			}
		}
	}
	cypherPerOp := float64(cypher.Nanoseconds()) / float64(len(queries))
	start := time.Now()
	const tagRounds = 200
	for i := 0; i < tagRounds; i++ {
		id := queries[i%len(queries)]
		ix.Similar(ix.Features(id), id, opt)
	}
	tagsPerOp := float64(time.Since(start).Nanoseconds()) / tagRounds
	def := ilgraph.DefaultOptions(10)
	b.ReportAllocs()
	b.ResetTimer()
	start = time.Now()
	for i := 0; i < b.N; i++ {
		id := queries[i%len(queries)]
		if ms := ix.Similar(ix.Features(id), id, def); len(ms) == 0 {
			b.Fatal("no result")
		}
	}
	indexPerOp := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(tagsPerOp, "tags-ns/op")
	b.ReportMetric(cypherPerOp, "cypher-ns/op")
	b.ReportMetric(cypherPerOp/indexPerOp, "speedup")
	b.ReportMetric(float64(n), "cases")
}

// BenchmarkSimilarTop10InMemory measures top-10 for one case over a
// generated corpus (BENCH_CASES) built in memory, with no database: "tags"
// is tags only with no rarity weighting (the defaults before the text
// channel), "defaults" today's defaults (ilgraph.DefaultOptions: the text
// channel and rarity weighting on) accumulating every posting, "served"
// the same defaults as a server ranks them (SimilarTo: max-score). Generated cases reuse the seed cases'
// triggers and lessons, so the text postings have realistic lengths.
func BenchmarkSimilarTop10InMemory(b *testing.B) {
	n := benchCases(b)
	cases := generated(b, n, 1)
	ix := similarity.Build(rowsOf(cases), 1)
	var queries []string
	for i := 0; i < n && len(queries) < 20; i += n / 20 {
		queries = append(queries, cases[i].ID)
	}
	for _, bc := range []struct {
		name string
		opt  ilgraph.SimilarityOptions
	}{
		{"tags", ilgraph.SimilarityOptions{K: 10, Weights: ilgraph.DefaultWeights().TagsOnly()}},
		{"defaults", ilgraph.DefaultOptions(10)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				id := queries[i%len(queries)]
				if ms := ix.Similar(ix.Features(id), id, bc.opt); len(ms) == 0 {
					b.Fatal("no result")
				}
			}
		})
	}
	// What a server answers: SimilarTo, the max-score ranker (its tables
	// made before the timer starts, as the first question makes them).
	b.Run("served", func(b *testing.B) {
		opt := ilgraph.DefaultOptions(10)
		ix.SimilarTo(queries[0], opt)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if ms := ix.SimilarTo(queries[i%len(queries)], opt); len(ms) == 0 {
				b.Fatal("no result")
			}
		}
	})
}
