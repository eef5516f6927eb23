package explore

import (
	"cmp"
	"context"
	"slices"
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
	if err := s.checkText(text, lang); err != nil {
		return nil, err
	}
	return s.suggester.Suggest(ctx, text, lang)
}

// checkText checks a description and its language as every question asked
// in free text takes them.
func (s *Service) checkText(text, lang string) error {
	if s.suggester == nil {
		return ilgraph.Errorf(ilgraph.EUNAVAILABLE, "suggestions are not available on this server")
	}
	if strings.TrimSpace(text) == "" {
		return ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSuggestText, "is empty: give what you see, in English or Korean")
	}
	if n := utf8.RuneCountInString(text); n > suggest.MaxTextChars {
		return ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldSuggestText, "may be at most %d characters, not %d", suggest.MaxTextChars, n)
	}
	switch lang {
	case "", "en", "ko":
	default:
		return ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLang, "must be en or ko (or left out, to detect the language), not %q", ilgraph.Clip(lang, 20))
	}
	return nil
}

// TextMatch is the answer for an incident described in words: the terms
// suggested, the profile built from them, and the cases most like it.
type TextMatch struct {
	Suggestions *suggest.Result
	Profile     Profile
	Match       *ProfileMatch
}

// SuggestCutoff says which suggestions of a kind count: at most Max terms
// with a confidence of at least Min; and which are shown as sure: at most
// ShowMax of confidence at least ShowMin (nil: none is).
type SuggestCutoff struct {
	Kind    ilgraph.Kind
	Min     float64
	Max     int
	ShowMin *float64
	ShowMax int
}

// SuggestCutoffs returns the cut-off of every vocabulary kind (in
// ilgraph.VocabKinds order) that reads suggestions as an incident's terms:
// the profile of SimilarToText and ProfileFromSuggestions, and the
// suggested filters a front door shows. They are suggest.DefaultCutoffs,
// the ones the evaluation measures, unless WithSuggestCutoffs set others.
//
// The suggestions shown as sure (a front door's chips, MCP's text) are
// fewer: those above suggest.ShowCutoffs (unless WithShowCutoffs set
// others), the lowest confidence at which the kind's suggestions were right
// at least 80% of the time in leave-one-out. The others still count, with
// their confidence; they are offered, not asserted.
func (s *Service) SuggestCutoffs() []SuggestCutoff {
	out := make([]SuggestCutoff, 0, len(ilgraph.VocabKinds))
	for _, k := range ilgraph.VocabKinds {
		c, sh := s.cutoffs[k], s.show[k]
		sc := SuggestCutoff{Kind: k, Min: c.Min, Max: c.Max, ShowMax: sh.Max}
		if sh.Max > 0 {
			sc.ShowMin = &sh.Min
		}
		out = append(out, sc)
	}
	return out
}

// Sure returns the suggestions of r shown as sure (see SuggestCutoffs).
func (s *Service) Sure(r *suggest.Result) map[ilgraph.Feature]bool {
	out := map[ilgraph.Feature]bool{}
	for _, k := range ilgraph.VocabKinds {
		for _, sg := range r.Sure(k, s.cutoffs[k], s.show[k]) {
			out[ilgraph.Feature{Kind: k, ID: sg.ID}] = true
		}
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
		top := r.InProfile(info.Kind, s.cutoffs[info.Kind])
		if info.One && len(top) > 1 {
			top = top[:1]
		}
		var ids []string
		for _, sg := range top {
			ids = append(ids, sg.ID)
			p.Confidence[ilgraph.Feature{Kind: info.Kind, ID: sg.ID}] = sg.Score
		}
		p.SetTerms(info.Kind, ids)
	}
	return p
}

// DefaultDescriptionWeight is the share of a free-text match's score that
// the description's own words decide; the rest is the profile of terms
// suggested from it. Chosen on the judged tuning queries (docs/similarity.md).
const DefaultDescriptionWeight = 0.5

