package explore

import (
	"context"
	"slices"
	"sort"

	"github.com/ilgraph/ilgraph"
)

// Similarity limits and defaults.
const (
	// DefaultSimilarK is how many similar cases a question that names no
	// number gets, in every front door.
	DefaultSimilarK = 10
	MaxSimilarK     = 100
	// MaxDiffering bounds the differing features listed per match.
	MaxDiffering = 5
)

// SimilarityQuery says how to rank: how many, with which weights (kinds
// and the text channel left out take their default), rarity weighting (nil:
// the default, ilgraph.DefaultRarity), a minimum score and a filter on the
// candidates. IncludeHidden keeps the matches an editor hid from a case's
// list (Similar), marked hidden; without it they are left out and the
// next ones take their places.
type SimilarityQuery struct {
	K             int // 1 to MaxSimilarK (a front door sends DefaultSimilarK when its caller names none)
	Weights       ilgraph.Weights
	Rarity        *bool
	MinScore      float64
	Filter        ilgraph.CaseFilter
	IncludeHidden bool
	// TagsOnly says the caller reads only the matched cases' TagsOnly
	// fields (see CaseQuery.TagsOnly): they are then not read from the
	// graph when the read model is current. Only Similar heeds it.
	TagsOnly bool
}

func (q SimilarityQuery) options() (ilgraph.SimilarityOptions, error) {
	opt := ilgraph.SimilarityOptions{K: q.K, Rarity: ilgraph.DefaultRarity, MinScore: q.MinScore, Filter: q.Filter}
	if q.Rarity != nil {
		opt.Rarity = *q.Rarity
	}
	if opt.K < 1 || opt.K > MaxSimilarK {
		return opt, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldSimilarK, "must be from 1 to %d, not %d", MaxSimilarK, opt.K)
	}
	if err := opt.Filter.Validate(); err != nil {
		return opt, err
	}
	var err error
	if opt.Weights, err = q.Weights.WithDefaults(); err != nil {
		return opt, err
	}
	if q.MinScore < 0 || q.MinScore > 1 {
		return opt, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSimilarMinScore, "must be from 0 to 1, not %g", q.MinScore)
	}
	return opt, nil
}

// SimilarCase is one ranked case with its score and why: each shared
// feature's contribution and the text channel's (they add up to the score)
// and the heaviest features only one side has.
type SimilarCase struct {
	Case      *ilgraph.Case
	Score     float64
	Shared    []ilgraph.Contribution
	Differing []ilgraph.Difference
	// Text is the text channel's part, nil when the channel was off (text
	// weight 0, or a query without text such as a profile).
	Text *ilgraph.TextPart
	// Judgments are the reviewers' judgments of this match against the
	// query case, by judge (empty for a profile's matches: judgments attach
	// to case-to-case matches). They change no score.
	Judgments []ilgraph.Judgment
	// Hidden is the hiding that took this match off the query case's
	// list, nil when it is shown (see SimilarityQuery.IncludeHidden).
	Hidden *ilgraph.Hiding
}

// Similar ranks the cases most like a stored case, each with its
// judgments; the matches an editor hid are left out (and the next ones
// take their places) unless q.IncludeHidden. ENOTFOUND for an unknown
// case.
func (s *Service) Similar(ctx context.Context, caseID string, q SimilarityQuery) ([]SimilarCase, error) {
	opt, err := q.options()
	if err != nil {
		return nil, err
	}
	if opt.Filter, err = s.resolveFilter(ctx, opt.Filter); err != nil {
		return nil, err
	}
	// The judgments are read from the graph while the ranking runs in
	// memory, so that the one round trip adds nothing to the ranking's
	// time. The ranking asks for the k the list keeps; when an editor hid
	// one of those, the case is ranked again for k plus its hidings, so
	// that the list still holds k (rankings of k and of more agree on
	// their first k: ties are broken by id).
	type fbResult struct {
		fb  *Feedback
		err error
	}
	fbc := make(chan fbResult, 1)
	go func() {
		fb, err := s.feedback(ctx, caseID)
		fbc <- fbResult{fb, err}
	}()
	k := opt.K
	ms, err := s.sim.Similar(ctx, caseID, opt)
	r := <-fbc
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	fb := r.fb
	if !q.IncludeHidden && hidesAny(fb, ms) {
		opt.K = k + len(fb.Hidden) // enough to fill the list once they are left out
		if ms, err = s.sim.Similar(ctx, caseID, opt); err != nil {
			return nil, err
		}
	}
	if !q.IncludeHidden { // the rows the list keeps, before they are built
		ms = shown(ms, fb, k)
	}
	scs, err := s.similarCases(ctx, ms, q.TagsOnly)
	if err != nil {
		return nil, err
	}
	return withFeedback(scs, fb, q.IncludeHidden, q.K), nil
}

