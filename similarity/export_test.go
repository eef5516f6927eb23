package similarity

import "github.com/ilgraph/ilgraph"

// RankSample is topKOf over every step-th case of ix.
func RankSample(ix *Index, step, k int, opt ilgraph.SimilarityOptions) [][]ilgraph.SimilarLink {
	var some []int32
	for i := 0; i < ix.Len(); i += step {
		some = append(some, int32(i))
	}
	return topKOf(ix, some, k, opt)
}

// OwnTextStats are the text statistics of rows, as a build over them
// weighs their texts with.
func OwnTextStats(rows []ilgraph.CaseFeatures) TextStats {
	_, st := textVectors(rows)
	return st
}