// SimilarToText ranks the cases most like a description, with what they
// suggest checking next. Two things decide a case's score: the profile of
// terms suggested from the text (each counting with its confidence), and
// the text itself — how like the description the case's own text is (BM25
// over title, summary, trigger and symptoms in the description's language,
// divided by the best case's, so 0 to 1). With w the description weight,
// score = (1 − w) × profile score + w × text match; the shared terms'
// contributions are scaled by 1 − w and the text's part is the SimilarCase's
// Text (Weight w, Cosine the text match, Contribution w × it), so the parts
// add up to the score. A description that points to no term still matches
// by its words.
//
// The ranking takes the best pool(k) cases of each part and scores their
// union; a case outside both pools scores at most (1 − w) × the profile
// pool's last score + w × the text pool's last match, and when that could
// reach the k-th score the pools widen to MaxSimilarK.
func (s *Service) SimilarToText(ctx context.Context, text, lang string, q SimilarityQuery) (*TextMatch, error) {
	return s.MatchText(ctx, text, lang, Profile{}, q)
}

// MatchText is SimilarToText for an incident of which some terms are known
// already (given, each counting in full): the terms read from the text join
// them (Profile.Join), and the text's words rank the cases as well.
func (s *Service) MatchText(ctx context.Context, text, lang string, given Profile, q SimilarityQuery) (*TextMatch, error) {
	res, err := s.Suggest(ctx, text, lang)
	if err != nil {
		return nil, err
	}
	if _, err := q.options(); err != nil {
		return nil, err
	}
	p := given.Join(s.ProfileFromSuggestions(res))
	list, err := s.blended(ctx, text, res.Lang, p, q)
	if err != nil {
		return nil, err
	}
	return &TextMatch{Suggestions: res, Profile: p, Match: suggestFrom(list)}, nil
}

// SimilarToDescribed is SimilarToProfile for an incident also described in
// words: the description's own words rank the cases as well, as
// SimilarToText's text part does (its share of the score the description
// weight, DefaultDescriptionWeight), and no term is read from it — the
// profile is exactly the one given, as a person chose it (the Live screen,
// where the suggested terms were shown and kept or removed). The profile may
// be empty: the words alone rank the cases. A blank text is SimilarToProfile;
// so is any text on a server without a text index (with a warning).
func (s *Service) SimilarToDescribed(ctx context.Context, p Profile, text, lang string, q SimilarityQuery) (*ProfileMatch, error) {
	if strings.TrimSpace(text) == "" {
		return s.SimilarToProfile(ctx, p, q)
	}
	if s.suggester == nil {
		report(ctx, []Warning{{Field: ilgraph.FieldSuggestText, Value: ilgraph.Clip(text, 40), Message: "the description's words are not used: this server has no text index; the terms alone rank the cases"}})
		return s.SimilarToProfile(ctx, p, q)
	}
	if err := s.checkText(text, lang); err != nil {
		return nil, err
	}
	if _, err := q.options(); err != nil {
		return nil, err
	}
	if n := len(p.Features()); n > ilgraph.MaxFilterTerms {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldProfile, "may have at most %d features, not %d", ilgraph.MaxFilterTerms, n)
	}
	list, err := s.blended(ctx, text, lang, p, q)
	if err != nil {
		return nil, err
	}
	return suggestFrom(list), nil
}

// blended ranks the cases by a profile and a text's words together (blend),
// widening the pools until the k best are certain.
func (s *Service) blended(ctx context.Context, text, lang string, p Profile, q SimilarityQuery) ([]SimilarCase, error) {
	w := s.descWeight
	for pool := min(MaxSimilarK, max(4*q.K, 40)); ; pool = MaxSimilarK {
		list, bound, err := s.blend(ctx, text, lang, p, q, w, pool)
		if err != nil {
			return nil, err
		}
		if pool == MaxSimilarK || len(list) < q.K || list[q.K-1].Score >= bound {
			return list[:min(q.K, len(list))], nil
		}
	}
}