// hidesAny reports whether fb hides any of the matches.
func hidesAny(fb *Feedback, ms []ilgraph.Match) bool {
	for _, m := range ms {
		if slices.ContainsFunc(fb.Hidden, func(h ilgraph.Hiding) bool { return h.Match == m.ID }) {
			return true
		}
	}
	return false
}

// shown is the first k of the matches that fb does not hide.
func shown(ms []ilgraph.Match, fb *Feedback, k int) []ilgraph.Match {
	out := make([]ilgraph.Match, 0, min(k, len(ms)))
	for _, m := range ms {
		if len(out) == k {
			break
		}
		if !slices.ContainsFunc(fb.Hidden, func(h ilgraph.Hiding) bool { return h.Match == m.ID }) {
			out = append(out, m)
		}
	}
	return out
}

// Profile is an incident that is not a stored case — one in progress —
// described by its features.
type Profile struct {
	RootCause    string
	Components   []string
	Symptoms     []string
	Contributing []string
	Domains      []string
	Mechanisms   []string
	Org          string
	// Confidence is, for the terms suggested from a text
	// (ProfileFromSuggestions), the suggestion's confidence: the feature
	// counts with ilgraph.ConfidenceWeight of it (√c) as its share of its
	// weight (ilgraph.ScoreProfile). A feature without one — given by id —
	// counts in full.
	Confidence map[ilgraph.Feature]float64
}

// member returns each feature's confidence, in (0, 1], or 1; nil when every
// feature counts in full.
func (p Profile) member() func(ilgraph.Feature) float64 {
	if len(p.Confidence) == 0 {
		return nil
	}
	return func(f ilgraph.Feature) float64 {
		if c, ok := p.Confidence[f]; ok && c > 0 && c < 1 {
			return c
		}
		return 1
	}
}

// Terms returns the profile's term ids of kind k (for a kind a profile names
// one of, the one, or none).
func (p Profile) Terms(k ilgraph.Kind) []string {
	switch k {
	case ilgraph.KindRootCause:
		return oneOrNone(p.RootCause)
	case ilgraph.KindComponent:
		return p.Components
	case ilgraph.KindSymptom:
		return p.Symptoms
	case ilgraph.KindContributing:
		return p.Contributing
	case ilgraph.KindDomain:
		return p.Domains
	case ilgraph.KindMechanism:
		return p.Mechanisms
	case ilgraph.KindOrg:
		return oneOrNone(p.Org)
	}
	return nil
}

// SetTerms sets the profile's terms of kind k; for a kind a profile names one
// of, the first id (or none). TestProfileKinds checks that Terms and SetTerms
// cover every kind of ilgraph.Kinds.
func (p *Profile) SetTerms(k ilgraph.Kind, ids []string) {
	first := ""
	if len(ids) > 0 {
		first = ids[0]
	}
	switch k {
	case ilgraph.KindRootCause:
		p.RootCause = first
	case ilgraph.KindComponent:
		p.Components = ids
	case ilgraph.KindSymptom:
		p.Symptoms = ids
	case ilgraph.KindContributing:
		p.Contributing = ids
	case ilgraph.KindDomain:
		p.Domains = ids
	case ilgraph.KindMechanism:
		p.Mechanisms = ids
	case ilgraph.KindOrg:
		p.Org = first
	}
}

func oneOrNone(id string) []string {
	if id == "" {
		return nil
	}
	return []string{id}
}

// Features returns the profile's features, kinds in ilgraph.AllKinds order,
// empty values left out.
func (p Profile) Features() []ilgraph.Feature {
	var fs []ilgraph.Feature
	for _, k := range ilgraph.AllKinds {
		for _, id := range p.Terms(k) {
			if id != "" {
				fs = append(fs, ilgraph.Feature{Kind: k, ID: id})
			}
		}
	}
	return fs
}

