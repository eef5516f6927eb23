// Package versioned keeps a value derived from the whole corpus (the
// in-memory corpus of memstore.Source) in step with the graph's corpus
// version: before answering, a reader asks for the version (one small
// query, shared by the readers who ask while it is under way, and for a
// pinned piece of work read once beside the whole of it); when a load has
// changed the cases since the value was built, the value is rebuilt once,
// however many readers wait, and swapped in.
package versioned

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ilgraph/ilgraph"
)

// RebuildTimeout bounds one rebuild. A rebuild is detached from the request
// that started it (others may wait for it too), so it needs a deadline of
// its own: a stuck database must not leave it running forever.
const RebuildTimeout = 5 * time.Minute

// Value is a T built at a corpus version.
type Value[T any] struct {
	// Version reads the current corpus version.
	Version func(ctx context.Context) (int64, error)
	// Build builds the value and says at which version it did.
	Build func(ctx context.Context) (T, int64, error)
	// What names the value in errors ("the similarity index").
	What string
	// Timeout bounds one rebuild; RebuildTimeout when 0. A value whose build
	// grows with the corpus needs more at a million cases: a rebuild cut
	// short is thrown away and started again by the next request, so a
	// bound below the build's time means it never finishes.
	Timeout time.Duration
	// CatchUp, when set, brings a value that a rebuild finished at version
	// from up to the current value's version to (the changes applied with
	// Advance meanwhile); ok false throws the rebuild away. Without it a
	// rebuild that finishes behind the current value is thrown away.
	CatchUp func(v T, from, to int64) (T, bool)
	// MaxAge, when positive, lets readers reuse a version read for that
	// long instead of each reading the graph's: a change made elsewhere
	// (another process's write or load) can then go unseen for up to
	// MaxAge, while the value's own changes (Advance) and builds are seen
	// at once. 0: every reader reads the version, and no reader is ever
	// answered from before a change that committed before it asked.
	MaxAge time.Duration

	seen   atomic.Int64 // with MaxAge: the version last read or made here
	seenAt atomic.Int64 // when it was read (Unix nanoseconds; 0: never)

	// reads shares version reads among the readers that ask while one is
	// under way (see read).
	rmu           sync.Mutex
	reading, next *versionRead
	lastRead      atomic.Int64 // the version the last read found (0: none yet)

	mu      sync.Mutex
	current *built[T]
	build   *rebuild[T] // the rebuild under way, if any
	// settling says a Settle is under way (beside any rebuild); again is
	// the build of the one asked for meanwhile, to start when it ends.
	settling bool
	again    func(context.Context) (T, int64, error)
	// holds counts the changes under way (Hold): while there are any, a
	// reader that finds the value behind the graph waits for them, or
	// answers without it, rather than starting a rebuild that the change
	// about to be applied makes needless.
	holds int
	moved chan struct{} // closed (and replaced) when holds or the value change
}

type built[T any] struct {
	v       T
	version int64
	base    int64 // the version of the build it was advanced from
}

// answers reports whether the value answers for a reader who read the
// graph at version: it is at that version, or it was advanced past it from
// a build at or before it (the reader read the graph just before a change
// that the value already holds). A version below the build's means the
// graph went back (it was emptied and loaded again): the value is rebuilt.
func (b *built[T]) answers(version int64) bool {
	return b != nil && (b.version == version || (b.base <= version && version < b.version))
}

// version is the graph's corpus version for a reader: read from the graph,
// or with MaxAge the last version read if it is younger than MaxAge (or
// the value's own, if newer).
func (c *Value[T]) version(ctx context.Context) (int64, error) {
	if c.MaxAge <= 0 {
		return c.read(ctx)
	}
	if v, ok := c.reused(); ok {
		return v, nil
	}
	v, err := c.read(ctx)
	if err != nil {
		return 0, err
	}
	c.seen.Store(v)
	c.seenAt.Store(time.Now().UnixNano())
	return v, nil
}

// ReadTimeout bounds one shared version read (see read): it is detached
// from the request that started it, since others wait for it too.
const ReadTimeout = 30 * time.Second

// versionRead is one read of the graph's version, shared by every reader
// that joined it before it started.
type versionRead struct {
	done    chan struct{}
	version int64
	err     error
}

