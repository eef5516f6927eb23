package similarity_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestSimilarToEqualsSimilar holds the served ranking of a stored case
// (SimilarTo: the max-score ranker when there is no filter) to Similar's,
// match for match, explanations included: under every weight setting, with
// and without rarity, with a minimum score, with a filter (which SimilarTo
// leaves to Similar), from four goroutines at once sharing the rankers, and
// for more option sets than the index keeps tables for.
func TestSimilarToEqualsSimilar(t *testing.T) {
	cases := generated(t, 2000, 5)
	ix := similarity.Build(rowsOf(cases), 1)
	var opts []ilgraph.SimilarityOptions
	for _, w := range weightSettings {
		for _, rarity := range []bool{false, true} {
			opts = append(opts, ilgraph.SimilarityOptions{K: 10, Weights: w, Rarity: rarity})
		}
	}
	opts = append(opts,
		ilgraph.DefaultOptions(10),
		ilgraph.DefaultOptions(1),
		ilgraph.SimilarityOptions{K: 25, Weights: ilgraph.DefaultWeights(), Rarity: true, MinScore: 0.3},
		ilgraph.SimilarityOptions{K: 10, Weights: ilgraph.DefaultWeights(), Rarity: true, Filter: ilgraph.CaseFilter{DateFrom: "2018-01-01"}},
	)
	for oi, opt := range opts {
		t.Run(fmt.Sprintf("options#%d", oi), func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan string, 4)
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := g; i < len(cases); i += 13 {
						id := cases[i].ID
						got, want := ix.SimilarTo(id, opt), ix.Similar(ix.Features(id), id, opt)
						if !reflect.DeepEqual(got, want) {
							errs <- fmt.Sprintf("%s: got %s\nwant %s", id, brief(got), brief(want))
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
}

// brief is a ranking in one line: id, score and shared count per match.
func brief(ms []ilgraph.Match) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %.9f %d/%d; ", m.ID, m.Score, len(m.Shared), len(m.Different))
	}
	return b.String()
}