// WeightedTerm is a term the matches of a profile suggest, with the summed
// scores of the matches that have it.
type WeightedTerm struct {
	Key     ilgraph.TermKey
	Weight  float64
	Matches int
}

// Remedy is what resolved one matching case.
type Remedy struct {
	Case        *ilgraph.Case
	Score       float64
	Remediation []ilgraph.Text
	ActionItems []ilgraph.Text
}

// ProfileMatch is the answer for a live incident: the most similar cases,
// the root causes and contributing factors to check next (weighted by the
// scores of the matches that have them), and what resolved them.
type ProfileMatch struct {
	Matches      []SimilarCase
	RootCauses   []WeightedTerm
	Contributing []WeightedTerm
	Remedies     []Remedy
}

// SimilarToProfile ranks the cases most like a profile and says what they
// suggest.
func (s *Service) SimilarToProfile(ctx context.Context, p Profile, q SimilarityQuery) (*ProfileMatch, error) {
	scs, err := s.profileCases(ctx, p, q)
	if err != nil {
		return nil, err
	}
	return suggestFrom(scs), nil
}

// profileCases ranks the cases most like a profile.
func (s *Service) profileCases(ctx context.Context, p Profile, q SimilarityQuery) ([]SimilarCase, error) {
	opt, err := q.options()
	if err != nil {
		return nil, err
	}
	if opt.Filter, err = s.resolveFilter(ctx, opt.Filter); err != nil {
		return nil, err
	}
	features := p.Features()
	if len(features) > 0 && len(features) <= ilgraph.MaxFilterTerms {
		var ws []Warning
		if p, ws, err = s.ResolveProfile(ctx, p); err != nil {
			return nil, err
		}
		report(ctx, ws)
		features = p.Features()
	}
	if len(features) == 0 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldProfile, "must have at least one feature")
	}
	if len(features) > ilgraph.MaxFilterTerms {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldProfile, "may have at most %d features, not %d", ilgraph.MaxFilterTerms, len(features))
	}
	ms, err := s.sim.SimilarToProfile(ctx, features, p.member(), opt)
	if err != nil {
		return nil, err
	}
	return s.similarCases(ctx, ms, false)
}

// Explanation says why two cases are as similar as they are: the score B
// gets when ranked against A, every feature they share with its weight and
// contribution (the contributions add up to the score), and every feature
// only one of them has (InQuery: A has it, B does not).
type Explanation struct {
	A, B      *ilgraph.Case
	Score     float64
	Shared    []ilgraph.Contribution // by contribution descending, then kind, then id
	Differing []ilgraph.Difference   // by weight descending, then kind, then id
	Weights   ilgraph.Weights        // complete: the defaults filled in
	Rarity    bool
	// Text is the text channel's part (nil when its weight is 0).
	Text *ilgraph.TextPart
}

// ExplainSimilarity computes, from the definition (ilgraph.ScoreText) and with
// the weights the ranking uses, the similarity of case b to case a and why.
// It equals what Similar reports for b when ranking for a, except that it
// lists every differing feature, not the heaviest few. ENOTFOUND names an
// unknown case.
func (s *Service) ExplainSimilarity(ctx context.Context, a, b string, weights ilgraph.Weights, rarity bool) (*Explanation, error) {
	w, err := weights.WithDefaults()
	if err != nil {
		return nil, err
	}
	opt := ilgraph.SimilarityOptions{Weights: w, Rarity: rarity}
	cs, err := s.store.CasesByID(ctx, []string{a, b})
	if err != nil {
		return nil, err
	}
	features, text, weight, err := s.sim.Weighting(ctx, []string{a, b}, opt)
	if err != nil {
		return nil, err
	}
	for i, id := range []string{a, b} {
		if cs[i] == nil || features[i] == nil {
			return nil, noCase(id)
		}
	}
	m := ilgraph.ScoreText(features[0], features[1], weight, w[ilgraph.WeightText], text[0], text[1])
	e := &Explanation{A: cs[0], B: cs[1], Score: m.Score, Shared: make([]ilgraph.Contribution, len(m.Shared)),
		Differing: append([]ilgraph.Difference{}, m.Different...), Weights: w, Rarity: rarity}
	for i, c := range m.Shared {
		c.Contribution = ilgraph.RoundScore(c.Contribution)
		e.Shared[i] = c
	}
	e.Text = roundText(m.Text)
	return e, nil
}