// read reads the graph's version for a reader, sharing the read with the
// readers that ask at about the same time: when no read is under way it
// starts one; when one is, that read may have started before a change the
// reader must see (one committed before it asked), so the reader joins
// the next read instead, which starts as soon as the one under way ends.
// Every reader is so answered by a read that started after it asked — as
// current as a read of its own — while the graph sees at most one version
// read at a time however many readers ask: at concurrency 8, one read
// answers several requests instead of each paying a round trip and
// queueing behind the others' in Neo4j.
func (c *Value[T]) read(ctx context.Context) (int64, error) {
	return c.join(ctx).wait(ctx, c.What)
}

// join returns the shared read a reader waits for (see read), starting it
// when none is under way.
func (c *Value[T]) join(ctx context.Context) *versionRead {
	c.rmu.Lock()
	r := c.reading
	start := r == nil
	if start {
		r = &versionRead{done: make(chan struct{})}
		c.reading = r
	} else {
		if c.next == nil {
			c.next = &versionRead{done: make(chan struct{})}
		}
		r = c.next
	}
	c.rmu.Unlock()
	if start {
		go c.run(ctx, r)
	}
	return r
}

// wait returns what the read r found, or an error when ctx ends first
// (what names the value, for the error).
func (r *versionRead) wait(ctx context.Context, what string) (int64, error) {
	select {
	case <-r.done:
		return r.version, r.err
	case <-ctx.Done():
		msg := "the request was cancelled"
		if ctx.Err() == context.DeadlineExceeded {
			msg = "the request took longer than its time limit"
		}
		return 0, ilgraph.WrapError(ilgraph.ETIMEOUT, fmt.Errorf("reading the version of %s: %w", what, ctx.Err()), "%s", msg)
	}
}

// run makes the read r (the one under way) and, when readers have joined
// the next read meanwhile, starts it in the background. A read is
// detached from the request that started it, the others wait for it too.
func (c *Value[T]) run(ctx context.Context, r *versionRead) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReadTimeout)
	r.version, r.err = c.Version(rctx)
	cancel()
	if r.err == nil {
		c.lastRead.Store(r.version)
	}
	close(r.done)
	c.rmu.Lock()
	next := c.next
	c.reading, c.next = next, nil
	c.rmu.Unlock()
	if next != nil {
		go c.run(ctx, next)
	}
}

// reused is the version a reader may take without reading the graph's:
// with MaxAge, the last one read, while it is younger than MaxAge.
func (c *Value[T]) reused() (int64, bool) {
	if c.MaxAge <= 0 {
		return 0, false
	}
	at := c.seenAt.Load()
	if at == 0 || time.Since(time.Unix(0, at)) >= c.MaxAge {
		return 0, false
	}
	return c.seen.Load(), true
}

// observe records that the graph is at least at version (the value was
// built or advanced to it), so that a reused version read is never older
// than the value itself.
func (c *Value[T]) observe(version int64) {
	for {
		old := c.seen.Load()
		if version <= old || c.seen.CompareAndSwap(old, version) {
			return
		}
	}
}

type rebuild[T any] struct {
	done chan struct{}
	b    *built[T]
	err  error
	// asked is the graph's version as the reader that started the rebuild
	// read it (-1: started otherwise, as Refresh starts one): the rebuild
	// reads a version at or after it.
	asked int64
}

// Current returns the value when it is as current as the graph (ok),
// without waiting: otherwise it starts a rebuild if none is under way and
// returns ok false at once, for a caller that has another way to answer.
func (c *Value[T]) Current(ctx context.Context) (v T, ok bool, err error) {
	return c.CurrentWithin(ctx, nil)
}

