package similarity

import (
	"runtime"
	"sync"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// The stored top k of a case depends only on its features and text and
// those of the cases it shares a feature or a text term with (the default
// options; with rarity on, a feature's weight also depends on how many
// cases have it, so a write-back that changes many cases recomputes all of
// them: FullRecomputeShare). After a load, a case's top k can
// differ from the stored one only when
//
//   - the case itself changed (or is new);
//   - a case in its stored top k changed or was deleted (Stale);
//   - a changed case now scores at least its stored k-th score against it,
//     or it had fewer than k links and shares a feature with a changed case.
//
// affected returns those cases; recomputing just them gives exactly the
// links a full recompute gives (TestIncrementalWriteBackEqualsFull).
func affected(ix *Index, st *graph.SimilarState, opt ilgraph.SimilarityOptions) []int32 {
	in := make([]bool, ix.Len())
	var out []int32
	add := func(i int32) {
		if !in[i] {
			in[i] = true
			out = append(out, i)
		}
	}
	var changed []int32
	for _, id := range st.Changed {
		if i, ok := ix.byID[id]; ok {
			add(i)
			changed = append(changed, i)
		}
	}
	for _, id := range st.Stale {
		if i, ok := ix.byID[id]; ok {
			add(i)
		}
	}
	for _, c := range changed {
		ix.eachScore(ix.Features(ix.ids[c]), ix.ids[c], opt, func(x int32, score float64) {
			if in[x] {
				return
			}
			kth, full := st.Kth[ix.ids[x]]
			if !full || score >= kth.Score {
				add(x)
			}
		})
	}
	return out
}

// topKOf computes the k most similar cases of each of the cases, on every
// core.
func topKOf(ix *Index, cases []int32, k int, opt ilgraph.SimilarityOptions) []ilgraph.SimilarLink {
	if k <= 0 {
		return nil
	}
	opt.K = k
	per := make([][]ilgraph.SimilarLink, len(cases))
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				id := ix.ids[cases[j]]
				for r, m := range ix.Similar(ix.Features(id), id, opt) {
					per[j] = append(per[j], ilgraph.SimilarLink{From: id, To: m.ID, Score: m.Score, Rank: r + 1})
				}
			}
		}()
	}
	for j := range cases {
		next <- j
	}
	close(next)
	wg.Wait()
	var out []ilgraph.SimilarLink
	for _, ls := range per {
		out = append(out, ls...)
	}
	return out
}
