package admission

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"
)

// fakeTimers makes every wait end only when the test says so.
type fakeTimers struct{ fire chan time.Time }

func newController(t *testing.T, cfg Config) (*Controller, *fakeTimers) {
	t.Helper()
	c := New(cfg)
	ft := &fakeTimers{fire: make(chan time.Time)}
	c.after = func(time.Duration) (<-chan time.Time, func() bool) { return ft.fire, func() bool { return true } }
	return c, ft
}

// waitQueued waits until n requests of cl are queued (goroutines started by
// the test); it never depends on how long anything takes.
func waitQueued(t *testing.T, c *Controller, cl Class, n int) {
	t.Helper()
	for c.Queued(cl) != n {
		runtime.Gosched()
	}
}

type result struct {
	release func()
	err     error
}

func acquireAsync(c *Controller, ctx context.Context, cl Class) chan result {
	ch := make(chan result, 1)
	go func() {
		r, err := c.Acquire(ctx, cl)
		ch <- result{r, err}
	}()
	return ch
}

func oneClass(inFlight, queue int) Config {
	cfg := Config{Wait: 3 * time.Second}
	for i := range cfg.Limits {
		cfg.Limits[i] = Limit{InFlight: 100, Queue: 100}
	}
	cfg.Limits[Aggregate] = Limit{InFlight: inFlight, Queue: queue}
	return cfg
}

func TestBoundQueueAndRefusal(t *testing.T) {
	c, _ := newController(t, oneClass(2, 1))
	ctx := context.Background()
	var releases []func()
	for i := 0; i < 2; i++ {
		r, err := c.Acquire(ctx, Aggregate)
		if err != nil {
			t.Fatalf("slot %d: %v", i, err)
		}
		releases = append(releases, r)
	}
	if c.Running(Aggregate) != 2 {
		t.Fatalf("running %d, want 2", c.Running(Aggregate))
	}
	waiting := acquireAsync(c, ctx, Aggregate)
	waitQueued(t, c, Aggregate, 1)
	// The queue (1) is full: the next one is refused at once.
	_, err := c.Acquire(ctx, Aggregate)
	var ref *Refusal
	if !errors.As(err, &ref) || !ref.QueueFull || ref.Class != Aggregate || ref.RetryAfter != 3*time.Second {
		t.Fatalf("over the queue: %v (%+v), want a queue-full refusal", err, ref)
	}
	// A slot freed goes to the waiting request.
	releases[0]()
	r := <-waiting
	if r.err != nil {
		t.Fatalf("queued request: %v", r.err)
	}
	if c.Queued(Aggregate) != 0 || c.Running(Aggregate) != 2 {
		t.Fatalf("queued %d running %d, want 0 and 2", c.Queued(Aggregate), c.Running(Aggregate))
	}
	r.release()
	releases[1]()
	if c.Running(Aggregate) != 0 {
		t.Fatalf("running %d after every release", c.Running(Aggregate))
	}
}

func TestWaitBound(t *testing.T) {
	c, ft := newController(t, oneClass(1, 4))
	ctx := context.Background()
	release, err := c.Acquire(ctx, Aggregate)
	if err != nil {
		t.Fatal(err)
	}
	waiting := acquireAsync(c, ctx, Aggregate)
	waitQueued(t, c, Aggregate, 1)
	ft.fire <- time.Time{} // the wait bound passes
	r := <-waiting
	var ref *Refusal
	if !errors.As(r.err, &ref) || ref.QueueFull {
		t.Fatalf("after the wait bound: %v, want a wait refusal", r.err)
	}
	if c.Queued(Aggregate) != 0 {
		t.Fatalf("%d still queued", c.Queued(Aggregate))
	}
	release()
}

func TestContextEndsWait(t *testing.T) {
	c, _ := newController(t, oneClass(1, 4))
	release, _ := c.Acquire(context.Background(), Aggregate)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	waiting := acquireAsync(c, ctx, Aggregate)
	waitQueued(t, c, Aggregate, 1)
	cancel()
	if r := <-waiting; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", r.err)
	}
}

