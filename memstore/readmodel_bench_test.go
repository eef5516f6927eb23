package memstore_test

import (
	"runtime"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/similarity"
)

// BenchmarkReadModel times the read model's dashboard answers over a
// generated corpus of BENCH_CASES cases held in memory (no Neo4j), as a
// server holds it: the snapshot with the similarity index built over it
// (the live heap, and so how often the collector runs, is the server's).
// Beside ns/op, cpu-ns/op is the benchmark thread's CPU time per op, which
// the other work of a shared machine moves much less.
func BenchmarkReadModel(b *testing.B) {
	sim := similarity.Build(rowsOf(generated(b, benchCases(b), 1)), 1)
	defer runtime.KeepAlive(sim)
	ix := sim.Corpus()
	year := ilgraph.CaseFilter{DateFrom: "2021-01-01", DateTo: "2021-12-31"}
	term := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{"application-database"}}}}
	// What a snapshot makes once, on the first question that needs it (sort
	// orders, the aggregate index), is made before the timing starts.
	ix.Stats(ilgraph.CaseFilter{})
	ix.ListCases(ilgraph.CaseFilter{}, ilgraph.SortDateDesc, 0, 1)
	for _, f := range []struct {
		name string
		f    ilgraph.CaseFilter
	}{{"all", ilgraph.CaseFilter{}}, {"year", year}, {"term", term}} {
		b.Run("stats/"+f.name, func(b *testing.B) {
			done := cpuTime(b)
			for b.Loop() {
				ix.Stats(f.f)
			}
			done()
		})
		b.Run("facets/"+f.name, func(b *testing.B) {
			done := cpuTime(b)
			for b.Loop() {
				ix.Facets(f.f)
			}
			done()
		})
		b.Run("cooccurrence/"+f.name, func(b *testing.B) {
			done := cpuTime(b)
			for b.Loop() {
				ix.Cooccurrence(ilgraph.KindRootCause, ilgraph.KindComponent, f.f)
			}
			done()
		})
		b.Run("breakdown/"+f.name, func(b *testing.B) {
			done := cpuTime(b)
			for b.Loop() {
				ix.Breakdown(ilgraph.Axis(ilgraph.KindRootCause), ilgraph.AxisYear, f.f)
			}
			done()
		})
		b.Run("page/"+f.name, func(b *testing.B) {
			done := cpuTime(b)
			for b.Loop() {
				ix.ListCases(f.f, ilgraph.SortDateDesc, 0, 100)
			}
			done()
		})
	}
	b.Run("aggregate_index", func(b *testing.B) {
		done := cpuTime(b)
		for b.Loop() {
			ix.BuildAggregateIndex()
		}
		done()
	})
	b.Run("same_root_cause", func(b *testing.B) {
		done := cpuTime(b)
		for b.Loop() {
			ix.SameRootCause("GEN-0000042", 0, 20)
		}
		done()
	})
}
