package similarity

import (
	"runtime"
	"slices"
	"sync"

	"github.com/ilgraph/ilgraph"
)

// Under frozen corpus statistics (snapshot.go) a case's score against
// another depends on the two cases alone, so after a load a case's stored
// top k can differ from the one a full recompute gives only when
//
//   - the case itself changed (or is new);
//   - a case in its stored top k changed or was deleted (stale);
//   - a changed case now scores at least its stored floor against it (the
//     score of the last case it keeps: its k links, then as many again in
//     reserve), or it kept every case scoring above 0 and a changed case
//     now does.
//
// affected returns those cases (a few more at most: the third test keeps
// a margin for rounding); recomputing just them gives exactly the links a
// full recompute under the same statistics gives
// (TestIncrementalWriteBackEqualsFull). For each unchanged one it also
// returns the changed cases that passed the third test against it (its
// entrants; see mergeTopK).
//
// changed and stale are positions in ix; floor is each case's stored
// floor, below 0 when it kept every case scoring above 0.
func affected(ix *Index, changed, stale []int32, floor []float64, opt ilgraph.SimilarityOptions) ([]int32, map[int32][]int32) {
	in := make([]bool, ix.Len())
	isChanged := make([]bool, ix.Len())
	var out []int32
	add := func(i int32) {
		if !in[i] {
			in[i] = true
			out = append(out, i)
		}
	}
	for _, c := range changed {
		add(c)
		isChanged[c] = true
	}
	for _, c := range stale {
		add(c)
	}
	entrants := map[int32][]int32{}
	for _, c := range changed {
		// A case the change cannot reach (the bound of its score below
		// its floor) is not scored exactly.
		out := func(x int32, score float64) bool {
			return isChanged[x] || floor[x] >= 0 && score < floor[x]-affectedMargin
		}
		ix.eachScoreAgainst(c, opt, out, func(x int32, score float64) {
			if !out(x, score) {
				add(x)
				entrants[x] = append(entrants[x], c)
			}
		})
	}
	slices.Sort(out)
	return out, entrants
}

