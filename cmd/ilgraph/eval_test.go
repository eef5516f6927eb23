package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/suggest"
)

// A text profile that is exactly the true tags finds exactly the cases the
// true tags find: overlap 1, with and without mechanisms when the case has
// none to leave out.
func TestSimilarOverlapOfTheTruthIsOne(t *testing.T) {
	_, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	cases = cases[:30]
	var preds []suggest.Prediction
	for _, c := range cases {
		p := suggest.Prediction{CaseID: c.ID, Lang: "en", Terms: map[ilgraph.Kind][]string{}}
		for _, k := range ilgraph.VocabKinds {
			p.Terms[k] = c.Tags(k)
		}
		preds = append(preds, p)
	}
	with, without := similarOverlap(cases, preds)
	if with["en"] != 1 {
		t.Errorf("overlap of the truth with itself %.4f, want 1", with["en"])
	}
	if without["en"] >= 1 {
		t.Errorf("leaving the true mechanisms out should lose some of the truth's neighbours, overlap %.4f", without["en"])
	}
	// Empty profiles find nothing.
	for i := range preds {
		preds[i].Terms = map[ilgraph.Kind][]string{}
	}
	if with, _ := similarOverlap(cases, preds); with["en"] != 0 {
		t.Errorf("overlap of empty profiles %.4f, want 0", with["en"])
	}
}

// ilgraph eval suggest --json prints the figures recorded in
// suggest/testdata/eval-recorded.json; the overlap, which the suggest
// package cannot recompute, is checked here (within 0.05, as the others).
// The same run asks for --terms, checked by checkTerms.
func TestEvalSuggestOverlap(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "suggest", "--seeds", corpus.Seeds(t), "--terms", "mechanism", "--json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got, want suggest.Report
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "suggest", "testdata", "eval-recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Overlap) == 0 {
		t.Fatal("the recorded run has no overlap")
	}
	for lang, w := range want.Overlap {
		if g := got.Overlap[lang]; g < w-0.05 {
			t.Errorf("%s top-10 overlap %.2f, recorded %.2f", lang, g, w)
		}
	}
	var table bytes.Buffer
	printEval(&table, "seeds", &got)
	if !strings.Contains(table.String(), "similar top-10 overlap") || !strings.Contains(table.String(), "mechanism P / R / F1") {
		t.Errorf("the table lacks the overlap or mechanisms:\n%s", table.String())
	}
	t.Run("terms", func(t *testing.T) { checkTerms(t, &got) })
}

// checkTerms checks the per-term counts of --terms mechanism: they add up
// to the kind's precision and recall, and the table shows them.
func checkTerms(t *testing.T, rep *suggest.Report) {
	for _, lang := range []string{"en", "ko"} {
		var found, wrong, missed int
		for _, c := range rep.Terms[lang] {
			found, wrong, missed = found+c.Found, wrong+c.Wrong, missed+c.Missed
		}
		ks := rep.Engine[lang].Kinds[ilgraph.KindMechanism]
		// precision = found / (found + wrong), recall = found / (found + missed)
		if found+wrong == 0 || found+missed == 0 {
			t.Fatalf("%s: no mechanism counted: %+v", lang, rep.Terms[lang])
		}
		p, r := float64(found)/float64(found+wrong), float64(found)/float64(found+missed)
		if math.Abs(p-ks.Precision) > 0.001 || math.Abs(r-ks.Recall) > 0.001 {
			t.Errorf("%s: the terms give P/R %.3f/%.3f, the kind's row %.3f/%.3f", lang, p, r, ks.Precision, ks.Recall)
		}
	}
	var table bytes.Buffer
	printEval(&table, "seeds", rep)
	if !strings.Contains(table.String(), "terms, en") || !strings.Contains(table.String(), "counter-exhaustion") {
		t.Errorf("the table lacks the per-term counts:\n%s", table.String())
	}
}

// --terms with a kind that has no vocabulary is a usage error naming the
// kinds, before any work.
func TestEvalSuggestTermsUnknownKind(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "suggest", "--seeds", corpus.Seeds(t), "--terms", "org"}, &stdout, &stderr); code == exitOK {
		t.Fatal("--terms org: exit 0, want an error")
	}
	if msg := stderr.String(); !strings.Contains(msg, `unknown kind "org"`) || !strings.Contains(msg, "contributing") {
		t.Errorf("--terms org: stderr %q, want the unknown kind and the kinds", msg)
	}
}
