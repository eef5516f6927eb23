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
