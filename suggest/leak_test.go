package suggest

import (
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// orgNames are the organizations of a corpus: the names an engine sets
// aside. They are a fixed list of words, not evidence about tags, so the
// engines compared below share them.
func orgNames(cases []ilgraph.Case) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Org)
	}
	return out
}

func without(cases []ilgraph.Case, drop map[string]bool) []ilgraph.Case {
	var out []ilgraph.Case
	for _, c := range cases {
		if !drop[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// TestLeftOutCaseCannotInfluenceItsPrediction proves that leaving a case out
// is the same as never having seen it: the full engine asked with the case
// excluded answers exactly (confidences, evidence, neighbours) as an engine
// built from the corpus without that case. So the evaluation's answer for a
// case owes nothing to the case's own text or tags.
func TestLeftOutCaseCannotInfluenceItsPrediction(t *testing.T) {
	v, cases, full := seeds(t)
	names := orgNames(cases)
	for i := 0; i < len(cases); i += 9 {
		c := cases[i]
		other, err := New(v, without(cases, map[string]bool{c.ID: true}), Options{Names: names})
		if err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"en", "ko"} {
			q := Query(&c, lang)
			if q == "" {
				continue
			}
			got, err := full.Suggest(q, lang, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := other.Suggest(q, lang, "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: excluded from the full engine\n%+v\nbuilt without it\n%+v", c.ID, lang, got, want)
			}
		}
	}
}

// TestLeftOutCaseTagsAndTextDoNotMatter changes the left-out case's tags
// (to every term of the vocabulary) and its text (to the query itself, so
// that it would be its own best neighbour): the answer with it excluded does
// not move.
func TestLeftOutCaseTagsAndTextDoNotMatter(t *testing.T) {
	v, cases, full := seeds(t)
	c := cases[len(cases)/2]
	forged := append([]ilgraph.Case{}, cases...)
	f := &forged[len(cases)/2]
	f.RootCause = v.Kinds[ilgraph.KindRootCause][0].ID
	f.Components, f.Symptoms, f.Contributing, f.Domain, f.Mechanisms = nil, nil, nil, nil, nil
	for _, term := range v.Terms() {
		switch term.Kind {
		case ilgraph.KindComponent:
			f.Components = append(f.Components, term.ID)
		case ilgraph.KindSymptom:
			f.Symptoms = append(f.Symptoms, term.ID)
		case ilgraph.KindContributing:
			f.Contributing = append(f.Contributing, term.ID)
		case ilgraph.KindDomain:
			f.Domain = append(f.Domain, term.ID)
		case ilgraph.KindMechanism:
			f.Mechanisms = append(f.Mechanisms, term.ID)
		}
	}
	q := Query(&c, "en")
	f.Title.En, f.Summary.En, f.Trigger.En, f.SymptomsText.En = q, q, q, q
	eng, err := New(v, forged, Options{})
	if err != nil {
		t.Fatal(err)
	}
	withForged, err := eng.Suggest(q, "en", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(withForged.Neighbours) == 0 || withForged.Neighbours[0].CaseID != c.ID {
		t.Fatalf("the forged case should be its own best neighbour when not excluded: %+v", withForged.Neighbours)
	}
	got, err := eng.Suggest(q, "en", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Suggest(q, "en", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the left-out case's tags and text changed its own prediction:\n%+v\nwant\n%+v", got, want)
	}
}

// TestExcludingSeveralCases: leaving out a set of cases (as the calibration
// inside the evaluation does) is the same as building without them.
func TestExcludingSeveralCases(t *testing.T) {
	v, cases, full := seeds(t)
	drop := map[string]bool{}
	var ex excluded
	for i := 3; i < len(cases); i += 10 {
		drop[cases[i].ID] = true
		ex = append(ex, i)
	}
	other, err := New(v, without(cases, drop), Options{Names: orgNames(cases)})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{3, 50, 77} {
		c := cases[i]
		for _, lang := range []string{"en", "ko"} {
			q := Query(&c, lang)
			got, err := full.suggest(q, lang, ex)
			if err != nil {
				t.Fatal(err)
			}
			want, err := other.suggest(q, lang, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: excluding %d cases differs from building without them", c.ID, lang, len(ex))
			}
		}
	}
}

// The service builds its engine from slimmed cases: they must keep every
// text and tag the engine reads, so the answers are the same.
func TestSlimKeepsWhatTheEngineReads(t *testing.T) {
	v, cases, full := seeds(t)
	slimmed := make([]ilgraph.Case, len(cases))
	for i := range cases {
		slimmed[i] = slim(&cases[i])
	}
	eng, err := New(v, slimmed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(cases); i += 17 {
		for _, lang := range []string{"en", "ko"} {
			q := Query(&cases[i], lang)
			got, _ := eng.Suggest(q, lang, cases[i].ID)
			want, _ := full.Suggest(q, lang, cases[i].ID)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: the engine over slimmed cases answers differently", cases[i].ID, lang)
			}
		}
	}
}
