package ilgraph_test

import (
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// BenchmarkSearchForms stems the searched fields of every seed case, as a
// load writes them (per op: the whole seed corpus).
func BenchmarkSearchForms(b *testing.B) {
	cases := corpus.Cases(b, filepath.Join(corpus.Seeds(b), "cases"))
	bytes := 0
	for _, c := range cases {
		bytes += len(c.Title.En) + len(c.Title.Ko) + len(c.Summary.En) + len(c.Summary.Ko)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			for _, s := range []string{c.Title.En, c.Title.Ko, c.Summary.En, c.Summary.Ko} {
				_ = ilgraph.SearchForms(s)
			}
		}
	}
	b.ReportMetric(float64(len(cases)), "cases/op")
}
