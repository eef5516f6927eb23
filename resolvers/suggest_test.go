package resolvers_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

type suggestedTerm struct {
	Kind       ilgraph.Kind
	Term       struct{ ID string }
	Confidence float64
	Sure       bool
	Evidence   []struct {
		Source, Text, Phrase string
		Start, End           *int
		Case                 *struct{ ID string }
		Weight               float64
	}
}

type suggestions struct {
	Lang                                                                string
	RootCauses, Components, Symptoms, Contributing, Domains, Mechanisms []suggestedTerm
	Neighbours                                                          []struct {
		Case  struct{ ID string }
		Score float64
	}
}

const suggestionFields = `lang
  rootCauses { ...st } components { ...st } symptoms { ...st } contributing { ...st } domains { ...st } mechanisms { ...st }
  neighbours { case { id } score }`

const suggestedTermFragment = `fragment st on SuggestedTerm { kind term { id } confidence sure evidence { source text phrase start end case { id } weight } }`

// The API's suggestions equal the engine's built straight from the seed
// JSON: the graph keeps every label, alias, text and tag the engine reads.
func TestSuggest(t *testing.T) {
	a := mustAPI(t)
	cases := make([]ilgraph.Case, len(a.cases))
	for i, c := range a.cases {
		cases[i] = *c
	}
	engine, err := suggest.New(a.vocab, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	texts := []struct{ text, lang string }{
		{"Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed", ""},
		{"A config change pushed to every region took the DNS resolvers down; requests timed out", "en"},
		{"데이터베이스 연결이 고갈되어 응답 지연과 오류율 증가가 발생했다", ""},
		{"certificate expired and TLS handshakes failed", "en"},
	}
	var sure, unsure int
	for _, tc := range texts {
		t.Run(tc.text[:20], func(t *testing.T) {
			want, err := engine.Suggest(tc.text, tc.lang, "")
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Suggest        suggestions
				SuggestCutoffs []struct {
					Kind    ilgraph.Kind
					ShowMin *float64
					ShowMax int
				}
			}
			vars := map[string]any{"text": tc.text}
			if tc.lang != "" {
				vars["lang"] = tc.lang
			}
			a.must(`query($text: String!, $lang: String) { suggest(text: $text, lang: $lang) { `+suggestionFields+` } suggestCutoffs { kind showMin showMax } } `+suggestedTermFragment, vars, &got)
			// sure: within the kind's show cut-off, by the cut-offs the
			// API gives (at most showMax, each of confidence ≥ showMin).
			show := map[string]struct {
				min *float64
				max int
			}{}
			for _, c := range got.SuggestCutoffs {
				show[strings.ToLower(string(c.Kind))] = struct {
					min *float64
					max int
				}{c.ShowMin, c.ShowMax}
			}
			if got.Suggest.Lang != want.Lang {
				t.Errorf("lang %q, want %q", got.Suggest.Lang, want.Lang)
			}
			for k, list := range map[ilgraph.Kind][]suggestedTerm{
				ilgraph.KindRootCause: got.Suggest.RootCauses, ilgraph.KindComponent: got.Suggest.Components,
				ilgraph.KindSymptom: got.Suggest.Symptoms, ilgraph.KindContributing: got.Suggest.Contributing, ilgraph.KindDomain: got.Suggest.Domains,
				ilgraph.KindMechanism: got.Suggest.Mechanisms,
			} {
				w := want.ByKind[k]
				if len(list) != len(w) {
					t.Fatalf("%s: %d suggestions, want %d", k, len(list), len(w))
				}
				for i := range w {
					g := list[i]
					c := show[string(k)]
					if wantSure := c.min != nil && i < c.max && g.Confidence >= *c.min; g.Sure != wantSure {
						t.Errorf("%s %s (%.3f, #%d): sure %v, want %v by the cut-off %v/%d", k, g.Term.ID, g.Confidence, i, g.Sure, wantSure, c.min, c.max)
					}
					if g.Sure {
						sure++
					} else {
						unsure++
					}
					if g.Term.ID != w[i].ID || !strings.EqualFold(string(g.Kind), string(k)) || math.Abs(g.Confidence-w[i].Confidence) > 1e-9 || len(g.Evidence) != len(w[i].Evidence) {
						t.Errorf("%s #%d: got %s %.4f (%d evidence), want %s %.4f (%d evidence)", k, i, g.Term.ID, g.Confidence, len(g.Evidence), w[i].ID, w[i].Confidence, len(w[i].Evidence))
						continue
					}
					for j, e := range w[i].Evidence {
						ge := g.Evidence[j]
						if e.CaseID != "" {
							if ge.Source != "case" || ge.Case == nil || ge.Case.ID != e.CaseID || ge.Start != nil {
								t.Errorf("%s %s evidence %d: got %+v, want the vote of %s", k, g.Term.ID, j, ge, e.CaseID)
							}
							continue
						}
						if ge.Source != e.Source || ge.Text != e.Text || ge.Phrase != e.Phrase || ge.Start == nil || *ge.Start != e.Start || ge.Case != nil {
							t.Errorf("%s %s evidence %d: got %+v, want %+v", k, g.Term.ID, j, ge, e)
						} else if tc.text[e.Start:e.End] != e.Text {
							t.Errorf("%s %s: offsets %d:%d give %q, not %q", k, g.Term.ID, e.Start, e.End, tc.text[e.Start:e.End], e.Text)
						}
					}
				}
			}
			if len(want.ByKind[ilgraph.KindMechanism]) == 0 {
				t.Errorf("the engine suggests no mechanism for %q: the comparison above proves nothing for that kind", tc.text)
			}
			if len(got.Suggest.Neighbours) != len(want.Neighbours) {
				t.Errorf("%d neighbours, want %d", len(got.Suggest.Neighbours), len(want.Neighbours))
			}
		})
	}
	if sure == 0 || unsure == 0 {
		t.Errorf("%d suggestions sure, %d not: the check of sure proves nothing", sure, unsure)
	}
	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			name, text, lang, code string
		}{
			{"empty", "", "", "INVALID"},
			{"blank", "  \n\t ", "", "INVALID"},
			{"too long", strings.Repeat("disk full ", 1001), "", "LIMIT"},
			{"unknown language", "disk full", "fr", "INVALID"},
		} {
			errs := a.do(`query($text: String!, $lang: String) { suggest(text: $text, lang: $lang) { lang } }`, map[string]any{"text": tc.text, "lang": nilIfEmpty(tc.lang)}, nil)
			if len(errs) != 1 || errs[0].Extensions["code"] != tc.code {
				t.Errorf("%s: errors %+v, want one %s", tc.name, errs, tc.code)
			}
		}
		// Binary and invalid UTF-8 are read, not refused or crashed on.
		var got struct{ Suggest struct{ Lang string } }
		a.must(`query($text: String!) { suggest(text: $text) { lang } }`, map[string]any{"text": "\x00\x01 disk \uFFFD full \x7f"}, &got)
	})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// described is what the definition of a free-text match needs over the
