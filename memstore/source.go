package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
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

// Corpus is what a Source built at one corpus version: the snapshot and
// each consumer's value.
type Corpus struct {
	*Snapshot
	values map[Consumer]any
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
}

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
	}
	return s
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

// Current returns the corpus when it is as current as the graph, without
// waiting: when a load has changed the cases since it was built (or it
// was never built), it starts a rebuild in the background and returns nil,
// and the caller answers from the graph meanwhile. One small query per
// call.
func (s *Source) Current(ctx context.Context) (*Corpus, error) {
	c, _, err := s.v.Current(ctx)
	return c, err
}

// build reads the corpus once: the version, the organizations' names, then
// the cases, each handed to the snapshot and to every consumer.
func (s *Source) build(ctx context.Context) (*Corpus, error) {
	s.mu.Lock()
	s.started = true
	consumers := s.consumers
	s.mu.Unlock()
	version, err := s.g.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
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
