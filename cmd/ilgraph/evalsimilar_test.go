package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/relevance"
)

// TestEvalSimilarJudges runs `ilgraph eval similar` with each --judge and
// with --agreement on the committed judged sets, and checks that the flags
// reach the right grades: the figures equal those computed directly from
// the sets each judge's files give.
func TestEvalSimilarJudges(t *testing.T) {
	root := corpus.Root(t)
	judged := filepath.Join(root, "testdata", "relevance")
	seeds := filepath.Join(root, "seeds")
	_, cases, err := readCorpus(seeds)
	if err != nil {
		t.Fatal(err)
	}
	rankers := relevance.Rankers(cases)
	for _, judge := range relevance.Judges {
		var out, errw bytes.Buffer
		if err := runEvalSimilar([]string{"--seeds", seeds, "--judged", judged, "--judge", judge, "--json"}, &out, &errw); err != nil {
			t.Fatalf("--judge %s: %v %s", judge, err, errw.String())
		}
		var rep relevance.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		sets, err := relevance.ReadJudge(judged, judge)
		if err != nil {
			t.Fatal(err)
		}
		want := relevance.Evaluate(cases, sets, rankers)
		if rep.Judge != judge || len(rep.Sets) != len(want.Sets) {
			t.Errorf("--judge %s: report of judge %q with %d sets", judge, rep.Judge, len(rep.Sets))
		}
		for name, figs := range want.Sets {
			if got := rep.Sets[name]; len(got) != len(figs) || got[0] != figs[0] {
				t.Errorf("--judge %s, set %s: default %+v, want %+v", judge, name, got, figs[0])
			}
		}
	}
	var out, errw bytes.Buffer
	if err := runEvalSimilar([]string{"--judged", judged, "--agreement", "--json"}, &out, &errw); err != nil {
		t.Fatal(err, errw.String())
	}
	var ags []relevance.Agreement
	if err := json.Unmarshal(out.Bytes(), &ags); err != nil {
		t.Fatal(err)
	}
	// One agreement per judged set, in the sets' order, and judge 2 has
	// graded every pair judge 1 has.
	first, err := relevance.ReadDir(judged)
	if err != nil {
		t.Fatal(err)
	}
	if len(ags) != len(first) {
		t.Fatalf("agreement for %d sets, want %d: %+v", len(ags), len(first), ags)
	}
	for i, s := range first {
		if ags[i].Set != s.Name || ags[i].OnlyA != 0 || ags[i].Pairs == 0 {
			t.Errorf("agreement %d: set %s, %d pairs, %d graded by judge 1 only; want set %s, none only by judge 1", i, ags[i].Set, ags[i].Pairs, ags[i].OnlyA, s.Name)
		}
	}
	out.Reset()
	if err := runEvalSimilar([]string{"--judged", judged, "--agreement"}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "quadratic-weighted") || !strings.Contains(out.String(), "judge 1 \\ judge 2") {
		t.Errorf("agreement table:\n%s", out.String())
	}
	if err := runEvalSimilar([]string{"--seeds", seeds, "--judged", judged, "--judge", "3"}, &out, &errw); err == nil || !strings.Contains(err.Error(), `judge "3"`) {
		t.Errorf("--judge 3: err %v", err)
	}
}