// CurrentWithin is Current for a caller whose other way to answer is
// slow: when the value is behind the graph, it waits up to wait(at,
// version, 0) — at the value's version (-1 without one), version the
// graph's — for the rebuild under way (or the one it starts) to bring the
// value up to the graph, and answers from it then. When that time runs out
// with the rebuild still under way, wait is asked again with the time
// waited so far, and the reader waits as much longer as it says (a
// rebuild known by then to be short). Once it says 0, or when wait is nil,
// or ctx ends, it returns ok false as Current does; the rebuild goes on.
func (c *Value[T]) CurrentWithin(ctx context.Context, wait func(at, version int64, waited time.Duration) time.Duration) (v T, ok bool, err error) {
	if b := c.pinnedIn(ctx); b != nil {
		return b.v, true, nil
	}
	version, err := c.version(ctx)
	if err != nil {
		return v, false, err
	}
	c.mu.Lock()
	if c.current.answers(version) {
		v = c.current.v
		c.mu.Unlock()
		return v, true, nil
	}
	r := c.build
	if r == nil && c.holds == 0 {
		r = c.startBuild(ctx, version)
	}
	at := int64(-1)
	if c.current != nil {
		at = c.current.version
	}
	c.mu.Unlock()
	if r == nil || r.asked < version || wait == nil {
		// Only a rebuild started at or after this reader's version can
		// answer it: one started before (a settling build, or another
		// reader's before a change) is not waited for.
		return v, false, nil
	}
	if !r.waitFor(ctx, func(waited time.Duration) time.Duration { return wait(at, version, waited) }) {
		return v, false, nil
	}
	if r.err == nil && r.b != nil && r.b.version >= version {
		// As Get answers: the rebuild read the graph at or after version.
		return r.b.v, true, nil
	}
	return v, false, nil
}

// waitFor waits for the rebuild to end, as long as wait says (asked
// again, with the time waited, each time the last it said runs out), and
// reports whether it ended.
func (r *rebuild[T]) waitFor(ctx context.Context, wait func(waited time.Duration) time.Duration) bool {
	var waited time.Duration
	for d := wait(0); d > 0; d = wait(waited) {
		t := time.NewTimer(d)
		select {
		case <-r.done:
			t.Stop()
			return true
		case <-t.C:
			waited += d
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
	return false
}

// Optimistic runs fn on the value last built (or advanced) while it reads
// the graph's version, and reports whether that value answers for the
// version read — then fn's result stands, as if fn had run on what Get
// returns: the version read is the reader's, as in Get. Otherwise (no
// value yet, or the graph moved on) it reports false and the caller asks
// again with Get; fn's work is lost. A reader whose work takes longer than
// the version's round trip so saves that round trip.
func (c *Value[T]) Optimistic(ctx context.Context, fn func(T)) (bool, error) {
	if b := c.pinnedIn(ctx); b != nil {
		fn(b.v)
		return true, nil
	}
	c.mu.Lock()
	b := c.current
	c.mu.Unlock()
	if b == nil {
		return false, nil
	}
	if v, ok := c.reused(); ok { // no round trip to overlap
		fn(b.v)
		return b.answers(v), nil
	}
	r := c.readBeside(ctx)
	fn(b.v)
	version, err := r.wait(ctx, c.What)
	if err != nil {
		return false, err
	}
	return b.answers(version), nil
}

// readBeside starts reading the graph's version for a reader, for work
// done meanwhile: the shared read it joins, or with MaxAge a read of its
// own that records what it finds (version).
func (c *Value[T]) readBeside(ctx context.Context) *versionRead {
	if c.MaxAge <= 0 {
		return c.join(ctx)
	}
	r := &versionRead{done: make(chan struct{})}
	go func() {
		r.version, r.err = c.version(ctx)
		close(r.done)
	}()
	return r
}

// pinned is what Pin puts in a context: the value its readers take, and
// the version read made when the first of them takes it.
type pinned[T any] struct {
	c   *Value[T]
	ctx context.Context // the work's, for the version read
	b   *built[T]

	once sync.Once
	used bool
	r    *versionRead // nil: the version was reused (MaxAge)
	ok   bool         // with a reused version: whether b answers for it
}

// take returns the pinned value for a reader, starting the version read
// the first time.
func (p *pinned[T]) take() *built[T] {
	p.once.Do(func() {
		p.used = true
		if v, ok := p.c.reused(); ok { // no round trip to overlap
			p.ok = p.b.answers(v)
			return
		}
		p.r = p.c.readBeside(p.ctx)
	})
	return p.b
}

// pinnedIn returns the value pinned in ctx for c, nil if none.
func (c *Value[T]) pinnedIn(ctx context.Context) *built[T] {
	if p, ok := ctx.Value(c).(*pinned[T]); ok && p != nil {
		return p.take()
	}
	return nil
}

// Pin is Optimistic for a whole piece of work that may read the value more
// than once (a GraphQL operation): it returns a context in which every
// reader of c (Current, Get, Optimistic) takes the value last built or
// advanced at once, the first of them starting a read of the graph's
// version, and check, which waits for that read and reports whether the
// pinned value answers for it. When it does, whatever the work read in ctx
// stands as if it had been read with Get, and the work paid no round trip
// of its own: its readers overlapped the one version read. When it does
// not (or the read failed), the caller throws the work away and does it
// again in Unpin(ctx). Work that never reads the value reads no version
// (check reports true). check is nil when there is no value to pin — none
// yet, or the last version read found it behind — and the caller works in
// ctx as if Pin had not been called.
func (c *Value[T]) Pin(ctx context.Context) (context.Context, func(context.Context) (bool, error)) {
	c.mu.Lock()
	b := c.current
	c.mu.Unlock()
	if b == nil {
		return ctx, nil
	}
	if last := c.lastRead.Load(); last != 0 && !b.answers(last) {
		// Known to be behind (a rebuild or a change is coming): the work
		// would only be done twice.
		return ctx, nil
	}
	p := &pinned[T]{c: c, ctx: ctx, b: b}
	return context.WithValue(ctx, c, p), func(wctx context.Context) (bool, error) {
		p.once.Do(func() {}) // no reader takes it from now on without it showing
		if !p.used {
			return true, nil
		}
		if p.r == nil {
			return p.ok, nil
		}
		version, err := p.r.wait(wctx, c.What)
		if err != nil {
			return false, err
		}
		return b.answers(version), nil
	}
}

// Unpin returns ctx without the value Pin pinned in it: its readers read
// the graph's version again.
func (c *Value[T]) Unpin(ctx context.Context) context.Context {
	if p, _ := ctx.Value(c).(*pinned[T]); p == nil { // not pinnedIn: that takes the value
		return ctx
	}
	return context.WithValue(ctx, c, (*pinned[T])(nil))
}

// Hold says that a change of the graph is under way whose result will be
// applied with Advance: until release is called, a reader that finds the
// value behind the graph does not start a rebuild (Current answers ok
// false, Get waits for the change). Call release once the change is
// applied, or has failed.
func (c *Value[T]) Hold() (release func()) {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.holds--
			c.signal()
			c.mu.Unlock()
		})
	}
}

