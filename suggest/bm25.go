package suggest

import "math"

// bm25 is an Okapi BM25 index over the cases' texts of one language.
type bm25 struct {
	tf    []map[string]int // per case
	lens  []int
	total int            // sum of lens
	n     int            // cases with any text
	df    map[string]int // cases containing the term
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func newBM25(docs [][]string) *bm25 {
	ix := &bm25{df: map[string]int{}}
	for _, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		for w := range tf {
			ix.df[w]++
		}
		ix.tf = append(ix.tf, tf)
		ix.lens = append(ix.lens, len(d))
		ix.total += len(d)
		if len(d) > 0 {
			ix.n++
		}
	}
	return ix
}

// score returns the BM25 score of every case for the query terms, with the
// excluded cases left out of the corpus statistics and the results.
func (ix *bm25) score(query []string, ex excluded) []float64 {
	scores := make([]float64, len(ix.tf))
	n, total := ix.n, ix.total
	for _, x := range ex {
		if ix.lens[x] > 0 {
			n--
			total -= ix.lens[x]
		}
	}
	if n == 0 {
		return scores
	}
	avg := float64(total) / float64(n)
	qtf := map[string]int{}
	for _, w := range query {
		qtf[w]++
	}
	for w := range qtf {
		df := ix.df[w]
		for _, x := range ex {
			if ix.tf[x][w] > 0 {
				df--
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		for ci, tf := range ix.tf {
			f := tf[w]
			if f == 0 || ex.has(ci) {
				continue
			}
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lens[ci])/avg)
			scores[ci] += idf * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
		}
	}
	return scores
}

// excluded lists the cases (by index) left out of every statistic: none in
// service, one in leave-one-out, a fold and one more when cut-offs are
// calibrated inside an evaluation.
type excluded []int

func (ex excluded) has(i int) bool {
	for _, x := range ex {
		if x == i {
			return true
		}
	}
	return false
}
