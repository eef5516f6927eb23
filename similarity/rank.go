package similarity

import (
	"math"
	"slices"

	"github.com/ilgraph/ilgraph"
)

// Ranking a stored case against the whole corpus, as the write-back does
// for every case, is dominated by the common features and text terms: the
// accumulators of eachScore walk every posting list of the case, and a
// tag such as partial-outage, or a word every report uses, lists a third
// of the corpus. ranker finds the same top k (to the bit: the same scores,
// the same order) while walking far fewer postings, by the max-score
// method of search engines:
//
//   - the case's features and text terms are taken in order of the most
//     they can add to a score (a feature its weight; a term its weight in
//     the case times the text weight times the largest weight any case
//     gives the term);
//   - the posting lists are walked in that order, adding up each case's
//     shared weight and cosine so far; whenever the cases met have doubled,
//     the most promising of them by those sums are scored exactly, which
//     sets and raises θ, the k-th best score kept;
//   - the walk stops when a case in none of the lists walked could not
//     reach θ: it would score at most
//     (rest of the tag weights + wText · bound on the rest of the cosine)
//     / (query weight + wText), since a case's own tag weight is at least
//     what it shares;
//   - each case met is scored exactly (scoreWith adds the same terms in
//     the same order as eachScore) only when its sums so far plus the rest
//     could still beat the k-th best score kept.
//
// The cosine bound is the smaller of Σ w·max and the norm of the rest of
// the query vector (Cauchy–Schwarz: every case vector has norm 1).

// boundSlack covers rounding: scores are rounded to 1e-9 (RoundScore) and
// the bounds add the same terms in other orders.
const boundSlack = 2e-9

// rankItem is one feature (text false) or text term of the query case,
// with the most it can add to a score's numerator.
type rankItem struct {
	id   int32
	text bool
	w    float64 // the feature's weight, or the term's weight in the query
	pot  float64
}

// ranker is one worker's state for ranking many cases of one index.
type ranker struct {
	ix    *Index
	opt   ilgraph.SimilarityOptions
	maxW  []float32 // term id -> its largest weight in any case
	fw    []float64 // feature id -> its weight under opt
	seen  []uint32  // case -> epoch it was scored in
	epoch uint32
	yw    []float32 // term id -> the candidate's weight (dense, reset after use)
	cw    []float64 // case -> its own tag weight under opt
	bits  [][]uint64
	// case -> shared tag weight and cosine so far (dense, reset after use)
	acc      []sums
	touched  []int32
	cands    []bounded
	best     []bounded
	restBits [][]uint64
	restBitW []float64
	items    []rankItem
	h        topK
}

// sums are a case's shared tag weight and cosine so far, side by side so
// that the walk touches one cache line per case.
type sums struct{ s, c float64 }

// bounded is a case met with the most it can score.
type bounded struct {
	c  int32
	ub float64
}

// rankTables are the per-index tables every worker shares.
type rankTables struct {
	maxW []float32
	fw   []float64
	cw   []float64
	// feature id -> a bitset of the cases with it, for the features on at
	// least 1/32 of the cases (where a bitset is smaller than the posting
	// list); nil for the others.
	bits [][]uint64
}

func newRankTables(ix *Index, opt ilgraph.SimilarityOptions) rankTables {
	t := rankTables{maxW: make([]float32, len(ix.textPost)), fw: make([]float64, len(ix.features))}
	for id, ps := range ix.textPost {
		for _, p := range ps {
			t.maxW[id] = max(t.maxW[id], p.W)
		}
	}
	for f, x := range ix.features {
		t.fw[f] = ix.weightOf(x, opt.Weights, opt.Rarity)
	}
	t.bits = make([][]uint64, len(ix.features))
	words := (len(ix.ids) + 63) / 64
	for f, ps := range ix.postings {
		if len(ps)*32 < len(ix.ids) {
			continue
		}
		b := make([]uint64, words)
		for _, c := range ps {
			b[c/64] |= 1 << (c % 64)
		}
		t.bits[f] = b
	}
	t.cw = make([]float64, len(ix.ids))
	wk := kindWeights(opt)
	for c := range t.cw {
		t.cw[c] = ix.ownWeight(int32(c), &wk, opt.Rarity)
	}
	return t
}

func newRanker(ix *Index, opt ilgraph.SimilarityOptions, t rankTables) *ranker {
	n := len(ix.ids)
	r := &ranker{ix: ix, opt: opt, maxW: t.maxW, fw: t.fw, cw: t.cw, bits: t.bits,
		seen: make([]uint32, n), yw: make([]float32, len(ix.textPost)),
		acc: make([]sums, n)}
	return r
}

