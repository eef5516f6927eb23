package resolvers_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

type similarResult struct {
	Case   struct{ ID string }
	Score  float64
	Shared []struct {
		Kind         string
		Term         struct{ ID string }
		Contribution float64
	}
	Differing []struct {
		Kind   string
		Term   struct{ ID string }
		Weight float64
		Side   string
	}
	Text *struct {
		Weight, Cosine, Contribution float64
		Words                        []string
	}
}

func checkSimilar(t *testing.T, label string, got []similarResult, want []ilgraph.Match) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d results, want %d", label, len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Case.ID != w.ID || math.Abs(g.Score-w.Score) > 1.5e-9 {
			t.Errorf("%s #%d: got %s %.9f, want %s %.9f", label, i, g.Case.ID, g.Score, w.ID, w.Score)
			continue
		}
		if len(g.Shared) != len(w.Shared) {
			t.Errorf("%s #%d: %d shared features, want %d", label, i, len(g.Shared), len(w.Shared))
			continue
		}
		for j, s := range g.Shared {
			if ilgraph.Kind(strings.ToLower(s.Kind)) != w.Shared[j].Kind || s.Term.ID != w.Shared[j].ID || math.Abs(s.Contribution-w.Shared[j].Contribution) > 1e-9 {
				t.Errorf("%s #%d shared %d: got %+v, want %+v", label, i, j, s, w.Shared[j])
			}
		}
		if (g.Text == nil) != (w.Text == nil) {
			t.Errorf("%s #%d: text part %+v, want %+v", label, i, g.Text, w.Text)
		} else if g.Text != nil {
			sum := g.Text.Contribution
			for _, s := range g.Shared {
				sum += s.Contribution
			}
			if math.Abs(g.Text.Contribution-w.Text.Contribution) > 1e-9 || math.Abs(g.Text.Cosine-w.Text.Cosine) > 1e-9 ||
				g.Text.Weight != w.Text.Weight || strings.Join(g.Text.Words, " ") != strings.Join(w.Text.Words, " ") {
				t.Errorf("%s #%d: text part %+v, want %+v", label, i, g.Text, w.Text)
			}
			if math.Abs(sum-g.Score) > 1e-8 {
				t.Errorf("%s #%d: contributions add up to %.9f, score %.9f", label, i, sum, g.Score)
			}
		}
		for j, d := range g.Differing {
			wd := w.Different[j]
			side := "MATCH"
			if wd.InQuery {
				side = "QUERY"
			}
			if d.Term.ID != wd.ID || d.Side != side || math.Abs(d.Weight-wd.Weight) > 1e-9 {
				t.Errorf("%s #%d differing %d: got %+v, want %+v", label, i, j, d, wd)
			}
		}
	}
}

const similarFields = `case { id } score shared { kind term { id } contribution } differing { kind term { id } weight side } text { weight cosine contribution words }`

func TestSimilarCases(t *testing.T) {
	a := mustAPI(t)
	brute := corpus.NewBrute(a.cases)
	// The mechanism and text weights are left out, so they take their defaults.
	w := ilgraph.Weights{ilgraph.KindRootCause: 3, ilgraph.KindComponent: 1.5, ilgraph.KindSymptom: 1, ilgraph.KindContributing: 2, ilgraph.KindDomain: 0.5, ilgraph.KindOrg: 0.5,
		ilgraph.KindMechanism: ilgraph.DefaultWeights()[ilgraph.KindMechanism], ilgraph.WeightText: ilgraph.DefaultTextWeight}
	for _, id := range []string{"IL-0384", "IL-0282", "ILG-0002"} {
		for _, rarity := range []bool{false, true} {
			var got struct{ SimilarCases []similarResult }
			a.must(`query($id: ID!, $rarity: Boolean) { similarCases(caseId: $id, k: 10, rarity: $rarity,
				weights: {rootCause: 3, component: 1.5, symptom: 1, contributing: 2, domain: 0.5, org: 0.5}) { `+similarFields+` } }`,
				map[string]any{"id": id, "rarity": rarity}, &got)
			checkSimilar(t, id, got.SimilarCases, brute.Similar(a.byID[id], 10, w, rarity, nil))
		}
	}
	t.Run("text weight 0 gives the tags-only scores, with no text part", func(t *testing.T) {
		a.t = t
		var got struct{ SimilarCases []similarResult }
		a.must(`{ similarCases(caseId: "IL-0211", k: 10, rarity: false, weights: {text: 0}) { `+similarFields+` } }`, nil, &got)
		checkSimilar(t, "text 0", got.SimilarCases, brute.Similar(a.byID["IL-0211"], 10, ilgraph.DefaultWeights().TagsOnly(), false, nil))
	})
	t.Run("filter: other organizations, since 2015, min score", func(t *testing.T) {
		a.t = t
		src := a.byID["IL-0384"]
		var got struct{ SimilarCases []similarResult }
		a.must(`{ similarCases(caseId: "IL-0384", k: 20, minScore: 0.1, filter: {excludeOrgs: ["amazon-web-services"], dateFrom: "2015-01-01"}) { `+similarFields+` } }`, nil, &got)
		var want []ilgraph.Match
		for _, m := range brute.Similar(src, 1000, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, func(c *ilgraph.Case) bool {
			return c.OrgSlug != "amazon-web-services" && c.Date >= "2015-01-01"
		}) {
			if m.Score >= 0.1 && len(want) < 20 {
				want = append(want, m)
			}
		}
		checkSimilar(t, "filtered", got.SimilarCases, want)
	})
	t.Run("the case's own similar field uses the defaults", func(t *testing.T) {
		a.t = t
		var got struct {
			Case struct{ Similar []similarResult }
		}
		a.must(`{ case(id: "IL-0282") { similar(k: 3) { `+similarFields+` } } }`, nil, &got)
		checkSimilar(t, "case.similar", got.Case.Similar, brute.Similar(a.byID["IL-0282"], 3, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, nil))
	})
	t.Run("bad arguments", func(t *testing.T) {
		a.t = t
		for q, code := range map[string]string{
			`{ similarCases(caseId: "IL-9999") { score } }`:                         "NOT_FOUND",
			`{ similarCases(caseId: "IL-0384", k: 0) { score } }`:                   "LIMIT",
			`{ similarCases(caseId: "IL-0384", k: 101) { score } }`:                 "LIMIT",
			`{ similarCases(caseId: "IL-0384", weights: {symptom: -1}) { score } }`: "INVALID",
			`{ similarCases(caseId: "IL-0384", minScore: 2) { score } }`:            "INVALID",
			`{ similarToProfile(profile: {}) { matches { score } } }`:               "INVALID",
			`{ similarCases(caseId: "IL-0384", weights: {rootCause: 0, component: 0, symptom: 0, contributing: 0, domain: 0, mechanism: 0, org: 0, text: 0}) { score } }`: "INVALID",
		} {
			errs := a.do(q, nil, nil)
			if len(errs) == 0 || errs[0].Extensions["code"] != code {
				t.Errorf("%s: got %+v, want %s", q, errs, code)
			}
		}
	})
}

