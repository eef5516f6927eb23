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
func BenchmarkReadModel(b *testing.B) {
	sim := similarity.Build(rowsOf(generated(b, benchCases(b), 1)), 1)
	defer runtime.KeepAlive(sim)
	ix := sim.Corpus()
	year := ilgraph.CaseFilter{DateFrom: "2021-01-01", DateTo: "2021-12-31"}
	term := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{"application-database"}}}}
	for _, f := range []struct {
		name string
		f    ilgraph.CaseFilter
	}{{"all", ilgraph.CaseFilter{}}, {"year", year}, {"term", term}} {
		b.Run("stats/"+f.name, func(b *testing.B) {
			for b.Loop() {
				ix.Stats(f.f)
			}
		})
		b.Run("facets/"+f.name, func(b *testing.B) {
			for b.Loop() {
				ix.Facets(f.f)
			}
		})
		b.Run("cooccurrence/"+f.name, func(b *testing.B) {
			for b.Loop() {
				ix.Cooccurrence(ilgraph.KindRootCause, ilgraph.KindComponent, f.f)
			}
		})
		b.Run("breakdown/"+f.name, func(b *testing.B) {
			for b.Loop() {
				ix.Breakdown(ilgraph.Axis(ilgraph.KindRootCause), ilgraph.AxisYear, f.f)
			}
		})
		b.Run("page/"+f.name, func(b *testing.B) {
			for b.Loop() {
				ix.ListCases(f.f, ilgraph.SortDateDesc, 0, 100)
			}
		})
	}
	b.Run("same_root_cause", func(b *testing.B) {
		for b.Loop() {
			ix.SameRootCause("GEN-0000042", 0, 20)
		}
	})
}
