// Package admission bounds the work a server takes on at once. Requests
// fall into cost classes; each class has a number of requests that may run
// at once and a short queue of requests waiting for one of those slots,
// bounded both in length and in how long a request may wait. A request that
// finds the queue full, or waits its whole bound, is refused at once with a
// *Refusal, which the front door turns into 503 and Retry-After: an
// overloaded server answers "later" quickly instead of answering everyone
// slowly.
//
// Classes are independent, so that a flood of expensive requests cannot
// take the slots of cheap ones.
package admission

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Class is a request's cost class, cheapest first: a request that mixes
// classes belongs to the most expensive one.
type Class int

const (
	Lookup     Class = iota // one case, one term, the vocabulary
	List                    // pages of cases, shared features, neighbourhoods
	Similarity              // similar cases and profiles: the in-memory index
	Aggregate               // co-occurrence, stats, facets, connections: scans of the corpus
	NumClasses
)

var classNames = [NumClasses]string{"lookup", "list", "similarity", "aggregate"}

func (c Class) String() string {
	if c >= 0 && c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Limit bounds one class.
type Limit struct {
	InFlight int // requests of the class that run at once
	Queue    int // requests that may wait for a slot; more are refused at once
}

// Config is every class's limit and the longest wait in a queue.
type Config struct {
	Limits [NumClasses]Limit
	Wait   time.Duration
}

// Default is the configuration ilgraph serve starts with.
var Default = Config{
	Limits: [NumClasses]Limit{
		Lookup:     {InFlight: 64, Queue: 128},
		List:       {InFlight: 16, Queue: 64},
		Similarity: {InFlight: 8, Queue: 32},
		Aggregate:  {InFlight: DefaultAggregates(runtime.GOMAXPROCS(0)), Queue: 16},
	},
	Wait: 2 * time.Second,
}

// DefaultAggregates is the aggregates that run at once by default on a
// machine with cpus cores: half of them, at least one, at most 4. An
// aggregate is CPU work from start to end (counting over the read model
// in this process, or a scan in Neo4j, often on the same machine), so
// aggregates running on every core leave a lookup that wakes up waiting
// for a core at each step — behind them in Go's run queue, behind them in
// Neo4j's threads. With half the cores the others stay free for the cheap
// requests; on the 2-core machine of the flood test this took the lookups'
// p99 from 260–370 ms to the figures in docs/operations.md.
func DefaultAggregates(cpus int) int {
	return min(4, max(1, cpus/2))
}

// WithDefaults fills every zero setting from Default. A negative Queue
// means no queue: a request that finds no free slot is refused.
func (c Config) WithDefaults() Config {
	for i := range c.Limits {
		if c.Limits[i].InFlight <= 0 {
			c.Limits[i].InFlight = Default.Limits[i].InFlight
		}
		if c.Limits[i].Queue == 0 {
			c.Limits[i].Queue = Default.Limits[i].Queue
		} else if c.Limits[i].Queue < 0 {
			c.Limits[i].Queue = 0
		}
	}
	if c.Wait <= 0 {
		c.Wait = Default.Wait
	}
	return c
}

// InFlight is the sum of every class's InFlight: the most requests that
// run at once.
func (c Config) InFlight() int {
	n := 0
	for _, l := range c.Limits {
		n += l.InFlight
	}
	return n
}

// Refusal is the error of a request refused for overload.
type Refusal struct {
	Class Class
	// QueueFull: the queue was full; otherwise the request waited Wait.
	QueueFull bool
	// RetryAfter is a hint for the client: the longest wait, at least 1s.
	RetryAfter time.Duration
}

func (r *Refusal) Error() string {
	if r.QueueFull {
		return fmt.Sprintf("too many %s requests: the queue is full", r.Class)
	}
	return fmt.Sprintf("too many %s requests: no slot freed up in time", r.Class)
}

// Controller admits requests. It is safe for concurrent use.
type Controller struct {
	cfg   Config
	gates [NumClasses]gate
	// after returns a channel that fires once d has passed and a function
	// that stops it; tests replace it to decide when a wait ends.
	after func(d time.Duration) (<-chan time.Time, func() bool)

	hooks     Hooks
	storeDown func() bool
}

type gate struct {
	slots  chan struct{} // a token per running request
	queued atomic.Int64
}

// New returns a Controller for cfg (zero settings take the defaults).
func New(cfg Config) *Controller {
	cfg = cfg.WithDefaults()
	c := &Controller{cfg: cfg, after: func(d time.Duration) (<-chan time.Time, func() bool) {
		t := time.NewTimer(d)
		return t.C, t.Stop
	}}
	for i := range c.gates {
		c.gates[i].slots = make(chan struct{}, cfg.Limits[i].InFlight)
	}
	return c
}

// Config returns the settings in force.
func (c *Controller) Config() Config { return c.cfg }

// Acquire takes a slot of class cl, waiting in its queue when none is
// free. It returns the function that gives the slot back (call it exactly
// once), a *Refusal when the request is refused, or ctx's error when ctx
// ends while it waits.
func (c *Controller) Acquire(ctx context.Context, cl Class) (release func(), err error) {
	g := &c.gates[cl]
	release = func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	if g.queued.Add(1) > int64(c.cfg.Limits[cl].Queue) {
		g.queued.Add(-1)
		return nil, c.refuse(cl, true)
	}
	defer g.queued.Add(-1)
	timeout, stop := c.after(c.cfg.Wait)
	defer stop()
	// Goroutines blocked sending on a channel are served first come,
	// first served: the queue is FIFO.
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-timeout:
		return nil, c.refuse(cl, false)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *Controller) refuse(cl Class, full bool) *Refusal {
	return &Refusal{Class: cl, QueueFull: full, RetryAfter: max(time.Second, c.cfg.Wait)}
}

// Running is the number of requests of cl running now.
func (c *Controller) Running(cl Class) int { return len(c.gates[cl].slots) }

// Queued is the number of requests of cl waiting now.
func (c *Controller) Queued(cl Class) int { return int(c.gates[cl].queued.Load()) }

// Hooks let a server observe admission: Refused counts a refusal by class
// and reason ("queue_full", "wait", "deadline") — ctx is the refused
// request's, which tells the server its front door —, Classified notes a
// request's class (for its log line). Either may be nil.
type Hooks struct {
	Refused    func(ctx context.Context, cl Class, reason string)
	Classified func(ctx context.Context, cl Class)
}

// Observe sets the hooks and the function that tells whether the store is
// known down (requests then skip the queue: they fail at once anyway, and
// would otherwise queue behind requests that are still finding out, and
// answer OVERLOADED instead of UNAVAILABLE). Call it before serving.
func (c *Controller) Observe(h Hooks, storeDown func() bool) {
	c.hooks, c.storeDown = h, storeDown
}

// Overloaded is a request's refusal as every front door answers it: 503
// with Retry-After (whole seconds) and the code OVERLOADED.
type Overloaded struct {
	Class      Class
	Reason     string // queue_full, wait or deadline
	RetryAfter int    // seconds, at least 1
}

// Message is the short message a client reads.
func (o *Overloaded) Message() string {
	return fmt.Sprintf("the server is busy with %s requests; retry in %d s", o.Class, o.RetryAfter)
}

// Admit is Acquire as a front door uses it: it returns the function that
// gives the slot back, or how to refuse the request. A nil Controller
// admits everything.
func (c *Controller) Admit(ctx context.Context, cl Class) (release func(), refused *Overloaded) {
	if c == nil || c.storeDown != nil && c.storeDown() {
		return func() {}, nil
	}
	if c.hooks.Classified != nil {
		c.hooks.Classified(ctx, cl)
	}
	release, err := c.Acquire(ctx, cl)
	if err == nil {
		return release, nil
	}
	if c.storeDown != nil && c.storeDown() {
		// It waited behind requests that were finding out that the store
		// is down: let it find out at once too.
		return func() {}, nil
	}
	retry := c.cfg.Wait
	reason := "deadline"
	var ref *Refusal
	if errors.As(err, &ref) {
		retry = ref.RetryAfter
		reason = "wait"
		if ref.QueueFull {
			reason = "queue_full"
		}
	}
	if c.hooks.Refused != nil {
		c.hooks.Refused(ctx, cl, reason)
	}
	secs := int((max(retry, time.Second) + time.Second - 1) / time.Second)
	return nil, &Overloaded{Class: cl, Reason: reason, RetryAfter: secs}
}
