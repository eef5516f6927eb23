package similarity

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

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
//   - each of the case's features and text terms has a potential, the
//     most it can add to a score's numerator (a feature its weight; a term
//     its weight in the case times the text weight times the largest
//     weight any case gives the term), and a cost, the postings its list
//     holds per unit of potential;
//   - the posting lists are walked cheapest first, adding up each case's
//     shared weight and cosine so far; whenever the cases met have grown
//     fourfold, the most promising of them by those sums are scored
//     exactly, which sets and raises θ, the k-th best score kept;
//   - the walk stops when a case in none of the lists walked could not
//     reach θ: it would score at most
//     (rest of the tag weights + wText · bound on the rest of the cosine)
//     / (query weight + wText), since a case's own tag weight is at least
//     what it shares. Cheapest first leaves unwalked the long lists of
//     little weight — a common tag, a word every report uses — so the stop
//     leaves the most postings it can (a greedy knapsack). Any split into
//     walked and unwalked lists gives the same top k, since the bounds hold
//     for whatever is left; the order only decides how much is walked;
//   - a case met is bounded by its sums so far plus the rest; if that can
//     beat θ, the common tags not walked are read from bitsets (no case
//     data read), which leaves its shared tag weight exact but for the
//     rare tags not walked, and bounds it again; the cases still left are
//     taken most promising first, and each is scored exactly (scoreWith
//     adds the same terms in the same order as eachScore) only when its
//     exact shared tag weight, with the rest of the cosine, could still
//     beat θ.
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
	cost float64 // postings walked per unit of pot
}

// ranker is one worker's state for ranking many cases of one index.
type ranker struct {
	ix    *Index
	opt   ilgraph.SimilarityOptions
	maxW  []float32 // term id -> its largest weight in any case
	fw    []float64 // feature id -> its weight under opt
	epoch uint32
	yw    []float32    // term id -> the candidate's weight (dense, reset after use)
	qv    []termWeight // the query case's text vector (when the channel counts)
	cw    []float64    // case -> its own tag weight under opt (exact scores)
	bits  [][]uint64
	// case -> what the walk reads and writes of it (dense, the sums reset
	// after use)
	acc     []caseSums
	touched []int32
	// case -> whether the walk has met it: a bitset small enough to stay
	// in cache (12.5 KB at 100,000 cases), so that the walk branches on it
	// rather than on the case's sums, a load that misses the cache
	mark     []uint64
	cands    []bounded
	best     []bounded
	restBits [][]uint64
	restBitW []float64
	items    []rankItem
	h        topK
}

// caseSums is what a ranking reads and writes of one case met, in 16
// bytes, so that each case costs one cache line where three arrays cost
// three (at a million cases they are far larger than the caches): its
// shared tag weight and cosine so far, its own tag weight, and the epoch
// it was scored in. The sums and the weight are float32 and serve only as
// bounds, read through up and the cw bounds (a sum of positive float32
// terms is within n·2⁻²⁴ of the exact one, relatively); exact scores are
// computed apart, in float64 (sharedOf, scoreWith).
type caseSums struct {
	s, c float32
	cw   float32
	seen uint32
}

// sumSlack is the relative slack that makes a float32 sum of at most a few
// thousand positive terms an upper bound of the float64 one.
const sumSlack = 1e-4

// up is an upper bound of the float64 sum that x approximates.
func up(x float32) float64 { return float64(x) * (1 + sumSlack) }

// cwBounds are bounds of a case's own tag weight from its float32 copy.
func cwBounds(x float32) (lo, hi float64) {
	return float64(x) * (1 - 1e-6), float64(x) * (1 + 1e-6)
}

