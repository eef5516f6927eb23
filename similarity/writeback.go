package similarity

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// WriteBackResult says what a write-back did.
type WriteBackResult struct {
	Links          int // SIMILAR_TO relationships written (0: left as they were, or k is 0)
	graph.Counters     // what the writes changed
	// Recomputed is how many cases' links were recomputed: all of them, or
	// (Incremental) only those a load can have changed.
	Recomputed  int
	Incremental bool
}

// FullRecomputeShare is the share of changed cases above which a
// write-back recomputes every case's links rather than the affected ones.
const FullRecomputeShare = 0.2

// WriteBack stores each case's k most similar cases (the defaults of
// ilgraph.DefaultOptions: default weights with the text channel, rarity
// weighting on) as SIMILAR_TO relationships, replacing the stored ones,
// when the cases changed (casesChanged: a load wrote a new or changed case)
// or k is not the k of the last write-back; k = 0 removes them. batch is how
// many links one write transaction holds (default 2000). A load runs it
// after writing: the loader reports whether the cases changed and leaves
// similarity to this package.
func WriteBack(ctx context.Context, db *graph.DB, k int, casesChanged bool, batch int) (WriteBackResult, error) {
	var res WriteBackResult
	if batch <= 0 {
		batch = 2000
	}
	stored, err := db.StoredSimilarK(ctx)
	if err != nil {
		return res, err
	}
	if !casesChanged && (stored == k || stored == -1 && k == 0) {
		return res, nil
	}
	ix, err := Load(ctx, db)
	if err != nil {
		return res, err
	}
	opt := ilgraph.DefaultOptions(k)
	if k > 0 && stored == k && Incremental(opt) {
		// The same k as stored: recompute only the cases the load can have
		// changed (see affected), unless most did.
		st, err := db.ReadSimilarState(ctx, k)
		if err != nil {
			return res, err
		}
		if float64(len(st.Changed)) <= FullRecomputeShare*float64(ix.Len()) {
			cases := affected(ix, st, opt)
			ids := make([]string, len(cases))
			for i, c := range cases {
				ids[i] = ix.ids[c]
			}
			links := topKOf(ix, cases, k, opt)
			cnt, err := db.ReplaceSimilarOf(ctx, ids, links, batch)
			res.Counters.Add(cnt)
			res.Links, res.Recomputed, res.Incremental = len(links), len(cases), true
			return res, err
		}
	}
	links := TopKAll(ix, k, opt)
	cnt, err := db.ReplaceSimilar(ctx, links, true, batch)
	res.Counters.Add(cnt)
	if err != nil {
		return res, err
	}
	res.Links, res.Recomputed = len(links), ix.Len()
	cnt, err = db.MarkSimilarCurrent(ctx)
	res.Counters.Add(cnt)
	if err != nil {
		return res, err
	}
	cnt, err = db.SetStoredSimilarK(ctx, k)
	res.Counters.Add(cnt)
	return res, err
}

// Incremental reports whether a write-back under opt can recompute only the
// cases a load can have changed. It cannot when a score depends on the whole
// corpus: with rarity weighting (a feature's weight follows how many cases
// have it) or the text channel (term weights follow how many cases use
// them), one changed case moves scores between cases it never touched.
func Incremental(opt ilgraph.SimilarityOptions) bool {
	return !opt.Rarity && opt.Weights[ilgraph.WeightText] == 0
}
