package memstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestSortCountsIsSortTermCounts checks the stable counting sort of terms
// listed by id against ilgraph.SortTermCounts, on lists short and long,
// with counts small and large beside the list.
func TestSortCountsIsSortTermCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 63, 64, 200, 4000} {
		for _, top := range []int{1, 3, 50, 100_000} {
			ts := make([]ilgraph.TermCount, n)
			for i := range ts {
				ts[i] = ilgraph.TermCount{Kind: ilgraph.KindOrg, ID: fmt.Sprintf("org-%05d", i), Count: 1 + r.IntN(top)}
			}
			want := slices.Clone(ts)
			ilgraph.SortTermCounts(want)
			sortCounts(ts)
			if !slices.Equal(ts, want) {
				t.Fatalf("%d terms, counts up to %d: got %v, want %v", n, top, ts, want)
			}
		}
	}
}

// TestDistributionIsDistribute checks the distribution of a bitset of
// positions against ilgraph.Distribute of the same cases' minutes, for
// random sets over cases of which some do not give their minutes.
func TestDistributionIsDistribute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 63, 64, 65, 130, 1000} {
		s := &Snapshot{ids: newIDColumn()}
		for i := 0; i < n; i++ {
			m := -1
			if r.IntN(4) > 0 {
				m = r.IntN(500)
			}
			s.ids.append(fmt.Sprint(i))
			s.resolved = append(s.resolved, int32(m))
			s.year = append(s.year, 2020)
			s.date = append(s.date, 0)
			s.bilingual = append(s.bilingual, false)
			s.reviewed = append(s.reviewed, false)
			s.org = append(s.org, -1)
		}
		x := s.buildAggs()
		for round := 0; round < 50; round++ {
			b := make([]uint64, x.words)
			var mins []int
			total := 0
			for c := 0; c < n; c++ {
				if r.IntN(3) == 0 {
					setBit(b, int(x.pos[c]))
					total++
					if s.resolved[c] >= 0 {
						mins = append(mins, int(s.resolved[c]))
					}
				}
			}
			if got, want := x.distribution(total, b), ilgraph.Distribute(total, mins); got != want {
				t.Fatalf("%d cases: got %+v, want %+v", n, got, want)
			}
		}
	}
}

// TestCountAndIsPopcountAnd checks counting over a set's non-zero words
// against counting over every word, for sets from empty to full.
func TestCountAndIsPopcountAnd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	set := func(words int, p float64) []uint64 {
		b := make([]uint64, words)
		for i := range b {
			for j := range 64 {
				if r.Float64() < p {
					b[i] |= 1 << j
				}
			}
		}
		return b
	}
	var idx []int32
	for _, words := range []int{1, 3, 100, 1563} {
		for _, p := range []float64{0, 0.0005, 0.005, 0.05, 0.5, 1} {
			a, b := set(words, p), set(words, 0.3)
			var sparse bool
			idx, sparse = sparseWords(a, idx)
			nonZero := 0
			for _, w := range a {
				if w != 0 {
					nonZero++
				}
			}
			if len(idx) != nonZero || sparse != (nonZero < words/4) {
				t.Errorf("%d words, density %g: got %d indexes, sparse %v; want %d, %v", words, p, len(idx), sparse, nonZero, nonZero < words/4)
			}
			for _, asSparse := range []bool{sparse, false} {
				if got, want := countAnd(a, b, idx, asSparse), popcountAnd(a, b); got != want {
					t.Errorf("%d words, density %g, sparse %v: got %d, want %d", words, p, asSparse, got, want)
				}
			}
		}
	}
}
