package jsonapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/jsonapi"
)

// share is one part of a match's score as the JSON API writes it: a shared
// feature, or the text channel's part (kind text).
type share struct {
	Kind         string    `json:"kind"`
	ID           string    `json:"id"`
	Label        string    `json:"label"`
	Weight       float64   `json:"weight"`
	Contribution float64   `json:"contribution"`
	Cosine       *float64  `json:"cosine"`
	Words        *[]string `json:"words"`
}

type similarMatch struct {
	Case   summary
	Score  float64
	Shared []share
}

type similarAnswer struct {
	CaseID  string         `json:"case_id"`
	Matches []similarMatch `json:"matches"`
}

// gqlMatch is a GraphQL SimilarCase with every part of its score.
type gqlMatch struct {
	Case   struct{ ID string }
	Score  float64
	Shared []struct {
		Kind         string
		Term         struct{ ID, En string }
		Weight       float64
		Contribution float64
	}
	Text *struct {
		Weight, Cosine, Contribution float64
		Words                        []string
	}
}

const gqlMatchFields = `case { id } score shared { kind term { id en } weight contribution } text { weight cosine contribution words }`

// sumTolerance is how far the rounded parts of a score may add up from the
// rounded score: the API rounds the score and each part to 9 decimal places
// (ilgraph.RoundScore), so n parts may drift by n+1 half-units.
func sumTolerance(n int) float64 { return float64(n+1)*0.5e-9 + 1e-12 }

// shareKinds are the kinds a share may have: every feature kind and the
// text channel.
func shareKinds() []string {
	var out []string
	for _, k := range ilgraph.AllKinds {
		out = append(out, string(k))
	}
	return append(out, string(ilgraph.WeightText))
}

// TestSimilarSharesAddUpToTheScoreAndAreGraphQLs asks the JSON API and
// GraphQL, over HTTP on one server with the seeds loaded, for the cases
// most like several seed cases: each JSON match lists every part of its
// score — every shared feature of every kind, and the text channel's part —
// the parts add up to the score, and they are GraphQL's shared features
// and text part, figure for figure.
func TestSimilarSharesAddUpToTheScoreAndAreGraphQLs(t *testing.T) {
	s := mustServer(t)
	kinds := shareKinds()
	seen := map[string]bool{}
	for _, q := range []struct {
		id, rest string
		gql      string // the same question to GraphQL: Case.similar, or similarCases for what it lacks
		text     bool   // the text channel is on
	}{
		{"IL-0282", "?k=10", `case(id: "IL-0282") { similar(k: 10) { %s } }`, true},
		{"IL-0384", "?k=10", `case(id: "IL-0384") { similar(k: 10) { %s } }`, true},
		{"IL-0211", "?k=5", `case(id: "IL-0211") { similar(k: 5) { %s } }`, true},
		{"ILG-0074", "?k=20", `case(id: "ILG-0074") { similar(k: 20) { %s } }`, true},
		{"ILG-0073", "?k=8&rarity=false", `similarCases(caseId: "ILG-0073", k: 8, rarity: false) { %s }`, true},
		{"IL-0282", "?k=10&weights=text=0", `similarCases(caseId: "IL-0282", k: 10, weights: {text: 0}) { %s }`, false},
	} {
		name := q.id + q.rest
		r := s.get("/cases/" + q.id + "/similar" + q.rest)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		got := decode[similarAnswer](t, r)
		var want struct {
			Case         struct{ Similar []gqlMatch }
			SimilarCases []gqlMatch
		}
		s.gql("{ "+fmt.Sprintf(q.gql, gqlMatchFields)+" }", &want)
		ws := append(want.Case.Similar, want.SimilarCases...)
		if got.CaseID != q.id || len(got.Matches) == 0 || len(got.Matches) != len(ws) {
			t.Fatalf("%s: case_id %q, %d matches; GraphQL %d", name, got.CaseID, len(got.Matches), len(ws))
		}
		for i, m := range got.Matches {
			w := ws[i]
			where := fmt.Sprintf("%s: match %d (%s)", name, i, m.Case.ID)
			if m.Case.ID != w.Case.ID || m.Score != w.Score {
				t.Fatalf("%s: %s %v, GraphQL %s %v", where, m.Case.ID, m.Score, w.Case.ID, w.Score)
			}
			var sum float64
			var features []share
			var text *share
			for j, sh := range m.Shared {
				seen[sh.Kind] = true
				sum += sh.Contribution
				if !slices.Contains(kinds, sh.Kind) {
					t.Errorf("%s: share %d has kind %q, not one of %v", where, j, sh.Kind, kinds)
				}
				if j > 0 && m.Shared[j-1].Contribution < sh.Contribution {
					t.Errorf("%s: share %d (%v) contributes more than share %d (%v): not by contribution", where, j, sh.Contribution, j-1, m.Shared[j-1].Contribution)
				}
				if sh.Kind == string(ilgraph.WeightText) {
					if text != nil {
						t.Errorf("%s: two text shares", where)
					}
					text = &m.Shared[j]
					continue
				}
				features = append(features, sh)
			}
			if math.Abs(sum-m.Score) > sumTolerance(len(m.Shared)) {
				t.Errorf("%s: the shares add up to %.12f, the score is %.9f", where, sum, m.Score)
			}
			if len(features) != len(w.Shared) {
				t.Fatalf("%s: %d shared features, GraphQL %d", where, len(features), len(w.Shared))
			}
			for j, f := range features {
				wf := w.Shared[j]
				if strings.ToUpper(f.Kind) != wf.Kind || f.ID != wf.Term.ID || f.Label != wf.Term.En || f.Weight != wf.Weight || f.Contribution != wf.Contribution {
					t.Errorf("%s: feature %d is %+v, GraphQL %+v", where, j, f, wf)
				}
				if f.Cosine != nil || f.Words != nil {
					t.Errorf("%s: feature %d has text fields: %+v", where, j, f)
				}
			}
			switch {
			case (text != nil) != (w.Text != nil):
				t.Errorf("%s: text share %+v, GraphQL text %+v", where, text, w.Text)
			case text != nil:
				if text.Weight != w.Text.Weight || text.Contribution != w.Text.Contribution || text.Cosine == nil || *text.Cosine != w.Text.Cosine ||
					text.Words == nil || !reflect.DeepEqual(*text.Words, w.Text.Words) || text.ID != "" || text.Label != "" {
					t.Errorf("%s: text share %+v, GraphQL %+v", where, text, *w.Text)
				}
			}
			if (w.Text != nil) != q.text {
				t.Errorf("%s: GraphQL text part %+v, want the channel on: %v", where, w.Text, q.text)
			}
		}
	}
	// The cases asked about reach every kind that tells the most: without
	// them this test would not show that mechanisms and texts get through.
	for _, k := range []string{string(ilgraph.KindMechanism), string(ilgraph.WeightText), string(ilgraph.KindOrg)} {
		if !seen[k] {
			t.Errorf("no share of kind %s in any answer", k)
		}
	}
}

