package memstore_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/memstore"
)

// change is one step of a history that ends in a corpus: the case id as
// written (nil: deleted).
type change struct {
	id  string
	row *ilgraph.CaseFeatures
}

// historyTo returns a starting corpus and the changes that, applied in
// order, turn it into final: a third of final's cases come as creates,
// a third start with another case's tags, date and severity and come
// right by an update (some updated twice), and cases final does not have
// (decoys, with terms final may not use) are deleted — some of them
// created by the changes first.
func historyTo(final []ilgraph.CaseFeatures, decoys []ilgraph.CaseFeatures, seed uint64) (start []ilgraph.CaseFeatures, changes []change) {
	r := rand.New(rand.NewPCG(seed, 3))
	wrong := func(i int) *ilgraph.CaseFeatures {
		w := final[r.IntN(len(final))]
		w.ID = final[i].ID
		w.Features = slices.Clone(w.Features)
		return &w
	}
	for i := range final {
		row := final[i]
		switch i % 3 {
		case 0:
			changes = append(changes, change{row.ID, &row})
		case 1:
			start = append(start, *wrong(i))
			if i%2 == 0 {
				changes = append(changes, change{row.ID, wrong(i)})
			}
			changes = append(changes, change{row.ID, &row})
		default:
			start = append(start, row)
		}
	}
	for i := range decoys {
		d := decoys[i]
		d.ID = fmt.Sprintf("ZZ-DECOY-%04d", i)
		if i%2 == 0 {
			start = append(start, d)
		} else {
			changes = append(changes, change{d.ID, &d})
		}
		changes = append(changes, change{d.ID, nil})
	}
	// Shuffle, keeping each case's own changes in order.
	r.Shuffle(len(start), func(i, j int) { start[i], start[j] = start[j], start[i] })
	byCase := map[string][]change{}
	var order []string
	for _, c := range changes {
		if byCase[c.id] == nil {
			order = append(order, c.id)
		}
		byCase[c.id] = append(byCase[c.id], c)
	}
	changes = changes[:0]
	for len(order) > 0 {
		k := r.IntN(len(order))
		id := order[k]
		changes = append(changes, byCase[id][0])
		byCase[id] = byCase[id][1:]
		if len(byCase[id]) == 0 {
			order = slices.Delete(order, k, k+1)
		}
	}
	return start, changes
}

// TestSnapshotWithConforms runs the conformance suite on snapshots reached
// by changes rather than built: each corpus of the suite, reached from a
// start that lacks a third of its cases, has wrong tags on another third
// and holds decoys, by creates, updates and deletes in random order. The
// answers must be the reference store's over the final cases, exactly.
// A snapshot's sort orders follow a change only where they were made (a
// list was asked of it); each corpus is run with no list asked before the
// changes (the final snapshot sorts its cases itself) and with one asked
// of the start (every change moves the orders), and with the changes
// applied one at a time (With) and in batches of 1 to 40 (WithAll, as a
// replica applies the change feed).
func TestSnapshotWithConforms(t *testing.T) {
	for _, co := range storetest.Corpora(t) {
		for _, listFirst := range []bool{false, true} {
			for _, batched := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/list_first_%v/batched_%v", co.Name, listFirst, batched), func(t *testing.T) {
					snapshotWithConforms(t, co, listFirst, batched)
				})
			}
		}
	}
}

