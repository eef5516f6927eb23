package memstore

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/parallel"
	"github.com/ilgraph/ilgraph/internal/versioned"
)

// Graph is what a Source reads the corpus from. graph.DB implements it.
type Graph interface {
	// CorpusVersion changes whenever a load changes the cases.
	CorpusVersion(ctx context.Context) (int64, error)
	// CaseOrganizations lists the distinct organization names the cases
	// give: what the text analyses of the consumers leave out must be known
	// before the first text.
	CaseOrganizations(ctx context.Context) ([]string, error)
	// OrganizationNames calls fn with every organization's id and name.
	OrganizationNames(ctx context.Context, fn func(id, name string)) error
	// EachCase calls fn with every case.
	EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error
}

// A Consumer builds a structure of its own from each corpus a Source
// reads, in the same read: it sees every case as it streams in (with its
// texts, which the snapshot does not keep, so that no text is held longer
// than its analysis takes) and then the finished snapshot, over which its
// structure is built. The similarity index and the suggestion engine are
// consumers.
type Consumer interface {
	// Start begins a build over a corpus whose cases give the
	// organization names orgs (read before the cases).
	Start(ctx context.Context, orgs []string) (Consuming, error)
}

// Consuming is one build of a Consumer.
type Consuming interface {
	// Add is called with each case in the snapshot's order (case numbers
	// 0, 1, …); the case is the reader's, not to be kept.
	Add(c *ilgraph.Case)
	// Finish completes the build over the snapshot of the cases added, and
	// returns the consumer's value (Corpus.Value). It is called with nil
	// when the read failed, to release what the build holds.
	Finish(s *Snapshot) (any, error)
}

// An Applier is a Consumer whose value follows changes of cases without a
// build (Source.Apply, and the change feed).
type Applier interface {
	Consumer
	// Apply returns the value over next, the snapshot after the changes,
	// in order, given v, the value over the snapshot before them. v is not
	// to be changed: readers may hold it.
	Apply(v any, next *Snapshot, changes []Applied) (any, error)
}

// Applied is one change as an Applier follows it: the case id, the case as
// written (nil for a delete), and where the change put the cases, numbered
// as after the changes before it (Snapshot.WithAll).
type Applied struct {
	Moved
	ID   string
	Case *ilgraph.Case
}

// Corpus is what a Source built at one corpus version: the snapshot and
// each consumer's value.
type Corpus struct {
	*Snapshot
	values map[Consumer]any
	// Applied counts the changes applied since the build it started from
	// (Source.Apply).
	Applied int
}

// Value returns a consumer's value (nil for a consumer the source does not
// know).
func (c *Corpus) Value(k Consumer) any { return c.values[k] }

// BuildTimeout bounds one build of a corpus. A million cases take minutes
// on a small shared machine (docs/benchmarks.md); the general bound of
// versioned.RebuildTimeout (5 minutes) would cut such a build short every
// time, and each request would start it again.
const BuildTimeout = 30 * time.Minute