// topK returns case x's k best matches (positive score of at least
// opt.MinScore; no filter), best first, as Similar ranks them.
func (r *ranker) topK(x int32, k int) []scored {
	ix := r.ix
	r.epoch++
	if r.epoch == 0 { // wrapped: forget every mark
		clear(r.seen)
		r.epoch = 1
	}
	r.seen[x] = r.epoch
	r.h = topK{k: k, xs: r.h.xs[:0]}

	var qw, restTags float64
	items := r.items[:0]
	for _, f := range ix.caseFeat[x] {
		w := r.fw[f]
		qw += w
		if w > 0 {
			items = append(items, rankItem{id: f, w: w, pot: w})
			restTags += w
		}
	}
	wText := r.opt.Weights[ilgraph.WeightText]
	if wText <= 0 || len(ix.textVec[x]) == 0 {
		wText = 0
	}
	var restL1, restSq float64
	if wText > 0 {
		for _, q := range ix.textVec[x] {
			w := float64(q.W)
			if w <= 0 {
				continue
			}
			m := float64(r.maxW[q.Case])
			items = append(items, rankItem{id: q.Case, text: true, w: w, pot: wText * w * m})
			restL1 += w * m
			restSq += w * w
		}
	}
	slices.SortFunc(items, func(a, b rankItem) int {
		if a.pot != b.pot {
			if a.pot > b.pot {
				return -1
			}
			return 1
		}
		return 0
	})
	r.items = items
	den := qw + wText
	cosBound := func(l1, sq float64) float64 { return min(l1, math.Sqrt(max(sq, 0))*(1+1e-6)) }

	// Sums over the posting lists, most promising first, until no unseen
	// case can reach θ. Whenever the cases met have doubled, the best of
	// them by their sums so far are scored exactly, raising θ.
	touched := r.touched[:0]
	refreshAt := k
	stop := len(items)
	for i, it := range items {
		if len(touched) >= refreshAt {
			r.refresh(x, touched, qw, wText)
			refreshAt = 4 * len(touched)
		}
		if len(r.h.xs) == k && den > 0 && (restTags+wText*cosBound(restL1, restSq))/den+boundSlack < r.h.xs[0].score {
			stop = i
			break
		}
		if it.text {
			w := it.w
			for _, p := range ix.textPost[it.id] {
				a := &r.acc[p.Case]
				if a.s == 0 && a.c == 0 {
					touched = append(touched, p.Case)
				}
				a.c += w * float64(p.W)
			}
			restL1 -= it.w * float64(r.maxW[it.id])
			restSq -= it.w * it.w
		} else {
			for _, c := range ix.postings[it.id] {
				a := &r.acc[c]
				if a.s == 0 && a.c == 0 {
					touched = append(touched, c)
				}
				a.s += it.w
			}
			restTags -= it.w
		}
	}
	// Score exactly the cases met whose bound can still beat θ, the most
	// promising first (θ rises fastest that way): a max-heap on the bound.
	cosRest := cosBound(restL1, restSq)
	// The tags not walked: the common ones answer from bitsets what a
	// case has, the others count in full.
	restBits, restBitW := r.restBits[:0], r.restBitW[:0]
	restOther := 0.0
	for _, it := range items[stop:] {
		if it.text {
			continue
		}
		if b := r.bits[it.id]; b != nil {
			restBits, restBitW = append(restBits, b), append(restBitW, it.w)
		} else {
			restOther += it.w
		}
	}
	r.restBits, r.restBitW = restBits, restBitW
	cands := r.cands[:0]
	for _, c := range touched {
		s, cs := r.acc[c].s, r.acc[c].c
		if r.seen[c] == r.epoch {
			continue
		}
		sMax := min(s+restTags, r.cw[c])
		cMax := min(cs+cosRest, 1+1e-6)
		ub := (sMax+wText*cMax)/(qw+r.cw[c]-sMax+wText) + boundSlack
		if len(r.h.xs) == k && ub < r.h.xs[0].score {
			continue
		}
		cands = append(cands, bounded{c, ub})
	}
	for i := len(cands)/2 - 1; i >= 0; i-- {
		siftDown(cands, i)
	}
	for len(cands) > 0 {
		b := cands[0]
		if len(r.h.xs) == k && b.ub < r.h.xs[0].score {
			break
		}
		// A tighter bound first: the common tags not walked from their
		// bitsets (cheap, no case data read); then the exact shared tag
		// weight; the text only if the case can still enter with them.
		c := b.c
		cMax := min(r.acc[c].c+cosRest, 1+1e-6)
		reaches := func(shared float64) bool {
			return len(r.h.xs) < k || (shared+wText*cMax)/(qw+r.cw[c]-shared+wText)+boundSlack >= r.h.xs[0].score
		}
		s := r.acc[c].s + restOther
		for j, bs := range restBits {
			if bs[c/64]&(1<<(c%64)) != 0 {
				s += restBitW[j]
			}
		}
		if reaches(min(s, r.cw[c])) {
			if sh := r.sharedOf(x, c); reaches(sh) {
				r.offer(x, c, sh, qw, wText)
			}
		}
		last := len(cands) - 1
		cands[0] = cands[last]
		cands = cands[:last]
		siftDown(cands, 0)
	}
	r.cands = cands
	for _, c := range touched {
		r.acc[c] = sums{}
	}
	r.touched = touched
	out := slices.Clone(r.h.xs)
	slices.SortFunc(out, func(a, b scored) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return out
}

// consider scores case y against x, once, and offers it to the heap; it
// reports whether it scored y now.
func (r *ranker) consider(x, y int32, qw, wText float64) bool {
	if r.seen[y] == r.epoch {
		return false
	}
	r.offer(x, y, r.sharedOf(x, y), qw, wText)
	return true
}

// offer scores y against x given their shared tag weight and offers it to
// the heap; y counts as scored.
func (r *ranker) offer(x, y int32, shared, qw, wText float64) {
	r.seen[y] = r.epoch
	s, ok := r.scoreWith(x, y, shared, qw, wText)
	if ok && s >= r.opt.MinScore && r.h.wants(s, r.ix.ids[y]) {
		r.h.add(scored{y, s, r.ix.ids[y]})
	}
}

// sharedOf is the tag weight x and y share, added in x's order.
func (r *ranker) sharedOf(x, y int32) float64 {
	var shared float64
	fx, fy := r.ix.caseFeat[x], r.ix.caseFeat[y]
	j := 0
	for _, f := range fx { // both ascending: a merge, summing in x's order
		for j < len(fy) && fy[j] < f {
			j++
		}
		if j < len(fy) && fy[j] == f {
			if w := r.fw[f]; w > 0 {
				shared += w
			}
		}
	}
	return shared
}

// scoreWith is eachScore's score of y for the query x, given their shared
// tag weight (sharedOf), adding the same terms in the same order (so equal
// to the bit), and whether y is a candidate at all.
func (r *ranker) scoreWith(x, y int32, shared, qw, wText float64) (float64, bool) {
	ix := r.ix
	var cos float64
	if wText > 0 {
		vy := ix.textVec[y]
		for _, p := range vy {
			r.yw[p.Case] = p.W
		}
		for _, q := range ix.textVec[x] { // x's order, as eachScore; a term y lacks adds +0
			cos += float64(q.W) * float64(r.yw[q.Case])
		}
		for _, p := range vy {
			r.yw[p.Case] = 0
		}
	}
	if shared <= 0 && cos <= 0 {
		return 0, false
	}
	// r.cw[y] adds the kinds' weights as eachScore does.
	return ilgraph.RoundScore(ilgraph.JaccardRatio(shared, qw, r.cw[y], wText, cos)), true
}

// refreshBest is how many of the cases met a refresh scores exactly.
const refreshBest = 32

// refresh scores exactly the refreshBest cases met that look best by their
// sums so far (not yet scored), to raise θ early.
func (r *ranker) refresh(x int32, touched []int32, qw, wText float64) {
	best := r.best[:0] // a min-heap on the estimate
	for _, c := range touched {
		if r.seen[c] == r.epoch {
			continue
		}
		s := r.acc[c].s
		est := (s + wText*r.acc[c].c) / (qw + r.cw[c] - s + wText)
		if len(best) < refreshBest {
			best = append(best, bounded{c, -est})
			if len(best) == refreshBest {
				for i := len(best)/2 - 1; i >= 0; i-- {
					siftDown(best, i)
				}
			}
			continue
		}
		if -est < best[0].ub {
			best[0] = bounded{c, -est}
			siftDown(best, 0)
		}
	}
	for _, b := range best {
		r.consider(x, b.c, qw, wText)
	}
	r.best = best
}

// siftDown restores the max-heap order of h (on ub) below i.
func siftDown(h []bounded, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].ub > h[l].ub {
			m = r
		}
		if h[i].ub >= h[m].ub {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
