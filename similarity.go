package ilgraph

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Weights give each feature kind its weight in similarity scores, and the
// text channel its weight under the key WeightText.
type Weights map[Kind]float64

// WeightText is the key of the text channel's weight in Weights: how much
// the cosine similarity of two cases' texts counts beside their tags (see
// ScoreText). It is not a feature kind.
const WeightText Kind = "text"

// WeightKeys lists the keys of a complete Weights: the feature kinds, then
// WeightText.
var WeightKeys = append(append([]Kind{}, AllKinds...), WeightText)

// DefaultWeights are the weights used when a request gives none: among the
// tags a shared mechanism says most, then the root cause, shared
// contributing factors and components; the text channel carries about half
// of a typical score (tuned on the judged set, see docs/similarity.md).
func DefaultWeights() Weights {
	return Weights{
		KindRootCause: 2, KindComponent: 1.5, KindSymptom: 1, KindContributing: 2, KindDomain: 0.5, KindOrg: 0.5,
		KindMechanism: 4, WeightText: DefaultTextWeight,
	}
}

// DefaultTextWeight is the text channel's default weight. With rarity
// weighting, a case's tags weigh about 30 to 50 in all, so the text
// channel carries somewhat more than half of a typical score.
const DefaultTextWeight = 60

// TagsOnly returns w with the text channel off: the weights of the Cypher
// baseline, which knows only tags.
func (w Weights) TagsOnly() Weights {
	out := Weights{}
	for k, v := range w {
		out[k] = v
	}
	out[WeightText] = 0
	return out
}

// MaxWeight bounds one kind's weight.
const MaxWeight = 1000

// WithDefaults returns w with every kind it lacks set to its default, after
// checking that every weight is a finite number from 0 to MaxWeight and that
// at least one is positive.
func (w Weights) WithDefaults() (Weights, error) {
	out := DefaultWeights()
	for k, v := range w {
		if !k.Valid() && k != WeightText {
			return nil, Errorf(EINVALID, "weights: unknown kind %q (want root_cause, component, symptom, contributing, domain, mechanism, org, text)", k)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxWeight {
			return nil, Errorf(EINVALID, "weights: %s=%v is not a number from 0 to %d", k, v, MaxWeight)
		}
		out[k] = v
	}
	positive := false
	for _, v := range out {
		positive = positive || v > 0
	}
	if !positive {
		return nil, Errorf(EINVALID, "weights: at least one kind must weigh more than 0")
	}
	return out, nil
}

// ParseWeights reads "root_cause=3,component=1.5,…" (kinds as in Kind).
func ParseWeights(s string) (Weights, error) {
	w := Weights{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, Errorf(EINVALID, "weights: %q is not kind=number", part)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, Errorf(EINVALID, "weights: %q is not a number", v)
		}
		w[Kind(strings.TrimSpace(k))] = f
	}
	return w.WithDefaults()
}

func (w Weights) String() string {
	var parts []string
	for _, k := range WeightKeys {
		parts = append(parts, fmt.Sprintf("%s=%g", k, w[k]))
	}
	return strings.Join(parts, ",")
}

// Rarity is the factor by which rarity weighting multiplies a feature's
// weight: ln((N+1)/(df+0.5)), where N is the number of cases and df the
// number of them with the feature. A feature every case has counts next to
// nothing, a rare one several times its kind's weight, and a term no case
// has (a profile's) the most; docs/similarity.md gives the figures on the
// seed corpus and why the curve is this steep.
func Rarity(n, df int) float64 {
	return math.Log((float64(n) + 1) / (float64(df) + 0.5))
}

// RarityFormula describes Rarity for documentation and the API.
const RarityFormula = "ln((N + 1) / (df + 0.5)), N = number of cases, df = cases with the feature"

// ConfidenceWeight is the share of its weight a profile's feature held with
// confidence c counts with: √c, and 1 for c outside (0, 1). The square root
// was chosen on the judged tuning set, each query case asked for by its
// text, from c^p for p = 0 (every suggested term in full), 0.5, 1, 2 and 3
// (docs/similarity.md).
func ConfidenceWeight(c float64) float64 {
	if c <= 0 || c >= 1 || math.IsNaN(c) {
		return 1
	}
	return math.Sqrt(c)
}

// Contribution is one shared feature's part of a score: its weight over the
// summed weights of the features either case has. Contributions of a match
// add up to its score.
type Contribution struct {
	Feature
	Weight       float64
	Contribution float64
	// Confidence is, for a profile whose terms were suggested from a text
	// (ScoreProfile), how sure the profile is of the feature: it counts
	// with Weight × ConfidenceWeight(Confidence). 0 when the query holds its
	// features in full (a stored case, a profile given term by term).
	Confidence float64
}