func TestSimilarToProfile(t *testing.T) {
	a := mustAPI(t)
	brute := corpus.NewBrute(a.cases)
	// "High latency and error rate on the message broker, we suspect a limit."
	profile := []ilgraph.Feature{
		{Kind: ilgraph.KindComponent, ID: "message-broker"},
		{Kind: ilgraph.KindSymptom, ID: "high-latency"}, {Kind: ilgraph.KindSymptom, ID: "high-error-rate"},
		{Kind: ilgraph.KindContributing, ID: "limit-unknown"},
	}
	var got struct {
		SimilarToProfile struct {
			Matches    []similarResult
			RootCauses []struct {
				Term    struct{ ID string }
				Weight  float64
				Matches int
			}
			Contributing []struct {
				Term    struct{ ID string }
				Weight  float64
				Matches int
			}
			Remedies []struct {
				Case        struct{ ID string }
				Remediation []ilgraph.Text
				ActionItems []ilgraph.Text
			}
		}
	}
	a.must(`{ similarToProfile(k: 8, profile: {components: ["message-broker"], symptoms: ["high-latency", "high-error-rate"], contributing: ["limit-unknown"]}) {
		matches { `+similarFields+` } rootCauses { term { id } weight matches } contributing { term { id } weight matches }
		remedies { case { id } remediation { en } actionItems { en } } } }`, nil, &got)
	want := brute.ToFeatures(profile, "", 8, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, nil)
	checkSimilar(t, "profile", got.SimilarToProfile.Matches, want)
	if len(want) == 0 {
		t.Fatal("the profile matches nothing in the seed corpus")
	}
	causes, factors := map[string]float64{}, map[string]float64{}
	for _, m := range want {
		c := a.byID[m.ID]
		causes[c.RootCause] += m.Score
		for _, f := range c.Contributing {
			factors[f] += m.Score
		}
	}
	for name, pair := range map[string]struct {
		want map[string]float64
		got  []struct {
			Term    struct{ ID string }
			Weight  float64
			Matches int
		}
	}{"root causes": {causes, got.SimilarToProfile.RootCauses}, "factors": {factors, got.SimilarToProfile.Contributing}} {
		if len(pair.got) != len(pair.want) {
			t.Errorf("%s: got %d, want %d", name, len(pair.got), len(pair.want))
		}
		weights := []float64{}
		for _, g := range pair.got {
			if math.Abs(g.Weight-pair.want[g.Term.ID]) > 1e-8 {
				t.Errorf("%s %s: weight %.6f, want %.6f", name, g.Term.ID, g.Weight, pair.want[g.Term.ID])
			}
			weights = append(weights, g.Weight)
		}
		if !sort.IsSorted(sort.Reverse(sort.Float64Slice(weights))) {
			t.Errorf("%s not ordered by weight: %v", name, weights)
		}
	}
	for i, r := range got.SimilarToProfile.Remedies {
		c := a.byID[r.Case.ID]
		if r.Case.ID != want[i].ID || len(r.Remediation) != len(c.Remediation) || len(r.ActionItems) != len(c.ActionItems) {
			t.Errorf("remedy %d: %s with %d steps, want %s with %d", i, r.Case.ID, len(r.Remediation), want[i].ID, len(c.Remediation))
		}
	}
}

