package memstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
)

// readModel is the snapshot's read model as the conformance suite asks it.
// It answers no text: the core sends filters with text to the graph.
type readModel struct{ s *memstore.Snapshot }

func (r readModel) ListCases(_ context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	cs, total := r.s.ListCases(f, s, offset, limit)
	return &ilgraph.CasePage{Cases: cs, Total: total}, nil
}

func (r readModel) Facets(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	return r.s.Facets(f), nil
}

func (r readModel) Stats(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	return r.s.Stats(f), nil
}

func (r readModel) Breakdown(_ context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	return r.s.Breakdown(rows, cols, f)
}

func (r readModel) CooccurrenceCounts(_ context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (int, map[ilgraph.Feature]int, map[[2]ilgraph.Feature]int, error) {
	c := r.s.Cooccurrence(from, to, f)
	return c.Total, c.Singles, c.Pairs, nil
}

// TestReadModelConforms runs the conformance suite on the snapshot built
// from the cases as the store reads them (ilgraph.SimilarityRow), over every
// corpus of the suite.
func TestReadModelConforms(t *testing.T) {
	for _, co := range storetest.Corpora(t) {
		t.Run(co.Name, func(t *testing.T) {
			s := memstore.Build(rowsOf(co.Cases), 1)
			storetest.Run(t, co, readModel{s}, storetest.Options{StatsWithoutRelationships: true})
		})
	}
}

// TestReadModelFromNeo4jConforms is TestReadModelConforms for the snapshot
// as the source builds it: from the cases Neo4j gives after a load.
func TestReadModelFromNeo4jConforms(t *testing.T) {
	ctx := context.Background()
	for _, co := range storetest.Corpora(t)[1:] {
		t.Run(co.Name, func(t *testing.T) {
			db := neo4jtest.MustOpen(t)
			if _, err := loader.Load(ctx, db, co.Paths, loader.Options{}); err != nil {
				t.Fatal(err)
			}
			c, err := memstore.NewSource(db).Get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			storetest.Run(t, co, readModel{c.Snapshot}, storetest.Options{Filters: 150, StatsWithoutRelationships: true})
		})
	}
}

func rowsOf(cases []*ilgraph.Case) []ilgraph.CaseFeatures {
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i, c := range cases {
		rows[i] = ilgraph.SimilarityRow(c)
	}
	return rows
}

// generated returns n generated cases, decoded from the generator's output.
func generated(t testing.TB, n int, seed uint64) []*ilgraph.Case {
	seeds := corpus.Seeds(t)
	var buf bytes.Buffer
	err := gen.Write(&buf, gen.Options{Cases: n, Seed: seed, Vocab: corpus.Vocab(t, filepath.Join(seeds, "vocab.json")), Prior: corpus.Cases(t, filepath.Join(seeds, "cases"))})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&buf)
	var out []*ilgraph.Case
	for dec.More() {
		var c ilgraph.Case
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, &c)
	}
	return out
}

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
