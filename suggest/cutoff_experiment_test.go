package suggest

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// termCutoff is a kind's cut-off with a Min of its own for some terms: the
// per-factor cut-off docs/suggest.md reports as tried and not adopted.
type termCutoff struct {
	Cutoff
	min map[string]float64
}

func (c termCutoff) predicted(r *Result, k ilgraph.Kind) []string {
	var out []string
	for _, s := range r.ByKind[k] {
		if len(out) == c.Max {
			break
		}
		min, ok := c.min[s.ID]
		if !ok {
			min = c.Min
		}
		if s.Confidence >= min {
			out = append(out, s.ID)
		}
	}
	return out
}

func (c termCutoff) f1(answers []answer, k ilgraph.Kind) float64 {
	var ks KindScore
	for _, a := range answers {
		ks.count(a.c.Tags(k), c.predicted(a.res, k))
	}
	return ks.f1()
}

// calibrateTerms starts from the kind's calibrated cut-off and gives each
// term, in vocabulary order, the Min (0.05 to 1 by 0.05) that raises the
// micro F1 over the answers most, twice over.
func calibrateTerms(answers []answer, k ilgraph.Kind, terms []string) termCutoff {
	c := termCutoff{Cutoff: calibrate(answers)[k], min: map[string]float64{}}
	best := c.f1(answers, k)
	for pass := 0; pass < 2; pass++ {
		for _, id := range terms {
			old, had := c.min[id]
			chosen, found := 0.0, false
			for step := 1; step <= 20; step++ {
				c.min[id] = float64(step) / 20
				if f := c.f1(answers, k); f > best+1e-9 {
					best, chosen, found = f, c.min[id], true
				}
			}
			switch {
			case found:
				c.min[id] = chosen
			case had:
				c.min[id] = old
			default:
				delete(c.min, id)
			}
		}
	}
	return c
}

// TestPerTermCutoffExperiment prints, with SUGGEST_HALF=even (or odd), the
// contributing-factor F1 of that half under the kind's cut-off and under a
// cut-off per factor, both calibrated as the halves are (each fold's on
// the half's other folds, the fold left out):
//
//	SUGGEST_HALF=even go test -run TestPerTermCutoffExperiment -v ./suggest/
//
// Either way it checks that a per-term cut-off with no term of its own
// predicts exactly what the kind's cut-off does.
func TestPerTermCutoffExperiment(t *testing.T) {
	v, cases, _ := seeds(t)
	eng, err := New(v, cases, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := ilgraph.KindContributing
	for i := range cases[:20] {
		res, err := eng.suggest(Query(&cases[i], "en"), "en", excluded{i})
		if err != nil {
			t.Fatal(err)
		}
		plain := termCutoff{Cutoff: DefaultCutoffs[k]}
		if got, want := plain.predicted(res, k), suggestionIDs(res.InProfile(k, DefaultCutoffs[k])); !slices.Equal(got, want) {
			t.Errorf("%s: a per-term cut-off with no terms predicts %v, the kind's cut-off %v", cases[i].ID, got, want)
		}
	}
	parity := map[string]int{"even": 0, "odd": 1}[os.Getenv("SUGGEST_HALF")]
	if os.Getenv("SUGGEST_HALF") == "" {
		return
	}
	var terms []string
	for _, term := range v.Kinds[k] {
		terms = append(terms, term.ID)
	}
	for _, lang := range []string{"en", "ko"} {
		var kind, perTerm KindScore
		for f := parity; f < EvalFolds; f += 2 {
			var fold excluded
			for i := f; i < len(cases); i += EvalFolds {
				fold = append(fold, i)
			}
			var train []answer
			for i := parity; i < len(cases); i += 2 {
				if i%EvalFolds == f || Query(&cases[i], lang) == "" {
					continue
				}
				res, err := eng.suggest(Query(&cases[i], lang), lang, append(fold[:len(fold):len(fold)], i))
				if err != nil {
					t.Fatal(err)
				}
				train = append(train, answer{&cases[i], lang, res})
			}
			c0 := termCutoff{Cutoff: calibrate(train)[k]}
			c1 := calibrateTerms(train, k, terms)
			for _, i := range fold {
				if Query(&cases[i], lang) == "" {
					continue
				}
				res, err := eng.suggest(Query(&cases[i], lang), lang, excluded{i})
				if err != nil {
					t.Fatal(err)
				}
				kind.count(cases[i].Tags(k), c0.predicted(res, k))
				perTerm.count(cases[i].Tags(k), c1.predicted(res, k))
			}
		}
		fmt.Printf("%s half, %s: contributing F1 with the kind's cut-off %.3f, with a cut-off per factor %.3f\n",
			os.Getenv("SUGGEST_HALF"), lang, kind.f1(), perTerm.f1())
	}
}
