package explore

import (
	"context"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/suggest"
)

// SuggestStore is what suggestions are built from: the vocabulary with its
// aliases, and the corpus version that says when to build again. graph.DB
// implements it; a store that does not has no suggestions (UNAVAILABLE).
type SuggestStore interface {
	Vocabulary(ctx context.Context) (*ilgraph.Vocabulary, error)
	CorpusVersion(ctx context.Context) (int64, error)
}

// Suggestion limits.
const (
	// MaxSuggestText is the longest text suggestions take, in characters.
	MaxSuggestText = suggest.MaxTextChars
	// SuggestCheckInterval is how often the corpus version is read to see
	// whether the engine must be built again: a load shows in suggestions at
	// most this much later.
	SuggestCheckInterval = 2 * time.Second
	// suggestPage is how many cases one read of the engine's build takes.
	suggestPage = 1000
)

// suggester holds the engine the process shares, built from the graph on
// the first suggestion and again when the corpus version moves.
type suggester struct {
	mu      sync.Mutex
	engine  *suggest.Engine
	version int64
	checked time.Time
}

// Suggest returns the vocabulary terms a free text points to, per kind,
// with confidences and evidence (see package suggest). lang is "en", "ko"
// or "" to detect it.
func (s *Service) Suggest(ctx context.Context, text, lang string) (*suggest.Result, error) {
	e, err := s.suggestEngine(ctx)
	if err != nil {
		return nil, err
	}
	return e.Suggest(text, lang, "")
}

func (s *Service) suggestEngine(ctx context.Context) (*suggest.Engine, error) {
	ss, ok := s.store.(SuggestStore)
	if !ok {
		return nil, ilgraph.Errorf(ilgraph.EUNAVAILABLE, "suggestions are not available from this store")
	}
	g := &s.suggest
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.engine != nil && time.Since(g.checked) < SuggestCheckInterval {
		return g.engine, nil
	}
	v, err := ss.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	if g.engine != nil && v == g.version {
		g.checked = time.Now()
		return g.engine, nil
	}
	vocab, err := ss.Vocabulary(ctx)
	if err != nil {
		return nil, err
	}
	var cases []ilgraph.Case
	for offset := 0; ; offset += suggestPage {
		p, err := s.store.ListCases(ctx, ilgraph.CaseFilter{}, ilgraph.SortIDAsc, offset, suggestPage)
		if err != nil {
			return nil, err
		}
		for _, c := range p.Cases {
			cases = append(cases, *c)
		}
		if len(p.Cases) < suggestPage || offset+len(p.Cases) >= p.Total {
			break
		}
	}
	e, err := suggest.New(vocab, cases, suggest.Options{})
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINTERNAL, err, "building the suggestion engine")
	}
	g.engine, g.version, g.checked = e, v, time.Now()
	return e, nil
}
