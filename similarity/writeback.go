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
}

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
	links := TopKAll(ix, k, ilgraph.DefaultOptions(k))
	cnt, err := db.ReplaceSimilar(ctx, links, true, batch)
	res.Counters.Add(cnt)
	if err != nil {
		return res, err
	}
	res.Links = len(links)
	cnt, err = db.SetStoredSimilarK(ctx, k)
	res.Counters.Add(cnt)
	return res, err
}
