package memstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// countingGraph is casesGraph with a version tests move, a count of the
// corpus reads, and organizations that can be read wrong (as a load between
// reading them and reading the cases makes them).
type countingGraph struct {
	casesGraph
	version   int64
	reads     int
	wrongOrgs bool
}

func (g *countingGraph) CorpusVersion(context.Context) (int64, error) { return g.version, nil }

func (g *countingGraph) CaseOrganizations(ctx context.Context) ([]string, error) {
	orgs, err := g.casesGraph.CaseOrganizations(ctx)
	if g.wrongOrgs {
		orgs = orgs[1:]
	}
	return orgs, err
}

func (g *countingGraph) EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error {
	g.reads++
	return g.casesGraph.EachCase(ctx, fn)
}

// recorder is a consumer that keeps the ids it was handed and the snapshot
// it finished with.
type recorder struct {
	ids      []string
	finished []*memstore.Snapshot
}

func (r *recorder) Start(context.Context, []string) (memstore.Consuming, error) {
	r.ids = nil
	return r, nil
}

func (r *recorder) Add(c *ilgraph.Case) { r.ids = append(r.ids, c.ID) }

func (r *recorder) Finish(s *memstore.Snapshot) (any, error) {
	r.finished = append(r.finished, s)
	return len(r.ids), nil
}

// TestSourceReadsOncePerVersion: a source reads the corpus once per corpus
// version, however many ask; each consumer sees every case in the
// snapshot's order and finishes with that snapshot; the similarity index
// and the suggestion engine built over it answer as those built on their
// own from the same cases.
func TestSourceReadsOncePerVersion(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 300, 2)
	g := &countingGraph{casesGraph: casesGraph{cases: cases, vocab: corpus.Vocab(t, corpus.Seeds(t)+"/vocab.json")}, version: 1}
	src := memstore.NewSource(g)
	rec := &recorder{}
	src.Register(rec)
	sim := similarity.NewService(g, src)
	sg := suggest.NewService(g, src, suggest.Options{})
	for range 3 {
		if _, err := src.Get(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := sim.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := src.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g.reads != 1 {
		t.Errorf("%d reads of the corpus at one version, want 1", g.reads)
	}
	if !slices.Equal(rec.ids, c.IDs()) || len(rec.ids) != len(cases) {
		t.Errorf("the consumer saw %d cases, the snapshot has %d (or in another order)", len(rec.ids), c.Len())
	}
	if len(rec.finished) != 1 || rec.finished[0] != c.Snapshot || c.Value(rec) != len(cases) {
		t.Errorf("the consumer finished %d times, with the corpus's snapshot: %v; value %v", len(rec.finished), len(rec.finished) == 1 && rec.finished[0] == c.Snapshot, c.Value(rec))
	}
	if ix.Corpus() != c.Snapshot {
		t.Error("the similarity index ranks over another snapshot than the store's")
	}
	// The same answers as built apart from the same cases.
	alone := similarity.Build(rowsOf(cases), 1)
	opt := ilgraph.DefaultOptions(10)
	for _, q := range []*ilgraph.Case{cases[0], cases[150], cases[299]} {
		if g, w := ix.Similar(ix.Features(q.ID), q.ID, opt), alone.Similar(alone.Features(q.ID), q.ID, opt); len(g) != len(w) || len(g) > 0 && (g[0].ID != w[0].ID || g[0].Score != w[0].Score) {
			t.Errorf("similar to %s over the shared snapshot: %v, built alone %v", q.ID, g, w)
		}
	}
	values := make([]ilgraph.Case, len(cases))
	for i, c := range cases {
		values[i] = *c
	}
	eng, err := suggest.New(g.vocab, values, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := cases[7].Trigger.En + " " + cases[7].Lessons.En
	got, gerr := sg.Suggest(ctx, text, "")
	want, werr := eng.Suggest(text, "", "")
	if gerr != nil || werr != nil || len(got.Neighbours) == 0 || !slices.Equal(got.Neighbours, want.Neighbours) || len(got.ByKind) != len(want.ByKind) {
		t.Errorf("suggestions over the shared snapshot differ from the engine built alone: %v %v\n%+v\n%+v", gerr, werr, got, want)
	}
	// A load moves the version: one more read.
	g.version = 2
	if _, err := src.Get(ctx); err != nil || g.reads != 2 {
		t.Errorf("after the version moved: %v, %d reads, want 2", err, g.reads)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a consumer after the first build did not panic")
		}
	}()
	src.Register(&recorder{})
}

// TestSourceRefusesChangedOrganizations: when the organizations the cases
// give are not those read before them, the build is refused (ECONFLICT),
// every consumer is finished with nil, and the next request builds again.
func TestSourceRefusesChangedOrganizations(t *testing.T) {
	ctx := context.Background()
	g := &countingGraph{casesGraph: casesGraph{cases: generated(t, 50, 3)}, version: 1, wrongOrgs: true}
	src := memstore.NewSource(g)
	rec := &recorder{}
	src.Register(rec)
	if _, err := src.Get(ctx); ilgraph.ErrorCode(err) != ilgraph.ECONFLICT {
		t.Fatalf("got %v, want ECONFLICT", err)
	}
	if len(rec.finished) != 1 || rec.finished[0] != nil {
		t.Errorf("the consumer was finished %v, want once with nil", rec.finished)
	}
	g.wrongOrgs = false
	if c, err := src.Get(ctx); err != nil || c.Len() != 50 || g.reads != 2 {
		t.Errorf("the next request: %v, %d reads", err, g.reads)
	}
}
