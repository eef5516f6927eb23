package resolvers_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

type explanation struct {
	A, B   struct{ ID string }
	Score  float64
	Shared []struct {
		Kind                 string
		Term                 struct{ ID string }
		Weight, Contribution float64
	}
	Differing []struct {
		Kind   string
		Term   struct{ ID string }
		Weight float64
		Side   string
	}
	Weights map[string]float64
	Rarity  bool
	Text    *struct {
		Weight, Cosine, Contribution float64
		Words                        []string
	}
}

// wantExplanation computes the explanation of b against a straight from the
// seed JSON and the formulas of docs/similarity.md, without ilgraph.Score:
// the feature weights, the shared and union sums with the text part
// (cosine of the text vectors by their definition), and every feature only
// one side has, keyed "kind:id".
func wantExplanation(cases []*ilgraph.Case, a, b *ilgraph.Case, w map[ilgraph.Kind]float64, rarity bool) (score float64, shared map[string][2]float64, differing map[string]string, weight map[string]float64) {
	df := map[string]int{}
	for _, c := range cases {
		for _, f := range c.Features() {
			df[f.String()]++
		}
	}
	weight = map[string]float64{}
	set := func(c *ilgraph.Case) map[string]bool {
		out := map[string]bool{}
		for _, f := range c.Features() {
			out[f.String()] = true
			v := w[f.Kind]
			if rarity {
				v *= math.Log((float64(len(cases)) + 1) / (float64(df[f.String()]) + 0.5))
			}
			weight[f.String()] = v
		}
		return out
	}
	sa, sb := set(a), set(b)
	var inter, union float64
	shared, differing = map[string][2]float64{}, map[string]string{}
	for f := range sa {
		union += weight[f]
		if sb[f] {
			inter += weight[f]
		} else {
			differing[f] = "QUERY"
		}
	}
	for f := range sb {
		if !sa[f] {
			union += weight[f]
			differing[f] = "MATCH"
		}
	}
	if wt := w[ilgraph.WeightText]; wt > 0 {
		text := corpus.NewBrute(cases).Text
		inter += wt * ilgraph.Cosine(text[a.ID], text[b.ID])
		union += wt
	}
	for f := range sa {
		if sb[f] {
			shared[f] = [2]float64{weight[f], weight[f] / union}
		}
	}
	return inter / union, shared, differing, weight
}

const explainFields = `a { id } b { id } score shared { kind term { id } weight contribution } differing { kind term { id } weight side }
	weights { rootCause component symptom contributing domain mechanism org text } rarity text { weight cosine contribution words }`

