package relevance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

func seedCases(t *testing.T) []ilgraph.Case {
	var cases []ilgraph.Case
	for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
		cases = append(cases, *c)
	}
	return cases
}

// TestDefaultDoesNotRegress recomputes the table of docs/similarity.md
// and fails if the default ranker drops more than 0.05 below the figures
// recorded in testdata/relevance/recorded.json (written by: ilgraph eval
// similar --json > testdata/relevance/recorded.json) on any set. When a
// change improves the figures, record them again and update the doc.
func TestDefaultDoesNotRegress(t *testing.T) {
	dir := filepath.Join(corpus.Root(t), "testdata", "relevance")
	data, err := os.ReadFile(filepath.Join(dir, "recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want Report
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	sets, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := seedCases(t)
	got := Evaluate(cases, sets, Rankers(cases))
	if got.Cases != want.Cases {
		t.Errorf("corpus has %d cases, the recorded run had %d: record the figures again", got.Cases, want.Cases)
	}
	find := func(fs []Figures, name string) *Figures {
		for i := range fs {
			if fs[i].Ranker == name {
				return &fs[i]
			}
		}
		return nil
	}
	const slack = 0.05
	for set := range got.Sets {
		if _, ok := want.Sets[set]; !ok {
			t.Errorf("set %s has no recorded figures: record the figures again", set)
		}
	}
	for set, wfs := range want.Sets {
		w, g := find(wfs, "default"), find(got.Sets[set], "default")
		if w == nil || g == nil {
			t.Errorf("set %s: no default ranker in the recorded run or this one", set)
			continue
		}
		if g.Queries != w.Queries {
			t.Errorf("set %s: %d queries, recorded %d", set, g.Queries, w.Queries)
		}
		check := func(name string, gv, wv float64) {
			if gv < wv-slack {
				t.Errorf("set %s: default %s = %.3f, recorded %.3f: dropped more than %.2f", set, name, gv, wv, slack)
			} else if gv != wv {
				t.Logf("set %s: default %s = %.3f (recorded %.3f)", set, name, gv, wv)
			}
		}
		check("P@5", g.P5, w.P5)
		check("strong@5", g.Strong5, w.Strong5)
		check("nDCG@5", g.NDCG5, w.NDCG5)
		if w.RelatedTotal > 0 && g.RelatedTotal > 0 {
			check("related@5", float64(g.RelatedFound)/float64(g.RelatedTotal), float64(w.RelatedFound)/float64(w.RelatedTotal))
		}
	}
}

func TestMeasure(t *testing.T) {
	s := &Set{Name: "t", Queries: []string{"Q"}, grades: map[[2]string]float64{
		{"Q", "A"}: 2, {"Q", "B"}: 0, {"Q", "C"}: 1, {"Q", "D"}: 2,
	}}
	r := Ranker{Name: "r", Rank: func(string, int) []string { return []string{"B", "A", "X", "C", "Y"} }}
	f := Measure(s, r, map[string][]string{"Q": {"D", "C"}})
	if f.P5 != 0.4 || f.Strong5 != 0.2 || f.Unjudged != 2 || f.RelatedFound != 1 || f.RelatedTotal != 2 {
		t.Errorf("got %+v", f)
	}
	// DCG = 2/log2(3) + 1/log2(5); ideal 2, 2, 1, 0.
	dcg := 2/1.584962500721156 + 1/2.321928094887362
	ideal := 2 + 2/1.584962500721156 + 1/2.0
	if want := round3(dcg / ideal); f.NDCG5 != want {
		t.Errorf("nDCG@5 = %v, want %v", f.NDCG5, want)
	}
}

func TestIdeal(t *testing.T) {
	s := &Set{Name: "t", Queries: []string{"Q", "R"}, grades: map[[2]string]float64{
		{"Q", "A"}: 1, {"Q", "B"}: 0, {"Q", "C"}: 2, {"Q", "D"}: 1, {"Q", "E"}: 0, {"Q", "F"}: 0.5, {"Q", "G"}: 2,
		{"R", "A"}: 0, {"R", "B"}: 1.5,
	}}
	ideal := s.Ideal()
	if got, want := ideal.Rank("Q", 5), []string{"C", "G", "A", "D", "F"}; !slices.Equal(got, want) {
		t.Errorf("Q: got %v, want %v", got, want)
	}
	if got, want := ideal.Rank("R", 5), []string{"B", "A"}; !slices.Equal(got, want) {
		t.Errorf("R: got %v, want %v", got, want)
	}
	// Q: 4 of 5 relevant (≥ 1), 2 strong (≥ 1.5); R: 1 and 1 of 5.
	f := Measure(s, ideal, nil)
	if f.P5 != 0.5 || f.Strong5 != 0.3 || f.NDCG5 != 1 || f.Unjudged != 0 {
		t.Errorf("got %+v, want P@5 0.5, strong@5 0.3, nDCG@5 1", f)
	}
}
