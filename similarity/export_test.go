package similarity

import "github.com/ilgraph/ilgraph"

// RankAll is topKOf over every case of ix: the write-back's ranking.
func RankAll(ix *Index, k int, opt ilgraph.SimilarityOptions) [][]ilgraph.SimilarLink {
	all := make([]int32, ix.Len())
	for i := range all {
		all[i] = int32(i)
	}
	return topKOf(ix, all, k, opt)
}

// RankSample is topKOf over every step-th case of ix.
func RankSample(ix *Index, step, k int, opt ilgraph.SimilarityOptions) [][]ilgraph.SimilarLink {
	var some []int32
	for i := 0; i < ix.Len(); i += step {
		some = append(some, int32(i))
	}
	return topKOf(ix, some, k, opt)
}