// bound is the most a case can score given an upper bound s of the tag
// weight it shares, c of its cosine, and bounds of its own tag weight: the
// score rises with the shared weight, so it is largest at the most it can
// share, min(s, its own weight); the lower own weight in the denominator
// keeps it a bound.
func bound(s, c, cwLo, cwHi, qw, wText float64) float64 {
	sMax := min(s, cwHi)
	if qw+cwLo-sMax+wText <= 0 {
		return math.Inf(1)
	}
	return ilgraph.JaccardRatio(sMax, qw, cwLo, wText, min(c, 1+1e-6)) + boundSlack
}

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
		t.maxW[id] = ubWeight[ps.top]
	}
	for f, x := range ix.features {
		t.fw[f] = ix.weightOf(x, opt.Weights, opt.Rarity)
	}
	t.bits = ix.bits.get(ix, nil)
	t.cw = make([]float64, ix.snap.Len())
	wk := kindWeights(opt)
	for c := range t.cw {
		t.cw[c] = ix.ownWeight(int32(c), &wk, opt.Rarity)
	}
	return t
}

func newRanker(ix *Index, opt ilgraph.SimilarityOptions, t rankTables) *ranker {
	n := ix.snap.Len()
	r := &ranker{ix: ix, opt: opt, maxW: t.maxW, fw: t.fw, cw: t.cw, bits: t.bits,
		yw: make([]float32, len(ix.textPost)), acc: make([]caseSums, n), mark: make([]uint64, (n+63)/64)}
	for c, w := range t.cw {
		r.acc[c].cw = float32(w)
	}
	return r
}

