package similarity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
)

// readModel is the index's read model as the conformance suite asks it.
// It answers no text: the core sends filters with text to the graph.
type readModel struct{ ix *similarity.Index }

func (r readModel) ListCases(_ context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	cs, total := r.ix.ListCases(f, s, offset, limit)
	return &ilgraph.CasePage{Cases: cs, Total: total}, nil
}

func (r readModel) Facets(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	return r.ix.Facets(f), nil
}

func (r readModel) Stats(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	return r.ix.Stats(f), nil
}

func (r readModel) CooccurrenceCounts(_ context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (int, map[ilgraph.Feature]int, map[[2]ilgraph.Feature]int, error) {
	c := r.ix.Cooccurrence(from, to, f)
	return c.Total, c.Singles, c.Pairs, nil
}

// TestReadModelConforms runs the conformance suite on the read model, built
// from the cases as a similarity index reads them (ilgraph.SimilarityRow),
// over every corpus of the suite; and checks that a filtered ranking is the
// unfiltered one with the cases Match leaves out taken away.
func TestReadModelConforms(t *testing.T) {
	for _, co := range storetest.Corpora(t) {
		t.Run(co.Name, func(t *testing.T) {
			ix := similarity.Build(rowsOf(co.Cases), 1)
			storetest.Run(t, co, readModel{ix}, storetest.Options{StatsWithoutRelationships: true})
			rankingConforms(t, co, ix)
		})
	}
}

// TestReadModelFromNeo4jConforms is TestReadModelConforms for the index as
// the service builds it: from the rows Neo4j gives after a load.
func TestReadModelFromNeo4jConforms(t *testing.T) {
	ctx := context.Background()
	for _, co := range storetest.Corpora(t)[1:] {
		t.Run(co.Name, func(t *testing.T) {
			db := neo4jtest.MustOpen(t)
			if _, err := loader.Load(ctx, db, co.Paths, loader.Options{}); err != nil {
				t.Fatal(err)
			}
			ix, err := similarity.NewService(db).Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			storetest.Run(t, co, readModel{ix}, storetest.Options{Filters: 150, StatsWithoutRelationships: true})
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