// signal wakes whoever waits for the value or the holds to change; c.mu is
// held.
func (c *Value[T]) signal() {
	if c.current != nil && c.MaxAge > 0 {
		c.observe(c.current.version)
	}
	if c.moved != nil {
		close(c.moved)
		c.moved = nil
	}
}

// wait returns a channel closed when the value or the holds change; c.mu
// is held.
func (c *Value[T]) wait() <-chan struct{} {
	if c.moved == nil {
		c.moved = make(chan struct{})
	}
	return c.moved
}

// Wait returns a channel closed when the value (or a Hold) changes next.
func (c *Value[T]) Wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wait()
}

// Peek returns the current value and its version, whatever the graph's
// (false when there is none).
func (c *Value[T]) Peek() (T, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		var zero T
		return zero, 0, false
	}
	return c.current.v, c.current.version, true
}

// At returns the version of the current value; false when there is none.
func (c *Value[T]) At() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		return 0, false
	}
	return c.current.version, true
}

// Advance replaces the current value, when it is at version from, with
// next's value over it at version to, and reports whether it did (false:
// there is no value, or it is at another version). next runs with the
// value locked: Advances happen one after another, in version order.
func (c *Value[T]) Advance(from, to int64, next func(T) (T, error)) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil || c.current.version != from {
		return false, nil
	}
	v, err := next(c.current.v)
	if err != nil {
		return false, err
	}
	c.current = &built[T]{v: v, version: to, base: c.current.base}
	c.signal()
	return true, nil
}

// Refresh starts a rebuild in the background, unless one is under way,
// even when the value is as current as the graph: for a value whose
// Advances keep it current but not as a build would make it.
func (c *Value[T]) Refresh(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.build == nil {
		c.startBuild(ctx, -1)
	}
}

// startBuild starts a rebuild in the background, for a reader that read
// the graph at version asked (-1: none); c.mu is held.
func (c *Value[T]) startBuild(ctx context.Context, asked int64) *rebuild[T] {
	r := &rebuild[T]{done: make(chan struct{}), asked: asked}
	c.build = r
	go func() {
		// Detached from the request: other requests may be waiting too.
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = RebuildTimeout
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		v, at, err := c.Build(ctx)
		c.mu.Lock()
		if err == nil {
			r.b = c.install(v, at)
		}
		r.err = err
		c.build = nil
		c.mu.Unlock()
		close(r.done)
	}()
	return r
}

