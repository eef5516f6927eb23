package suggest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
)

var (
	evalOnce sync.Once
	evalRep  *Report
	evalErr  error
)

// seedEvaluation is the evaluation of the seed corpus with DefaultCutoffs,
// computed once for the tests that read it.
func seedEvaluation(t *testing.T) *Report {
	t.Helper()
	v, cases, _ := seeds(t)
	evalOnce.Do(func() { evalRep, evalErr = Evaluate(v, cases, Options{}, DefaultCutoffs) })
	if evalErr != nil {
		t.Fatal(evalErr)
	}
	return evalRep
}

// TestEvalDoesNotRegress recomputes the leave-one-out figures of
// docs/suggest.md on the seed corpus and fails if any figure of the engine
// (nested-calibrated cut-offs, and DefaultCutoffs) drops more than 0.05
// below the one recorded in testdata/eval-recorded.json (written by: ilgraph
// eval suggest --seeds seeds --json), or if DefaultCutoffs are no longer the
// cut-offs calibrated on the corpus. When a change improves the figures,
// record them again and update the doc.
func TestEvalDoesNotRegress(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "eval-recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want Report
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got := seedEvaluation(t)
	if got.Cases != want.Cases {
		t.Errorf("corpus has %d cases, the recorded run had %d: record the figures again", got.Cases, want.Cases)
	}
	const slack = 0.05
	check := func(name string, g, w float64) {
		if g < w-slack {
			t.Errorf("%s = %.2f, recorded %.2f: dropped more than %.2f", name, g, w, slack)
		} else if g != w {
			t.Logf("%s = %.2f (recorded %.2f)", name, g, w)
		}
	}
	for k, c := range got.Calibrated {
		if DefaultCutoffs[k] != c {
			t.Errorf("DefaultCutoffs[%s] = %+v, the calibration on the seed corpus gives %+v: update DefaultCutoffs", k, DefaultCutoffs[k], c)
		}
	}
	compare := func(system string, gotS, wantS map[string]*Scores) {
		for lang, w := range wantS {
			g := gotS[lang]
			if g == nil {
				t.Errorf("no %s %s run", system, lang)
				continue
			}
			compareScores(t, system+" "+lang, g, w, check)
		}
	}
	compare("engine", got.Engine, want.Engine)
	compare("fixed", got.Fixed, want.Fixed)
	if len(want.Engine) == 0 || len(want.Fixed) == 0 {
		t.Error("the recorded run lacks the engine's figures")
	}
}

// compareScores checks every figure of g against the recorded w.
func compareScores(t *testing.T, name string, g, w *Scores, check func(string, float64, float64)) {
	t.Helper()
	if g.Queries != w.Queries {
		t.Errorf("%s: %d queries, recorded %d", name, g.Queries, w.Queries)
	}
	check(name+" root cause top-1", g.RootCauseTop1, w.RootCauseTop1)
	check(name+" root cause top-3", g.RootCauseTop3, w.RootCauseTop3)
	for _, k := range ilgraph.VocabKinds {
		check(fmt.Sprintf("%s %s precision", name, k), g.Kinds[k].Precision, w.Kinds[k].Precision)
		check(fmt.Sprintf("%s %s recall", name, k), g.Kinds[k].Recall, w.Kinds[k].Recall)
		check(fmt.Sprintf("%s %s F1", name, k), g.Kinds[k].F1, w.Kinds[k].F1)
	}
}

// calibrate picks the cut-off with the best F1, worked out by hand: with at
// most one term above 0.7 both answers' first terms are right (F1 0.8);
// two terms above 0.6 give 0.67, three above 0.4 give 0.75.
func TestCalibrate(t *testing.T) {
	k := ilgraph.KindContributing
	res := func(ss ...Suggestion) *Result {
		for i := range ss {
			ss[i].Kind = k
		}
		return &Result{ByKind: map[ilgraph.Kind][]Suggestion{k: ss}}
	}
	a := &ilgraph.Case{ID: "A", Contributing: []string{"x"}}
	b := &ilgraph.Case{ID: "B", Contributing: []string{"y", "z"}}
	got := calibrate([]answer{
		{a, res(Suggestion{ID: "x", Confidence: 0.9}, Suggestion{ID: "y", Confidence: 0.6})},
		{b, res(Suggestion{ID: "y", Confidence: 0.7}, Suggestion{ID: "x", Confidence: 0.5}, Suggestion{ID: "z", Confidence: 0.4})},
	})
	if want := (Cutoff{Min: 0.7, Max: 1}); got[k] != want {
		t.Errorf("calibrated %+v, want %+v", got[k], want)
	}
	if got[ilgraph.KindRootCause] != RootCauseCutoff {
		t.Errorf("root cause cut-off %+v, want the single best", got[ilgraph.KindRootCause])
	}
	// Without the wrong guesses, two terms down to 0.4 find every tag.
	got = calibrate([]answer{
		{a, res(Suggestion{ID: "x", Confidence: 0.9})},
		{b, res(Suggestion{ID: "y", Confidence: 0.7}, Suggestion{ID: "z", Confidence: 0.4})},
	})
	if want := (Cutoff{Min: 0.4, Max: 2}); got[k] != want {
		t.Errorf("calibrated %+v, want %+v", got[k], want)
	}
}

// The per-term counts of an evaluation add up to its kind's counts, for
// every kind and language, and each term's Found + Missed is its Tagged.
func TestTermCountsAddUp(t *testing.T) {
	v, cases, _ := seeds(t)
	rep := seedEvaluation(t)
	for _, k := range ilgraph.VocabKinds {
		for lang, counts := range TermCounts(v, cases, rep.Predictions, k) {
			var tp, fp, fn int
			for _, c := range counts {
				tp, fp, fn = tp+c.Found, fp+c.Wrong, fn+c.Missed
				if c.Found+c.Missed != c.Tagged {
					t.Errorf("%s %s %s: found %d + missed %d, tagged %d", k, lang, c.ID, c.Found, c.Missed, c.Tagged)
				}
			}
			ks := rep.Engine[lang].Kinds[k]
			if tp != ks.tp || fp != ks.fp || fn != ks.fn {
				t.Errorf("%s %s: terms add up to tp/fp/fn %d/%d/%d, the kind's are %d/%d/%d", k, lang, tp, fp, fn, ks.tp, ks.fp, ks.fn)
			}
			if len(counts) < len(v.Kinds[k]) {
				t.Errorf("%s %s: %d terms counted, the vocabulary has %d", k, lang, len(counts), len(v.Kinds[k]))
			}
		}
	}
}

// A hand-worked case: one query tagged a and b, predicted b and c.
func TestTermCountsByHand(t *testing.T) {
	v := &ilgraph.Vocabulary{Kinds: map[ilgraph.Kind][]ilgraph.Term{ilgraph.KindContributing: {{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}}}
	cases := []ilgraph.Case{{ID: "X", Contributing: []string{"a", "b"}}}
	preds := []Prediction{{CaseID: "X", Lang: "en", Terms: map[ilgraph.Kind][]string{ilgraph.KindContributing: {"b", "c"}}}}
	got := TermCounts(v, cases, preds, ilgraph.KindContributing)["en"]
	want := []TermCount{{ID: "a", Tagged: 1, Missed: 1}, {ID: "b", Tagged: 1, Found: 1}, {ID: "c", Wrong: 1}, {ID: "d"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