// blend scores the union of the profile's and the text's best pool cases
// (see SimilarToText), best first, and returns the bound on any other
// case's score.
func (s *Service) blend(ctx context.Context, text, lang string, p Profile, q SimilarityQuery, w float64, pool int) ([]SimilarCase, float64, error) {
	wide := q
	wide.K, wide.MinScore = pool, 0
	var tagged []SimilarCase
	var err error
	if len(p.Features()) > 0 && w < 1 {
		if tagged, err = s.profileCases(ctx, p, wide); err != nil {
			return nil, 0, err
		}
	}
	// The text's best pool cases, then the profile's others with their
	// text match too.
	var tm []suggest.TextMatch
	top := 0
	if w > 0 {
		also := make([]string, len(tagged))
		for i, sc := range tagged {
			also[i] = sc.Case.ID
		}
		if _, tm, err = s.suggester.TextMatches(ctx, text, lang, pool, also); err != nil {
			return nil, 0, err
		}
		top = min(pool, len(tm))
		for top > 0 && tm[top-1].Score <= 0 {
			top--
		}
		top = min(top, len(tm))
	}
	if len(p.Features()) == 0 && top == 0 {
		return nil, 0, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSuggestText, "points to no vocabulary term and shares no word with any case: describe components, symptoms or causes")
	}
	byID := map[string]*SimilarCase{}
	for i := range tagged {
		byID[tagged[i].Case.ID] = &tagged[i]
	}
	// The text's best cases the profile ranking did not list: their
	// profile scores, under the query's filter.
	var missing []string
	for _, m := range tm[:top] {
		if byID[m.CaseID] == nil {
			missing = append(missing, m.CaseID)
		}
	}
	if len(missing) > 0 {
		keep, err := s.selected(ctx, q.Filter, missing)
		if err != nil {
			return nil, 0, err
		}
		missing = slices.DeleteFunc(missing, func(id string) bool { return !keep[id] })
	}
	var extra []SimilarCase
	if len(missing) > 0 {
		if len(p.Features()) > 0 && w < 1 {
			only := wide
			only.K = len(missing)
			only.Filter.IDs = missing
			if extra, err = s.profileCases(ctx, p, only); err != nil {
				return nil, 0, err
			}
		}
		listed := map[string]bool{}
		for _, sc := range extra {
			listed[sc.Case.ID] = true
		}
		var none []ilgraph.Match // sharing no term with the profile
		for _, id := range missing {
			if !listed[id] {
				none = append(none, ilgraph.Match{ID: id})
			}
		}
		more, err := s.similarCases(ctx, none, false)
		if err != nil {
			return nil, 0, err
		}
		extra = append(extra, more...)
	}
	for i := range extra {
		byID[extra[i].Case.ID] = &extra[i]
	}
	best, textAt := 0.0, map[string]suggest.TextMatch{}
	for _, m := range tm {
		best = max(best, m.Score)
		textAt[m.CaseID] = m
	}
	out := make([]SimilarCase, 0, len(byID))
	for id, sc := range byID {
		c := *sc
		c.Shared = make([]ilgraph.Contribution, len(sc.Shared))
		for i, x := range sc.Shared {
			x.Contribution = ilgraph.RoundScore(x.Contribution * (1 - w))
			c.Shared[i] = x
		}
		match := 0.0
		words := []string{}
		if m, ok := textAt[id]; ok && best > 0 {
			match, words = m.Score/best, append(words, m.Words...)
		}
		c.Text = &ilgraph.TextPart{Weight: w, Cosine: ilgraph.RoundScore(match), Contribution: ilgraph.RoundScore(w * match), Words: words}
		c.Score = ilgraph.RoundScore((1-w)*sc.Score + w*match)
		if c.Score < q.MinScore || c.Score <= 0 {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b SimilarCase) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.Case.ID, b.Case.ID)
	})
	var bound float64
	if len(tagged) == pool {
		bound += (1 - w) * tagged[pool-1].Score
	}
	if top == pool && best > 0 {
		bound += w * tm[pool-1].Score / best
	}
	return out, bound, nil
}

// Join adds to a profile the one read from a text (read): its root
// cause only when none was given, its other terms to those given. A term
// read from the text counts with its confidence; one given counts in full.
func (p Profile) Join(read Profile) Profile {
	given := map[ilgraph.Feature]bool{}
	for _, f := range p.Features() {
		given[f] = true
	}
	conf := map[ilgraph.Feature]float64{}
	for f, c := range read.Confidence {
		if !given[f] {
			conf[f] = c
		}
	}
	p.Confidence = conf
	add := func(ids, more []string) []string {
		out := append([]string(nil), ids...)
		for _, id := range more {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
		return out
	}
	if p.RootCause == "" {
		p.RootCause = read.RootCause
	}
	p.Components = add(p.Components, read.Components)
	p.Symptoms = add(p.Symptoms, read.Symptoms)
	p.Contributing = add(p.Contributing, read.Contributing)
	p.Domains = add(p.Domains, read.Domains)
	p.Mechanisms = add(p.Mechanisms, read.Mechanisms)
	return p
}
