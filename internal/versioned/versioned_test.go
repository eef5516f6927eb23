package versioned

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
)

// corpus is a version that tests move by hand, and a build that counts its
// runs and can be held until released.
type corpus struct {
	version atomic.Int64
	builds  atomic.Int64
	release chan struct{}
	fail    error
}

func (c *corpus) value() *Value[int64] {
	return &Value[int64]{
		Version: func(context.Context) (int64, error) { return c.version.Load(), nil },
		Build: func(ctx context.Context) (int64, int64, error) {
			c.builds.Add(1)
			if c.release != nil {
				<-c.release
			}
			if c.fail != nil {
				return 0, 0, c.fail
			}
			v := c.version.Load()
			return v * 10, v, nil
		},
		What: "the test value",
	}
}

func TestBuildsOnceForConcurrentReaders(t *testing.T) {
	c := &corpus{release: make(chan struct{})}
	c.version.Store(1)
	v := c.value()
	var wg sync.WaitGroup
	got := make([]int64, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := v.Get(context.Background())
			if err != nil {
				t.Error(err)
			}
			got[i] = x
		}()
	}
	// Let every reader reach the rebuild before it finishes.
	for c.builds.Load() == 0 {
	}
	close(c.release)
	wg.Wait()
	if n := c.builds.Load(); n != 1 {
		t.Errorf("%d builds for 20 concurrent readers, want 1", n)
	}
	for i, x := range got {
		if x != 10 {
			t.Errorf("reader %d got %d, want 10", i, x)
		}
	}
}

func TestRebuildsWhenTheVersionMoves(t *testing.T) {
	c := &corpus{}
	c.version.Store(1)
	v := c.value()
	ctx := context.Background()
	for _, want := range []struct{ version, value, builds int64 }{{1, 10, 1}, {1, 10, 1}, {2, 20, 2}, {2, 20, 2}} {
		c.version.Store(want.version)
		x, err := v.Get(ctx)
		if err != nil || x != want.value || c.builds.Load() != want.builds {
			t.Errorf("version %d: got %d (err %v) after %d builds, want %d after %d", want.version, x, err, c.builds.Load(), want.value, want.builds)
		}
	}
}

func TestBuildErrorsReachTheReaderAndAreRetried(t *testing.T) {
	boom := errors.New("boom")
	c := &corpus{fail: boom}
	v := c.value()
	if _, err := v.Get(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the build's error", err)
	}
	c.fail = nil
	if x, err := v.Get(context.Background()); err != nil || x != 0 || c.builds.Load() != 2 {
		t.Errorf("after a failed build: got %d, %v after %d builds; want a new build", x, err, c.builds.Load())
	}
}

func TestAReaderStopsWaitingAtItsDeadline(t *testing.T) {
	c := &corpus{release: make(chan struct{})}
	v := c.value()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := v.Get(ctx)
	if ilgraph.ErrorCode(err) != ilgraph.ETIMEOUT {
		t.Errorf("got %v, want ETIMEOUT", err)
	}
	close(c.release) // the detached build still finishes and is kept
	if x, err := v.Get(context.Background()); err != nil || x != 0 {
		t.Errorf("after the build: %d, %v", x, err)
	}
}

