package memstore_test

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	var ids []string
	for i := range c.Len() {
		ids = append(ids, c.ID(int32(i)))
	}
	if !slices.Equal(rec.ids, ids) || len(rec.ids) != len(cases) {
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

// versionGraph is countingGraph with a version safe to move while the
// source reads it.
type versionGraph struct {
	countingGraph
	mu sync.Mutex
	v  int64
}

func (g *versionGraph) CorpusVersion(context.Context) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.v, nil
}

func (g *versionGraph) set(v int64) {
	g.mu.Lock()
	g.v = v
	g.mu.Unlock()
}

// TestSourceAppliesChangesInOrder: changes applied out of order wait for
// the ones before them and land in version order, with no read of the
// graph; an Applier's value follows them, another consumer's stays until
// the settling build, which comes SettleAfter after the last change; a
// change whose predecessor never comes gives up after ApplyWait and the
// corpus is read again.
func TestSourceAppliesChangesInOrder(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 50, 3)
	g := &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases[:40]}}, v: 1}
	src := memstore.NewSource(g)
	src.SettleAfter = -1
	src.ApplyWait = 200 * time.Millisecond
	rec := &recorder{}
	src.Register(rec)
	sim := similarity.NewService(nil, src)
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}
	// Version 2 creates cases[40]; version 3 deletes cases[0]. The later
	// one is applied first.
	release := src.Hold()
	g.set(3)
	done := make(chan bool)
	go func() { done <- src.Apply(ctx, 3, memstore.Change{ID: cases[0].ID}) }()
	time.Sleep(20 * time.Millisecond)
	if c, _ := src.Current(ctx); c != nil {
		t.Error("Current answered while the corpus is behind the graph")
	}
	if !src.Apply(ctx, 2, memstore.Change{ID: cases[40].ID, Case: cases[40]}) || !<-done {
		t.Fatal("the changes were not applied")
	}
	release()
	c, err := src.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != 3 || c.Applied != 2 || !c.Has(cases[40].ID) || c.Has(cases[0].ID) || c.Len() != 40 {
		t.Errorf("after the changes: version %d, %d applied, %d cases, has the new case %v, has the deleted %v",
			c.Version, c.Applied, c.Len(), c.Has(cases[40].ID), c.Has(cases[0].ID))
	}
	if src.Builds() != 1 || g.reads != 1 {
		t.Errorf("builds %d, reads %d: want 1 and 1", src.Builds(), g.reads)
	}
	if n := c.Value(rec).(int); n != 40 {
		t.Errorf("the recorder's value: got %d, want the build's 40 until the next build", n)
	}
	ix, err := sim.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Has(cases[40].ID) || ix.Has(cases[0].ID) || ix.Version != 3 {
		t.Errorf("the similarity index did not follow: version %d", ix.Version)
	}

	// A change whose predecessor (version 4) never comes.
	release = src.Hold()
	g.set(5)
	if src.Apply(ctx, 5, memstore.Change{ID: cases[41].ID, Case: cases[41]}) {
		t.Error("a change after a gap was applied")
	}
	release()
	g.cases = append(g.cases[1:40:40], cases[40], cases[41])
	c, err = src.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != 5 || !c.Has(cases[41].ID) || src.Builds() != 2 {
		t.Errorf("after the gap: version %d, has %s %v, builds %d; want 5, true, 2", c.Version, cases[41].ID, c.Has(cases[41].ID), src.Builds())
	}

	// The settling build follows the last change.
	src.SettleAfter = 50 * time.Millisecond
	g.cases = append(g.cases, cases[42])
	release = src.Hold()
	g.set(6)
	if !src.Apply(ctx, 6, memstore.Change{ID: cases[42].ID, Case: cases[42]}) {
		t.Fatal("change 6 not applied")
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for src.Builds() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		if c, _ = src.Get(ctx); c.Applied == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.Applied != 0 || c.Value(rec).(int) != 42 || c.Version != 6 {
		t.Errorf("after settling: %d applied since the build, recorder %d, version %d; want 0, 42, 6", c.Applied, c.Value(rec).(int), c.Version)
	}
}

// TestApplyBeforeTheFirstBuild: a change applied before the corpus was
// ever built returns at once (not after ApplyWait), and the first build
// reads it from the graph.
func TestApplyBeforeTheFirstBuild(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 20, 5)
	g := &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases}}, v: 2}
	src := memstore.NewSource(g)
	src.SettleAfter = -1
	src.ApplyWait = time.Minute
	start := time.Now()
	if src.Apply(ctx, 2, memstore.Change{ID: cases[0].ID, Case: cases[0]}) {
		t.Error("a change was applied to a corpus never built")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Apply before the first build took %s", d)
	}
	c, err := src.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 20 || c.Version != 2 || src.Builds() != 1 {
		t.Errorf("the first build: %d cases at version %d after %d builds", c.Len(), c.Version, src.Builds())
	}
	if d := src.LastBuild(); d <= 0 || d > time.Since(start) {
		t.Errorf("LastBuild %s, want the build's time: more than 0, less than %s", d, time.Since(start))
	}
}