// mergeTopK computes the best cases of an unchanged case x without
// ranking the corpus again, when it can. x keeps its best cases, best
// first (old: positions, -1 for a deleted case): its k links and as many
// again in reserve. Every case not kept ranked below the last kept one
// then (whose score was floor), and an unchanged one still does: neither
// it nor x changed, nor the statistics. So the cases that rank at least as
// high as that last one now are the kept ones still there (a changed one
// scored anew) and the entrants (the changed cases that reach the floor),
// in order; when there are k of them, they are x's best, and the first k
// its links. Otherwise (changed or deleted members fell below the floor
// and nothing took their place) ok is false and x is ranked over the
// whole corpus. floor below 0 means x kept every case scoring above 0: the
// kept ones and the entrants are then every candidate.
//
// It returns at most depth cases with their ranking scores, and whether
// they are every case scoring above 0 against x.
func (ix *Index) mergeTopK(x int32, old []int32, floor float64, isChanged []bool, entrants []int32, k, depth int, opt ilgraph.SimilarityOptions) (best []scored, complete, ok bool) {
	seen := map[int32]bool{x: true}
	var cand []scored
	consider := func(y int32) {
		if y < 0 || seen[y] {
			return
		}
		seen[y] = true
		if score, pos := ix.rankScore(x, y, opt); pos {
			cand = append(cand, scored{y, score, ix.snap.ID(y)})
		}
	}
	for _, y := range old {
		consider(y)
	}
	for _, y := range entrants {
		consider(y)
	}
	slices.SortFunc(cand, func(a, b scored) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	complete = floor < 0
	if !complete {
		if len(old) == 0 {
			return nil, false, false
		}
		// Keep what ranks at least as high as the old last one.
		last := old[len(old)-1]
		n := 0
		if last >= 0 && !isChanged[last] {
			s, _ := ix.rankScore(x, last, opt)
			bound := scored{last, s, ix.snap.ID(last)}
			for n < len(cand) && !worse(cand[n], bound) {
				n++
			}
		} else {
			for n < len(cand) && cand[n].score > floor+affectedMargin {
				n++
			}
		}
		if n < k {
			return nil, false, false
		}
		cand = cand[:n]
	}
	if len(cand) > depth {
		cand, complete = cand[:depth], false
	}
	return cand, complete, true
}

// rankScore is x's ranking score against y with x as the query, added up
// in the order eachScore adds it (so equal to the bit), and whether y is a
// candidate at all (shares a weighted feature or a text term with x).
func (ix *Index) rankScore(x, y int32, opt ilgraph.SimilarityOptions) (float64, bool) {
	var qw, shared, cos float64
	fy := ix.caseFeat.Sorted(y)
	for _, f := range ix.caseFeat.Sorted(x) {
		w := ix.weightOf(ix.features[f], opt.Weights, opt.Rarity)
		qw += w
		if _, has := slices.BinarySearch(fy, f); has && w > 0 {
			shared += w
		}
	}
	wText := opt.Weights[ilgraph.WeightText]
	if wText > 0 && len(ix.textVec.get(x)) > 0 {
		vy := ix.textVec.get(y).terms(nil)
		for _, q := range ix.textVec.get(x).terms(nil) {
			for _, p := range vy {
				if p.Case == q.Case {
					cos += float64(q.W) * float64(p.W)
					break
				}
			}
		}
	} else {
		wText = 0
	}
	if shared <= 0 && cos <= 0 {
		return 0, false
	}
	wk := kindWeights(opt)
	cw := ix.ownWeight(y, &wk, opt.Rarity)
	return ilgraph.RoundScore(ilgraph.JaccardRatio(shared, qw, cw, wText, cos)), true
}

// affectedMargin is how far below its k-th score a changed case may score
// against a case and still make it recompute: the scores here add the
// same terms as the ranking in another order, which can move the last bit.
const affectedMargin = 1e-6

// eachScoreAgainst calls fn with every case x that shares a weighted
// feature or a text term with case c, and x's score against c with x as
// the query: the score that ranks c among x's similar cases (The score is
// not symmetric: the text channel counts only when the query has text.),
// but for the cases that share text and for which skip (when not nil) is
// true of an upper bound of that score: those it may leave out without
// scoring them exactly.
func (ix *Index) eachScoreAgainst(c int32, opt ilgraph.SimilarityOptions, skip func(x int32, ub float64) bool, fn func(x int32, score float64)) {
	wk := kindWeights(opt)
	cw := ix.ownWeight(c, &wk, opt.Rarity)
	wText := opt.Weights[ilgraph.WeightText]
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	acc, touched := sc.acc, sc.touched[:0]
	var qv []termWeight // c's text vector, when the channel counts
	for _, f := range ix.caseFeat.Sorted(c) {
		w := ix.weightOf(ix.features[f], opt.Weights, opt.Rarity)
		if w <= 0 {
			continue
		}
		for _, x := range ix.postings[f] {
			if acc[x] == (accum{}) {
				touched = append(touched, x)
			}
			acc[x].shared += w
		}
	}
	// Bounds of the cosines; the exact ones below, where they count.
	if wText > 0 {
		qv = ix.textVec.get(c).terms(nil)
		touched = ix.boundCosines(qv, acc, touched)
	}
	defer func() {
		for _, x := range touched {
			acc[x] = accum{}
		}
		sc.touched = touched
	}()
	yw := sc.termScratch(len(ix.textPost))
	for _, x := range touched {
		if x == c {
			continue
		}
		shared, qw := acc[x].shared, ix.ownWeight(x, &wk, opt.Rarity)
		cos, ok := ix.exactCosine(qv, x, acc[x], qw, cw, wText, skip, yw)
		if !ok || shared <= 0 && cos <= 0 {
			continue
		}
		wt := wText
		if len(ix.textVec.get(x)) == 0 {
			wt = 0 // x's query has no text: the channel is off
		}
		fn(x, ilgraph.RoundScore(ilgraph.JaccardRatio(shared, qw, cw, wt, cos)))
	}
}

// topKOf computes the k most similar cases of each of the cases, on every
// core: per case, best first.
func topKOf(ix *Index, cases []int32, k int, opt ilgraph.SimilarityOptions) [][]ilgraph.SimilarLink {
	per := make([][]ilgraph.SimilarLink, len(cases))
	if k <= 0 {
		return per
	}
	opt.K = k
	// Without a filter (the write-back's case) the max-score ranker finds
	// the same top k as Similar, walking far fewer postings (rank.go).
	pruned := opt.Filter.IsZero()
	var tables rankTables
	if pruned {
		tables = newRankTables(ix, opt)
	}
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rk *ranker
			if pruned {
				rk = newRanker(ix, opt, tables)
			}
			for j := range next {
				id := ix.snap.ID(cases[j])
				if pruned {
					for r, s := range rk.topK(cases[j], k) {
						per[j] = append(per[j], ilgraph.SimilarLink{From: id, To: s.id, Score: s.score, Rank: r + 1})
					}
					continue
				}
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
	return per
}