// Difference is a feature only one of the two cases has.
type Difference struct {
	Feature
	Weight float64
	// InQuery is true when the queried case (or profile) has the feature
	// and the match does not; false for the other way round.
	InQuery bool
}

// Match is one similar case with its score and why.
type Match struct {
	ID        string
	Score     float64
	Shared    []Contribution // by contribution descending, then kind, then id
	Different []Difference   // by weight descending, then kind, then id
	// Text is the text channel's part of the score; nil when the channel
	// was off (its weight 0, or a query without text).
	Text *TextPart
}

// TextVector is a case's text as the text channel sees it: its distinctive
// terms (analysis norms) with positive weights, scaled to Euclidean length 1,
// or empty when the case has no such terms.
type TextVector map[string]float64

// Cosine is the cosine similarity of two text vectors, Σ a[t]·b[t] (both
// have length 1 or are empty), from 0 to 1. The products are summed in
// ascending order, not in the maps' order, so the same two vectors give the
// same bits on every call and whichever way the index was built.
func Cosine(a, b TextVector) float64 {
	if len(b) < len(a) {
		a, b = b, a
	}
	var buf [32]float64
	ps := buf[:0]
	for t, x := range a {
		if y, ok := b[t]; ok {
			ps = append(ps, x*y)
		}
	}
	sort.Float64s(ps)
	var s float64
	for _, p := range ps {
		s += p
	}
	return s
}

// MaxSharedWords bounds the shared words a TextPart lists.
const MaxSharedWords = 8

// SharedWords returns up to max terms both vectors have, by a[t]·b[t]
// descending, then term ascending: the words that made the texts alike.
func SharedWords(a, b TextVector, max int) []string {
	type tw struct {
		t string
		w float64
	}
	var ws []tw
	for t, x := range a {
		if y, ok := b[t]; ok {
			ws = append(ws, tw{t, x * y})
		}
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].w != ws[j].w {
			return ws[i].w > ws[j].w
		}
		return ws[i].t < ws[j].t
	})
	out := []string{}
	for i := 0; i < len(ws) && i < max; i++ {
		out = append(out, ws[i].t)
	}
	return out
}

// TextPart is the text channel's part of a score.
type TextPart struct {
	Weight       float64  // the text weight, w_text
	Cosine       float64  // cosine similarity of the two texts
	Contribution float64  // w_text × cosine over the denominator of the score
	Words        []string // the distinctive words both texts share (see SharedWords)
}

// SimilarityOptions say how to rank.
type SimilarityOptions struct {
	K        int
	Weights  Weights // complete (see WithDefaults)
	Rarity   bool
	MinScore float64
	Filter   CaseFilter
}

// DefaultRarity is whether rarity weighting is on when a request does not
// say.
const DefaultRarity = true

// DefaultOptions are the options of a request that gives only k: the
// default weights and rarity setting, no minimum score, no filter.
func DefaultOptions(k int) SimilarityOptions {
	return SimilarityOptions{K: k, Weights: DefaultWeights(), Rarity: DefaultRarity}
}

// Score is the definition of similarity over tags alone, written for
// clarity rather than speed: the weighted Jaccard index of two feature sets.
// weight gives each feature's weight (its kind's weight, times its rarity
// factor when rarity weighting is on). It returns the score with its
// explanation.
func Score(a, b []Feature, weight func(Feature) float64) Match {
	return ScoreText(a, b, weight, 0, nil, nil)
}

// ScoreText is the definition of the hybrid score: the text channel counts
// as one more feature of weight wText that the two cases share to the
// degree their texts are alike,
//
//	score = (Σ w(f) shared + wText·cos(ta, tb)) / (Σ w(f) of A ∪ B + wText)
//
// The channel is on when wText > 0 and the query has text (ta not empty);
// otherwise the score is Score's. The tag contributions and the text
// contribution add up to the score.
func ScoreText(a, b []Feature, weight func(Feature) float64, wText float64, ta, tb TextVector) Match {
	return ScoreProfile(a, nil, b, weight, wText, ta, tb)
}

