package relevance

import (
	"math"
	"sort"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
)

// TFIDF is the untuned text baseline the evaluations compare with: TF-IDF
// vectors of a text of each case, analysed with the shared analysis
// (stemming, Korean particles; stop words and numbers dropped), weight
// (1 + ln tf) × ln(N / df), compared by cosine. Nothing in it was chosen
// on a judged set.
type TFIDF struct {
	an   *analysis.Analyzer
	ids  []string
	byID map[string]int
	vecs []map[string]float64
	df   map[string]int
}

// NewTFIDF indexes text(c) of every case under opts.
func NewTFIDF(cases []ilgraph.Case, opts analysis.Options, text func(*ilgraph.Case) string) *TFIDF {
	t := &TFIDF{an: analysis.New(opts), df: map[string]int{}, byID: map[string]int{}}
	tfs := make([]map[string]int, len(cases))
	for i := range cases {
		c := &cases[i]
		t.byID[c.ID] = len(t.ids)
		t.ids = append(t.ids, c.ID)
		tfs[i] = t.counts(text(c))
		for w := range tfs[i] {
			t.df[w]++
		}
	}
	for _, tf := range tfs {
		t.vecs = append(t.vecs, t.vector(tf))
	}
	return t
}

// NoNames are the analysis options of the similarity text channel: vendor
// and product names dropped, and the name parts of every organization of
// the corpus.
func NoNames(cases []ilgraph.Case) analysis.Options {
	var extra []string
	for i := range cases {
		extra = append(extra, analysis.NameParts(cases[i].Org)...)
	}
	return analysis.Options{DropVendors: true, Extra: extra}
}

func (t *TFIDF) counts(text string) map[string]int {
	tf := map[string]int{}
	for _, tok := range t.an.Tokens(text) {
		if !tok.Stop && tok.Script != analysis.Digit {
			tf[tok.Norm]++
		}
	}
	return tf
}

// vector weighs term counts and scales them to length 1; terms no case has
// are left out.
func (t *TFIDF) vector(tf map[string]int) map[string]float64 {
	n := float64(len(t.ids))
	v := map[string]float64{}
	var norm float64
	for w, c := range tf {
		df := t.df[w]
		if df == 0 {
			continue
		}
		x := (1 + math.Log(float64(c))) * math.Log(n/float64(df))
		if x > 0 {
			v[w] = x
			norm += x * x
		}
	}
	for w := range v {
		v[w] /= math.Sqrt(norm)
	}
	return v
}

// Rank returns the k cases whose vectors are closest to the text's, cosine
// above 0, by cosine descending (rounded as scores are) then id.
func (t *TFIDF) Rank(text string, k int) []string {
	return t.rank(t.vector(t.counts(text)), "", k)
}

// Ranker ranks the cases most like a query case by the cosine of their
// vectors, the query case left out.
func (t *TFIDF) Ranker(name string) Ranker {
	return Ranker{Name: name, Rank: func(q string, k int) []string {
		i, ok := t.byID[q]
		if !ok {
			return nil
		}
		return t.rank(t.vecs[i], q, k)
	}}
}

func (t *TFIDF) rank(q map[string]float64, exclude string, k int) []string {
	type scored struct {
		id string
		s  float64
	}
	var all []scored
	for i, v := range t.vecs {
		if t.ids[i] == exclude {
			continue
		}
		var s float64
		for w, x := range q {
			s += x * v[w]
		}
		if s = ilgraph.RoundScore(s); s > 0 {
			all = append(all, scored{t.ids[i], s})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s > all[j].s
		}
		return all[i].id < all[j].id
	})
	var out []string
	for i := 0; i < len(all) && i < k; i++ {
		out = append(out, all[i].id)
	}
	return out
}

// ReportText is the text the "tfidf" ranker compares: a case's English
// title, summary, trigger and lessons, the report as a reader meets it.
func ReportText(c *ilgraph.Case) string {
	return strings.Join([]string{c.Title.En, c.Summary.En, c.Trigger.En, c.Lessons.En}, "\n")
}
