package memstore_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// casesGraph is a memstore.Graph over cases in memory, for measuring what a
// source holds without Neo4j.
type casesGraph struct {
	cases []*ilgraph.Case
	vocab *ilgraph.Vocabulary
}

func (g *casesGraph) CorpusVersion(context.Context) (int64, error) { return 1, nil }

func (g *casesGraph) CaseOrganizations(context.Context) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, c := range g.cases {
		if !seen[c.Org] {
			seen[c.Org] = true
			out = append(out, c.Org)
		}
	}
	return out, nil
}

func (g *casesGraph) OrganizationNames(_ context.Context, fn func(id, name string)) error {
	for _, c := range g.cases {
		fn(c.OrgSlug, c.Org)
	}
	return nil
}

// EachCase gives each case as a read from Neo4j does, with strings of its
// own: the id and the title, which the store keeps, are copied, so that
// the heap a source holds counts their bytes.
func (g *casesGraph) EachCase(_ context.Context, fn func(*ilgraph.Case) error) error {
	for _, c := range g.cases {
		x := *c
		x.ID, x.Title.En, x.Title.Ko = strings.Clone(c.ID), strings.Clone(c.Title.En), strings.Clone(c.Title.Ko)
		if err := fn(&x); err != nil {
			return err
		}
	}
	return nil
}

func (g *casesGraph) Vocabulary(context.Context) (*ilgraph.Vocabulary, error) { return g.vocab, nil }

func (g *casesGraph) CaseIDsMatching(context.Context, ilgraph.CaseFilter) ([]string, error) {
	return nil, nil
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkCorpusHeap reports the live heap a served corpus of BENCH_CASES
// generated cases holds per case, as cmd/ilgraph wires it: the snapshot
// alone (the in-memory store), with the similarity index over it, and with
// the suggestion engine too. The cases themselves (the graph's side) are
// counted out. One build per run: b.N does not matter.
func BenchmarkCorpusHeap(b *testing.B) {
	n := benchCases(b)
	g := &casesGraph{cases: generated(b, n, 1), vocab: corpus.Vocab(b, filepath.Join(corpus.Seeds(b), "vocab.json"))}
	ctx := context.Background()
	for _, wiring := range []string{"store", "store+similarity", "store+similarity+suggest"} {
		b.Run(wiring, func(b *testing.B) {
			for b.Loop() {
			}
			before := liveHeap()
			src := memstore.NewSource(g)
			if wiring != "store" {
				similarity.NewService(g, src)
			}
			if wiring == "store+similarity+suggest" {
				suggest.NewService(g, src, suggest.Options{})
			}
			c, err := src.Get(ctx)
			if err != nil {
				b.Fatal(err)
			}
			after := liveHeap()
			b.ReportMetric(float64(after-before)/float64(c.Len()), "heap-B/case")
			runtime.KeepAlive(src)
			runtime.KeepAlive(c)
		})
	}
}
