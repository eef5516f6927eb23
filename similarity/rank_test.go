package similarity_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestRankingEqualsSimilar holds the write-back's max-score ranking
// (rank.go) to Similar, which accumulates every posting: for every case of
// the seeds and of a generated corpus, under every weight setting, with and
// without rarity, the same cases in the same order with the same scores.
func TestRankingEqualsSimilar(t *testing.T) {
	corpora := []struct {
		name  string
		cases []*ilgraph.Case
		step  int
	}{
		{"seeds", corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")), 1},
		{"generated", generated(t, 3000, 9), 7},
	}
	for _, cp := range corpora {
		ix := similarity.Build(rowsOf(cp.cases), 1)
		for wi, w := range weightSettings {
			for _, rarity := range []bool{false, true} {
				for _, k := range []int{1, 10, 25} {
					opt := ilgraph.SimilarityOptions{Weights: w, Rarity: rarity}
					t.Run(fmt.Sprintf("%s/weights#%d/rarity=%v/k=%d", cp.name, wi, rarity, k), func(t *testing.T) {
						got := similarity.RankSample(ix, cp.step, k, opt)
						for j, links := range got {
							id := cp.cases[j*cp.step].ID
							opt.K = k
							want := ix.Similar(ix.Features(id), id, opt)
							if len(links) != len(want) {
								t.Fatalf("%s: got %d links, want %d", id, len(links), len(want))
							}
							for r, l := range links {
								if l.From != id || l.To != want[r].ID || l.Score != want[r].Score || l.Rank != r+1 {
									t.Fatalf("%s rank %d: got %s→%s %v (rank %d), want →%s %v", id, r+1, l.From, l.To, l.Score, l.Rank, want[r].ID, want[r].Score)
								}
							}
						}
					})
				}
			}
		}
	}
	t.Run("default options and min score", func(t *testing.T) {
		cases := corpora[1].cases
		ix := similarity.Build(rowsOf(cases), 1)
		for _, opt := range []ilgraph.SimilarityOptions{ilgraph.DefaultOptions(10), {Weights: ilgraph.DefaultWeights(), Rarity: true, MinScore: 0.3}} {
			got := similarity.RankSample(ix, 11, 10, opt)
			for j, links := range got {
				id := cases[j*11].ID
				opt.K = 10
				want := ix.Similar(ix.Features(id), id, opt)
				if len(links) != len(want) {
					t.Fatalf("%s: got %d links, want %d", id, len(links), len(want))
				}
				for r, l := range links {
					if l.To != want[r].ID || l.Score != want[r].Score {
						t.Fatalf("%s rank %d: got →%s %v, want →%s %v", id, r+1, l.To, l.Score, want[r].ID, want[r].Score)
					}
				}
			}
		}
	})
}

// BenchmarkRankAll times the write-back's ranking (every case's top 10,
// default options) over a generated corpus of BENCH_CASES cases held in
// memory, against the accumulate-everything ranking of Similar in the same
// run, both over a sample of the cases (every 50th).
func BenchmarkRankAll(b *testing.B) {
	cases := generated(b, benchCases(b), 1)
	ix := similarity.Build(rowsOf(cases), 1)
	opt := ilgraph.DefaultOptions(10)
	b.Run("maxscore", func(b *testing.B) {
		for b.Loop() {
			similarity.RankSample(ix, 50, 10, opt)
		}
	})
	b.Run("accumulate", func(b *testing.B) {
		ids := make([]string, 0, ix.Len()/50+1)
		for i := 0; i < len(cases); i += 50 {
			ids = append(ids, cases[i].ID)
		}
		for b.Loop() {
			for _, id := range ids {
				ix.Similar(ix.Features(id), id, opt)
			}
		}
	})
}