// install makes v, built by a rebuild at version at, the current value
// when it is at or past it, or when CatchUp brings it up to it, and
// returns it as built (or caught up); c.mu is held.
func (c *Value[T]) install(v T, at int64) *built[T] {
	b := &built[T]{v: v, version: at, base: at}
	switch {
	case c.current == nil || at >= c.current.version || at < c.current.base:
		// At or past the value, or the graph went back (emptied and
		// loaded again).
		c.current = b
	case c.CatchUp != nil:
		if caught, ok := c.CatchUp(v, at, c.current.version); ok {
			b = &built[T]{v: caught, version: c.current.version, base: at}
			c.current = b
		}
	}
	c.signal()
	return b
}

// Settle builds the value again in the background with build (which
// returns the value and the version it read), beside the current value:
// unlike Refresh it takes no rebuild's place, so readers that find the
// graph ahead meanwhile start and wait for rebuilds of their own, as
// ever. When build ends its value is installed as a rebuild's is — when
// at or past the current value, or brought up to it by CatchUp — or
// thrown away. For a value whose Advances keep it current but not as a
// build would make it, and whose build is long. A call while a Settle is
// under way starts another when it ends (the changes since its build
// began are not settled by it), and returns nil; otherwise Settle returns
// a channel closed when this one ends.
func (c *Value[T]) Settle(ctx context.Context, build func(context.Context) (T, int64, error)) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settling {
		c.again = build
		return nil
	}
	return c.settle(ctx, build)
}

// settle starts a Settle; c.mu is held.
func (c *Value[T]) settle(ctx context.Context, build func(context.Context) (T, int64, error)) <-chan struct{} {
	c.settling = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = RebuildTimeout
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		v, at, err := build(ctx)
		if err == nil {
			c.installSettled(v, at)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.settling = false
		if again := c.again; again != nil {
			c.again = nil
			c.settle(ctx, again)
		}
	}()
	return done
}

// installSettled makes v, built by a Settle at version at, the current
// value when it is at or past it, or when CatchUp brings it up to it —
// outside the lock, which readers need meanwhile (a catch-up of a load
// takes a second at a million cases), again from where it got to when the
// value moved meanwhile — and otherwise throws it away. Unlike a rebuild's,
// a Settle's value below the current one's build is not the graph gone
// back: the Settle began before that build.
func (c *Value[T]) installSettled(v T, at int64) {
	base := at
	for {
		c.mu.Lock()
		cur := c.current
		if cur == nil || at >= cur.version {
			c.current = &built[T]{v: v, version: at, base: base}
			c.signal()
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if c.CatchUp == nil {
			return
		}
		caught, ok := c.CatchUp(v, at, cur.version)
		if !ok {
			return
		}
		v, at = caught, cur.version
	}
}

// Get returns the value as current as the graph: at the version the
// graph had when Get read it, or later.
func (c *Value[T]) Get(ctx context.Context) (T, error) {
	if b := c.pinnedIn(ctx); b != nil {
		return b.v, nil
	}
	var zero T
	version, err := c.version(ctx)
	if err != nil {
		return zero, err
	}
	for {
		v, done, err := c.get(ctx, version)
		if done || err != nil {
			return v, err
		}
	}
}

// get is one try of Get for a reader who read the graph at version: done
// false when the rebuild it waited for had started before that version
// (another reader's, under way when a change was made) and so answers
// from before the change; the reader then tries again.
func (c *Value[T]) get(ctx context.Context, version int64) (T, bool, error) {
	var zero T
	c.mu.Lock()
	for c.holds > 0 && !c.current.answers(version) && (c.current == nil || c.current.version < version) {
		// A change under way will bring the value up to the graph.
		moved := c.wait()
		c.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return zero, true, ilgraph.WrapError(ilgraph.ETIMEOUT, ctx.Err(), "waiting for %s", c.What)
		}
		c.mu.Lock()
	}
	if c.current.answers(version) {
		v := c.current.v
		c.mu.Unlock()
		return v, true, nil
	}
	r := c.build
	if r == nil {
		r = c.startBuild(ctx, version)
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		if r.err != nil {
			return zero, true, r.err
		}
		if r.b.version < version {
			return zero, false, nil
		}
		return r.b.v, true, nil
	case <-ctx.Done():
		return zero, true, ilgraph.WrapError(ilgraph.ETIMEOUT, ctx.Err(), "building %s", c.What)
	}
}