func snapshotWithConforms(t *testing.T, co storetest.Corpus, listFirst, batched bool) {
	final := rowsOf(co.Cases)
	start, changes := historyTo(final, rowsOf(generated(t, 60, 11)), 5)
	s := memstore.Build(start, 1)
	if listFirst {
		s.ListCases(ilgraph.CaseFilter{}, ilgraph.SortDateDesc, 0, 1)
	}
	before := s
	if batched {
		r := rand.New(rand.NewPCG(7, uint64(len(changes))))
		for i := 0; i < len(changes); {
			n := min(1+r.IntN(40), len(changes)-i)
			edits := make([]memstore.Edit, n)
			for k, c := range changes[i : i+n] {
				edits[k] = memstore.Edit{ID: c.id, Row: c.row}
			}
			i += n
			var moves []memstore.Moved
			if s, moves = s.WithAll(int64(i+1), edits); len(moves) != n {
				t.Fatalf("%d edits gave %d moves", n, len(moves))
			}
		}
	} else {
		for i, c := range changes {
			s, _ = s.With(int64(i+2), c.id, c.row)
		}
	}
	if got, want := s.Version, int64(len(changes)+1); got != want {
		t.Errorf("version: got %d, want %d", got, want)
	}
	if got, want := s.Len(), len(final); got != want {
		t.Fatalf("cases after %d changes: got %d, want %d", len(changes), got, want)
	}
	storetest.Run(t, co, readModel{s}, storetest.Options{Filters: 200, StatsWithoutRelationships: true})
	// The snapshot the changes started from is untouched: it still
	// answers as a build of the start does.
	fresh := memstore.Build(start, 1)
	if got, want := before.Facets(ilgraph.CaseFilter{}), fresh.Facets(ilgraph.CaseFilter{}); !reflect.DeepEqual(got, want) {
		t.Errorf("the snapshot before the changes changed: facets got %v, want %v", got, want)
	}
	sameAnswers(t, s, memstore.Build(final, 1), final)
}

// sameAnswers compares what the conformance suite does not ask of two
// snapshots over the same cases: each case's tags and features, and its
// same-root-cause list.
func sameAnswers(t *testing.T, got, want *memstore.Snapshot, rows []ilgraph.CaseFeatures) {
	t.Helper()
	fails := 0
	for _, r := range rows {
		g, _ := got.CaseTags(r.ID)
		w, _ := want.CaseTags(r.ID)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("CaseTags(%s): got %+v, want %+v", r.ID, g, w)
			fails++
		}
		gf, wf := got.Features(r.ID), want.Features(r.ID)
		slices.SortFunc(gf, cmpFeature)
		slices.SortFunc(wf, cmpFeature)
		if !slices.Equal(gf, wf) {
			t.Errorf("Features(%s): got %v, want %v", r.ID, gf, wf)
			fails++
		}
		gr, gt, _ := got.SameRootCause(r.ID, 0, 1000)
		wr, wt, _ := want.SameRootCause(r.ID, 0, 1000)
		if gt != wt || !reflect.DeepEqual(gr, wr) {
			t.Errorf("SameRootCause(%s): got %d refs %v, want %d refs %v", r.ID, gt, gr, wt, wr)
			fails++
		}
		if fails > 10 {
			t.Fatal("more than 10 differences")
		}
	}
}

func cmpFeature(a, b ilgraph.Feature) int {
	if a.Kind != b.Kind {
		if a.Kind < b.Kind {
			return -1
		}
		return 1
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// TestWithKeepsNumbersDense checks where a change puts the cases: a create
// takes the next number, an update keeps its own, a delete gives its
// number to the last case, and a delete of an unknown case moves nothing.
func TestWithKeepsNumbersDense(t *testing.T) {
	rows := rowsOf(generated(t, 5, 2))
	s := memstore.Build(rows[:4], 1)
	extra := rows[4]
	s2, m := s.With(2, extra.ID, &extra)
	if m != (memstore.Moved{Old: -1, New: 4, From: -1}) {
		t.Errorf("create: got %+v", m)
	}
	upd := rows[1]
	s3, m := s2.With(3, upd.ID, &upd)
	if m != (memstore.Moved{Old: 1, New: 1, From: -1}) {
		t.Errorf("update: got %+v", m)
	}
	s4, m := s3.With(4, rows[1].ID, nil)
	if m != (memstore.Moved{Old: 1, New: -1, From: 4}) {
		t.Errorf("delete: got %+v", m)
	}
	if n, _ := s4.Number(extra.ID); n != 1 || s4.Len() != 4 || s4.Has(rows[1].ID) {
		t.Errorf("after the delete: %s is number %d of %d cases; deleted case still there: %v", extra.ID, n, s4.Len(), s4.Has(rows[1].ID))
	}
	if _, m := s4.With(5, "NO-SUCH", nil); m != (memstore.Moved{Old: -1, New: -1, From: -1}) {
		t.Errorf("delete of an unknown case: got %+v", m)
	}
	if s.Len() != 4 || !s.Has(rows[1].ID) || s.Has(extra.ID) {
		t.Errorf("the first snapshot changed: %d cases", s.Len())
	}
}
