package graph_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestPagedReadsSeeEveryCaseOnce checks SimilarityRows and EachCase, which
// read the corpus in pages of their own transactions: with pages of 7
// cases (the seeds' count is no multiple of 7, nor of 10) every case comes
// once, in id order, as when one page holds the whole corpus.
func TestPagedReadsSeeEveryCaseOnce(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	// The reference: one page holds the whole corpus.
	var want []ilgraph.CaseFeatures
	if err := db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { want = append(want, r) }); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range want {
		ids = append(ids, r.ID)
	}
	if len(ids) < 100 || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("one page: %d cases, sorted %v", len(ids), slices.IsSorted(ids))
	}
	for _, size := range []int{7, 10, len(ids), len(ids) + 1} {
		restore := graph.SetPages(size, size)
		var got []ilgraph.CaseFeatures
		if err := db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { got = append(got, r) }); err != nil {
			t.Fatal(err)
		}
		var each []string
		if err := db.EachCase(ctx, func(c *ilgraph.Case) error { each = append(each, c.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		restore()
		if len(got) != len(want) {
			t.Fatalf("pages of %d: %d rows, want %d", size, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("pages of %d: row %d is %+v, want %+v", size, i, got[i], want[i])
			}
		}
		if !slices.Equal(each, ids) {
			t.Errorf("pages of %d: EachCase gave %d cases, want the %d in id order", size, len(each), len(ids))
		}
	}
}
