package graph

// SetPages sets the page sizes of SimilarityRows and EachCase for a test
// and returns the function that restores them.
func SetPages(similarity, each int) func() {
	s, e := similarityPage, eachCasePage
	similarityPage, eachCasePage = similarity, each
	return func() { similarityPage, eachCasePage = s, e }
}