func TestExplainSimilarity(t *testing.T) {
	a := mustAPI(t)
	// The mechanism and text weights are left out of the custom weights: they keep their defaults.
	custom := map[ilgraph.Kind]float64{ilgraph.KindRootCause: 1, ilgraph.KindComponent: 4, ilgraph.KindSymptom: 0.5, ilgraph.KindContributing: 3, ilgraph.KindDomain: 0, ilgraph.KindOrg: 2,
		ilgraph.KindMechanism: ilgraph.DefaultWeights()[ilgraph.KindMechanism], ilgraph.WeightText: ilgraph.DefaultTextWeight}
	settings := []struct {
		name    string
		weights map[ilgraph.Kind]float64
		arg     string
	}{
		{"defaults", ilgraph.DefaultWeights(), ""},
		{"custom weights", custom, "weights: {rootCause: 1, component: 4, symptom: 0.5, contributing: 3, domain: 0, org: 2},"},
	}
	checked := 0
	for _, src := range []string{"IL-0384", "IL-0282", "ILG-0002"} {
		for _, st := range settings {
			for _, rarity := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/rarity=%v", src, st.name, rarity)
				// The pairs: every case similarCases lists for src, and one
				// that shares nothing with it.
				var ranked struct{ SimilarCases []similarResult }
				a.must(fmt.Sprintf(`query($id: ID!, $rarity: Boolean) { similarCases(caseId: $id, k: 100, rarity: $rarity, %s) { %s } }`, st.arg, similarFields),
					map[string]any{"id": src, "rarity": rarity}, &ranked)
				if len(ranked.SimilarCases) == 0 {
					t.Fatalf("%s: no similar case", name)
				}
				pairs := map[string]*similarResult{}
				for i := range ranked.SimilarCases {
					pairs[ranked.SimilarCases[i].Case.ID] = &ranked.SimilarCases[i]
				}
				for _, c := range a.cases {
					if _, ok := pairs[c.ID]; !ok && c.ID != src {
						pairs[c.ID] = nil // scores 0: not listed by similarCases
						break
					}
				}
				// A case left out scores 0, or no more than the last listed
				// when the list is full.
				floor := 0.0
				if len(ranked.SimilarCases) == 100 {
					floor = ranked.SimilarCases[len(ranked.SimilarCases)-1].Score
				}
				for other, listed := range pairs {
					var got struct{ ExplainSimilarity explanation }
					a.must(fmt.Sprintf(`query($a: ID!, $b: ID!, $rarity: Boolean) { explainSimilarity(a: $a, b: $b, rarity: $rarity, %s) { %s } }`, st.arg, explainFields),
						map[string]any{"a": src, "b": other, "rarity": rarity}, &got)
					checkExplanation(t, name+" vs "+other, a, got.ExplainSimilarity, src, other, st.weights, rarity, listed, floor)
					checked++
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d pairs checked", checked)
	}
	t.Run("errors", func(t *testing.T) {
		a.t = t
		for q, code := range map[string]string{
			`{ explainSimilarity(a: "IL-9999", b: "IL-0384") { score } }`:                         "NOT_FOUND",
			`{ explainSimilarity(a: "IL-0384", b: "IL-9999") { score } }`:                         "NOT_FOUND",
			`{ explainSimilarity(a: "IL-0384", b: "IL-0282", weights: {symptom: -1}) { score } }`: "INVALID",
		} {
			errs := a.do(q, nil, nil)
			if len(errs) == 0 || errs[0].Extensions["code"] != code {
				t.Errorf("%s: got %+v, want %s", q, errs, code)
			}
		}
	})
}

func checkExplanation(t *testing.T, name string, a *api, got explanation, src, other string, w map[ilgraph.Kind]float64, rarity bool, listed *similarResult, floor float64) {
	t.Helper()
	score, shared, differing, weight := wantExplanation(a.cases, a.byID[src], a.byID[other], w, rarity)
	if got.A.ID != src || got.B.ID != other || got.Rarity != rarity {
		t.Errorf("%s: explained %s vs %s (rarity %v)", name, got.A.ID, got.B.ID, got.Rarity)
	}
	for k, v := range w {
		field := map[ilgraph.Kind]string{ilgraph.KindRootCause: "rootCause", ilgraph.KindComponent: "component", ilgraph.KindSymptom: "symptom",
			ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domain", ilgraph.KindOrg: "org", ilgraph.KindMechanism: "mechanism", ilgraph.WeightText: "text"}[k]
		if got.Weights[field] != v {
			t.Errorf("%s: weight %s %v, want %v", name, field, got.Weights[field], v)
		}
	}
	if math.Abs(got.Score-score) > 1e-9 {
		t.Errorf("%s: score %.12f, want %.12f", name, got.Score, score)
	}
	sum := 0.0
	prev := math.Inf(1)
	gotShared := map[string]bool{}
	for _, s := range got.Shared {
		key := strings.ToLower(s.Kind) + ":" + s.Term.ID
		gotShared[key] = true
		want, ok := shared[key]
		if !ok || math.Abs(s.Weight-want[0]) > 1e-9 || math.Abs(s.Contribution-want[1]) > 1e-9 {
			t.Errorf("%s: shared %s weight %v contribution %v, want %v", name, key, s.Weight, s.Contribution, want)
		}
		if s.Contribution > prev {
			t.Errorf("%s: shared features not by contribution", name)
		}
		prev = s.Contribution
		sum += s.Contribution
	}
	if got.Text != nil {
		sum += got.Text.Contribution
	}
	if len(gotShared) != len(shared) {
		t.Errorf("%s: %d shared features, want %d", name, len(gotShared), len(shared))
	}
	if math.Abs(sum-got.Score) > 1e-8 {
		t.Errorf("%s: contributions add up to %.12f, score %.12f", name, sum, got.Score)
	}
	gotDiff := map[string]string{}
	prev = math.Inf(1)
	for _, d := range got.Differing {
		key := strings.ToLower(d.Kind) + ":" + d.Term.ID
		gotDiff[key] = d.Side
		if math.Abs(d.Weight-weight[key]) > 1e-9 {
			t.Errorf("%s: differing %s weight %v, want %v", name, key, d.Weight, weight[key])
		}
		if d.Weight > prev {
			t.Errorf("%s: differing features not by weight", name)
		}
		prev = d.Weight
	}
	if fmt.Sprint(sortedMap(gotDiff)) != fmt.Sprint(sortedMap(differing)) {
		t.Errorf("%s: differing\n got %v\nwant %v", name, sortedMap(gotDiff), sortedMap(differing))
	}
	// Exactly what similarCases says about the pair. A case it does not
	// list scores 0, or — when the list is full (k cases) — no more than
	// the last case listed.
	if listed == nil {
		if score > floor {
			t.Errorf("%s: scores %v but similarCases does not list it (its last listed score %v)", name, score, floor)
		}
		return
	}
	if listed.Score != got.Score || len(listed.Shared) != len(got.Shared) {
		t.Errorf("%s: similarCases says %v with %d shared, explainSimilarity %v with %d", name, listed.Score, len(listed.Shared), got.Score, len(got.Shared))
		return
	}
	for i, s := range listed.Shared {
		g := got.Shared[i]
		if s.Kind != g.Kind || s.Term.ID != g.Term.ID || s.Contribution != g.Contribution {
			t.Errorf("%s: shared #%d: similarCases %+v, explainSimilarity %+v", name, i, s, g)
		}
	}
	for i, d := range listed.Differing {
		g := got.Differing[i]
		if d.Kind != g.Kind || d.Term.ID != g.Term.ID || d.Weight != g.Weight || d.Side != g.Side {
			t.Errorf("%s: differing #%d: similarCases %+v, explainSimilarity %+v", name, i, d, g)
		}
	}
}

func sortedMap(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
