package relevance

import (
	"math"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph/analysis"
)

// TestTFIDFRankerIsCosineByBruteForce: the "tfidf" ranker's answer for a
// query case is the cases ordered by the cosine of (1 + ln tf) × ln(N/df)
// vectors over their report text, computed here from the tokens directly,
// with the query case left out.
func TestTFIDFRankerIsCosineByBruteForce(t *testing.T) {
	cases := seedCases(t)
	r := NewTFIDF(cases, analysis.Options{}, ReportText).Ranker("tfidf")
	an := analysis.New(analysis.Options{})
	tfs := make([]map[string]int, len(cases))
	df := map[string]int{}
	for i := range cases {
		tfs[i] = map[string]int{}
		for _, tok := range an.Tokens(ReportText(&cases[i])) {
			if !tok.Stop && tok.Script != analysis.Digit {
				tfs[i][tok.Norm]++
			}
		}
		for w := range tfs[i] {
			df[w]++
		}
	}
	n := float64(len(cases))
	vec := func(tf map[string]int) map[string]float64 {
		v, norm := map[string]float64{}, 0.0
		for w, c := range tf {
			if x := (1 + math.Log(float64(c))) * math.Log(n/float64(df[w])); x > 0 {
				v[w] = x
				norm += x * x
			}
		}
		for w := range v {
			v[w] /= math.Sqrt(norm)
		}
		return v
	}
	ids := make([]string, len(cases))
	for i := range cases {
		ids[i] = cases[i].ID
	}
	for _, qi := range []int{0, len(cases) / 2, len(cases) - 1} {
		q := vec(tfs[qi])
		scores := make([]float64, len(cases))
		for i := range cases {
			for w, x := range vec(tfs[i]) {
				scores[i] += x * q[w]
			}
		}
		want := Ranked(ids, scores, ids[qi], 10)
		got := r.Rank(ids[qi], 10)
		if !slices.Equal(got, want) {
			t.Errorf("tfidf for %s: got %v, want %v", ids[qi], got, want)
		}
		if slices.Contains(got, ids[qi]) || len(got) != 10 {
			t.Errorf("tfidf for %s: %v, want 10 cases without the query", ids[qi], got)
		}
	}
	if got := r.Rank("no-such-case", 5); got != nil {
		t.Errorf("unknown query: got %v, want nothing", got)
	}
}