// seed cases: an engine built from them, every case's BM25 score for the
// text and the best, and the similarity index.
type described struct {
	cases  []ilgraph.Case
	engine *suggest.Engine
	bm25   map[string]float64
	best   float64
	rows   []ilgraph.CaseFeatures
	ix     *similarity.Index
}

func describe(t *testing.T, a *api, text string) described {
	t.Helper()
	d := described{bm25: map[string]float64{}}
	for _, c := range a.cases {
		d.cases = append(d.cases, *c)
	}
	var err error
	if d.engine, err = suggest.New(a.vocab, d.cases, suggest.Options{}); err != nil {
		t.Fatal(err)
	}
	_, textMatches, err := d.engine.TextMatches(text, "", len(d.cases), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range textMatches {
		d.bm25[m.CaseID], d.best = m.Score, max(d.best, m.Score)
	}
	if d.best == 0 {
		t.Fatal("the description shares no word with any case")
	}
	for i := range d.cases {
		d.rows = append(d.rows, ilgraph.SimilarityRow(&d.cases[i]))
	}
	d.ix = similarity.Build(d.rows, 0)
	return d
}

// similarToText ranks the cases most like the profile the suggestions
// make, each term counting with √ of its confidence: its matches are the
// definition's (ilgraph.ScoreProfile) over the seed cases, their shares add
// up to the score and carry the engine's confidences.
func TestSimilarToText(t *testing.T) {
	a := mustAPI(t)
	text := "Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed"
	var got struct {
		SimilarToText struct {
			Profile struct {
				RootCause                                               *struct{ ID string }
				Components, Symptoms, Contributing, Domains, Mechanisms []struct{ ID string }
			}
			Match struct {
				Matches []struct {
					Case  struct{ ID string }
					Score float64
					Text  *struct {
						Weight, Cosine, Contribution float64
						Words                        []string
					}
					Shared []struct {
						Kind         string
						Term         struct{ ID string }
						Contribution float64
						Confidence   *float64
					}
				}
			}
		}
	}
	a.must(`query($text: String!) { similarToText(text: $text, k: 10) {
  profile { rootCause { id } components { id } symptoms { id } contributing { id } domains { id } mechanisms { id } }
  match { matches { case { id } score text { weight cosine contribution words } shared { kind term { id } contribution confidence } } } } }`, map[string]any{"text": text}, &got)
	p := got.SimilarToText.Profile
	idsOf := func(ts []struct{ ID string }) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.ID
		}
		return out
	}
	prof := explore.Profile{Components: idsOf(p.Components), Symptoms: idsOf(p.Symptoms), Contributing: idsOf(p.Contributing), Domains: idsOf(p.Domains), Mechanisms: idsOf(p.Mechanisms)}
	if p.RootCause != nil {
		prof.RootCause = p.RootCause.ID
	}
	if len(prof.Features()) == 0 {
		t.Fatal("the Kinesis description made an empty profile")
	}
	// The profile is the one the engine's suggestions make, mechanisms
	// included.
	d := describe(t, a, text)
	engine, bm25, best, rows, ix := d.engine, d.bm25, d.best, d.rows, d.ix
	res, err := engine.Suggest(text, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// The server's rule with the server's cut-offs (the defaults).
	served := explore.New(a.db, similarity.NewService(a.db, memstore.NewSource(a.db))).ProfileFromSuggestions(res)
	if fmt.Sprint(prof.Features()) != fmt.Sprint(served.Features()) {
		t.Errorf("profile %+v\nthe engine's %+v", prof, served)
	}
	if len(prof.Mechanisms) == 0 {
		t.Errorf("no mechanism in the profile %+v", prof)
	}
	// The matches are the definition's over the seed cases (default
	// weights, rarity on), each term counting with √ of the engine's
	// confidence, blended with the description's own words: (1 − w) × the
	// profile score + w × the case's BM25 score over the best case's. The
	// shares and the text's part add up to the score and carry it.
	w := explore.DefaultDescriptionWeight
	member := func(f ilgraph.Feature) float64 { return served.Confidence[f] }
	var scores []float64
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
		tag := ilgraph.ScoreProfile(prof.Features(), member, r.Features, ix.Weight(ilgraph.DefaultOptions(10)), 0, nil, nil).Score
		scores = append(scores, ilgraph.RoundScore((1-w)*tag+w*bm25[r.ID]/best))
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		if scores[order[i]] != scores[order[j]] {
			return scores[order[i]] > scores[order[j]]
		}
		return ids[order[i]] < ids[order[j]]
	})
	ms := got.SimilarToText.Match.Matches
	if len(ms) != 10 {
		t.Fatalf("%d matches", len(ms))
	}
	weighted := 0
	for i, m := range ms {
		if w := order[i]; m.Case.ID != ids[w] || math.Abs(m.Score-scores[w]) > 1e-9 {
			t.Errorf("match %d: %s %.9f; by the definition %s %.9f", i, m.Case.ID, m.Score, ids[w], scores[w])
		}
		var sum float64
		for _, sh := range m.Shared {
			sum += sh.Contribution
			c := served.Confidence[ilgraph.Feature{Kind: ilgraph.Kind(strings.ToLower(sh.Kind)), ID: sh.Term.ID}]
			if c < 1 && (sh.Confidence == nil || *sh.Confidence != c) {
				t.Errorf("%s: %s %s confidence %v, the engine's %v", m.Case.ID, sh.Kind, sh.Term.ID, sh.Confidence, c)
			}
			if sh.Confidence != nil {
				weighted++
			}
		}
		if m.Text == nil || m.Text.Weight != w || math.Abs(m.Text.Cosine-ilgraph.RoundScore(bm25[m.Case.ID]/best)) > 1e-9 {
			t.Errorf("%s: text part %+v, want weight %v and match %.9f", m.Case.ID, m.Text, w, bm25[m.Case.ID]/best)
		} else {
			sum += m.Text.Contribution
		}
		if math.Abs(sum-m.Score) > float64(len(m.Shared)+2)*0.5e-9+1e-12 {
			t.Errorf("%s: shares add up to %.12f, score %.9f", m.Case.ID, sum, m.Score)
		}
	}
	if weighted == 0 {
		t.Error("no share carries a confidence")
	}
	// The same terms given by id (similarToProfile) count in full: other
	// scores.
	var want struct {
		SimilarToProfile struct {
			Matches []struct {
				Case  struct{ ID string }
				Score float64
			}
		}
	}
	a.must(`query($p: ProfileInput!) { similarToProfile(profile: $p, k: 10) { matches { case { id } score } } }`, map[string]any{"p": map[string]any{
		"rootCause": nilIfEmpty(prof.RootCause), "components": prof.Components, "symptoms": prof.Symptoms, "contributing": prof.Contributing, "domains": prof.Domains,
		"mechanisms": prof.Mechanisms,
	}}, &want)
	if len(want.SimilarToProfile.Matches) == 0 || want.SimilarToProfile.Matches[0].Score == ms[0].Score {
		t.Errorf("similarToProfile %v: want other scores than similarToText's", want.SimilarToProfile.Matches)
	}
	errs := a.do(`{ similarToText(text: "zzqx vvkj qqpw") { profile { components { id } } } }`, nil, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "INVALID" {
		t.Errorf("text with no vocabulary term: errors %+v, want one INVALID", errs)
	}
}

