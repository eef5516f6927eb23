// Package versioned keeps a value derived from the whole corpus (the
// in-memory corpus of memstore.Source) in step with the graph's corpus
// version: before answering, a reader asks for the version (one small
// query); when a load has changed the cases since the value was built, the
// value is rebuilt once, however many readers wait, and swapped in.
package versioned

import (
	"context"
	"sync"
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

	mu      sync.Mutex
	current *built[T]
	build   *rebuild[T] // the rebuild under way, if any
}

type built[T any] struct {
	v       T
	version int64
}

type rebuild[T any] struct {
	done chan struct{}
	b    *built[T]
	err  error
}

// Current returns the value when it is as current as the graph (ok),
// without waiting: otherwise it starts a rebuild if none is under way and
// returns ok false at once, for a caller that has another way to answer.
func (c *Value[T]) Current(ctx context.Context) (v T, ok bool, err error) {
	version, err := c.Version(ctx)
	if err != nil {
		return v, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != nil && c.current.version == version {
		return c.current.v, true, nil
	}
	if c.build == nil {
		c.startBuild(ctx)
	}
	return v, false, nil
}

// startBuild starts a rebuild in the background; c.mu is held.
func (c *Value[T]) startBuild(ctx context.Context) *rebuild[T] {
	r := &rebuild[T]{done: make(chan struct{})}
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
			r.b = &built[T]{v: v, version: at}
			if c.current == nil || at >= c.current.version {
				c.current = r.b
			}
		}
		r.err = err
		c.build = nil
		c.mu.Unlock()
		close(r.done)
	}()
	return r
}

// Get returns the value as current as the graph.
func (c *Value[T]) Get(ctx context.Context) (T, error) {
	var zero T
	version, err := c.Version(ctx)
	if err != nil {
		return zero, err
	}
	c.mu.Lock()
	if c.current != nil && c.current.version == version {
		v := c.current.v
		c.mu.Unlock()
		return v, nil
	}
	r := c.build
	if r == nil {
		r = c.startBuild(ctx)
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		if r.err != nil {
			return zero, r.err
		}
		return r.b.v, nil
	case <-ctx.Done():
		return zero, ilgraph.WrapError(ilgraph.ETIMEOUT, ctx.Err(), "building %s", c.What)
	}
}
