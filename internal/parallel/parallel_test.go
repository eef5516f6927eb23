package parallel_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/parallel"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		was := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 1000} {
			calls := make([]atomic.Int32, n)
			parallel.For(n, func(i int) { calls[i].Add(1) })
			for i := range calls {
				if got := calls[i].Load(); got != 1 {
					t.Errorf("GOMAXPROCS %d, n %d: index %d called %d times, want 1", procs, n, i, got)
				}
			}
		}
		runtime.GOMAXPROCS(was)
	}
}

func TestShareBoundsItsGoroutines(t *testing.T) {
	for _, n := range []int{1, 3} {
		s := parallel.NewShare(n)
		var running, most atomic.Int32
		var wg sync.WaitGroup
		for range 12 {
			wg.Go(func() {
				s.Do(func() {
					now := running.Add(1)
					for {
						m := most.Load()
						if now <= m || most.CompareAndSwap(m, now) {
							break
						}
					}
					time.Sleep(5 * time.Millisecond)
					running.Add(-1)
				})
			})
		}
		wg.Wait()
		if got := most.Load(); got != int32(n) {
			t.Errorf("a share of %d: at most %d ran at once, want %d", n, got, n)
		}
	}
	ctx := context.Background()
	if parallel.ShareOf(ctx) != nil {
		t.Error("a context without a share gives one")
	}
	s := parallel.NewShare(2)
	if got := parallel.ShareOf(parallel.WithShare(ctx, s)); got != s {
		t.Error("the share a context carries is not the one given")
	}
	var none *parallel.Share
	ran := false
	none.Do(func() { ran = true })
	if !ran {
		t.Error("a nil share did not run its work")
	}
}
