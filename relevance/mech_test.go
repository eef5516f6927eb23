package relevance

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/similarity"
)

func TestMech(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	cases := seedCases(t)
	ix := similarity.Build(Rows(cases), 0)
	sets, _ := ReadDir(filepath.Join(corpus.Root(t), "testdata", "relevance"))
	related := map[string][]string{}
	for _, c := range cases {
		related[c.ID] = c.Related
	}
	for _, wt := range []float64{20, 40, 60} {
		for _, wm := range []float64{0, 2, 4, 6, 8, 12, 16} {
			w := ilgraph.DefaultWeights()
			w[ilgraph.WeightText], w[ilgraph.KindMechanism] = wt, wm
			r := IndexRanker("x", ix, ilgraph.SimilarityOptions{Weights: w, Rarity: true})
			for _, s := range sets {
				f := Measure(s, r, related)
				c := Measure(s, condensed(s, r), related)
				fmt.Printf("text %3g mech %3g %-8s P %.3f S %.3f N %.3f rel %d/%d unj %2d | condensed P %.3f S %.3f N %.3f\n", wt, wm, s.Name, f.P5, f.Strong5, f.NDCG5, f.RelatedFound, f.RelatedTotal, f.Unjudged, c.P5, c.Strong5, c.NDCG5)
			}
		}
	}
}

func condensed(s *Set, r Ranker) Ranker {
	return Ranker{Name: r.Name, Rank: func(q string, k int) []string {
		var out []string
		for _, id := range r.Rank(q, 40) {
			if _, ok := s.Grade(q, id); ok {
				out = append(out, id)
			}
			if len(out) == k {
				break
			}
		}
		return out
	}}
}
