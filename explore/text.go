package explore

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/suggest"
)

// Suggestion limits: the suggested terms of each kind a front door lists
// when the question names no number, and the most.
const (
	DefaultSuggestPerKind = 5
	MaxSuggestPerKind     = 50
)

// Suggest returns the vocabulary terms free text points to, per kind, each
// with a confidence and its evidence (the words that matched, the similar
// cases that voted). lang is "en", "ko", or "" to detect it.
func (s *Service) Suggest(ctx context.Context, text, lang string) (*suggest.Result, error) {
	if s.suggester == nil {
		return nil, ilgraph.Errorf(ilgraph.EUNAVAILABLE, "suggestions are not available on this server")
	}
	if strings.TrimSpace(text) == "" {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSuggestText, "is empty: give what you see, in English or Korean")
	}
	if n := utf8.RuneCountInString(text); n > suggest.MaxTextChars {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldSuggestText, "may be at most %d characters, not %d", suggest.MaxTextChars, n)
	}
	switch lang {
	case "", "en", "ko":
	default:
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLang, "must be en or ko (or left out, to detect the language), not %q", ilgraph.Clip(lang, 20))
	}
	return s.suggester.Suggest(ctx, text, lang)
}

// TextMatch is the answer for an incident described in words: the terms
// suggested, the profile built from them, and the cases most like it.
type TextMatch struct {
	Suggestions *suggest.Result
	Profile     Profile
	Match       *ProfileMatch
}

// SuggestCutoff says which suggestions of a kind count: at most Max terms
// with a confidence of at least Min.
type SuggestCutoff struct {
	Kind ilgraph.Kind
	Min  float64
	Max  int
}

// SuggestCutoffs returns the cut-off of every vocabulary kind (in
// ilgraph.VocabKinds order) that reads suggestions as an incident's terms:
// the profile of SimilarToText and ProfileFromSuggestions, and the
// suggested filters a front door shows. They are suggest.DefaultCutoffs,
// the ones the evaluation measures, unless WithSuggestCutoffs set others.
func (s *Service) SuggestCutoffs() []SuggestCutoff {
	out := make([]SuggestCutoff, 0, len(ilgraph.VocabKinds))
	for _, k := range ilgraph.VocabKinds {
		c := s.cutoffs[k]
		out = append(out, SuggestCutoff{Kind: k, Min: c.Min, Max: c.Max})
	}
	return out
}

// ProfileFromSuggestions keeps, of each kind, the suggestions above the
// kind's cut-off (SuggestCutoffs); one root cause at most. Each term counts
// with its confidence (Profile.Confidence, ilgraph.ConfidenceWeight): a
// factor guessed at 0.58 from the neighbours' votes weighs √0.58 ≈ 0.76 of
// what a term given by id weighs.
func (s *Service) ProfileFromSuggestions(r *suggest.Result) Profile {
	p := Profile{Confidence: map[ilgraph.Feature]float64{}}
	for _, info := range ilgraph.Kinds {
		if !info.Vocab {
			continue
		}
		top := r.Top(info.Kind, s.cutoffs[info.Kind].Max, s.cutoffs[info.Kind].Min)
		if info.One && len(top) > 1 {
			top = top[:1]
		}
		var ids []string
		for _, sg := range top {
			ids = append(ids, sg.ID)
			p.Confidence[ilgraph.Feature{Kind: info.Kind, ID: sg.ID}] = sg.Confidence
		}
		p.SetTerms(info.Kind, ids)
	}
	return p
}

// SimilarToText suggests terms for text, builds a profile from them and
// ranks the cases most like it, with what they suggest checking next.
func (s *Service) SimilarToText(ctx context.Context, text, lang string, q SimilarityQuery) (*TextMatch, error) {
	res, err := s.Suggest(ctx, text, lang)
	if err != nil {
		return nil, err
	}
	p := s.ProfileFromSuggestions(res)
	if len(p.Features()) == 0 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSuggestText, "points to no vocabulary term: describe components, symptoms or causes")
	}
	pm, err := s.SimilarToProfile(ctx, p, q)
	if err != nil {
		return nil, err
	}
	return &TextMatch{Suggestions: res, Profile: p, Match: pm}, nil
}
