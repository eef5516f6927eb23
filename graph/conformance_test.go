package graph_test

import (
	"context"
	"testing"

	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/loader"
)

// TestCypherConforms runs the conformance suite on the Neo4j store: the
// suite's generated corpora loaded through the loader, then every generated
// filter asked of the Cypher — lists in every order, pages, totals, facets,
// stats with relationship counts, breakdowns, co-occurrence graphs and the
// ids a filter selects — and filters with text, which must select the
// cases the full-text index finds for the text that CaseFilter.Match
// accepts. The seed corpus is asked as part of the seeds with generated
// cases; aggregates of every third filter, which keeps the test to a few
// minutes.
func TestCypherConforms(t *testing.T) {
	ctx := context.Background()
	for _, co := range storetest.Corpora(t)[1:] {
		t.Run(co.Name, func(t *testing.T) {
			db := neo4jtest.MustOpen(t)
			if _, err := loader.Load(ctx, db, co.Paths, loader.Options{}); err != nil {
				t.Fatal(err)
			}
			storetest.Run(t, co, db, storetest.Options{Filters: 40, Text: true, TextFilters: 20, AggregateEvery: 3})
		})
	}
}
