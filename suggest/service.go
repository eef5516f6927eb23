package suggest

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/internal/parallel"
	"github.com/ilgraph/ilgraph/memstore"
)

// Vocabularies reads the vocabulary the engine suggests from. graph.DB
// implements it.
type Vocabularies interface {
	// Vocabulary returns every term with its labels and aliases.
	Vocabulary(ctx context.Context) (*ilgraph.Vocabulary, error)
}

// Service suggests with an Engine built over each corpus a memstore.Source
// reads, in the same read: the cases' texts are analysed as they stream in
// (none held longer than that takes), and the neighbours' tags are the
// snapshot's, which the in-memory store and the similarity index share.
type Service struct {
	src *memstore.Source
	k   *consumer
}

// NewService returns a service over src's corpora, registering its engine
// with src (before src is first asked); the vocabulary is read from store
// at each build. opts tune the engine.
func NewService(store Vocabularies, src *memstore.Source, opts Options) *Service {
	s := &Service{src: src, k: &consumer{store: store, opts: opts}}
	src.Register(s.k)
	return s
}

// consumer builds an engine with each corpus a source reads.
type consumer struct {
	store Vocabularies
	opts  Options
}

// Start reads the vocabulary and starts the analysis, which sets aside
// opts.Names and the name parts of the organizations orgs.
func (k *consumer) Start(ctx context.Context, orgs []string) (memstore.Consuming, error) {
	v, err := k.store.Vocabulary(ctx)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(v, k.opts)
	if err != nil {
		return nil, err
	}
	extra := extraNames(k.opts.Names, nil)
	seen := map[string]bool{}
	for _, name := range extra {
		seen[name] = true
	}
	for _, org := range orgs {
		for _, p := range analysis.NameParts(org) {
			if !seen[p] {
				seen[p] = true
				extra = append(extra, p)
			}
		}
	}
	return &consuming{e: e, b: e.builder(extra, parallel.ShareOf(ctx))}, nil
}

type consuming struct {
	e *Engine
	b *engineBuilder
}

// Add queues the case's texts for analysis.
func (c *consuming) Add(x *ilgraph.Case) {
	s := slim(x)
	c.b.add(&s)
}

// Finish completes the engine over the snapshot. The source has checked
// that the cases name the organizations read before them.
func (c *consuming) Finish(s *memstore.Snapshot) (any, error) {
	c.b.finish() // always: it stops the analysis
	if s == nil {
		return nil, nil
	}
	c.e.attach(s)
	return c.e, nil
}

// slim keeps what the engine reads of a case: its id, organization, texts
// (those of caseText and factorText) and tags.
func slim(c *ilgraph.Case) ilgraph.Case {
	return ilgraph.Case{
		ID: c.ID, Org: c.Org, OrgSlug: c.OrgSlug,
		Title: c.Title, Summary: c.Summary, Trigger: c.Trigger, SymptomsText: c.SymptomsText,
		Detection: c.Detection, Lessons: c.Lessons, ActionItems: c.ActionItems,
		RootCause: c.RootCause, Components: c.Components, Symptoms: c.Symptoms, Contributing: c.Contributing, Domain: c.Domain, Mechanisms: c.Mechanisms,
	}
}

// Suggest suggests terms for text (lang "en", "ko", or "" to detect it) with
// the engine of the current corpus.
func (s *Service) Suggest(ctx context.Context, text, lang string) (*Result, error) {
	return s.SuggestExcluding(ctx, text, lang, "")
}

// SuggestExcluding is Suggest with the case caseID left out of every
// statistic (Engine.Suggest): what the engine says of a stored case's own
// text without the case voting for its own tags.
func (s *Service) SuggestExcluding(ctx context.Context, text, lang, caseID string) (*Result, error) {
	c, err := s.src.Get(ctx)
	if err != nil {
		return nil, err
	}
	return c.Value(s.k).(*Engine).Suggest(text, lang, caseID)
}