// topK returns case x's k best matches (positive score of at least
// opt.MinScore; no filter), best first, as Similar ranks them.
func (r *ranker) topK(x int32, k int) []scored {
	ix := r.ix
	r.epoch++
	if r.epoch == 0 { // wrapped: forget every mark
		for c := range r.acc {
			r.acc[c].seen = 0
		}
		r.epoch = 1
	}
	r.acc[x].seen = r.epoch
	r.h = topK{k: k, xs: r.h.xs[:0]}

	var qw, restTags float64
	items := r.items[:0]
	for _, f := range ix.caseFeat.Sorted(x) {
		w := r.fw[f]
		qw += w
		if w > 0 {
			items = append(items, rankItem{id: f, w: w, pot: w, cost: float64(len(ix.postings[f])) / w})
			restTags += w
		}
	}
	wText := r.opt.Weights[ilgraph.WeightText]
	if wText <= 0 || len(ix.textVec.get(x)) == 0 {
		wText = 0
	}
	var restL1, restSq float64
	if wText > 0 {
		r.qv = ix.textVec.get(x).terms(r.qv[:0])
		for _, q := range r.qv {
			w := float64(q.W)
			if w <= 0 {
				continue
			}
			m := float64(r.maxW[q.Case])
			items = append(items, rankItem{id: q.Case, text: true, w: w, pot: wText * w * m, cost: float64(len(ix.textPost[q.Case].cases)) / (wText * w * m)})
			restL1 += w * m
			restSq += w * w
		}
	}
	slices.SortFunc(items, func(a, b rankItem) int {
		if a.cost != b.cost {
			if a.cost < b.cost {
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
	touched, mark := r.touched[:0], r.mark
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
			post := ix.textPost[it.id]
			ub := post.ub[:len(post.cases)]
			for j, c := range post.cases {
				if m, bit := &mark[c>>6], uint64(1)<<(c&63); *m&bit == 0 {
					*m |= bit
					touched = append(touched, c)
				}
				r.acc[c].c += float32(w * float64(ubWeight[ub[j]]))
			}
			restL1 -= it.w * float64(r.maxW[it.id])
			restSq -= it.w * it.w
		} else {
			for _, c := range ix.postings[it.id] {
				if m, bit := &mark[c>>6], uint64(1)<<(c&63); *m&bit == 0 {
					*m |= bit
					touched = append(touched, c)
				}
				r.acc[c].s += float32(it.w)
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
	// The cases met again, in ascending order, from the marks (and the
	// marks cleared): reading their sums in memory order lets the
	// hardware prefetch what the walk's order scattered.
	touched = touched[:0]
	for w, m := range mark {
		if m == 0 {
			continue
		}
		mark[w] = 0
		for ; m != 0; m &= m - 1 {
			touched = append(touched, int32(w<<6|bits.TrailingZeros64(m)))
		}
	}
	cands := r.cands[:0]
	for _, c := range touched {
		a := &r.acc[c]
		if a.seen == r.epoch {
			continue
		}
		s, cMax := up(a.s), up(a.c)+cosRest
		cwLo, cwHi := cwBounds(a.cw)
		ub := bound(s+restTags, cMax, cwLo, cwHi, qw, wText)
		if len(r.h.xs) == k && ub < r.h.xs[0].score {
			continue
		}
		// A tighter bound for a case that passed: the common tags not
		// walked from their bitsets (no case data read), which leaves its
		// shared tag weight exact but for restOther.
		s += restOther
		for j, bs := range restBits {
			if bs[c/64]&(1<<(c%64)) != 0 {
				s += restBitW[j]
			}
		}
		a.s = float32(s)
		ub = bound(s, cMax, cwLo, cwHi, qw, wText)
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
		// θ may have risen since the case was bounded: its bound with
		// the bitsets again, then its exact shared tag weight; the text
		// only if the case can still enter with them.
		c := b.c
		a := &r.acc[c]
		cMax := up(a.c) + cosRest
		cwLo, cwHi := cwBounds(a.cw)
		if len(r.h.xs) < k || bound(up(a.s), cMax, cwLo, cwHi, qw, wText) >= r.h.xs[0].score {
			// The exact shared weight and own weight (float64).
			sh, cw := r.sharedOf(x, c), r.cw[c]
			if len(r.h.xs) < k || bound(sh, cMax, cw, cw, qw, wText) >= r.h.xs[0].score {
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
		r.acc[c].s, r.acc[c].c = 0, 0
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
	if r.acc[y].seen == r.epoch {
		return false
	}
	r.offer(x, y, r.sharedOf(x, y), qw, wText)
	return true
}

// offer scores y against x given their shared tag weight and offers it to
// the heap; y counts as scored.
func (r *ranker) offer(x, y int32, shared, qw, wText float64) {
	r.acc[y].seen = r.epoch
	s, ok := r.scoreWith(x, y, shared, qw, wText)
	if ok && s >= r.opt.MinScore && r.h.wants(s, y, r.ix.snap) {
		r.h.add(scored{y, s, r.ix.snap.ID(y)})
	}
}

// sharedOf is the tag weight x and y share, added in x's order.
func (r *ranker) sharedOf(x, y int32) float64 {
	var shared float64
	fx, fy := r.ix.caseFeat.Sorted(x), r.ix.caseFeat.Sorted(y)
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
		cos = ix.cosine(r.qv, y, r.yw) // x's order, as eachScore
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
		a := &r.acc[c]
		if a.seen == r.epoch {
			continue
		}
		s := float64(a.s)
		est := ilgraph.JaccardRatio(s, qw, float64(a.cw), wText, float64(a.c))
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

// featureBits are an index's bitsets of the common features (rankTables'
// bits): the same for every option set, made on first use, and followed by
// the index a change is applied to (With) where they were made.
type featureBits struct {
	once sync.Once
	made atomic.Bool
	sets [][]uint64
}

// commonFeature reports whether a feature on n of cases cases gets a bitset.
func commonFeature(n, cases int) bool { return n*32 >= cases }

// get returns ix's bitsets, making them once: from prev (the bitsets of
// the index ix was changed from, nil if none) where a feature's cases are
// the same posting list as there and the bitsets have as many words, and
// from the postings otherwise. A change touches a few features' lists, so
// following costs a pass over those, not over every common feature's.
func (fb *featureBits) get(ix *Index, prev *Index) [][]uint64 {
	fb.once.Do(func() {
		words := (ix.snap.Len() + 63) / 64
		fb.sets = make([][]uint64, len(ix.features))
		for f, ps := range ix.postings {
			if !commonFeature(len(ps), ix.snap.Len()) {
				continue
			}
			if prev != nil && f < len(prev.postings) && f < len(prev.bits.sets) {
				was, old := prev.postings[f], prev.bits.sets[f]
				if old != nil && len(old) == words && len(was) == len(ps) && (len(ps) == 0 || &was[0] == &ps[0]) {
					fb.sets[f] = old
					continue
				}
			}
			b := make([]uint64, words)
			for _, c := range ps {
				b[c/64] |= 1 << (c % 64)
			}
			fb.sets[f] = b
		}
		fb.made.Store(true)
	})
	return fb.sets
}
