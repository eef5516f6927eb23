package similarity

import (
	"sync"

	"github.com/ilgraph/ilgraph"
)

// Serving a case's "similar cases" uses the write-back's max-score ranker
// (rank.go) when the question has no filter: the same top k, to the bit,
// as Similar's accumulate-everything ranking, for a fraction of the
// postings walked (BenchmarkSimilarTop10InMemory). Its tables (each
// feature's weight, each case's own weight, the largest weight of each
// text term, bitsets of the common features) depend on the options'
// weights, so they are made once per index and option set, on the first
// question that needs them, and kept for a few option sets (the defaults,
// and whatever a dashboard asks with); a question with other options ranks
// as Similar does. Each concurrent question borrows a ranker (its dense
// per-case sums) from a pool.

// rankKey is what a ranker's tables depend on.
type rankKey struct {
	w        [nKinds]float64 // the tag kinds' weights, in kinds order
	text     float64
	rarity   bool
	minScore float64
}

// rankPool is one option set's tables and idle rankers.
type rankPool struct {
	once   sync.Once
	tables rankTables
	idle   sync.Pool // *ranker
}

// maxRankPools bounds the option sets an index keeps tables for.
const maxRankPools = 4

// rankPoolFor returns the pool for opt, or nil when the index already
// keeps maxRankPools others.
func (ix *Index) rankPoolFor(opt ilgraph.SimilarityOptions) *rankPool {
	key := rankKey{w: kindWeights(opt), text: opt.Weights[ilgraph.WeightText], rarity: opt.Rarity, minScore: opt.MinScore}
	ix.rankMu.Lock()
	defer ix.rankMu.Unlock()
	if p, ok := ix.rankPools[key]; ok {
		return p
	}
	if len(ix.rankPools) >= maxRankPools {
		return nil
	}
	if ix.rankPools == nil {
		ix.rankPools = map[rankKey]*rankPool{}
	}
	p := &rankPool{}
	ix.rankPools[key] = p
	return p
}

// SimilarTo ranks the cases most like the stored case id (which must be in
// the index), as Similar(ix.Features(id), id, opt) does: the same matches,
// scores and explanations. Without a filter it ranks by max-score.
func (ix *Index) SimilarTo(id string, opt ilgraph.SimilarityOptions) []ilgraph.Match {
	x, ok := ix.snap.Number(id)
	if !ok || opt.K <= 0 || !opt.Filter.IsZero() {
		return ix.Similar(ix.Features(id), id, opt)
	}
	p := ix.rankPoolFor(opt)
	if p == nil {
		return ix.Similar(ix.Features(id), id, opt)
	}
	p.once.Do(func() { p.tables = newRankTables(ix, opt) })
	r, _ := p.idle.Get().(*ranker)
	if r == nil {
		r = newRanker(ix, opt, p.tables)
	}
	top := r.topK(x, opt.K)
	p.idle.Put(r)
	ids := make([]string, len(top))
	for i, s := range top {
		ids[i] = s.id
	}
	return ix.explain(x, ids, opt)
}