// seedCase is a case file's tags, read with nothing but encoding/json.
type seedCase struct {
	ID           string   `json:"id"`
	OrgSlug      string   `json:"org_slug"`
	RootCause    string   `json:"root_cause"`
	Components   []string `json:"components"`
	Symptoms     []string `json:"symptoms"`
	Contributing []string `json:"contributing"`
	Domain       []string `json:"domain"`
	Mechanisms   []string `json:"mechanisms"`
}

type seedFeature struct{ kind, id string }

// features are the case's features by docs/similarity.md: its root cause,
// components, symptoms, contributing factors, domains, mechanisms and
// organization (by slug), each with its kind.
func (c seedCase) features(t *testing.T) map[seedFeature]bool {
	byKind := map[ilgraph.Kind][]string{
		ilgraph.KindRootCause: {c.RootCause}, ilgraph.KindComponent: c.Components, ilgraph.KindSymptom: c.Symptoms,
		ilgraph.KindContributing: c.Contributing, ilgraph.KindDomain: c.Domain, ilgraph.KindMechanism: c.Mechanisms, ilgraph.KindOrg: {c.OrgSlug},
	}
	for _, k := range ilgraph.AllKinds {
		if _, ok := byKind[k]; !ok {
			t.Fatalf("the test does not know which field of a case file holds its %s features", k)
		}
	}
	if len(byKind) != len(ilgraph.AllKinds) {
		t.Fatalf("the test reads %d kinds, ilgraph has %d", len(byKind), len(ilgraph.AllKinds))
	}
	out := map[seedFeature]bool{}
	for k, ids := range byKind {
		for _, id := range ids {
			if id != "" {
				out[seedFeature{string(k), id}] = true
			}
		}
	}
	return out
}

