package similarity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestRankingConforms: over every corpus of the conformance suite, a
// filtered ranking is the unfiltered one with the cases Match leaves out
// taken away.
func TestRankingConforms(t *testing.T) {
	for _, co := range storetest.Corpora(t) {
		t.Run(co.Name, func(t *testing.T) {
			rankingConforms(t, co, similarity.Build(rowsOf(co.Cases), 1))
		})
	}
}

// TestRankingFromNeo4jConforms is TestRankingConforms for the index as the
// service builds it: over the snapshot the source reads from Neo4j after a
// load.
func TestRankingFromNeo4jConforms(t *testing.T) {
	ctx := context.Background()
	for _, co := range storetest.Corpora(t)[1:] {
		t.Run(co.Name, func(t *testing.T) {
			db := neo4jtest.MustOpen(t)
			if _, err := loader.Load(ctx, db, co.Paths, loader.Options{}); err != nil {
				t.Fatal(err)
			}
			ix, err := similarity.NewService(db, memstore.NewSource(db)).Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rankingConforms(t, co, ix)
		})
	}
}

// rankingConforms: for a few query cases and a run of generated filters,
// the ranking with the filter is the ranking without it, less the cases
// the filter's Match leaves out (every match kept: K is the corpus size).
func rankingConforms(t *testing.T, co storetest.Corpus, ix *similarity.Index) {
	t.Helper()
	byID := map[string]*ilgraph.Case{}
	for _, c := range co.Cases {
		byID[c.ID] = c
	}
	opt := ilgraph.DefaultOptions(len(co.Cases))
	failures := 0
	for _, q := range []*ilgraph.Case{co.Cases[0], co.Cases[len(co.Cases)/2], co.Cases[len(co.Cases)-1]} {
		all := ix.Similar(ix.Features(q.ID), q.ID, opt)
		for _, f := range storetest.Filters(co, 2, 60) {
			fo := opt
			fo.Filter = f.Filter
			got := ix.Similar(ix.Features(q.ID), q.ID, fo)
			var want []ilgraph.Match
			for _, m := range all {
				if f.Filter.Match(byID[m.ID]) {
					want = append(want, m)
				}
			}
			if g, w := ranking(got), ranking(want); g != w {
				t.Errorf("%s: similar to %s with filter %s:\n got %.300s\nwant %.300s", co.Name, q.ID, f.Name, g, w)
				if failures++; failures > 5 {
					t.Fatal("stopping")
				}
			}
		}
	}
}

func ranking(ms []ilgraph.Match) string {
	s := fmt.Sprintf("%d:", len(ms))
	for _, m := range ms {
		s += fmt.Sprintf(" %s=%.9f", m.ID, m.Score)
	}
	return s
}