// TestTimeoutBoundsTheBuild checks that a Value's Timeout, not the general
// RebuildTimeout, is the deadline its build runs under.
func TestTimeoutBoundsTheBuild(t *testing.T) {
	for _, timeout := range []time.Duration{0, 30 * time.Minute} {
		var left time.Duration
		v := &Value[int]{
			Version: func(context.Context) (int64, error) { return 1, nil },
			Build: func(ctx context.Context) (int, int64, error) {
				d, ok := ctx.Deadline()
				if !ok {
					return 0, 0, errors.New("no deadline")
				}
				left = time.Until(d)
				return 1, 1, nil
			},
			What:    "a test value",
			Timeout: timeout,
		}
		if _, err := v.Get(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := timeout
		if want == 0 {
			want = RebuildTimeout
		}
		if left > want || left < want-time.Minute {
			t.Errorf("Timeout %v: the build had %v left, want just under %v", timeout, left, want)
		}
	}
}

// TestAdvanceFollowsChangesWithoutBuilds: a value advanced by the changes
// it is told of answers at each new version without a build; one that a
// reader finds behind the graph while a change is held is not rebuilt
// (Current says not ok, Get waits for the change).
func TestAdvanceFollowsChangesWithoutBuilds(t *testing.T) {
	ctx := context.Background()
	c := &corpus{}
	c.version.Store(1)
	v := c.value()
	if x, err := v.Get(ctx); err != nil || x != 10 {
		t.Fatalf("first Get: %d, %v", x, err)
	}
	release := v.Hold()
	c.version.Store(2) // the change is written; not applied yet
	if _, ok, err := v.Current(ctx); ok || err != nil {
		t.Fatalf("Current while a change is held: ok %v, %v; want not ok", ok, err)
	}
	got := make(chan int64)
	go func() {
		x, err := v.Get(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- x
	}()
	time.Sleep(20 * time.Millisecond) // let Get wait
	if ok, err := v.Advance(1, 2, func(x int64) (int64, error) { return x + 5, nil }); !ok || err != nil {
		t.Fatalf("Advance(1, 2): %v, %v", ok, err)
	}
	release()
	if x := <-got; x != 15 {
		t.Errorf("Get waiting for the change: got %d, want 15 (the advanced value)", x)
	}
	if n := c.builds.Load(); n != 1 {
		t.Errorf("builds: got %d, want 1", n)
	}
	// A reader that read the graph just before the change still gets the
	// advanced value, not a build.
	if x, ok, _ := v.Current(ctx); !ok || x != 15 {
		t.Errorf("Current at version 2: %d, %v", x, ok)
	}
	if ok, _ := v.Advance(1, 2, func(x int64) (int64, error) { return x, nil }); ok {
		t.Error("Advance from a version the value is not at: ok")
	}
	// Without a hold, a value behind the graph starts a build.
	c.version.Store(3)
	if x, err := v.Get(ctx); err != nil || x != 30 {
		t.Errorf("Get after an outside change: %d, %v; want 30 from a build", x, err)
	}
	if n := c.builds.Load(); n != 2 {
		t.Errorf("builds: got %d, want 2", n)
	}
}

// TestCatchUpKeepsARebuildThatFinishedBehind: a rebuild that finishes
// behind changes applied meanwhile is caught up with them, not thrown
// away; when the catch-up cannot (ok false) it is thrown away.
func TestCatchUpKeepsARebuildThatFinishedBehind(t *testing.T) {
	ctx := context.Background()
	for _, catch := range []bool{true, false} {
		c := &corpus{}
		c.version.Store(1)
		v := c.value()
		v.CatchUp = func(x int64, from, to int64) (int64, bool) { return x + 1000*(to-from), catch }
		if _, err := v.Get(ctx); err != nil {
			t.Fatal(err)
		}
		c.release = make(chan struct{})
		v.Refresh(ctx) // builds at version 1, held
		for c.builds.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		for i := int64(1); i <= 2; i++ {
			if ok, _ := v.Advance(i, i+1, func(x int64) (int64, error) { return x + 1, nil }); !ok {
				t.Fatalf("Advance(%d)", i)
			}
		}
		wait := v.Wait()
		close(c.release)
		<-wait
		for { // the build's end is signalled after the value is set
			if _, err := v.Get(context.Background()); err == nil {
				break
			}
		}
		at, _ := v.At()
		x, ok, _ := v.Current(ctx)
		want := int64(12) // the advanced value: the rebuild thrown away
		if catch {
			want = 2010 // the rebuild (10) caught up over two versions
		}
		if at != 3 || !ok || x != want {
			t.Errorf("catch-up %v: value %d at %d (current %v), want %d at 3", catch, x, at, ok, want)
		}
	}
}

// TestGetNeverAnswersFromBeforeItsVersion: a reader who finds a rebuild
// under way that started before a change (another reader's, which read the
// graph before the change committed) does not take that rebuild's value,
// which lacks the change: it waits for one at its own version.
func TestGetNeverAnswersFromBeforeItsVersion(t *testing.T) {
	var version atomic.Int64
	version.Store(1)
	started, release := make(chan struct{}, 2), make(chan struct{})
	v := &Value[int64]{
		Version: func(context.Context) (int64, error) { return version.Load(), nil },
		Build: func(ctx context.Context) (int64, int64, error) {
			at := version.Load() // the build reads the graph as it starts
			started <- struct{}{}
			if at == 1 {
				<-release
			}
			return at * 10, at, nil
		},
		What: "the test value",
	}
	// A reader that does not wait starts the rebuild at version 1.
	if _, ok, err := v.Current(context.Background()); ok || err != nil {
		t.Fatalf("Current with no value: %v, %v", ok, err)
	}
	<-started
	version.Store(2) // a change commits while that rebuild runs
	got := make(chan int64)
	go func() {
		x, err := v.Get(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- x
	}()
	time.Sleep(20 * time.Millisecond) // let Get join the rebuild under way
	close(release)
	if x := <-got; x != 20 {
		t.Errorf("Get after the change answered %d, want 20 (built at version 2)", x)
	}
}

// TestOptimistic: work done on the value in hand stands only when that
// value answers for the version read meanwhile.
func TestOptimistic(t *testing.T) {
	ctx := context.Background()
	c := &corpus{}
	v := c.value()
	t.Run("no value yet", func(t *testing.T) {
		ran := false
		ok, err := v.Optimistic(ctx, func(int64) { ran = true })
		if ok || err != nil || ran {
			t.Errorf("ok %v, err %v, fn ran %v; want false, nil, false", ok, err, ran)
		}
	})
	c.version.Store(3)
	if _, err := v.Get(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("current", func(t *testing.T) {
		var got int64
		ok, err := v.Optimistic(ctx, func(x int64) { got = x })
		if !ok || err != nil || got != 30 {
			t.Errorf("ok %v, err %v, value %d; want true, nil, 30", ok, err, got)
		}
	})
	t.Run("the graph moved on while it worked", func(t *testing.T) {
		// The version is read only after the write (fn lets it), so the
		// reader sees the graph after the write.
		wrote := make(chan struct{})
		read := v.Version
		v.Version = func(ctx context.Context) (int64, error) { <-wrote; return read(ctx) }
		defer func() { v.Version = read }()
		var got int64
		ok, err := v.Optimistic(ctx, func(x int64) {
			got = x
			c.version.Store(4)
			close(wrote)
		})
		if ok || err != nil || got != 30 {
			t.Errorf("ok %v, err %v, value %d; want false, nil, 30 (the old value, thrown away)", ok, err, got)
		}
		if x, err := v.Get(ctx); err != nil || x != 40 {
			t.Errorf("Get after: %d, %v; want 40", x, err)
		}
	})
	t.Run("the version cannot be read", func(t *testing.T) {
		failed := errors.New("the database is unreachable")
		w := c.value()
		w.Version = func(context.Context) (int64, error) { return 0, failed }
		w.current = &built[int64]{v: 1, version: 1}
		ok, err := w.Optimistic(ctx, func(int64) {})
		if ok || !errors.Is(err, failed) {
			t.Errorf("ok %v, err %v; want false, %v", ok, err, failed)
		}
	})
}

// countedValue is c.value() with its version reads counted.
func (c *corpus) countedValue(maxAge time.Duration, reads *atomic.Int64) *Value[int64] {
	v := c.value()
	read := v.Version
	v.Version = func(ctx context.Context) (int64, error) {
		reads.Add(1)
		return read(ctx)
	}
	v.MaxAge = maxAge
	return v
}

// TestMaxAge: with MaxAge a version read is reused for that long — a
// change made elsewhere goes unseen meanwhile — and read again after it;
// the value's own changes and builds are seen at once; without MaxAge
// every reader reads.
func TestMaxAge(t *testing.T) {
	ctx := context.Background()
	t.Run("reused, then read again", func(t *testing.T) {
		c := &corpus{}
		c.version.Store(1)
		var reads atomic.Int64
		v := c.countedValue(150*time.Millisecond, &reads)
		if x, err := v.Get(ctx); err != nil || x != 10 {
			t.Fatalf("Get = %d, %v; want 10", x, err)
		}
		c.version.Store(2) // a change by another process
		before := reads.Load()
		for i := 0; i < 10; i++ {
			if x, ok, err := v.Current(ctx); err != nil || !ok || x != 10 {
				t.Fatalf("Current within MaxAge = %d, %v, %v; want the value at version 1", x, ok, err)
			}
		}
		if n := reads.Load() - before; n != 0 {
			t.Errorf("Current within MaxAge read the version %d times, want none", n)
		}
		time.Sleep(200 * time.Millisecond)
		if _, ok, _ := v.Current(ctx); ok {
			t.Error("Current after MaxAge answered from version 1 with the graph at 2")
		}
		if n := reads.Load() - before; n != 1 {
			t.Errorf("Current after MaxAge read the version %d times, want once", n)
		}
		if x, err := v.Get(ctx); err != nil || x != 20 {
			t.Errorf("Get after MaxAge = %d, %v; want 20", x, err)
		}
	})
	t.Run("own changes and builds at once", func(t *testing.T) {
		c := &corpus{}
		c.version.Store(1)
		var reads atomic.Int64
		v := c.countedValue(time.Hour, &reads)
		if _, err := v.Get(ctx); err != nil {
			t.Fatal(err)
		}
		c.version.Store(2)
		if ok, err := v.Advance(1, 2, func(x int64) (int64, error) { return x + 5, nil }); !ok || err != nil {
			t.Fatalf("Advance: %v, %v", ok, err)
		}
		if x, ok, err := v.Current(ctx); err != nil || !ok || x != 15 {
			t.Errorf("Current after Advance = %d, %v, %v; want 15", x, ok, err)
		}
		// A build past the version last read (a rebuild after the graph
		// moved to 3): readers take the build's version, and do not
		// start another build for a version older than it.
		c.version.Store(3)
		v.Refresh(ctx)
		for v.Wait(); func() bool { at, _ := v.At(); return at != 3 }(); {
			time.Sleep(time.Millisecond)
		}
		builds := c.builds.Load()
		if x, ok, err := v.Current(ctx); err != nil || !ok || x != 30 {
			t.Errorf("Current after a build at 3 = %d, %v, %v; want 30", x, ok, err)
		}
		if n := c.builds.Load() - builds; n != 0 {
			t.Errorf("Current after the build started %d more builds, want none", n)
		}
		if n := reads.Load(); n != 1 {
			t.Errorf("the version was read %d times in all, want once (MaxAge is an hour)", n)
		}
	})
	t.Run("optimistic reuses it too", func(t *testing.T) {
		c := &corpus{}
		c.version.Store(1)
		var reads atomic.Int64
		v := c.countedValue(time.Hour, &reads)
		if _, err := v.Get(ctx); err != nil {
			t.Fatal(err)
		}
		c.version.Store(2)
		var got int64
		if ok, err := v.Optimistic(ctx, func(x int64) { got = x }); !ok || err != nil || got != 10 {
			t.Errorf("Optimistic within MaxAge: %v, %v, ran on %d; want it kept on the value at 1", ok, err, got)
		}
		if n := reads.Load(); n != 1 {
			t.Errorf("the version was read %d times in all, want once", n)
		}
	})
	t.Run("off", func(t *testing.T) {
		c := &corpus{}
		c.version.Store(1)
		var reads atomic.Int64
		v := c.countedValue(0, &reads)
		if _, err := v.Get(ctx); err != nil {
			t.Fatal(err)
		}
		c.version.Store(2)
		if _, ok, _ := v.Current(ctx); ok {
			t.Error("without MaxAge, Current answered from version 1 with the graph at 2")
		}
		if n := reads.Load(); n != 2 {
			t.Errorf("without MaxAge the version was read %d times, want 2 (once a reader)", n)
		}
	})
}

// TestSharedVersionReads: readers that ask while a version read is under
// way share the next one, which starts after they asked: each sees every
// change committed before it asked, and the graph sees one read at a time.
func TestSharedVersionReads(t *testing.T) {
	var graph atomic.Int64
	graph.Store(1)
	var reads atomic.Int64
	started := make(chan struct{}, 8)
	release := make(chan struct{})
	v := &Value[int64]{
		Version: func(ctx context.Context) (int64, error) {
			reads.Add(1)
			at := graph.Load() // the version as this read sees it
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			return at, nil
		},
		What: "the test value",
	}
	ctx := context.Background()

	t.Run("later readers share the next read", func(t *testing.T) {
		first := make(chan int64, 1)
		go func() {
			x, err := v.read(ctx)
			if err != nil {
				t.Error(err)
			}
			first <- x
		}()
		<-started      // the first read saw version 1 and is under way
		graph.Store(2) // a change commits, then more readers ask
		const later = 6
		got := make(chan int64, later)
		for range later {
			go func() {
				x, err := v.read(ctx)
				if err != nil {
					t.Error(err)
				}
				got <- x
			}()
		}
		// Let every later reader ask before the first read ends.
		time.Sleep(50 * time.Millisecond)
		close(release)
		if x := <-first; x != 1 {
			t.Errorf("the first reader got version %d, want 1 (its read's)", x)
		}
		for range later {
			if x := <-got; x != 2 {
				t.Errorf("a reader who asked after the change got version %d, want 2", x)
			}
		}
		if n := reads.Load(); n != 2 {
			t.Errorf("the graph was read %d times for 1+%d readers, want 2", n, later)
		}
	})

	t.Run("a reader stops waiting at its deadline", func(t *testing.T) {
		release = make(chan struct{})
		for len(started) > 0 {
			<-started
		}
		before := reads.Load()
		// A read stuck in the graph; the reader's deadline ends first.
		dctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		_, err := v.read(dctx)
		if ilgraph.ErrorCode(err) != ilgraph.ETIMEOUT {
			t.Errorf("read past its deadline: %v, want %s", err, ilgraph.ETIMEOUT)
		}
		// The read goes on for whoever joins it: another reader is
		// answered by it once the graph answers.
		done := make(chan int64, 1)
		go func() {
			x, err := v.read(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- x
		}()
		time.Sleep(10 * time.Millisecond)
		close(release)
		if x := <-done; x != 2 {
			t.Errorf("the reader after it got %d, want 2", x)
		}
		if n := reads.Load() - before; n < 1 || n > 2 {
			t.Errorf("%d reads, want 1 or 2", n)
		}
	})
}

// TestPin: in a pinned context every reader takes the value in hand
// without reading the version; check reads it once and says whether the
// value answered for it; Unpin reads again.
func TestPin(t *testing.T) {
	ctx := context.Background()
	c := &corpus{}
	c.version.Store(1)
	var reads atomic.Int64
	v := c.countedValue(0, &reads)
	if _, check := v.Pin(ctx); check != nil {
		t.Fatal("Pin before any build gave a check, want nil (nothing to pin)")
	}
	if _, err := v.Get(ctx); err != nil {
		t.Fatal(err)
	}
	readers := func(ctx context.Context) []int64 {
		x, _ := v.Get(ctx)
		y, ok, _ := v.Current(ctx)
		if !ok {
			y = -1
		}
		var z int64 = -1
		if ok, _ := v.Optimistic(ctx, func(x int64) { z = x }); !ok {
			z = -1
		}
		return []int64{x, y, z}
	}
	t.Run("work that reads nothing", func(t *testing.T) {
		c.version.Store(2) // even with the graph moved on
		before := reads.Load()
		pctx, check := v.Pin(ctx)
		_ = v.Unpin(pctx) // takes nothing, reads nothing
		if ok, err := check(ctx); !ok || err != nil {
			t.Errorf("check = %v, %v; want true: nothing was read", ok, err)
		}
		if n := reads.Load() - before; n != 0 {
			t.Errorf("work that read nothing read the version %d times, want none", n)
		}
	})
	for _, tc := range []struct {
		name  string
		graph int64 // the graph's version when the work is pinned
		want  bool
	}{
		{"current", 1, true},
		{"the graph moved", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.version.Store(tc.graph)
			before := reads.Load()
			pctx, check := v.Pin(ctx)
			for i := 0; i < 3; i++ {
				if got := readers(pctx); got[0] != 10 || got[1] != 10 || got[2] != 10 {
					t.Errorf("Get, Current, Optimistic in the pinned context = %v, want the pinned 10 each", got)
				}
			}
			ok, err := check(ctx)
			if err != nil || ok != tc.want {
				t.Errorf("check = %v, %v; want %v", ok, err, tc.want)
			}
			if n := reads.Load() - before; n != 1 {
				t.Errorf("the pinned work read the version %d times, want once (Pin's)", n)
			}
			if !tc.want {
				// Known behind now: nothing is pinned until it is rebuilt.
				if _, check := v.Pin(ctx); check != nil {
					t.Error("Pin after a read found the value behind gave a check, want nil")
				}
				if x, err := v.Get(v.Unpin(pctx)); err != nil || x != 20 {
					t.Errorf("Get in Unpin(ctx) = %d, %v; want 20 (rebuilt at 2)", x, err)
				}
				if _, check := v.Pin(ctx); check == nil {
					t.Error("Pin after the rebuild gave no check")
				}
			}
		})
	}
}

// TestCurrentWithin: a reader that finds the value behind waits as long as
// its wait says for the rebuild to bring it up to the graph, and answers
// from it; with no wait, or when the rebuild outlasts the wait, it
// answers ok false as Current does, and the rebuild goes on; a rebuild
// started before the reader's version is not waited for.
func TestCurrentWithin(t *testing.T) {
	ctx := context.Background()
	c := &corpus{}
	c.version.Store(1)
	v := c.value()
	if x, err := v.Get(ctx); err != nil || x != 10 {
		t.Fatalf("first build: %d, %v", x, err)
	}
	c.release = make(chan struct{})
	c.version.Store(2)
	var asked [2]int64
	wait := func(d time.Duration) func(at, version int64, waited time.Duration) time.Duration {
		return func(at, version int64, waited time.Duration) time.Duration {
			asked = [2]int64{at, version}
			if waited > 0 {
				return 0
			}
			return d
		}
	}
	if _, ok, err := v.CurrentWithin(ctx, wait(0)); ok || err != nil {
		t.Errorf("no wait, the value behind: ok %v, err %v; want false at once", ok, err)
	}
	if asked != [2]int64{1, 2} {
		t.Errorf("the wait was asked about %v, want the value's version 1 and the graph's 2", asked)
	}
	if _, ok, err := v.CurrentWithin(ctx, wait(30*time.Millisecond)); ok || err != nil {
		t.Errorf("a wait shorter than the rebuild: ok %v, err %v; want false", ok, err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(c.release)
	}()
	// Asked again when its time runs out, the wait may say to wait on:
	// here in slices of 10 ms, the rebuild taking about 20.
	var waits []time.Duration
	slices := func(at, version int64, waited time.Duration) time.Duration {
		waits = append(waits, waited)
		return 10 * time.Millisecond
	}
	if x, ok, err := v.CurrentWithin(ctx, slices); !ok || err != nil || x != 20 {
		t.Errorf("a wait extended until the rebuild ends: %d, ok %v, err %v; want 20 from the rebuild", x, ok, err)
	}
	if len(waits) < 2 || waits[0] != 0 || waits[1] != 10*time.Millisecond {
		t.Errorf("the wait was asked with %v waited, want 0, then 10ms, …", waits)
	}
	if n := c.builds.Load(); n != 2 {
		t.Errorf("%d builds, want 2: the readers shared the rebuild the first started", n)
	}
	if x, ok, err := v.Current(ctx); !ok || err != nil || x != 20 {
		t.Errorf("after the rebuild, Current: %d, ok %v, err %v", x, ok, err)
	}

	// A rebuild started before the reader's version (here a refresh, as
	// the settling build is started) cannot answer it: not waited for.
	c.release = make(chan struct{})
	v.Refresh(ctx)
	c.version.Store(3)
	asked = [2]int64{}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, ok, err := v.CurrentWithin(short, wait(time.Minute)); ok || err != nil || short.Err() != nil {
		t.Errorf("a refresh under way: ok %v, err %v, deadline passed %v; want false at once", ok, err, short.Err() != nil)
	}
	if asked != [2]int64{} {
		t.Errorf("the wait was asked about %v during a rebuild started before the reader's version", asked)
	}
	close(c.release)
}

// TestSettleBesideRebuilds: a Settle takes no rebuild's place — a reader
// that finds the graph ahead meanwhile is answered by a rebuild of its
// own — and its value, finished behind the current one, is brought up to
// it by CatchUp, or thrown away when CatchUp cannot.
func TestSettleBesideRebuilds(t *testing.T) {
	for _, catchUp := range []bool{true, false} {
		t.Run(map[bool]string{true: "caught_up", false: "thrown_away"}[catchUp], func(t *testing.T) {
			ctx := context.Background()
			c := &corpus{}
			c.version.Store(1)
			v := c.value()
			// The settle's catch-up waits for caughtUp once begun, so
			// that the test can ask for the value meanwhile.
			catching, caughtUp := make(chan struct{}), make(chan struct{})
			var once sync.Once
			v.CatchUp = func(x, from, to int64) (int64, bool) {
				if from == 2 {
					once.Do(func() { close(catching) })
					<-caughtUp
				}
				return x + 1000*(to-from), catchUp
			}
			if x, err := v.Get(ctx); err != nil || x != 10 {
				t.Fatalf("first build: %d, %v", x, err)
			}
			c.version.Store(2)
			hold, read := make(chan struct{}), make(chan struct{})
			settled := v.Settle(ctx, func(context.Context) (int64, int64, error) {
				at := c.version.Load()
				close(read)
				<-hold
				return 7 + 10*at, at, nil
			})
			if settled == nil {
				t.Fatal("Settle started nothing")
			}
			var second atomic.Int64
			if again := v.Settle(ctx, func(context.Context) (int64, int64, error) {
				second.Add(1)
				return 0, 0, errors.New("the second settle's build fails")
			}); again != nil {
				t.Error("a second Settle started while one is under way")
			}
			<-read // the Settle's build read version 2
			c.version.Store(3)
			short, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if x, err := v.Get(short); err != nil || x != 30 {
				t.Fatalf("Get during a Settle: %d, %v; want 30 from a rebuild of its own", x, err)
			}
			if second.Load() != 0 {
				t.Error("the Settle asked for during another ran before it ended")
			}
			close(hold)
			select {
			case <-catching:
			case <-time.After(5 * time.Second):
				t.Fatal("the settle's value was not caught up")
			}
			// Readers are not held while it catches up.
			peeked := make(chan int64)
			go func() { x, _, _ := v.Peek(); peeked <- x }()
			select {
			case x := <-peeked:
				if x != 30 {
					t.Errorf("during the settle's catch-up the value is %d, want 30", x)
				}
			case <-time.After(5 * time.Second):
				t.Error("a reader waited for the settle's catch-up")
			}
			close(caughtUp)
			<-settled
			x, at, _ := v.Peek()
			want, wantAt := int64(30), int64(3)
			if catchUp {
				want = 27 + 1000 // built at 2, caught up to 3
			}
			if x != want || at != wantAt {
				t.Errorf("after the Settle: %d at %d, want %d at %d", x, at, want, wantAt)
			}
			// The Settle asked for meanwhile runs once the first ends.
			deadline := time.Now().Add(5 * time.Second)
			for second.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := second.Load(); n != 1 {
				t.Errorf("the Settle asked for during another ran %d times, want once after it", n)
			}
		})
	}
}