// Defaults are the similarity settings a query gets when it names none.
type Defaults struct {
	Weights       ilgraph.Weights
	Rarity        bool
	RarityFormula string
}

// SimilarityDefaults returns the default weights and rarity setting.
func (s *Service) SimilarityDefaults() Defaults {
	return Defaults{Weights: ilgraph.DefaultWeights(), Rarity: ilgraph.DefaultRarity, RarityFormula: ilgraph.RarityFormula}
}

// similarCases loads the matched cases in one batch and keeps the
// explanation the API shows.
func (s *Service) similarCases(ctx context.Context, ms []ilgraph.Match, tagsOnly bool) ([]SimilarCase, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	var cs []*ilgraph.Case
	ok := false
	if tagsOnly && s.rm != nil {
		var err error
		if cs, ok, err = s.rm.CasesTags(ctx, ids); err != nil {
			return nil, err
		}
	}
	if !ok {
		var err error
		if cs, err = s.store.CasesByID(ctx, ids); err != nil {
			return nil, err
		}
	}
	out := make([]SimilarCase, 0, len(ms))
	for i, m := range ms {
		if cs[i] == nil { // deleted since the index was built
			continue
		}
		sc := SimilarCase{Case: cs[i], Score: m.Score, Shared: make([]ilgraph.Contribution, len(m.Shared)), Differing: []ilgraph.Difference{},
			Judgments: []ilgraph.Judgment{}}
		for j, c := range m.Shared {
			c.Contribution = ilgraph.RoundScore(c.Contribution)
			sc.Shared[j] = c
		}
		sc.Differing = append(sc.Differing, m.Different[:min(MaxDiffering, len(m.Different))]...)
		sc.Text = roundText(m.Text)
		out = append(out, sc)
	}
	return out, nil
}

// roundText rounds a text part's figures as scores are rounded.
func roundText(p *ilgraph.TextPart) *ilgraph.TextPart {
	if p == nil {
		return nil
	}
	t := *p
	t.Contribution, t.Cosine = ilgraph.RoundScore(t.Contribution), ilgraph.RoundScore(t.Cosine)
	return &t
}

// suggestFrom adds to the matches what they suggest.
func suggestFrom(matches []SimilarCase) *ProfileMatch {
	pm := &ProfileMatch{Matches: matches, RootCauses: []WeightedTerm{}, Contributing: []WeightedTerm{}, Remedies: []Remedy{}}
	type acc struct {
		weight float64
		n      int
	}
	causes, factors := map[string]*acc{}, map[string]*acc{}
	bump := func(m map[string]*acc, id string, score float64) {
		if m[id] == nil {
			m[id] = &acc{}
		}
		m[id].weight += score
		m[id].n++
	}
	for _, sc := range matches {
		bump(causes, sc.Case.RootCause, sc.Score)
		for _, f := range sc.Case.Contributing {
			bump(factors, f, sc.Score)
		}
		pm.Remedies = append(pm.Remedies, Remedy{Case: sc.Case, Score: sc.Score, Remediation: ItemTexts(sc.Case.Remediation), ActionItems: ItemTexts(sc.Case.ActionItems)})
	}
	weighted := func(k ilgraph.Kind, m map[string]*acc) []WeightedTerm {
		out := []WeightedTerm{}
		for id, a := range m {
			out = append(out, WeightedTerm{Key: ilgraph.TermKey{Kind: k, ID: id}, Weight: ilgraph.RoundScore(a.weight), Matches: a.n})
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Weight != out[j].Weight {
				return out[i].Weight > out[j].Weight
			}
			return out[i].Key.ID < out[j].Key.ID
		})
		return out
	}
	pm.RootCauses = weighted(ilgraph.KindRootCause, causes)
	pm.Contributing = weighted(ilgraph.KindContributing, factors)
	return pm
}

// ItemTexts returns the texts of remediation or action items.
func ItemTexts(items []ilgraph.Item) []ilgraph.Text {
	out := make([]ilgraph.Text, len(items))
	for i, it := range items {
		out[i] = it.Text
	}
	return out
}
