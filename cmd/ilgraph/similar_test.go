package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestSimilarExplainAndProfile drives `ilgraph similar A --explain B` and
// the live-incident profile flags, and compares their answers with ones
// computed from the seed JSON.
func TestSimilarExplainAndProfile(t *testing.T) {
	neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	byID := map[string]*ilgraph.Case{}
	df := map[ilgraph.Feature]int{}
	for _, c := range cases {
		byID[c.ID] = c
		for _, f := range c.Features() {
			df[f]++
		}
	}
	sh := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		return out.String(), errb.String(), code
	}

	t.Run("explain --json", func(t *testing.T) {
		out, errs, code := sh("similar", "IL-0384", "--explain", "ILG-0002", "--rarity", "--weights", "component=4", "--json")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got struct {
			A, B    string
			Score   float64
			Weights map[string]float64
			Rarity  bool
			Shared  []struct {
				Kind, ID             string
				Weight, Contribution float64
			}
			Differing []struct {
				Kind, ID string
				Weight   float64
				Side     string
			}
			Text *struct{ Contribution float64 }
		}
		var sumText float64
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		// The text part is the shared part of kind text, as in the JSON API.
		for i, s := range got.Shared {
			if s.Kind == string(ilgraph.WeightText) {
				got.Text = &struct{ Contribution float64 }{s.Contribution}
				got.Shared = append(got.Shared[:i:i], got.Shared[i+1:]...)
				break
			}
		}
		w := ilgraph.DefaultWeights()
		w[ilgraph.KindComponent] = 4
		weight := func(f ilgraph.Feature) float64 {
			return w[f.Kind] * math.Log((float64(len(cases))+1)/(float64(df[f])+0.5))
		}
		a, b := map[ilgraph.Feature]bool{}, map[ilgraph.Feature]bool{}
		for _, f := range byID["IL-0384"].Features() {
			a[f] = true
		}
		for _, f := range byID["ILG-0002"].Features() {
			b[f] = true
		}
		var inter, union float64
		var wantDiff []string
		for f := range a {
			union += weight(f)
			if b[f] {
				inter += weight(f)
			} else {
				wantDiff = append(wantDiff, f.String()+"/query")
			}
		}
		for f := range b {
			if !a[f] {
				union += weight(f)
				wantDiff = append(wantDiff, f.String()+"/match")
			}
		}
		// The text part, by the definition of the text vectors.
		text := corpus.NewBrute(cases).Text
		textPart := w[ilgraph.WeightText] * ilgraph.Cosine(text["IL-0384"], text["ILG-0002"])
		inter += textPart
		union += w[ilgraph.WeightText]
		if got.Text == nil || math.Abs(got.Text.Contribution-textPart/union) > 1e-9 {
			t.Errorf("text part %+v, want contribution %v", got.Text, textPart/union)
		} else {
			sumText = got.Text.Contribution
		}
		if got.A != "IL-0384" || got.B != "ILG-0002" || !got.Rarity || got.Weights["component"] != 4 || got.Weights["root_cause"] != ilgraph.DefaultWeights()[ilgraph.KindRootCause] {
			t.Errorf("header: %+v", got)
		}
		if math.Abs(got.Score-inter/union) > 1e-9 {
			t.Errorf("score %.12f, want %.12f", got.Score, inter/union)
		}
		sum := sumText
		for _, s := range got.Shared {
			f := ilgraph.Feature{Kind: ilgraph.Kind(s.Kind), ID: s.ID}
			if !a[f] || !b[f] || math.Abs(s.Weight-weight(f)) > 1e-9 || math.Abs(s.Contribution-weight(f)/union) > 1e-9 {
				t.Errorf("shared %+v, want weight %v contribution %v", s, weight(f), weight(f)/union)
			}
			sum += s.Contribution
		}
		if len(got.Shared) == 0 || math.Abs(sum-got.Score) > 1e-8 {
			t.Errorf("%d shared adding up to %v, score %v", len(got.Shared), sum, got.Score)
		}
		var gotDiff []string
		for _, d := range got.Differing {
			gotDiff = append(gotDiff, d.Kind+":"+d.ID+"/"+d.Side)
		}
		sort.Strings(gotDiff)
		sort.Strings(wantDiff)
		if strings.Join(gotDiff, " ") != strings.Join(wantDiff, " ") {
			t.Errorf("differing:\n got %v\nwant %v", gotDiff, wantDiff)
		}
	})
	t.Run("explain as text", func(t *testing.T) {
		out, errs, code := sh("similar", "IL-0384", "--explain", "ILG-0002")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, want := range []string{"IL-0384 vs ILG-0002: score 0.", "shared", "only IL-0384", "only ILG-0002"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
	t.Run("profile --json", func(t *testing.T) {
		out, errs, code := sh("similar", "--components", "message-broker", "--symptoms", "high-latency,high-error-rate",
			"--contributing", "limit-unknown", "--k", "5", "--json")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got struct {
			Matches []struct {
				Case  struct{ ID string }
				Score float64
			}
			RootCauses []struct {
				ID     string
				Weight float64
			} `json:"root_causes"`
			Remedies []struct {
				ID string `json:"case_id"`
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		profile := []ilgraph.Feature{{Kind: ilgraph.KindComponent, ID: "message-broker"}, {Kind: ilgraph.KindSymptom, ID: "high-latency"},
			{Kind: ilgraph.KindSymptom, ID: "high-error-rate"}, {Kind: ilgraph.KindContributing, ID: "limit-unknown"}}
		want := corpus.NewBrute(cases).ToFeatures(profile, "", 5, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, nil)
		if len(got.Matches) != len(want) || len(want) == 0 {
			t.Fatalf("got %d matches, want %d", len(got.Matches), len(want))
		}
		causes := map[string]float64{}
		for i, m := range got.Matches {
			if m.Case.ID != want[i].ID || math.Abs(m.Score-want[i].Score) > 1e-9 {
				t.Errorf("match %d: %s %v, want %s %v", i, m.Case.ID, m.Score, want[i].ID, want[i].Score)
			}
			causes[byID[want[i].ID].RootCause] += want[i].Score
		}
		for _, c := range got.RootCauses {
			if math.Abs(c.Weight-causes[c.ID]) > 1e-8 {
				t.Errorf("root cause %s: %v, want %v", c.ID, c.Weight, causes[c.ID])
			}
		}
		if len(got.RootCauses) != len(causes) || len(got.Remedies) != len(want) {
			t.Errorf("%d root causes, %d remedies; want %d and %d", len(got.RootCauses), len(got.Remedies), len(causes), len(want))
		}
	})
	t.Run("profile as text", func(t *testing.T) {
		out, errs, code := sh("similar", "--components", "message-broker", "--root-cause", "capacity", "--k", "3")
		if code != exitOK || !strings.Contains(out, "Root causes to check") || !strings.Contains(out, "What resolved them") {
			t.Errorf("exit %d: %s%s", code, out, errs)
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"similar"},
			{"similar", "IL-0384", "--components", "cache"},
			{"similar", "--explain", "IL-0384", "--components", "cache"},
		} {
			if _, _, code := sh(args...); code != exitUsage {
				t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
			}
		}
		if _, errs, code := sh("similar", "IL-0384", "--explain", "IL-9999"); code != exitFailure || !strings.Contains(errs, "IL-9999") {
			t.Errorf("unknown case: exit %d, %s", code, errs)
		}
	})
}
