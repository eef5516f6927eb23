package explore_test

import (
	"context"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// notCurrent is a read model that is never current; it counts the lists
// it was asked for.
type notCurrent struct {
	explore.ReadModel
	lists int
}

func (r *notCurrent) ListCases(context.Context, ilgraph.CaseFilter, ilgraph.CaseSort, int, int) ([]*ilgraph.Case, int, bool, error) {
	r.lists++
	return nil, 0, false, nil
}

// TestReadModelOnlyWhenGiven: the core asks a read model only when given one
// (WithReadModel), and falls back to the store when it is not current.
func TestReadModelOnlyWhenGiven(t *testing.T) {
	f := mustCore(t)
	q := explore.CaseQuery{Filter: rootCauses("capacity"), Sort: ilgraph.SortIDAsc, Page: explore.Page{First: ptr(100)}}
	want, err := f.core.Cases(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	rm := &notCurrent{}
	with := explore.New(f.store, newMemSimilarity(f.cases), explore.WithReadModel(rm))
	got, err := with.Cases(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if rm.lists != 1 || got.TotalCount != want.TotalCount || len(want.Cases) == 0 {
		t.Errorf("with a read model: asked it %d times (want 1), %d cases (want %d)", rm.lists, got.TotalCount, want.TotalCount)
	}
}
