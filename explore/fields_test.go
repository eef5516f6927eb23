package explore_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// engineSuggester runs the suggestion engine in process as the core's
// Suggester.
type engineSuggester struct{ e *suggest.Engine }

func (s engineSuggester) Suggest(_ context.Context, text, lang string) (*suggest.Result, error) {
	return s.e.Suggest(text, lang, "")
}

func (s engineSuggester) TextMatches(_ context.Context, text, lang string, n int, also []string) (string, []suggest.TextMatch, error) {
	return s.e.TextMatches(text, lang, n, also)
}

func (s engineSuggester) SuggestExcluding(_ context.Context, text, lang, caseID string) (*suggest.Result, error) {
	return s.e.Suggest(text, lang, caseID)
}

// protocolWords are the names front doors give inputs (GraphQL's
// arguments, the JSON API's parameters, MCP's arguments): a message of the
// core names none of them, so that each door can name the input its own way.
var protocolWords = regexp.MustCompile(`\b(first|after|limit|k|minScore|min_score|lang|top|liftBase|minCount|minSupport|query|q)\b|filter\.`)

// TestErrorsNameTheirFieldByKey: every error about an input carries the
// input's field key, its code, and a message that speaks no front door's
// names.
func TestErrorsNameTheirFieldByKey(t *testing.T) {
	f := mustCore(t)
	cases := make([]ilgraph.Case, len(f.cases))
	for i, c := range f.cases {
		cases[i] = *c
	}
	engine, err := suggest.New(f.vocab, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	core := explore.New(nil, nil, explore.WithSuggester(engineSuggester{engine}))
	ctx := context.Background()
	id := f.cases[0].ID
	p := explore.Profile{Components: f.cases[0].Components}
	for _, tc := range []struct {
		name  string
		ask   func() error
		code  string
		field string
	}{
		{"page over the maximum", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Page: explore.Page{First: ptr(explore.MaxPageSize + 1)}})
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldPageSize},
		{"negative page", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Page: explore.Page{First: ptr(-1)}})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldPageSize},
		{"same root cause page over the maximum", func() error {
			_, err := f.core.SameRootCause(ctx, id, explore.Page{First: ptr(explore.MaxPageSize + 1)})
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldPageSize},
		{"a cursor never given out", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Page: explore.Page{After: "bm9wZQ"}})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldPageCursor},
		{"a cursor past the end", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Page: explore.Page{After: explore.EncodeCursor(len(f.cases) + 5)}})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldPageCursor},
		{"unknown sort", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Sort: "SIDEWAYS"})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldSort},
		{"relevance without text", func() error {
			_, err := f.core.Cases(ctx, explore.CaseQuery{Sort: ilgraph.SortRelevance})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldText},
		{"k zero", func() error {
			_, err := f.core.Similar(ctx, id, explore.SimilarityQuery{})
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldSimilarK},
		{"k over the maximum", func() error {
			_, err := f.core.SimilarToProfile(ctx, p, explore.SimilarityQuery{K: explore.MaxSimilarK + 1})
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldSimilarK},
		{"min score over one", func() error {
			_, err := f.core.Similar(ctx, id, explore.SimilarityQuery{K: 5, MinScore: 2})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldSimilarMinScore},
		{"empty profile", func() error {
			_, err := f.core.SimilarToProfile(ctx, explore.Profile{}, explore.SimilarityQuery{K: 5})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldProfile},
		{"unknown kind", func() error {
			_, err := f.core.Vocabulary(ctx, "planet")
			return err
		}, ilgraph.EINVALID, ilgraph.FieldKind},
		{"facets top zero", func() error {
			_, err := f.core.Facets(ctx, ilgraph.CaseFilter{}, 0)
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldFacetTop},
		{"co-occurring over the maximum", func() error {
			_, err := f.core.Cooccurring(ctx, ilgraph.TermKey{Kind: ilgraph.KindRootCause, ID: f.cases[0].RootCause}, ilgraph.KindComponent, explore.MaxCooccurring+1)
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldCooccurringSize},
		{"breakdown top zero", func() error {
			_, err := f.core.Breakdown(ctx, explore.BreakdownQuery{Rows: explore.DimYear, Columns: explore.DimRootCause, Top: ptr(0)})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldBreakdownTop},
		{"lift over a base without one", func() error {
			_, err := f.core.Cooccurrence(ctx, explore.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, LiftBase: explore.LiftBaseFilter})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldLiftBaseFilter},
		{"lift over the corpus with a base", func() error {
			_, err := f.core.Cooccurrence(ctx, explore.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, LiftBase: explore.LiftCorpus, Base: &ilgraph.CaseFilter{}})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldLiftBaseFilter},
		{"unknown lift base", func() error {
			_, err := f.core.Cooccurrence(ctx, explore.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, LiftBase: "SIDEWAYS"})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldLiftBase},
		{"negative minimum count", func() error {
			_, err := f.core.Cooccurrence(ctx, explore.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, MinCount: -1})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldMinCount},
		{"negative minimum support", func() error {
			_, err := f.core.Cooccurrence(ctx, explore.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, MinSupport: -1})
			return err
		}, ilgraph.EINVALID, ilgraph.FieldMinSupport},
		{"empty text", func() error {
			_, err := core.Suggest(ctx, " \n ", "")
			return err
		}, ilgraph.EINVALID, ilgraph.FieldSuggestText},
		{"text too long", func() error {
			_, err := core.Suggest(ctx, strings.Repeat("disk ", suggest.MaxTextChars/5+1), "")
			return err
		}, ilgraph.ELIMIT, ilgraph.FieldSuggestText},
		{"unknown language", func() error {
			_, err := core.Suggest(ctx, "disk full", "fr")
			return err
		}, ilgraph.EINVALID, ilgraph.FieldLang},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.ask()
			var e *ilgraph.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *ilgraph.Error", err)
			}
			if e.Code != tc.code || e.Field != tc.field {
				t.Errorf("error %v: code %q, field %q; want %q, %q", err, e.Code, e.Field, tc.code, tc.field)
			}
			if w := protocolWords.FindString(e.Message); w != "" || e.Message == "" {
				t.Errorf("message %q names %q, a front door's name for an input", e.Message, w)
			}
		})
	}
}

// SuggestCutoffs are suggest.DefaultCutoffs unless set, one per vocabulary
// kind; WithSuggestCutoffs changes the ones it names, and the profile read
// from suggestions follows them.
func TestSuggestCutoffs(t *testing.T) {
	def := explore.New(nil, nil)
	got := def.SuggestCutoffs()
	if len(got) != len(ilgraph.VocabKinds) {
		t.Fatalf("%d cut-offs, want %d", len(got), len(ilgraph.VocabKinds))
	}
	for i, k := range ilgraph.VocabKinds {
		c, sh := suggest.DefaultCutoffs[k], suggest.ShowCutoffs[k]
		g := got[i]
		if g.Kind != k || g.Min != c.Min || g.Max != c.Max || g.ShowMax != sh.Max {
			t.Errorf("cut-off %d: %+v, want %s %+v, shown %+v", i, g, k, c, sh)
		}
		if never := sh == suggest.NeverShown; never != (g.ShowMin == nil) || (!never && *g.ShowMin != sh.Min) {
			t.Errorf("%s: showMin %v, want %+v", k, g.ShowMin, sh)
		}
	}
	res := &suggest.Result{ByKind: map[ilgraph.Kind][]suggest.Suggestion{
		// The profile's cut-off applies to the score (a's confidence is
		// under the component's 0.6, its score is not), and a term counts
		// with its score.
		ilgraph.KindComponent: {{Kind: ilgraph.KindComponent, ID: "a", Confidence: 0.55, Score: 0.9}, {Kind: ilgraph.KindComponent, ID: "b", Confidence: 0.05, Score: 0.2}},
	}}
	if p := def.ProfileFromSuggestions(res); strings.Join(p.Components, ",") != "a" || p.Confidence[ilgraph.Feature{Kind: ilgraph.KindComponent, ID: "a"}] != 0.9 {
		t.Errorf("default cut-offs: components %v counting with %v, want [a] with its score 0.9", p.Components, p.Confidence)
	}
	loose := explore.New(nil, nil, explore.WithSuggestCutoffs(map[ilgraph.Kind]suggest.Cutoff{ilgraph.KindComponent: {Min: 0.1, Max: 3}}))
	for _, c := range loose.SuggestCutoffs() {
		want := suggest.DefaultCutoffs[c.Kind]
		if c.Kind == ilgraph.KindComponent {
			want = suggest.Cutoff{Min: 0.1, Max: 3}
		}
		if c.Min != want.Min || c.Max != want.Max {
			t.Errorf("%s: %+v, want %+v", c.Kind, c, want)
		}
	}
	if p := loose.ProfileFromSuggestions(res); strings.Join(p.Components, ",") != "a,b" {
		t.Errorf("looser cut-offs: components %v, want [a b]", p.Components)
	}
	if suggest.DefaultCutoffs[ilgraph.KindComponent] == (suggest.Cutoff{Min: 0.1, Max: 3}) {
		t.Error("WithSuggestCutoffs changed suggest.DefaultCutoffs")
	}
}

// Sure is the suggestions within the show cut-offs: suggest.ShowCutoffs
// unless WithShowCutoffs set others; a kind never shown has none.
func TestSure(t *testing.T) {
	comp, contrib := ilgraph.KindComponent, ilgraph.KindContributing
	res := &suggest.Result{ByKind: map[ilgraph.Kind][]suggest.Suggestion{
		comp:    {{Kind: comp, ID: "a", Confidence: 0.95, Score: 0.97}, {Kind: comp, ID: "b", Confidence: 0.9, Score: 0.93}, {Kind: comp, ID: "c", Confidence: 0.5, Score: 0.7}},
		contrib: {{Kind: contrib, ID: "f", Confidence: 0.99, Score: 0.99}},
	}}
	show := map[ilgraph.Kind]suggest.Cutoff{comp: {Min: 0.85, Max: 5}, contrib: suggest.NeverShown}
	s := explore.New(nil, nil, explore.WithShowCutoffs(show))
	got := s.Sure(res)
	want := map[ilgraph.Feature]bool{{Kind: comp, ID: "a"}: true, {Kind: comp, ID: "b"}: true}
	if len(got) != len(want) || !got[ilgraph.Feature{Kind: comp, ID: "a"}] || !got[ilgraph.Feature{Kind: comp, ID: "b"}] {
		t.Errorf("sure %v, want %v", got, want)
	}
	for _, c := range s.SuggestCutoffs() {
		switch c.Kind {
		case comp:
			if c.ShowMin == nil || *c.ShowMin != 0.85 || c.ShowMax != 5 {
				t.Errorf("component: %+v", c)
			}
		case contrib:
			if c.ShowMin != nil || c.ShowMax != 0 {
				t.Errorf("contributing, never shown: %+v", c)
			}
		}
	}
	// Only a term the profile takes is shown as sure: with the components'
	// profile cut-off above b's score, b is not, whatever its confidence.
	tight := explore.New(nil, nil, explore.WithShowCutoffs(show), explore.WithSuggestCutoffs(map[ilgraph.Kind]suggest.Cutoff{comp: {Min: 0.95, Max: 5}}))
	if got := tight.Sure(res); !got[ilgraph.Feature{Kind: comp, ID: "a"}] || got[ilgraph.Feature{Kind: comp, ID: "b"}] {
		t.Errorf("profile cut-off 0.95: sure %v, want a alone", got)
	}
	// At most Max: one component shown.
	one := explore.New(nil, nil, explore.WithShowCutoffs(map[ilgraph.Kind]suggest.Cutoff{comp: {Min: 0.85, Max: 1}}))
	if got := one.Sure(res); !got[ilgraph.Feature{Kind: comp, ID: "a"}] || got[ilgraph.Feature{Kind: comp, ID: "b"}] {
		t.Errorf("at most one: sure %v", got)
	}
}