// Source keeps a Corpus in step with the graph: it reads the corpus once
// per corpus version — the first time it is asked, and again, once, after a
// load has changed the cases (see package versioned) — and builds the
// snapshot and every registered consumer's value in that one read.
type Source struct {
	g         Graph
	mu        sync.Mutex
	consumers []Consumer
	started   bool
	v         versioned.Value[*Corpus]

	// The changes written through this process, by the corpus version they
	// made (Apply): those not applied yet (a write whose predecessor is
	// still on its way), and those applied since the last build, which a
	// build that finishes behind them catches up with.
	// amu guards pending and settle, lmu applied: lmu is taken while the
	// corpus is locked (catchUp), amu before it (drain), never the other
	// way.
	amu     sync.Mutex
	pending map[int64]Change
	settle  *time.Timer
	lmu     sync.Mutex
	applied map[int64]Change
	// SettleAfter is how long after the last applied change the source
	// builds the corpus again from the graph (see Apply); 0 means
	// DefaultSettleAfter, a negative value never.
	SettleAfter time.Duration
	// ApplyWait bounds how long Apply waits for the changes before its own
	// (0: DefaultApplyWait).
	ApplyWait time.Duration
	// Parse reads a case's JSON from the change feed (loader.ParseCase);
	// without it the feed is not read.
	Parse func([]byte) (*ilgraph.Case, error)
	// MaxFollow bounds the changes the source follows through the change
	// feed, in one batch; further behind, it builds the corpus afresh (0:
	// DefaultMaxFollow).
	MaxFollow int
	// CatchUpWait bounds how long a slow question waits for a catch-up
	// from the change feed rather than ask the graph (CurrentOrFollow; 0:
	// DefaultCatchUpWait, negative: it never waits).
	CatchUpWait time.Duration

	builds   atomic.Int64
	follows  atomic.Int64
	changes  atomic.Int64 // changes applied without a build
	lastNS   atomic.Int64 // how long the last build from the graph that finished took
	followNS atomic.Int64 // how long the last catch-up from the change feed took
	applying atomic.Bool  // a catch-up holds its batch from the feed and is applying it
	reading  atomic.Bool  // the first corpus is being read from the snapshot file

	// SnapshotDir, when set, is the directory of the source's snapshot
	// file (file.go): each build from the graph is written there, and the
	// first corpus is read from it when it is of this graph, at the graph's
	// corpus version or one the change feed leads on from.
	SnapshotDir string
	// Logger, when set, says what became of the snapshot file.
	Logger    *slog.Logger
	fileTried atomic.Bool
	saving    atomic.Bool
	saves     sync.WaitGroup
	fileLoads atomic.Int64
	loadNS    atomic.Int64 // how long reading the file took
	saveNS    atomic.Int64 // how long the last write of the file took
}

// ChangeFeed is a Graph that keeps the changes written through the core
// (graph.DB): a source that finds the graph ahead of its corpus reads the
// changes since (made by another server) and applies them, rather than
// build the corpus again, when the feed holds every one.
type ChangeFeed interface {
	ChangesSince(ctx context.Context, from, to int64) ([]ilgraph.CorpusChange, bool, error)
}

// Change is one case's change as the in-memory corpus applies it: the case
// as written, nil for a delete.
type Change struct {
	ID   string
	Case *ilgraph.Case
}

// DefaultSettleAfter is how long after the last change applied to the
// corpus a source builds it again from the graph: what a change does not
// update at once (the text channel's corpus statistics, the suggestion
// engine's indexes) catches up then.
const DefaultSettleAfter = time.Minute

// DefaultApplyWait bounds how long Apply waits for the changes before its
// own (written by other requests of this process, with a lower corpus
// version) to reach it; past it, the corpus is built again from the graph.
const DefaultApplyWait = 5 * time.Second

// NewSource returns a source over g.
func NewSource(g Graph) *Source {
	s := &Source{g: g}
	s.v = versioned.Value[*Corpus]{
		Version: g.CorpusVersion,
		Build: func(ctx context.Context) (*Corpus, int64, error) {
			c, err := s.build(ctx)
			if err != nil {
				return nil, 0, err
			}
			return c, c.Version, nil
		},
		What:    "the in-memory corpus",
		Timeout: BuildTimeout,
		CatchUp: s.catchUp,
	}
	return s
}

// SetMaxStaleness lets the source reuse a corpus-version read for up to d
// instead of reading the version for every request (versioned.Value's
// MaxAge): an answer from memory may then lag a change made by another
// process (a replica's write, a load) by up to d; this process's own
// writes are seen at once. 0 (the default): never stale. Call it before
// the source is used.
func (s *Source) SetMaxStaleness(d time.Duration) { s.v.MaxAge = max(d, 0) }

// Builds counts the corpus's builds from the graph since the source was
// made (changes applied with Apply, or read from the change feed, are not
// builds).
func (s *Source) Builds() int64 { return s.builds.Load() }

// LastBuild is how long the last build of the corpus from the graph that
// finished took (reading every case and building every consumer's index);
// 0 before the first.
func (s *Source) LastBuild() time.Duration { return time.Duration(s.lastNS.Load()) }

// LastFollow is how long the last catch-up from the change feed took
// (reading the changes and applying them in one batch); 0 before the first.
func (s *Source) LastFollow() time.Duration { return time.Duration(s.followNS.Load()) }

// seconds is d in seconds to the millisecond, for a log.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// Follows counts the times the source caught up with the graph by reading
// the change feed instead of building the corpus.
func (s *Source) Follows() int64 { return s.follows.Load() }

