package memstore_test

import (
	"context"
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
	g := &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases[:len(cases)-1]}}, v: 1}
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
