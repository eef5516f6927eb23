package suggest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
)

// TestEngineFollowsWrites: an engine built over a start corpus and told of
// writes (creates, updates of some cases twice, deletes) in random order
// suggests as an engine built over the corpus the writes made: the same
// confidence for every term and the same neighbours with the same scores,
// for English and Korean texts, with and without a case left out.
func TestEngineFollowsWrites(t *testing.T) {
	v, final, _ := seeds(t)
	r := rand.New(rand.NewPCG(8, 1))
	type change struct {
		id string
		c  *ilgraph.Case
	}
	var start []ilgraph.Case
	var changes []change
	inStart := map[string]bool{}
	for i := range final {
		c := final[i]
		switch i % 4 {
		case 0: // created by a write
			changes = append(changes, change{c.ID, &final[i]})
		case 1: // starts wrong, corrected (some twice)
			w := final[r.IntN(len(final))]
			w.ID, w.Org, w.OrgSlug = c.ID, c.Org, c.OrgSlug
			start = append(start, w)
			inStart[c.Org] = true
			if i%3 == 0 {
				w2 := final[r.IntN(len(final))]
				w2.ID, w2.Org, w2.OrgSlug = c.ID, c.Org, c.OrgSlug
				changes = append(changes, change{c.ID, &w2})
			}
			changes = append(changes, change{c.ID, &final[i]})
		default:
			start = append(start, c)
			inStart[c.Org] = true
		}
	}
	// Decoys, deleted by writes; one of each organization the start would
	// lack, so that both engines set aside the same names.
	for i := range final {
		c := final[i]
		if inStart[c.Org] && i%9 != 0 {
			continue
		}
		inStart[c.Org] = true
		d := final[(i+5)%len(final)]
		d.ID, d.Org, d.OrgSlug = fmt.Sprintf("ZZ-%04d", i), c.Org, c.OrgSlug
		start = append(start, d)
		changes = append(changes, change{d.ID, nil})
	}
	r.Shuffle(len(changes), func(i, j int) { changes[i], changes[j] = changes[j], changes[i] })
	// Keep each case's own writes in their order: the last one written for
	// an id must be its final version (or its delete).
	last := map[string]int{}
	for i, ch := range changes {
		last[ch.id] = i
	}
	for id, i := range last {
		want := (*ilgraph.Case)(nil)
		for k := range final {
			if final[k].ID == id {
				want = &final[k]
			}
		}
		changes[i].c = want
	}

	// In batches of one to four changes, as writes arrive, and in one
	// batch, as a replica follows a load from the feed (a case written
	// twice then sits in one batch).
	follow := func(sizes func(size int) int) *Engine {
		e, err := New(v, start, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, size := 0, 1; i < len(changes); i, size = i+size, sizes(size) {
			var batch []memstore.Applied
			for _, ch := range changes[i:min(i+size, len(changes))] {
				batch = append(batch, memstore.Applied{ID: ch.id, Case: ch.c})
			}
			e = e.with(batch)
		}
		if e.Written() == 0 {
			t.Fatal("the engine counts no writes")
		}
		return e
	}
	t.Run("batches_of_1_to_4", func(t *testing.T) {
		engineAnswersAsFresh(t, follow(func(size int) int { return size%4 + 1 }), v, final)
	})
	t.Run("one_batch", func(t *testing.T) {
		engineAnswersAsFresh(t, follow(func(int) int { return len(changes) }), v, final)
	})
}

// engineAnswersAsFresh checks that e, an engine that followed changes to
// the corpus final, suggests as one built over final does.
func engineAnswersAsFresh(t *testing.T, e *Engine, v *ilgraph.Vocabulary, final []ilgraph.Case) {
	t.Helper()
	fresh, err := New(v, final, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var queries []struct{ text, lang, exclude string }
	for i := 0; i < len(final); i += 7 {
		c := final[i]
		queries = append(queries, struct{ text, lang, exclude string }{c.Title.En + ". " + c.Summary.En, "en", ""})
		queries = append(queries, struct{ text, lang, exclude string }{c.Title.En + ". " + c.Summary.En, "en", c.ID})
		if c.Summary.Ko != "" {
			queries = append(queries, struct{ text, lang, exclude string }{c.Summary.Ko, "ko", c.ID})
		}
	}
	queries = append(queries, struct{ text, lang, exclude string }{"our Kafka consumers lag and the broker disks are filling up; producers time out", "", ""})
	for _, q := range queries {
		got, err := e.Suggest(q.text, q.lang, q.exclude)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Suggest(q.text, q.lang, q.exclude)
		if err != nil {
			t.Fatal(err)
		}
		label := fmt.Sprintf("%.50q (%s, without %q)", q.text, q.lang, q.exclude)
		if g, w := confidences(got), confidences(want); len(g) != len(w) {
			t.Fatalf("%s: %d terms suggested, want %d", label, len(g), len(w))
		} else {
			for k, c := range w {
				if math.Abs(g[k]-c) > 1.5e-4 {
					t.Fatalf("%s: %s confidence %.4f, want %.4f", label, k, g[k], c)
				}
			}
		}
		if g, w := neighbours(got), neighbours(want); g != w {
			t.Fatalf("%s: neighbours\n got %s\nwant %s", label, g, w)
		}
	}
}

func confidences(r *Result) map[string]float64 {
	out := map[string]float64{}
	for k, ss := range r.ByKind {
		for _, s := range ss {
			out[string(k)+"/"+s.ID] = s.Confidence
		}
	}
	return out
}

// neighbours lists the neighbours by score, ties by id (the engines number
// their cases differently, and break ties by number).
func neighbours(r *Result) string {
	ns := append([]Neighbour(nil), r.Neighbours...)
	sort.Slice(ns, func(i, j int) bool {
		if ns[i].Score != ns[j].Score {
			return ns[i].Score > ns[j].Score
		}
		return ns[i].CaseID < ns[j].CaseID
	})
	return fmt.Sprint(ns)
}