// ChangesApplied counts the changes applied to a corpus without a build:
// this process's writes (Apply) and other processes' read from the change
// feed (a change applied again to a corpus built meanwhile counts again).
func (s *Source) ChangesApplied() int64 { return s.changes.Load() }

// Version is the corpus version of the newest corpus the source holds,
// whether or not the graph has moved on since; -1 before the first.
func (s *Source) Version() int64 {
	if _, at, ok := s.v.Peek(); ok {
		return at
	}
	return -1
}

// Hold says that a change of a case is being written: until release, a
// reader that finds the corpus behind the graph answers from the graph
// (Current) or waits for the change (Get) rather than start a build. Call
// Apply with the change once written, then release.
func (s *Source) Hold() (release func()) { return s.v.Hold() }

// Apply brings the corpus up to version, the corpus version a change of one
// case through this process made (the version before it plus one), without
// a build: the snapshot and every Applier's value follow the change, and
// the values of other consumers stay as they were until the next build,
// which starts SettleAfter after the last change. It returns once the
// corpus is at version or past it — after the changes before it, written
// by other requests, were applied too — or after ApplyWait, when one of
// those never came (it is built again from the graph then). It reports
// whether the change was applied.
func (s *Source) Apply(ctx context.Context, version int64, ch Change) bool {
	if _, ok := s.v.At(); !ok {
		// No corpus yet (the first build is under way, or none was asked
		// for): the build, or the one after it, reads the change from the
		// graph.
		return false
	}
	s.amu.Lock()
	if s.pending == nil {
		s.pending = map[int64]Change{}
	}
	s.pending[version] = ch
	s.drain()
	s.amu.Unlock()
	wait := s.ApplyWait
	if wait <= 0 {
		wait = DefaultApplyWait
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		at, ok := s.v.At()
		if ok && at >= version {
			return true
		}
		moved := s.v.Wait()
		if at, ok := s.v.At(); ok && at >= version {
			return true
		}
		select {
		case <-moved:
			// A build or a catch-up may have brought the corpus up to the
			// changes before this one.
			s.amu.Lock()
			s.drain()
			s.amu.Unlock()
		case <-deadline.C:
			s.amu.Lock()
			delete(s.pending, version)
			s.amu.Unlock()
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// drain applies the pending changes that follow the corpus, in version
// order; s.amu is held.
func (s *Source) drain() {
	for {
		at, ok := s.v.At()
		if !ok {
			return
		}
		for v := range s.pending {
			if v <= at {
				delete(s.pending, v) // a build already holds it
			}
		}
		ch, ok := s.pending[at+1]
		if !ok {
			return
		}
		delete(s.pending, at+1)
		s.log(at+1, &ch)
		if done, err := s.v.Advance(at, at+1, func(c *Corpus) (*Corpus, error) { return s.apply(c, at+1, ch) }); err != nil || !done {
			s.log(at+1, nil)
			return
		}
		s.schedule()
	}
}

// log records the change applied at version (nil: forgets it).
func (s *Source) log(version int64, ch *Change) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if ch == nil {
		delete(s.applied, version)
		return
	}
	if s.applied == nil {
		s.applied = map[int64]Change{}
	}
	s.applied[version] = *ch
}

// apply makes the corpus after one change at version.
func (s *Source) apply(c *Corpus, version int64, ch Change) (*Corpus, error) {
	return s.applyAll(c, version, []Change{ch})
}

// applyAll makes the corpus after changes, in order, the last of which
// made version: the snapshot and every Applier's value follow all of them
// at once (a batch copies what it touches once, not once a change).
func (s *Source) applyAll(c *Corpus, version int64, changes []Change) (*Corpus, error) {
	edits := make([]Edit, len(changes))
	for k, ch := range changes {
		edits[k].ID = ch.ID
		if ch.Case != nil {
			r := ilgraph.SimilarityRow(ch.Case)
			edits[k].Row = &r
		}
	}
	next, moves := c.Snapshot.WithAll(version, edits)
	applied := make([]Applied, len(changes))
	for k, ch := range changes {
		applied[k] = Applied{Moved: moves[k], ID: ch.ID, Case: ch.Case}
	}
	// The appliers follow the changes side by side: each reads the new
	// snapshot and its own value only.
	keys := slices.Collect(maps.Keys(c.values))
	vals := make([]any, len(keys))
	errs := make([]error, len(keys))
	parallel.For(len(keys), func(i int) {
		vals[i] = c.values[keys[i]]
		if a, ok := keys[i].(Applier); ok {
			vals[i], errs[i] = a.Apply(vals[i], next, applied)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := &Corpus{Snapshot: next, values: make(map[Consumer]any, len(c.values)), Applied: c.Applied + len(changes)}
	for i, k := range keys {
		out.values[k] = vals[i]
	}
	s.changes.Add(int64(len(changes)))
	return out, nil
}

// catchUp applies to a corpus built at from the changes applied since, up
// to to; false when one of them is not known (written by another process).
func (s *Source) catchUp(c *Corpus, from, to int64) (*Corpus, bool) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if to <= from {
		return c, true
	}
	batch := make([]Change, 0, to-from)
	for v := from + 1; v <= to; v++ {
		ch, ok := s.applied[v]
		if !ok {
			return nil, false
		}
		batch = append(batch, ch)
	}
	next, err := s.applyAll(c, to, batch)
	if err != nil {
		return nil, false
	}
	return next, true
}

// schedule starts (or moves) the settling build; s.amu is held.
func (s *Source) schedule() {
	after := s.SettleAfter
	if after == 0 {
		after = DefaultSettleAfter
	}
	if after < 0 {
		return
	}
	if s.settle != nil {
		s.settle.Stop()
	}
	s.settle = time.AfterFunc(after, func() { s.v.Settle(context.Background(), s.settleBuild) })
}

// settleBuild is the settling build: the whole corpus read from the graph
// beside the corpus that answers meanwhile (versioned.Value.Settle, so the
// change feed is still followed), its analysis on all processors but one
// (parallel.Share), which it leaves to the requests: at a million cases it
// takes minutes, and nothing waits for it.
func (s *Source) settleBuild(ctx context.Context) (*Corpus, int64, error) {
	share := parallel.NewShare(runtime.GOMAXPROCS(0) - 1)
	c, err := s.buildFromGraph(parallel.WithShare(ctx, share))
	if err != nil {
		return nil, 0, err
	}
	return c, c.Version, nil
}

// DefaultMaxFollow bounds the changes a source follows through the change
// feed (Source.MaxFollow); further behind, it builds the corpus afresh. It
// is as many as the feed holds (graph.MaxFeed). The changes are applied in
// one batch, which copies each column and posting list it touches once: at
// 100,000 cases 2,000 changes cost about a tenth of a build from memory,
// and a build from Neo4j costs more (docs/benchmarks.md, "A load followed
// in one batch").
const DefaultMaxFollow = 2000

// DefaultCatchUpWait is how long an aggregate question waits for a
// catch-up from the change feed before it asks the graph, and, once the
// catch-up holds its batch, how much longer each time that runs out (see
// followWait): at 100,000 cases a load of 2,000 was followed in 0.6–1.5 s
// while the graph took 2.9–7.0 s for the statistics (docs/benchmarks.md,
// "A load followed in one batch" and "A catch-up on every processor"); a
// catch-up of a few writes takes milliseconds.
const DefaultCatchUpWait = 3 * time.Second

// follow brings the current corpus up to the graph's version with the
// change feed: ok false when there is no corpus yet, no feed, the graph is
// more than MaxFollow changes ahead, or the feed does not hold every change
// since (a load too large to publish, or one before the latest, moved the
// version).
func (s *Source) follow(ctx context.Context) (*Corpus, bool) {
	c, at, ok := s.v.Peek()
	if !ok {
		return nil, false
	}
	return s.followFrom(ctx, c, at)
}

// followFrom is follow from the corpus c at version at.
func (s *Source) followFrom(ctx context.Context, c *Corpus, at int64) (*Corpus, bool) {
	feed, ok := s.g.(ChangeFeed)
	if !ok || s.Parse == nil {
		return nil, false
	}
	version, err := s.g.CorpusVersion(ctx)
	if err != nil || version <= at || version-at > s.maxFollow() {
		return nil, false
	}
	start := time.Now()
	changes, ok, err := feed.ChangesSince(ctx, at, version)
	if err != nil || !ok || len(changes) == 0 {
		return nil, false
	}
	s.applying.Store(true)
	defer s.applying.Store(false)
	batch := make([]Change, len(changes))
	var bad atomic.Bool
	parallel.For(len(changes), func(k int) {
		batch[k].ID = changes[k].ID
		if changes[k].JSON != "" {
			var err error
			if batch[k].Case, err = s.Parse([]byte(changes[k].JSON)); err != nil {
				bad.Store(true)
			}
		}
	})
	if bad.Load() {
		return nil, false
	}
	if c, err = s.applyAll(c, changes[len(changes)-1].Version, batch); err != nil {
		return nil, false
	}
	for k, ch := range changes {
		s.log(ch.Version, &batch[k])
	}
	took := time.Since(start)
	s.followNS.Store(int64(took))
	s.follows.Add(1)
	s.logger().Info("in-memory corpus followed the change feed", "from", at, "to", c.Version, "changes", len(changes), "seconds", seconds(took))
	s.amu.Lock()
	s.schedule()
	s.amu.Unlock()
	return c, true
}

// Register adds a consumer, whose value every corpus built from then on
// holds. Register before the source is first asked: it panics after.
func (s *Source) Register(k Consumer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		panic("memstore: a consumer registered after the source's first build")
	}
	s.consumers = append(s.consumers, k)
}

// Get returns the corpus as current as the graph, waiting for a rebuild.
func (s *Source) Get(ctx context.Context) (*Corpus, error) { return s.v.Get(ctx) }

// Optimistic runs fn on the corpus last read while it reads the graph's
// version, and reports whether that corpus answers for it (see
// versioned.Value.Optimistic): if not, the caller asks again with Get.
func (s *Source) Optimistic(ctx context.Context, fn func(*Corpus)) (bool, error) {
	return s.v.Optimistic(ctx, fn)
}

// Pin pins the corpus last read in a context for a piece of work that
// reads it more than once, while the graph's version is read: see
// versioned.Value.Pin. check is nil when there is no corpus yet.
func (s *Source) Pin(ctx context.Context) (context.Context, func(context.Context) (bool, error)) {
	return s.v.Pin(ctx)
}

// Unpin undoes Pin for ctx: its readers read the graph's version again.
func (s *Source) Unpin(ctx context.Context) context.Context { return s.v.Unpin(ctx) }

// CurrentOrFollow is Current for a question that the graph answers
// slowly (the aggregates over many cases): when the corpus is behind by
// changes the feed holds — another replica's writes, or a load of at most
// MaxFollow cases — it waits for the catch-up from the feed, a second or
// so for a load of 2,000 cases at 100,000, rather than ask the graph: up
// to CatchUpWait, and on to its end once the catch-up holds the feed's
// batch (followWait). At the start it likewise waits while the corpus is
// read from the snapshot file, seconds where a build takes minutes. A
// corpus further behind is built afresh, which takes longer: then it
// returns nil at once, as Current does.
func (s *Source) CurrentOrFollow(ctx context.Context) (*Corpus, error) {
	c, _, err := s.v.CurrentWithin(ctx, s.followWait)
	return c, err
}

// followWait is how long a reader waits for the corpus at version at to
// follow the graph to version: CatchUpWait when the change feed is read
// and the gap is one it follows, 0 otherwise. Asked again after waiting,
// it says to wait as long again while a catch-up holds the whole batch
// from the feed and is applying it (its time is bounded by the batch, not
// the corpus: at a million cases a load of 2,000 took longer than the
// default wait, and Neo4j's answer far longer still), and 0 when the
// rebuild is not (yet) such a catch-up: it may be a build from the graph.
// With no corpus yet (at -1) it waits only while the snapshot file is read
// (FileProbe at first, while the rebuild finds out whether the file is
// usable, then CatchUpWait at a time): at a million cases a reader at the
// start otherwise asked Neo4j, and timed out, while the file took 5 s.
func (s *Source) followWait(at, version int64, waited time.Duration) time.Duration {
	wait := s.CatchUpWait
	switch {
	case wait < 0:
		return 0
	case wait == 0:
		wait = DefaultCatchUpWait
	}
	if at < 0 {
		switch {
		case s.reading.Load():
			return wait
		case waited == 0 && s.SnapshotDir != "" && !s.fileTried.Load():
			return min(FileProbe, wait)
		}
		return 0
	}
	if _, ok := s.g.(ChangeFeed); !ok || s.Parse == nil || version-at > s.maxFollow() {
		return 0
	}
	if waited > 0 && !s.applying.Load() {
		return 0
	}
	return wait
}

// FileProbe is how long a reader at the start waits for the rebuild to
// find out whether the snapshot file is usable (see followWait).
const FileProbe = 200 * time.Millisecond

// maxFollow is MaxFollow or its default.
func (s *Source) maxFollow() int64 {
	if s.MaxFollow > 0 {
		return int64(s.MaxFollow)
	}
	return DefaultMaxFollow
}

// Current returns the corpus when it is as current as the graph, without
// waiting: when a load has changed the cases since it was built (or it
// was never built), it starts a rebuild in the background and returns nil,
// and the caller answers from the graph meanwhile. One small query per
// call.
func (s *Source) Current(ctx context.Context) (*Corpus, error) {
	c, _, err := s.v.Current(ctx)
	return c, err
}

// build brings the corpus up to the graph: from the change feed when it
// holds every change since, from the snapshot file at the start, or by
// reading the whole corpus (buildFromGraph).
func (s *Source) build(ctx context.Context) (*Corpus, error) {
	if c, ok := s.follow(ctx); ok {
		return c, nil
	}
	if c, ok := s.fromFile(ctx); ok {
		return c, nil
	}
	return s.buildFromGraph(ctx)
}

// buildFromGraph reads the corpus once: the version, the organizations'
// names, then the cases, each handed to the snapshot and to every
// consumer (whose analysis runs in the parallel.Share ctx carries, if
// any).
func (s *Source) buildFromGraph(ctx context.Context) (*Corpus, error) {
	s.mu.Lock()
	s.started = true
	consumers := s.consumers
	s.mu.Unlock()
	s.builds.Add(1)
	start := time.Now()
	corpusID, err := s.corpusID(ctx)
	if err != nil {
		return nil, err
	}
	version, err := s.g.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.lmu.Lock()
	for v := range s.applied {
		if v <= version {
			delete(s.applied, v) // this build reads it from the graph
		}
	}
	s.lmu.Unlock()
	orgs, err := s.g.CaseOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	builds := make([]Consuming, 0, len(consumers))
	stop := func(s *Snapshot) error {
		var first error
		for _, b := range builds {
			if _, err := b.Finish(s); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	for _, k := range consumers {
		b, err := k.Start(ctx, orgs)
		if err != nil {
			_ = stop(nil)
			return nil, err
		}
		builds = append(builds, b)
	}
	b := NewBuilder(version, nil)
	err = s.g.EachCase(ctx, func(c *ilgraph.Case) error {
		row := ilgraph.SimilarityRow(c)
		b.Add(&row)
		for _, cb := range builds {
			cb.Add(c)
		}
		return nil
	})
	if err == nil {
		err = s.g.OrganizationNames(ctx, b.OrgName)
	}
	if err == nil && !sameSet(b.Names(), orgs) {
		err = ilgraph.Errorf(ilgraph.ECONFLICT, "the cases changed while the in-memory store read them (their organizations differ from those read before); it is built again on the next request")
	}
	if err != nil {
		_ = stop(nil)
		return nil, err
	}
	snap := b.Finish()
	out := &Corpus{Snapshot: snap, values: make(map[Consumer]any, len(consumers))}
	for i, cb := range builds {
		v, err := cb.Finish(snap)
		if err != nil {
			for _, rest := range builds[i+1:] {
				_, _ = rest.Finish(nil)
			}
			return nil, err
		}
		out.values[consumers[i]] = v
	}
	took := time.Since(start)
	s.lastNS.Store(int64(took))
	if n := s.builds.Load(); n > 1 {
		s.logger().Info("in-memory corpus built again from the graph", "cases", snap.Len(), "version", version, "builds", n, "seconds", seconds(took))
	}
	s.save(out, corpusID, consumers)
	return out, nil
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	for _, s := range a {
		if !in[s] {
			return false
		}
		delete(in, s)
	}
	return len(in) == 0
}
