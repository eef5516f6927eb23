package parallel_test

import (
	"runtime"
	"sync/atomic"
	"testing"

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