// TestSimilarToProfileWithMechanisms: a profile that names mechanisms ranks
// with them. The expected ranking is the weighted Jaccard index computed
// here from the case files' fields alone (default weights, rarity
// ln((N+1)/(df+0.5)), no text channel for a profile), not through the
// package's own scoring.
func TestSimilarToProfileWithMechanisms(t *testing.T) {
	a := mustAPI(t)
	var query *ilgraph.Case
	for _, c := range a.cases {
		if len(c.Mechanisms) >= 2 && len(c.Components) > 0 {
			query = c
			break
		}
	}
	if query == nil {
		t.Fatal("no seed case has two mechanisms and a component")
	}
	profile := map[string][]string{"mechanism": query.Mechanisms, "component": query.Components[:1]}

	type feature struct{ kind, id string }
	featuresOf := func(c *ilgraph.Case) map[feature]bool {
		fs := map[feature]bool{{"root_cause", c.RootCause}: true, {"org", c.Org}: true}
		for kind, ids := range map[string][]string{"component": c.Components, "symptom": c.Symptoms,
			"contributing": c.Contributing, "domain": c.Domain, "mechanism": c.Mechanisms} {
			for _, id := range ids {
				fs[feature{kind, id}] = true
			}
		}
		return fs
	}
	weightOf := map[string]float64{"root_cause": 2, "component": 1.5, "symptom": 1, "contributing": 2, "domain": 0.5, "mechanism": 4, "org": 0.5}
	df := map[feature]int{}
	for _, c := range a.cases {
		for f := range featuresOf(c) {
			df[f]++
		}
	}
	n := float64(len(a.cases))
	w := func(f feature) float64 { return weightOf[f.kind] * math.Log((n+1)/(float64(df[f])+0.5)) }
	q := map[feature]bool{}
	for kind, ids := range profile {
		for _, id := range ids {
			q[feature{kind, id}] = true
		}
	}
	type want struct {
		id         string
		score      float64
		mechanisms map[string]float64 // shared mechanism → contribution
	}
	var wants []want
	for _, c := range a.cases {
		fs := featuresOf(c)
		var shared, union float64
		mech := map[string]float64{}
		for f := range q {
			union += w(f)
			if fs[f] {
				shared += w(f)
			}
		}
		for f := range fs {
			if !q[f] {
				union += w(f)
			}
		}
		if shared == 0 {
			continue
		}
		for f := range q {
			if fs[f] && f.kind == "mechanism" {
				mech[f.id] = w(f) / union
			}
		}
		wants = append(wants, want{c.ID, math.Round(shared/union*1e9) / 1e9, mech})
	}
	sort.Slice(wants, func(i, j int) bool {
		if wants[i].score != wants[j].score {
			return wants[i].score > wants[j].score
		}
		return wants[i].id < wants[j].id
	})
	const k = 10
	wants = wants[:min(k, len(wants))]

	var got struct {
		SimilarToProfile struct{ Matches []similarResult }
	}
	a.must(`query($m: [ID!], $c: [ID!]) { similarToProfile(k: 10, profile: {mechanisms: $m, components: $c}) { matches { `+similarFields+` } } }`,
		map[string]any{"m": profile["mechanism"], "c": profile["component"]}, &got)
	ms := got.SimilarToProfile.Matches
	if len(ms) != len(wants) {
		t.Fatalf("got %d matches, want %d", len(ms), len(wants))
	}
	for i, m := range ms {
		if m.Case.ID != wants[i].id || math.Abs(m.Score-wants[i].score) > 1.5e-9 {
			t.Errorf("#%d: got %s %.9f, want %s %.9f", i, m.Case.ID, m.Score, wants[i].id, wants[i].score)
			continue
		}
		gotMech := map[string]float64{}
		sum := 0.0
		for _, s := range m.Shared {
			sum += s.Contribution
			if strings.EqualFold(s.Kind, "mechanism") {
				gotMech[s.Term.ID] = s.Contribution
			}
		}
		if len(gotMech) != len(wants[i].mechanisms) {
			t.Errorf("#%d %s: shared mechanisms %v, want %v", i, m.Case.ID, gotMech, wants[i].mechanisms)
		}
		for id, c := range wants[i].mechanisms {
			if math.Abs(gotMech[id]-c) > 1e-9 {
				t.Errorf("#%d %s: mechanism %s contributes %.9f, want %.9f", i, m.Case.ID, id, gotMech[id], c)
			}
		}
		if math.Abs(sum-m.Score) > 1e-8 {
			t.Errorf("#%d %s: shares add up to %.9f, score %.9f", i, m.Case.ID, sum, m.Score)
		}
	}
	if len(wants[0].mechanisms) == 0 {
		t.Errorf("the best match %s shares no mechanism with the profile %v", wants[0].id, profile)
	}
}