// ScoreProfile is ScoreText for a query whose features are held with a
// confidence: member(f) in (0, 1] is how sure the query is of its feature f
// (nil: every feature in full, which is ScoreText), and the feature counts
// with m(f) = ConfidenceWeight(member(f)) of its weight. The score is the
// weighted Jaccard index of fuzzy sets (the Ruzicka similarity), B's
// features being held in full:
//
//	score = (Σ w(f)·m(f) shared + wText·cos) / (Σ w(f) over B + Σ w(f)·m(f) over A only + wText)
//
// A shared feature adds w·m to the shared weight and w to the union (min and
// max of m and 1), a feature only A has w·m, one only B has w. So a feature
// suggested with confidence 0.58 counts √0.58 ≈ 0.76 of its weight where it
// is shared, and costs the cases without it as much. A shared feature's
// Contribution is w·m over the union, its Weight w and its Confidence
// member(f); a feature only A has is listed with the weight w·m.
func ScoreProfile(a []Feature, member func(Feature) float64, b []Feature, weight func(Feature) float64, wText float64, ta, tb TextVector) Match {
	// The distinct features of each side, in the order given (first
	// occurrence): the sums run in that order, not a map's, so that the
	// same two cases explain to the same bits on every call.
	// A case has a few dozen features at most: a linear scan finds one
	// faster than a map of them is built.
	as, bs := distinctFeatures(a), distinctFeatures(b)
	var shared, union, qw, cw float64
	var m Match
	for _, f := range as {
		w, mf := weight(f), 1.0
		if member != nil {
			mf = ConfidenceWeight(member(f))
		}
		qw += w * mf
		if slices.Contains(bs, f) {
			union += w
			cw += w
			shared += w * mf
			c := Contribution{Feature: f, Weight: w, Contribution: w * mf}
			if member != nil {
				c.Confidence = member(f)
			}
			m.Shared = append(m.Shared, c)
		} else {
			union += w * mf
			m.Different = append(m.Different, Difference{Feature: f, Weight: w * mf, InQuery: true})
		}
	}
	for _, f := range bs {
		if !slices.Contains(as, f) {
			w := weight(f)
			union += w
			cw += w
			m.Different = append(m.Different, Difference{Feature: f, Weight: w})
		}
	}
	text := wText > 0 && len(ta) > 0
	var cos float64
	if text {
		cos = Cosine(ta, tb)
		union += wText
	} else {
		wText = 0
	}
	if union > 0 {
		m.Score = RoundScore(JaccardRatio(shared, qw, cw, wText, cos))
		for i := range m.Shared {
			m.Shared[i].Contribution /= union // w·m, set above
		}
	}
	if text {
		m.Text = &TextPart{Weight: wText, Cosine: cos, Contribution: wText * cos / union, Words: SharedWords(ta, tb, MaxSharedWords)}
	}
	SortExplanation(&m)
	return m
}

// distinctFeatures are fs without repeats, in the order given (first
// occurrence).
func distinctFeatures(fs []Feature) []Feature {
	out := make([]Feature, 0, len(fs))
	for _, f := range fs {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// SortExplanation puts a match's shared features by contribution and its
// differences by weight, both descending, ties by kind order then id.
func SortExplanation(m *Match) {
	kindOrder := func(k Kind) int {
		for i, x := range AllKinds {
			if x == k {
				return i
			}
		}
		return len(AllKinds)
	}
	less := func(wa, wb float64, fa, fb Feature) bool {
		if wa != wb {
			return wa > wb
		}
		if fa.Kind != fb.Kind {
			return kindOrder(fa.Kind) < kindOrder(fb.Kind)
		}
		return fa.ID < fb.ID
	}
	sort.Slice(m.Shared, func(i, j int) bool {
		return less(m.Shared[i].Contribution, m.Shared[j].Contribution, m.Shared[i].Feature, m.Shared[j].Feature)
	})
	sort.Slice(m.Different, func(i, j int) bool {
		return less(m.Different[i].Weight, m.Different[j].Weight, m.Different[i].Feature, m.Different[j].Feature)
	})
}

// RankMatches orders matches by score descending, then id ascending.
func RankMatches(ms []Match) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Score != ms[j].Score {
			return ms[i].Score > ms[j].Score
		}
		return ms[i].ID < ms[j].ID
	})
}

// JaccardRatio is the score of the definition (ScoreText) from its sums,
// before rounding (RoundScore): shared, the summed weights of the features
// both sides have; qw and cw, the summed weights of each side's features;
// wText and cos, the text weight (0 when the channel is off) and the two
// texts' cosine. Every ranking — the definition, the index, the incremental
// write-back and its ranker — scores through it, so that their answers are
// equal to the last bit. (Rounding is apart so that both stay inlinable in
// the rankers' loops.)
func JaccardRatio(shared, qw, cw, wText, cos float64) float64 {
	return (shared + wText*cos) / (qw + cw - shared + wText)
}

// RoundScore rounds a score to 9 decimal places. Scores are sums of
// floating-point weights, and different summation orders differ in the last
// bits (around 1e-15); rounding makes mathematically equal scores equal, so
// ties rank by id whichever way a score was computed.
func RoundScore(x float64) float64 { return math.Round(x*1e9) / 1e9 }
