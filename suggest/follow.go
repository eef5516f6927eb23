package suggest

import (
	"maps"
	"math"
	"slices"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
)

// overlay is what changed in the corpus since the engine was built: the
// cases of the build that a write changed or deleted (gone: left out of
// every statistic, as an excluded case is) and the cases as written since
// (docs: added to every statistic). An engine with an overlay answers as
// an engine built over the corpus as it is now: the BM25 statistics, the
// neighbours and their tags, and the phrases' reliabilities count the
// written cases and not the versions they replaced.
type overlay struct {
	gone map[int32]bool // build case numbers
	docs []overDoc
}

// overDoc is a case as written since the build.
type overDoc struct {
	id   string
	a    analysedCase
	lens [4]int32
}

// Apply follows one case's change (memstore.Applier): the engine over
// the corpus after it, sharing the build's indexes.
func (k *consumer) Apply(v any, _ *memstore.Snapshot, _ memstore.Moved, id string, c *ilgraph.Case) (any, error) {
	return v.(*Engine).with(id, c), nil
}

// with returns e after the case id became c (nil: was deleted). e is not
// changed.
func (e *Engine) with(id string, c *ilgraph.Case) *Engine {
	n := *e
	o := &overlay{gone: map[int32]bool{}}
	if e.over != nil {
		o.gone = maps.Clone(e.over.gone)
		o.docs = slices.Clone(e.over.docs)
	}
	if i, ok := e.snap.Number(id); ok {
		o.gone[i] = true
	}
	o.docs = slices.DeleteFunc(o.docs, func(d overDoc) bool { return d.id == id })
	if c != nil {
		d := overDoc{id: id, a: e.analyse(c)}
		for i, ts := range d.a.terms {
			d.lens[i] = int32(len(ts))
		}
		o.docs = append(o.docs, d)
	}
	n.over = o
	return &n
}

// Written is how many cases the engine counts as written since its build
// (changed, created or deleted).
func (e *Engine) Written() int {
	if e.over == nil {
		return 0
	}
	return len(e.over.gone) + len(e.over.docs)
}

// scoreNow scores the corpus as it is now: the build's cases but those of
// ex and gone, and the written docs but skip (-1: none), of which terms
// gives each one's terms for this index. It returns the build cases'
// scores and the docs'. Without gone cases and docs it is BM25 over the
// build less ex.
func (ix *bm25) scoreNow(query []string, ex excluded, gone map[int32]bool, terms func(d int) []string, docs, skip int) (main, over []float64) {
	main = make([]float64, len(ix.lens))
	over = make([]float64, docs)
	out := func(c int32) bool { return ex.has(int(c)) || gone[c] }
	n, total := ix.n, ix.total
	for _, x := range ex {
		if ix.lens[x] > 0 {
			n--
			total -= int(ix.lens[x])
		}
	}
	for x := range gone {
		if int(x) < len(ix.lens) && ix.lens[x] > 0 && !ex.has(int(x)) {
			n--
			total -= int(ix.lens[x])
		}
	}
	tfs := make([]map[string]int, docs)
	for d := 0; d < docs; d++ {
		if d == skip {
			continue
		}
		ts := terms(d)
		if len(ts) > 0 {
			n++
			total += len(ts)
		}
		tfs[d] = map[string]int{}
		for _, w := range ts {
			tfs[d][w]++
		}
	}
	if n <= 0 {
		return main, over
	}
	avg := float64(total) / float64(n)
	seen := map[string]bool{}
	for _, w := range query {
		if seen[w] {
			continue
		}
		seen[w] = true
		df := 0
		var p *postings
		if id, ok := ix.ids[w]; ok {
			p = &ix.post[id]
			df = int(p.df)
			for _, x := range ex {
				if tfIn(p, x) > 0 {
					df--
				}
			}
			if len(gone) > 0 {
				p.each(func(c, _ int32) {
					if gone[c] && !ex.has(int(c)) {
						df--
					}
				})
			}
		}
		for d := range tfs {
			if tfs[d][w] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		add := func(tf, length int) float64 {
			f := float64(tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(length)/avg)
			return idf * f * (bm25K1 + 1) / (f + norm)
		}
		if p != nil {
			p.each(func(c, tf int32) {
				if !out(c) {
					main[c] += add(int(tf), int(ix.lens[c]))
				}
			})
		}
		for d := range tfs {
			if tf := tfs[d][w]; tf > 0 {
				over[d] += add(tf, len(terms(d)))
			}
		}
	}
	return main, over
}
