package main

import (
	"bytes"
	"context"
	"encoding/json"
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
func TestEvalSuggestOverlap(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "suggest", "--seeds", corpus.Seeds(t), "--json"}, &stdout, &stderr); code != exitOK {
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
}
