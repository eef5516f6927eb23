// Package parallel runs the independent steps of one piece of work on
// every processor.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines,
// and returns when every call has. The calls must not depend on each
// other's order; each writes only what is its own (its index's slot).
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// A Share bounds how many goroutines of a piece of background work run
// at once, across every pool that work starts: a build that nothing waits
// for (memstore's settling build) leaves the other processors to the
// requests. A nil Share bounds nothing.
type Share struct{ tokens chan struct{} }

// NewShare returns a Share of n goroutines at once (at least one).
func NewShare(n int) *Share { return &Share{tokens: make(chan struct{}, max(n, 1))} }

// Do runs fn when the share has room for it.
func (s *Share) Do(fn func()) {
	if s == nil {
		fn()
		return
	}
	s.tokens <- struct{}{}
	defer func() { <-s.tokens }()
	fn()
}

type shareKey struct{}

// WithShare returns ctx carrying s, for the pools of the work ctx starts.
func WithShare(ctx context.Context, s *Share) context.Context {
	return context.WithValue(ctx, shareKey{}, s)
}

// ShareOf is the Share ctx carries, nil for none.
func ShareOf(ctx context.Context) *Share {
	s, _ := ctx.Value(shareKey{}).(*Share)
	return s
}
