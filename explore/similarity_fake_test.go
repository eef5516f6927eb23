package explore_test

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/similarity"
)

// The core's unit tests run on the reference store (internal/refstore),
// with this ranker beside it.

// memSimilarity ranks with the real similarity index built in memory.
type memSimilarity struct{ ix *similarity.Index }

func newMemSimilarity(cases []*ilgraph.Case) memSimilarity {
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i, c := range cases {
		rows[i] = ilgraph.SimilarityRow(c)
	}
	return memSimilarity{ix: similarity.Build(rows, 1)}
}

func (s memSimilarity) Similar(_ context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	if !s.ix.Has(id) {
		return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	return s.ix.Similar(s.ix.Features(id), id, opt), nil
}

func (s memSimilarity) SimilarToProfile(_ context.Context, p []ilgraph.Feature, member func(ilgraph.Feature) float64, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	return s.ix.SimilarToProfile(p, member, opt), nil
}

func (s memSimilarity) Weighting(_ context.Context, ids []string, opt ilgraph.SimilarityOptions) ([][]ilgraph.Feature, []ilgraph.TextVector, func(ilgraph.Feature) float64, error) {
	out := make([][]ilgraph.Feature, len(ids))
	text := make([]ilgraph.TextVector, len(ids))
	for i, id := range ids {
		if s.ix.Has(id) {
			out[i], text[i] = s.ix.Features(id), s.ix.TextVector(id)
		}
	}
	return out, text, s.ix.Weight(opt), nil
}
