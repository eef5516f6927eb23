package similarity_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestIncrementalWriteBackEqualsFull loads a corpus and writes back every
// case's top 5, then makes loads that change, add and delete cases, and
// wants the incremental write-back after each to leave exactly the links a
// full recompute over the new corpus gives.
func TestIncrementalWriteBackEqualsFull(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	dir := t.TempDir()
	const n, k = 800, 5
	base := filepath.Join(dir, "gen.jsonl")
	if err := gen.WriteFile(base, seeds, n, 5); err != nil {
		t.Fatal(err)
	}
	rep, err := loader.Load(ctx, db, []string{seeds, base}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wb, err := similarity.WriteBack(ctx, db, k, rep.CasesChanged(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if wb.Incremental {
		t.Fatal("the first write-back was incremental")
	}
	check := func(step string) {
		t.Helper()
		ix, err := similarity.Load(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		want := similarity.TopKAll(ix, k, ilgraph.DefaultOptions(k))
		got, err := db.SimilarLinks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byFrom := map[string][]ilgraph.SimilarLink{}
		for _, l := range got {
			byFrom[l.From] = append(byFrom[l.From], l)
		}
		wantFrom := map[string][]ilgraph.SimilarLink{}
		for _, l := range want {
			wantFrom[l.From] = append(wantFrom[l.From], l)
		}
		bad := 0
		for id, ws := range wantFrom {
			gs := byFrom[id]
			same := len(gs) == len(ws)
			for i := 0; same && i < len(ws); i++ {
				same = gs[i].To == ws[i].To && gs[i].Rank == ws[i].Rank && math.Abs(gs[i].Score-ws[i].Score) < 1e-9
			}
			if !same {
				if bad++; bad <= 5 {
					t.Errorf("%s: %s links\n got %v\nwant %v", step, id, gs, ws)
				}
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d links stored, a full recompute gives %d", step, len(got), len(want))
		}
	}
	check("after the full write-back")

	for step, change := range []struct {
		changed, added int
		deleted        []string
		seed           uint64
	}{
		{changed: 20, added: 10, seed: 6},
		{changed: 3, added: 0, deleted: []string{"GEN-0000400", "GEN-0000401", "IL-0384"}, seed: 7},
	} {
		if len(change.deleted) > 0 {
			if err := db.DeleteCases(ctx, change.deleted); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "change.jsonl")
		if err := gen.WriteChanges(path, seeds, n+10*step, change.changed, change.added, change.seed); err != nil {
			t.Fatal(err)
		}
		rep, err := loader.Load(ctx, db, []string{filepath.Join(seeds, "vocab.json"), path}, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wb, err := similarity.WriteBack(ctx, db, k, rep.CasesChanged() || len(change.deleted) > 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The default options weigh rare features more and read text with
		// corpus-wide term weights: a change moves every score, so the
		// write-back recomputes every case (see Incremental).
		if want := similarity.Incremental(ilgraph.DefaultOptions(k)); wb.Incremental != want || (want && wb.Recomputed >= n/2) {
			t.Errorf("change %d: incremental %v (want %v), %d cases recomputed of %d", step, wb.Incremental, want, wb.Recomputed, n)
		}
		t.Logf("change %d: %d cases recomputed, %d links written", step, wb.Recomputed, wb.Links)
		check("after a change")
	}
}
