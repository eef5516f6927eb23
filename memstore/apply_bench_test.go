package memstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// BenchmarkApply times what a write through the core adds in memory, over
// a generated corpus of BENCH_CASES cases (no Neo4j; the graph's side of a
// write is in explore's BenchmarkWriteVisibility): one case's change
// applied to the snapshot and the similarity index (Source.Apply), then
// the first list by date after it (the sort orders are made again on first
// use). The baseline, measured in the same run, is what each write cost
// before: the build of the snapshot and the index over the whole corpus
// (from memory here; from Neo4j it also reads every case).
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	cases := generated(b, benchCases(b)+1, 1)
	extra := cases[len(cases)-1]
	g := &feedGraph{versionGraph: &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases[:len(cases)-1]}}, v: 1}}
	src := memstore.NewSource(g)
	src.SettleAfter = -1
	similarity.NewService(nil, src)
	if _, err := src.Get(ctx); err != nil {
		b.Fatal(err)
	}
	version := int64(1)
	apply := func(ch memstore.Change) {
		version++
		g.set(version)
		if !src.Apply(ctx, version, ch) {
			b.Fatal("not applied")
		}
	}
	b.Run("update", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := cases[(i*7919)%(len(cases)-1)]
			i++
			apply(memstore.Change{ID: c.ID, Case: c})
		}
	})
	b.Run("create_then_delete", func(b *testing.B) {
		for b.Loop() {
			apply(memstore.Change{ID: extra.ID, Case: extra})
			apply(memstore.Change{ID: extra.ID})
		}
	})
	b.Run("update_then_first_list", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := cases[(i*7919)%(len(cases)-1)]
			i++
			apply(memstore.Change{ID: c.ID, Case: c})
			cur, _ := src.Get(ctx)
			cur.ListCases(ilgraph.CaseFilter{}, ilgraph.SortDateDesc, 0, 20)
		}
	})
	// What a replica does when another process changed many cases: the
	// change feed read and followed in one batch, against the same
	// changes applied one at a time (what it did before, up to 64) and
	// the build (what it did past 64). The feed's cases are the corpus's
	// own, updated; its "JSON" names the case (parsing is not timed).
	byID := byIDOf(cases)
	src.Parse = func(id []byte) (*ilgraph.Case, error) { return byID[string(id)], nil }
	next := 0
	feed := func(n int) []ilgraph.CorpusChange {
		out := make([]ilgraph.CorpusChange, n)
		for k := range out {
			c := cases[(next*7919)%(len(cases)-1)]
			next++
			version++
			out[k] = ilgraph.CorpusChange{Version: version, ID: c.ID, JSON: c.ID}
		}
		return out
	}
	for _, n := range []int{64, 500, 2000} {
		b.Run(fmt.Sprintf("feed_%d", n), func(b *testing.B) {
			for b.Loop() {
				g.feed(feed(n))
				g.set(version)
				cur, err := src.Get(ctx)
				if err != nil || cur.Version != version {
					b.Fatalf("at %d after the feed, want %d (%v)", cur.Version, version, err)
				}
			}
		})
	}
	b.Run("one_by_one_64", func(b *testing.B) {
		for b.Loop() {
			for _, ch := range feed(64) {
				g.set(ch.Version)
				if !src.Apply(ctx, ch.Version, memstore.Change{ID: ch.ID, Case: byID[ch.ID]}) {
					b.Fatal("not applied")
				}
			}
		}
	})
	b.Run("baseline_full_build", func(b *testing.B) {
		for b.Loop() {
			// A change the source is not told of: the corpus is built again.
			version++
			g.set(version)
			if _, err := src.Get(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// feedGraph is a versionGraph with a change feed of the changes it is
// given (feed).
type feedGraph struct {
	*versionGraph
	fmu     sync.Mutex
	changes []ilgraph.CorpusChange
}

// feed makes changes the feed's.
func (g *feedGraph) feed(changes []ilgraph.CorpusChange) {
	g.fmu.Lock()
	defer g.fmu.Unlock()
	g.changes = changes
}

func (g *feedGraph) ChangesSince(_ context.Context, from, to int64) ([]ilgraph.CorpusChange, bool, error) {
	g.fmu.Lock()
	defer g.fmu.Unlock()
	var out []ilgraph.CorpusChange
	for _, ch := range g.changes {
		if ch.Version > from && ch.Version <= to {
			out = append(out, ch)
		}
	}
	return out, int64(len(out)) == to-from, nil
}