func TestNoQueue(t *testing.T) {
	c, _ := newController(t, oneClass(1, -1))
	release, _ := c.Acquire(context.Background(), Aggregate)
	defer release()
	var ref *Refusal
	if _, err := c.Acquire(context.Background(), Aggregate); !errors.As(err, &ref) || !ref.QueueFull {
		t.Fatalf("no queue: %v, want refused at once", err)
	}
}

// A class that is full takes nothing from the others.
func TestClassesIndependent(t *testing.T) {
	c, _ := newController(t, oneClass(1, -1))
	release, _ := c.Acquire(context.Background(), Aggregate)
	defer release()
	for cl := Class(0); cl < NumClasses; cl++ {
		if cl == Aggregate {
			continue
		}
		r, err := c.Acquire(context.Background(), cl)
		if err != nil {
			t.Fatalf("%s while aggregates are full: %v", cl, err)
		}
		r()
	}
}

func TestDefaults(t *testing.T) {
	cfg := Config{}.WithDefaults()
	if cfg != Default {
		t.Fatalf("zero config: %+v, want %+v", cfg, Default)
	}
	if Default.InFlight() != 64+16+8+DefaultAggregates(runtime.GOMAXPROCS(0)) {
		t.Fatalf("InFlight %d", Default.InFlight())
	}
	for cpus, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 8: 4, 64: 4} {
		if got := DefaultAggregates(cpus); got != want {
			t.Errorf("DefaultAggregates(%d) = %d, want %d", cpus, got, want)
		}
	}
	if Aggregate.String() != "aggregate" || Class(9).String() != "class(9)" {
		t.Fatal("class names")
	}
}

// Admit, as the front doors use it: the refusal's reason and Retry-After,
// the hooks, a store known down, a nil controller.
func TestAdmit(t *testing.T) {
	c, ft := newController(t, oneClass(1, 1))
	var refused []string
	var classified []Class
	down := false
	c.Observe(Hooks{
		Refused:    func(_ context.Context, cl Class, reason string) { refused = append(refused, cl.String()+" "+reason) },
		Classified: func(_ context.Context, cl Class) { classified = append(classified, cl) },
	}, func() bool { return down })
	ctx := context.Background()
	hold, o := c.Admit(ctx, Aggregate)
	if o != nil {
		t.Fatalf("first aggregate refused: %+v", o)
	}
	waiting := make(chan *Overloaded, 1)
	go func() {
		_, o := c.Admit(ctx, Aggregate)
		waiting <- o
	}()
	waitQueued(t, c, Aggregate, 1)
	if _, o := c.Admit(ctx, Aggregate); o == nil || o.Reason != "queue_full" || o.RetryAfter != 3 || o.Class != Aggregate {
		t.Errorf("with the queue full: %+v, want queue_full, Retry-After 3", o)
	}
	ft.fire <- time.Now()
	if o := <-waiting; o == nil || o.Reason != "wait" || o.RetryAfter != 3 {
		t.Errorf("after the wait: %+v, want wait, Retry-After 3", o)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { waitQueued(t, c, Aggregate, 1); cancel() }()
	if _, o := c.Admit(cctx, Aggregate); o == nil || o.Reason != "deadline" {
		t.Errorf("when the request's context ends: %+v, want deadline", o)
	}
	if want := []string{"aggregate queue_full", "aggregate wait", "aggregate deadline"}; !slices.Equal(refused, want) {
		t.Errorf("refusals counted %v, want %v", refused, want)
	}
	if len(classified) != 4 {
		t.Errorf("classified %d times, want 4", len(classified))
	}
	// With the store down a request skips the queue, even with the class full.
	down = true
	if rel, o := c.Admit(ctx, Aggregate); o != nil {
		t.Errorf("store down: refused %+v", o)
	} else {
		rel()
	}
	down = false
	hold()
	if c.Running(Aggregate) != 0 {
		t.Errorf("%d aggregate slots held", c.Running(Aggregate))
	}
	var none *Controller
	if rel, o := none.Admit(ctx, Aggregate); o != nil {
		t.Errorf("nil controller refused: %+v", o)
	} else {
		rel()
	}
}
