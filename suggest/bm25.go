package suggest

import (
	"math"
	"sort"
	"strings"
)

// bm25 is an Okapi BM25 index over the cases' texts of one language, kept
// as an inverted index: each term once (interned), and per term the cases
// that use it in case order with how often. A query visits only the
// postings of its own terms, so its cost follows how common its words are,
// not the size of the corpus, and a corpus of 100,000 cases costs tens of
// megabytes, not a map per case.
type bm25 struct {
	ids   map[string]int32 // term -> its postings
	post  [][]posting
	lens  []int32 // terms per case
	total int     // sum of lens
	n     int     // cases with any text

	tf    map[int32]int32 // add's scratch
	order []int32
}

// posting is one case that uses a term, and how often.
type posting struct {
	c  int32
	tf int32
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func newBM25(docs [][]string) *bm25 {
	ix := &bm25{ids: map[string]int32{}}
	for _, d := range docs {
		ix.add(d)
	}
	return ix
}

// add adds the next case's terms.
func (ix *bm25) add(d []string) {
	ci := int32(len(ix.lens))
	if ix.tf == nil {
		ix.tf = map[int32]int32{}
	}
	clear(ix.tf)
	ix.order = ix.order[:0]
	for _, w := range d {
		id, ok := ix.ids[w]
		if !ok {
			id = int32(len(ix.post))
			// A term may be a slice of the case's whole text (a word
			// already in lower case): copy it, or the index would keep
			// every text whose word came first.
			ix.ids[strings.Clone(w)] = id
			ix.post = append(ix.post, nil)
		}
		if ix.tf[id] == 0 {
			ix.order = append(ix.order, id)
		}
		ix.tf[id]++
	}
	for _, id := range ix.order {
		ix.post[id] = append(ix.post[id], posting{ci, ix.tf[id]})
	}
	ix.lens = append(ix.lens, int32(len(d)))
	ix.total += len(d)
	if len(d) > 0 {
		ix.n++
	}
}

// tf is how often case c uses the term whose postings are ps.
func tfIn(ps []posting, c int) int32 {
	i := sort.Search(len(ps), func(i int) bool { return int(ps[i].c) >= c })
	if i < len(ps) && int(ps[i].c) == c {
		return ps[i].tf
	}
	return 0
}

// score returns the BM25 score of every case for the query terms, with the
// excluded cases left out of the corpus statistics and the results.
func (ix *bm25) score(query []string, ex excluded) []float64 {
	scores := make([]float64, len(ix.lens))
	n, total := ix.n, ix.total
	for _, x := range ex {
		if ix.lens[x] > 0 {
			n--
			total -= int(ix.lens[x])
		}
	}
	if n == 0 {
		return scores
	}
	avg := float64(total) / float64(n)
	qtf := map[string]int{}
	var words []string
	for _, w := range query {
		if qtf[w] == 0 {
			words = append(words, w)
		}
		qtf[w]++
	}
	for _, w := range words {
		id, ok := ix.ids[w]
		if !ok {
			continue
		}
		ps := ix.post[id]
		df := len(ps)
		for _, x := range ex {
			if tfIn(ps, x) > 0 {
				df--
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		for _, p := range ps {
			if ex.has(int(p.c)) {
				continue
			}
			f := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lens[p.c])/avg)
			scores[p.c] += idf * f * (bm25K1 + 1) / (f + norm)
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