// TestAggregatesWaitForTheFeed: behind the graph by changes the feed
// holds, an aggregate question waits for the catch-up and answers from
// memory, as a corpus built over the cases would; a list does not wait
// (the graph answers it quickly); and a corpus further behind than it
// follows does not make an aggregate wait for the build.
func TestAggregatesWaitForTheFeed(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 62, 8)
	byID := byIDOf(cases)
	g := &feedGraph{versionGraph: &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases[:50]}}, v: 1}}
	src := memstore.NewSource(g)
	src.SettleAfter = -1
	src.MaxFollow = 5
	src.Parse = func(id []byte) (*ilgraph.Case, error) { return byID[string(id)], nil }
	st := memstore.NewStore(src)
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}
	version := int64(1)
	publish := func(n int) {
		from := len(g.cases)
		var feed []ilgraph.CorpusChange
		for _, c := range cases[from : from+n] {
			version++
			feed = append(feed, ilgraph.CorpusChange{Version: version, ID: c.ID, JSON: c.ID})
		}
		g.cases = cases[:from+n]
		g.feed(feed)
		g.set(version)
	}
	all := ilgraph.CaseFilter{}

	publish(3)
	got, ok, err := st.CaseStats(ctx, all)
	if want := memstore.Build(rowsOf(cases[:53]), version).Stats(all); !ok || err != nil {
		t.Errorf("statistics three changes behind: ok %v, err %v; want an answer from memory", ok, err)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("statistics three changes behind: %d cases, %v by root cause; want %d, %v", got.Cases, got.PerRootCause, want.Cases, want.PerRootCause)
	}
	if src.Follows() != 1 || src.Builds() != 1 {
		t.Errorf("%d catch-ups from the feed and %d builds, want 1 and 1", src.Follows(), src.Builds())
	}

	publish(1)
	if _, _, ok, err := st.ListCases(ctx, all, ilgraph.SortDateDesc, 0, 10); ok || err != nil {
		t.Errorf("a list one change behind: ok %v, err %v; want false at once", ok, err)
	}
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}

	publish(6)
	if _, ok, err := st.CaseStats(ctx, all); ok || err != nil {
		t.Errorf("statistics six changes behind, following at most five: ok %v, err %v; want false at once", ok, err)
	}
	c, err := src.Get(ctx)
	if err != nil || c.Len() != 60 || src.Builds() != 2 {
		t.Errorf("after six changes: %v cases, err %v, %d builds; want 60 and a second build", c.Len(), err, src.Builds())
	}

	// A catch-up that outlasts the wait is waited for to its end once it
	// holds the feed's batch (here each case takes 700 ms to parse, the
	// wait 250 ms: time enough for the catch-up to start).
	src.CatchUpWait = 250 * time.Millisecond
	src.Parse = func(id []byte) (*ilgraph.Case, error) {
		time.Sleep(700 * time.Millisecond)
		return byID[string(id)], nil
	}
	publish(2)
	got, ok, err = st.CaseStats(ctx, all)
	if want := memstore.Build(rowsOf(cases[:62]), version).Stats(all); !ok || err != nil {
		t.Errorf("statistics behind a catch-up longer than the wait: ok %v, err %v; want an answer from memory", ok, err)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("statistics after a long catch-up: %d cases, want %d", got.Cases, want.Cases)
	}
	if src.Follows() != 3 || src.Builds() != 2 {
		t.Errorf("%d catch-ups from the feed and %d builds, want 3 and 2", src.Follows(), src.Builds())
	}
}

// blockingGraph is a feedGraph whose next read of the cases, once armed,
// says it has begun (entered) and waits for block: a build held in the
// middle of its read.
type blockingGraph struct {
	*feedGraph
	block, entered atomic.Pointer[chan struct{}]
}

func (g *blockingGraph) arm() (entered, block chan struct{}) {
	entered, block = make(chan struct{}), make(chan struct{})
	g.entered.Store(&entered)
	g.block.Store(&block)
	return entered, block
}

func (g *blockingGraph) EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error {
	cases := casesGraph{cases: g.cases} // as of the version the build read
	if b := g.block.Swap(nil); b != nil {
		close(*g.entered.Load())
		<-*b
	}
	return cases.EachCase(ctx, fn)
}

