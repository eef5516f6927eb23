package suggest

import (
	"math"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
)

// termsNaming returns the terms whose English label or aliases name the
// product en (as analysed phrases).
func termsNaming(v *ilgraph.Vocabulary, en string) []ilgraph.Term {
	want := analysis.Phrase(en)
	var out []ilgraph.Term
	for _, t := range v.Terms() {
		for _, a := range append([]string{t.En}, t.Aliases.En...) {
			if slices.Equal(analysis.Phrase(a), want) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// TestProductNamesAreInTheVocabulary: every English name of the table is a
// term's English alias or label, and every such term lists the Hangul
// spellings among its Korean aliases, so that the vocabulary file says what
// the engine does.
func TestProductNamesAreInTheVocabulary(t *testing.T) {
	v, _, _ := seeds(t)
	for _, p := range ProductNames {
		ts := termsNaming(v, p.En)
		if len(ts) == 0 {
			t.Errorf("%s: no term of seeds/vocab.json has it as an English alias or label", p.En)
		}
		for _, term := range ts {
			for _, ko := range p.Ko {
				if !slices.Contains(term.Aliases.Ko, ko) && term.Ko != ko {
					t.Errorf("%s %s lists %q in English but not %q in Korean", term.Kind, term.ID, p.En, ko)
				}
			}
		}
	}
}

// TestKoreanProductNamesSuggestWhatTheEnglishOnesDo asks the engine for
// each product name in English and in each Hangul spelling (alone and with
// a particle): for every kind whose best English term is there because the
// name matched one of its aliases, the Korean spelling's best term is the
// same, with a confidence within 0.05 of it. Nothing is hard-coded: both
// sides are the engine's answers.
func TestKoreanProductNamesSuggestWhatTheEnglishOnesDo(t *testing.T) {
	_, _, e := seeds(t)
	compared := 0
	for _, p := range ProductNames {
		for _, ko := range p.Ko {
			for _, q := range []struct{ en, ko string }{
				{p.En, ko},
				{p.En, ko + "가"},
				{p.En + "'s", ko + "의"},
			} {
				en, err := e.Suggest(q.en, "en", "")
				if err != nil {
					t.Fatal(err)
				}
				kr, err := e.Suggest(q.ko, "", "")
				if err != nil {
					t.Fatal(err)
				}
				if kr.Lang != "ko" {
					t.Errorf("%q read as %s", q.ko, kr.Lang)
				}
				for _, k := range ilgraph.VocabKinds {
					named := func(ev Evidence) bool { return slices.Equal(analysis.Phrase(ev.Phrase), analysis.Phrase(p.En)) }
					if len(en.ByKind[k]) == 0 || !slices.ContainsFunc(en.ByKind[k][0].Evidence, named) {
						continue
					}
					we := en.ByKind[k][0]
					if len(kr.ByKind[k]) == 0 {
						t.Errorf("%q: no %s; %q: %s %.2f", q.ko, k, q.en, we.ID, we.Confidence)
						continue
					}
					gk := kr.ByKind[k][0]
					compared++
					if gk.ID != we.ID || math.Abs(gk.Score-we.Score) > 0.05 {
						t.Errorf("%s: %q gives %s %.3f, %q gives %s %.3f", k, q.ko, gk.ID, gk.Score, q.en, we.ID, we.Score)
					}
				}
			}
		}
	}
	if compared < 3*len(ProductNames) {
		t.Errorf("only %d comparisons for %d names", compared, len(ProductNames))
	}
}

// TestNamesRewrite checks the rewriting itself: offsets stay the Hangul
// spelling's, a particle stays out, a name of two scripts is one name, and
// a word that only begins like one is left alone.
func TestNamesRewrite(t *testing.T) {
	n := newNames()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"카프카가 밀렸다", append(analysis.Phrase("Kafka"), "밀렸"[:0]+analysis.StemKorean("밀렸다"))},
		{"몽고DB가 느려", append(analysis.Phrase("MongoDB"), analysis.StemKorean("느려"))},
		{"마이SQL 복제", append(analysis.Phrase("MySQL"), "복제")},
		{"마이 페이지", []string{"마이", "페이지"}},
	} {
		toks := n.tokens(analysis.Tokens(tc.text))
		var got []string
		for _, tk := range toks {
			if !tk.Stop {
				got = append(got, tk.Norm)
			}
			if tk.Start < 0 || tk.End > len(tc.text) || tk.Start >= tk.End {
				t.Errorf("%q: token %+v outside the text", tc.text, tk)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.text, got, tc.want)
		}
	}
	toks := n.tokens(analysis.Tokens("어제 카프카"))
	if last := toks[len(toks)-1]; "어제 카프카"[last.Start:last.End] != "카프카" {
		t.Errorf("the name's offsets: %+v", last)
	}
}
