package suggest

import (
	"context"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/internal/versioned"
)

// Store is what the suggestion service reads from the graph. graph.DB
// implements it.
type Store interface {
	// CorpusVersion changes whenever a load changes the cases.
	CorpusVersion(ctx context.Context) (int64, error)
	// Vocabulary returns every term with its labels and aliases.
	Vocabulary(ctx context.Context) (*ilgraph.Vocabulary, error)
	// EachCase calls fn with every case.
	EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error
}

// Service keeps an Engine in step with the graph: built from the stored
// vocabulary and cases the first time it is asked, and again, once, after a
// load has changed the cases.
type Service struct {
	engine versioned.Value[*Engine]
}

// NewService returns a service over store; opts tune the engine.
func NewService(store Store, opts Options) *Service {
	s := &Service{}
	s.engine = versioned.Value[*Engine]{
		Version: store.CorpusVersion,
		Build: func(ctx context.Context) (*Engine, int64, error) {
			version, err := store.CorpusVersion(ctx)
			if err != nil {
				return nil, 0, err
			}
			v, err := store.Vocabulary(ctx)
			if err != nil {
				return nil, 0, err
			}
			e, err := build(ctx, store, v, opts)
			return e, version, err
		},
		What:    "the suggestion engine",
		Timeout: 30 * time.Minute, // minutes at a million cases (see similarity.BuildTimeout)
	}
	return s
}

// build makes the engine of the store's cases. With a store that lists
// the cases' organizations first (graph.DB), the cases are analysed as they
// stream in, none held longer than that takes; otherwise they are read
// first.
func build(ctx context.Context, store Store, v *ilgraph.Vocabulary, opts Options) (*Engine, error) {
	ol, ok := store.(interface {
		CaseOrganizations(ctx context.Context) ([]string, error)
	})
	if !ok {
		var cases []ilgraph.Case
		err := store.EachCase(ctx, func(c *ilgraph.Case) error {
			cases = append(cases, slim(c))
			return nil
		})
		if err != nil {
			return nil, err
		}
		return New(v, cases, opts)
	}
	orgs, err := ol.CaseOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(v, opts)
	if err != nil {
		return nil, err
	}
	extra := extraNames(opts.Names, nil)
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
	b := e.builder(extra)
	err = store.EachCase(ctx, func(c *ilgraph.Case) error {
		s := slim(c)
		b.add(&s)
		return nil
	})
	complete := b.finish() // always: it stops the analysis
	if err != nil {
		return nil, err
	}
	if !complete {
		return nil, ilgraph.Errorf(ilgraph.ECONFLICT, "the cases changed while the suggestion engine read them (their organizations differ from those read before); it is built again on the next request")
	}
	return e, nil
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
	e, err := s.engine.Get(ctx)
	if err != nil {
		return nil, err
	}
	return e.Suggest(text, lang, "")
}