// TestSimilarSharesAreTheWeightedJaccardOfTheSeedFiles recomputes, from the
// seed case files alone, what the JSON API's shares of a few pairs must be
// by docs/similarity.md with the default weights and rarity on: the same
// shared features, each contributing w(f) / D with w(f) = w(kind) ×
// ln((N + 1) / (df + 0.5)) and D the summed weights of the features either
// case has plus the text weight; the text share is w_text × cosine / D, and
// the parts add up to the score.
func TestSimilarSharesAreTheWeightedJaccardOfTheSeedFiles(t *testing.T) {
	s := mustServer(t)
	files, err := filepath.Glob(filepath.Join(s.seeds, "cases", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed case files: %v", err)
	}
	cases := map[string]map[seedFeature]bool{}
	df := map[seedFeature]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c seedCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fs := c.features(t)
		cases[c.ID] = fs
		for f := range fs {
			df[f]++
		}
	}
	n := float64(len(cases))
	defaults := ilgraph.DefaultWeights()
	weight := func(f seedFeature) float64 {
		return defaults[ilgraph.Kind(f.kind)] * math.Log((n+1)/(float64(df[f])+0.5))
	}
	wText := defaults[ilgraph.WeightText]

	for _, pair := range [][2]string{{"IL-0282", "IL-0384"}, {"IL-0282", "ILG-0073"}, {"IL-0211", "ILG-0074"}} {
		a, b := cases[pair[0]], cases[pair[1]]
		if a == nil || b == nil {
			t.Fatalf("%v: not both in seeds/", pair)
		}
		name := pair[0] + " → " + pair[1]
		union, sharedWeight := wText, 0.0
		want := map[seedFeature]float64{} // weight of each shared feature
		for f := range a {
			union += weight(f)
			if b[f] {
				want[f] = weight(f)
				sharedWeight += weight(f)
			}
		}
		for f := range b {
			if !a[f] {
				union += weight(f)
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the pair shares no feature; pick another", name)
		}

		got := decode[similarAnswer](t, s.get("/cases/"+pair[0]+"/similar?k=100"))
		i := slices.IndexFunc(got.Matches, func(m similarMatch) bool { return m.Case.ID == pair[1] })
		if i < 0 {
			t.Fatalf("%s: %s is not among the 100 most similar", name, pair[1])
		}
		m := got.Matches[i]
		var text *share
		gotFeatures := map[seedFeature]share{}
		for j, sh := range m.Shared {
			if sh.Kind == string(ilgraph.WeightText) {
				text = &m.Shared[j]
				continue
			}
			gotFeatures[seedFeature{sh.Kind, sh.ID}] = sh
		}
		var wantKeys, gotKeys []string
		for f := range want {
			wantKeys = append(wantKeys, f.kind+":"+f.id)
		}
		for f := range gotFeatures {
			gotKeys = append(gotKeys, f.kind+":"+f.id)
		}
		slices.Sort(wantKeys)
		slices.Sort(gotKeys)
		if !slices.Equal(wantKeys, gotKeys) {
			t.Fatalf("%s: shared features %v, the seed files share %v", name, gotKeys, wantKeys)
		}
		for f, w := range want {
			sh := gotFeatures[f]
			if math.Abs(sh.Weight-w) > 1e-9*w || math.Abs(sh.Contribution-w/union) > 1e-9 {
				t.Errorf("%s: %s:%s weight %v contribution %v; from the seed files %v and %.9f", name, f.kind, f.id, sh.Weight, sh.Contribution, w, w/union)
			}
		}
		if text == nil || text.Cosine == nil {
			t.Fatalf("%s: no text share (both cases have text, the text weight is %v)", name, wText)
		}
		if text.Weight != wText || math.Abs(text.Contribution-wText**text.Cosine/union) > 1e-9 {
			t.Errorf("%s: text share weight %v contribution %v; with cosine %v over D = %v: %v, %.9f", name, text.Weight, text.Contribution, *text.Cosine, union, wText, wText**text.Cosine/union)
		}
		if score := (sharedWeight + wText**text.Cosine) / union; math.Abs(m.Score-score) > 2e-9 {
			t.Errorf("%s: score %v, from the seed files and the cosine %.9f", name, m.Score, score)
		}
	}
}

// TestOpenAPIShareKinds checks that the document's schema of a share names
// every kind a share can have (the feature kinds and text) and no other.
func TestOpenAPIShareKinds(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
					Ref  string   `json:"$ref"`
				} `json:"properties"`
				Enum  []string            `json:"enum"`
				OneOf []map[string]string `json:"oneOf"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(jsonapi.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	var features []string
	for _, k := range ilgraph.AllKinds {
		features = append(features, string(k))
	}
	if got := schemas["Kind"].Enum; !slices.Equal(got, features) {
		t.Errorf("Kind enum %v, ilgraph.AllKinds %v", got, features)
	}
	if got := schemas["SharedFeature"].Properties["kind"].Enum; !slices.Equal(got, shareKinds()) {
		t.Errorf("SharedFeature kind enum %v, want %v", got, shareKinds())
	}
	var branches []string
	for _, b := range schemas["SharedFeature"].OneOf {
		branches = append(branches, b["$ref"])
	}
	if !slices.Equal(branches, []string{"#/components/schemas/FeatureShare", "#/components/schemas/TextShare"}) {
		t.Errorf("SharedFeature is one of %v", branches)
	}
	if ref := schemas["FeatureShare"].Properties["kind"].Ref; ref != "#/components/schemas/Kind" {
		t.Errorf("FeatureShare kind is %q, want the Kind enum", ref)
	}
	if got := schemas["TextShare"].Properties["kind"].Enum; !slices.Equal(got, []string{string(ilgraph.WeightText)}) {
		t.Errorf("TextShare kind enum %v", got)
	}
}