// similarToProfile with text ranks by the profile given (every term in
// full, none read from the text) and the text's own words: its matches are
// the definition's over the seed cases, (1 − w) × the profile score + w ×
// the case's BM25 score over the best case's; with an empty profile the
// words alone rank. A blank text is the profile alone.
func TestSimilarToProfileWithText(t *testing.T) {
	a := mustAPI(t)
	const text = "our kafka consumers lag and the broker disks are filling up; producers time out"
	d := describe(t, a, text)
	bm25, best, rows, ix := d.bm25, d.best, d.rows, d.ix
	w := explore.DefaultDescriptionWeight
	type match struct {
		Case  struct{ ID string }
		Score float64
		Text  *struct{ Weight, Contribution float64 }
	}
	ask := func(p explore.Profile, text *string) []match {
		t.Helper()
		var got struct{ SimilarToProfile struct{ Matches []match } }
		a.must(`query($p: ProfileInput!, $text: String) { similarToProfile(profile: $p, k: 10, text: $text) { matches { case { id } score text { weight contribution } } } }`,
			map[string]any{"p": map[string]any{"components": p.Components, "symptoms": p.Symptoms}, "text": text}, &got)
		return got.SimilarToProfile.Matches
	}
	byDefinition := func(p explore.Profile, w float64) (ids []string, scores map[string]float64) {
		scores = map[string]float64{}
		for _, r := range rows {
			tag := 0.0
			if len(p.Features()) > 0 {
				tag = ilgraph.ScoreProfile(p.Features(), nil, r.Features, ix.Weight(ilgraph.DefaultOptions(10)), 0, nil, nil).Score
			}
			if s := ilgraph.RoundScore((1-w)*tag + w*bm25[r.ID]/best); s > 0 {
				scores[r.ID] = s
				ids = append(ids, r.ID)
			}
		}
		sort.Slice(ids, func(i, j int) bool {
			if scores[ids[i]] != scores[ids[j]] {
				return scores[ids[i]] > scores[ids[j]]
			}
			return ids[i] < ids[j]
		})
		return ids[:min(10, len(ids))], scores
	}
	check := func(name string, got []match, ids []string, scores map[string]float64) {
		t.Helper()
		if len(got) != len(ids) {
			t.Fatalf("%s: %d matches, by the definition %d", name, len(got), len(ids))
		}
		for i, m := range got {
			if m.Case.ID != ids[i] || math.Abs(m.Score-scores[ids[i]]) > 1e-9 {
				t.Errorf("%s: match %d: %s %.9f; by the definition %s %.9f", name, i, m.Case.ID, m.Score, ids[i], scores[ids[i]])
			}
		}
	}
	desc := text
	prof := explore.Profile{Components: []string{"message-broker"}, Symptoms: []string{"processing-backlog"}}
	withText := ask(prof, &desc)
	ids, scores := byDefinition(prof, w)
	check("profile and text", withText, ids, scores)
	for _, m := range withText {
		if m.Text == nil || m.Text.Weight != w {
			t.Errorf("%s: text part %+v, want weight %v", m.Case.ID, m.Text, w)
		}
	}
	// The words alone, with an empty profile.
	ids, scores = byDefinition(explore.Profile{}, 1)
	for id := range scores {
		scores[id] = ilgraph.RoundScore(w * bm25[id] / best)
	}
	check("text alone", ask(explore.Profile{}, &desc), ids, scores)
	// No text, or a blank one: the profile alone, other scores.
	plain := ask(prof, nil)
	blank := " "
	if fmt.Sprint(ask(prof, &blank)) != fmt.Sprint(plain) {
		t.Error("a blank text changed the answer")
	}
	if len(plain) == 0 || plain[0].Text != nil || plain[0].Score == withText[0].Score {
		t.Errorf("without text %+v: want the profile's own scores and no text part", plain[:min(1, len(plain))])
	}
	// Bad text is an error naming it.
	long := strings.Repeat("a ", suggest.MaxTextChars)
	errs := a.do(`query($t: String) { similarToProfile(profile: {}, text: $t) { matches { score } } }`, map[string]any{"t": long}, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "LIMIT" || !strings.Contains(errs[0].Message, "text") {
		t.Errorf("a text over the limit: errors %+v, want one LIMIT naming text", errs)
	}
}