// TestSettlingBuildLeavesTheFeedFollowed: the settling build reads the
// graph beside the corpus that answers, so a change from the feed while
// it reads is followed at once; the settled corpus, built before that
// change, is caught up with it, and then settled again.
func TestSettlingBuildLeavesTheFeedFollowed(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 52, 9)
	byID := byIDOf(cases)
	g := &blockingGraph{feedGraph: &feedGraph{versionGraph: &versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases[:50]}}, v: 1}}}
	src := memstore.NewSource(g)
	src.SettleAfter = 30 * time.Millisecond
	src.Parse = func(id []byte) (*ilgraph.Case, error) { return byID[string(id)], nil }
	similarity.NewService(nil, src)
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}
	publish := func(version int64) {
		c := cases[len(g.cases)]
		g.feed([]ilgraph.CorpusChange{{Version: version, ID: c.ID, JSON: c.ID}})
		g.cases = cases[:len(g.cases)+1]
		g.set(version)
	}
	entered, block := g.arm()
	publish(2)
	if c, err := src.Get(ctx); err != nil || c.Version != 2 || src.Follows() != 1 {
		t.Fatalf("the first change: %v, %d catch-ups; want version 2 from the feed", err, src.Follows())
	}
	select {
	case <-entered: // the settling build reads the graph at version 2
	case <-time.After(10 * time.Second):
		t.Fatal("no settling build began")
	}
	publish(3)
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := src.Get(short)
	if err != nil || c.Version != 3 || src.Follows() != 2 {
		t.Fatalf("a change during the settling build: %v, %d catch-ups; want version 3 from the feed at once", err, src.Follows())
	}
	close(block)
	// The settled corpus (version 2, caught up to 3), then the settling
	// build the second catch-up asked for: built at 3, nothing applied.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, _ = src.Get(ctx); c.Applied == 0 && src.Builds() == 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if c.Version != 3 || c.Applied != 0 || c.Len() != 52 || src.Builds() != 3 {
		t.Errorf("after settling: version %d, %d changes applied, %d cases, %d builds; want 3, 0, 52, 3", c.Version, c.Applied, c.Len(), src.Builds())
	}
}

// byIDOf indexes cases by id (a fake feed's parse).
func byIDOf(cases []*ilgraph.Case) map[string]*ilgraph.Case {
	byID := make(map[string]*ilgraph.Case, len(cases))
	for _, c := range cases {
		byID[c.ID] = c
	}
	return byID
}

// idGraph is a versionGraph with a corpus id, so that a source with a
// snapshot directory writes and reads its file.
type idGraph struct{ *versionGraph }

func (idGraph) CorpusID(context.Context) (string, error) { return "corpus-of-the-test", nil }

// TestAggregatesWaitForTheSnapshotFile: at the start, an aggregate waits
// for the corpus read from the snapshot file rather than ask the graph;
// without a file to read it does not wait.
func TestAggregatesWaitForTheSnapshotFile(t *testing.T) {
	ctx := context.Background()
	cases := generated(t, 40, 5)
	g := idGraph{&versionGraph{countingGraph: countingGraph{casesGraph: casesGraph{cases: cases}}, v: 1}}
	dir := t.TempDir()
	first := memstore.NewSource(g)
	first.SnapshotDir, first.SettleAfter = dir, -1
	if _, err := first.Get(ctx); err != nil {
		t.Fatal(err)
	}
	first.WaitSaved()

	all := ilgraph.CaseFilter{}
	restarted := memstore.NewSource(g)
	restarted.SnapshotDir, restarted.SettleAfter = dir, -1
	got, ok, err := memstore.NewStore(restarted).CaseStats(ctx, all)
	if want := memstore.Build(rowsOf(cases), 1).Stats(all); !ok || err != nil {
		t.Errorf("statistics at the start, the snapshot file at hand: ok %v, err %v; want an answer from memory", ok, err)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("statistics from the snapshot file: %d cases, want %d", got.Cases, want.Cases)
	}
	if restarted.FileLoads() != 1 || restarted.Builds() != 0 {
		t.Errorf("%d corpora read from the file, %d builds; want 1 and 0", restarted.FileLoads(), restarted.Builds())
	}

	// No file: the build from the graph (held here) is not waited for
	// past the probe, however long the catch-up wait.
	held := heldGraph{g, make(chan struct{})}
	defer close(held.release)
	none := memstore.NewSource(held)
	none.SnapshotDir, none.SettleAfter, none.CatchUpWait = t.TempDir(), -1, time.Minute
	start := time.Now()
	if _, ok, err := memstore.NewStore(none).CaseStats(ctx, all); ok || err != nil {
		t.Errorf("statistics at the start, no snapshot file: ok %v, err %v; want false (the graph answers)", ok, err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("statistics at the start, no snapshot file, waited %v for a build from the graph", took)
	}
}

// heldGraph is an idGraph whose cases are read only once release closes.
type heldGraph struct {
	idGraph
	release chan struct{}
}

func (g heldGraph) EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error {
	<-g.release
	return g.idGraph.EachCase(ctx, fn)
}
