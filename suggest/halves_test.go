package suggest

import (
	"fmt"
	"os"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// halfF1 is the nested F1 of kind k on one half of the cases (parity 0: the
// even-numbered cases in id order, 1: the odd-numbered): the half's cases are
// answered leave-one-out, and each of its folds (case i is in fold i mod
// EvalFolds) is scored with cut-offs calibrated on the half's other folds,
// answered with the fold and the case left out, so neither the case nor the
// other half's tags choose its cut-off.
func halfF1(eng *Engine, cases []ilgraph.Case, parity int, k ilgraph.Kind) map[string]KindScore {
	out := map[string]KindScore{}
	for _, lang := range []string{"en", "ko"} {
		var ks KindScore
		for f := parity; f < EvalFolds; f += 2 {
			var fold excluded
			for i := f; i < len(cases); i += EvalFolds {
				fold = append(fold, i)
			}
			var train []answer
			for i := parity; i < len(cases); i += 2 {
				if i%EvalFolds == f {
					continue
				}
				q := Query(&cases[i], lang)
				if q == "" {
					continue
				}
				res, err := eng.suggest(q, lang, append(fold[:len(fold):len(fold)], i))
				if err != nil {
					panic(err)
				}
				train = append(train, answer{&cases[i], lang, res})
			}
			cut := calibrate(train)[k]
			for _, i := range fold {
				q := Query(&cases[i], lang)
				if q == "" {
					continue
				}
				res, err := eng.suggest(q, lang, excluded{i})
				if err != nil {
					panic(err)
				}
				ks.count(cases[i].Tags(k), suggestionIDs(res.InProfile(k, cut)))
			}
		}
		ks.finishOne()
		out[lang] = ks
	}
	return out
}

func (ks *KindScore) finishOne() {
	if ks.tp+ks.fp > 0 {
		ks.Precision = round(float64(ks.tp) / float64(ks.tp+ks.fp))
	}
	if ks.tp+ks.fn > 0 {
		ks.Recall = round(float64(ks.tp) / float64(ks.tp+ks.fn))
	}
	ks.F1 = round(ks.f1())
}

// TestHalves is the tool of the decision rule in docs/suggest.md: a change
// to the engine is decided on the even-numbered seed cases (in id order)
// and checked on the odd-numbered ones, without looking at them for the
// decision. SUGGEST_HALF=even (or odd) prints that half's contributing-factor
// figures:
//
//	SUGGEST_HALF=even go test -run TestHalves -v ./suggest/
//
// Either way it checks that the two halves score every query's factor tags
// exactly once, as the whole evaluation does.
func TestHalves(t *testing.T) {
	v, cases, _ := seeds(t)
	eng, err := New(v, cases, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := ilgraph.KindContributing
	halves := [2]map[string]KindScore{halfF1(eng, cases, 0, k), halfF1(eng, cases, 1, k)}
	for _, lang := range []string{"en", "ko"} {
		tags := 0
		for i := range cases {
			if Query(&cases[i], lang) != "" {
				tags += len(cases[i].Tags(k))
			}
		}
		got := 0
		for _, h := range halves {
			got += h[lang].tp + h[lang].fn
		}
		if got != tags {
			t.Errorf("%s: the halves score %d factor tags, the corpus's queries have %d", lang, got, tags)
		}
	}
	for parity, name := range []string{"even", "odd"} {
		if os.Getenv("SUGGEST_HALF") != name {
			continue
		}
		s := halves[parity]
		fmt.Printf("%s half %s (%d cases): en P/R/F1 %.3f/%.3f/%.3f  ko %.3f/%.3f/%.3f\n", name, k, (len(cases)+1-parity)/2,
			s["en"].Precision, s["en"].Recall, s["en"].F1, s["ko"].Precision, s["ko"].Recall, s["ko"].F1)
	}
}
