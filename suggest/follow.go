package suggest

import (
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/ilgraph/ilgraph/internal/parallel"
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
	// The docs' terms inverted, per slot of analysedCase.terms, made on
	// first use: a query scores only the docs that have its words.
	once [4]sync.Once
	inv  [4]overIndex
	// The docs of each phrase, made on first use.
	phraseOnce sync.Once
	byPhrase   map[int][]int32
}

// phraseDocs returns the written docs whose text contains phrase pi,
// ascending.
func (o *overlay) phraseDocs(pi int) []int32 {
	o.phraseOnce.Do(func() {
		o.byPhrase = map[int][]int32{}
		for d, doc := range o.docs {
			for _, p := range doc.a.phrases {
				o.byPhrase[p] = append(o.byPhrase[p], int32(d))
			}
		}
	})
	return o.byPhrase[pi]
}

// overIndex is the written docs' terms of one slot, inverted.
type overIndex struct {
	post     map[string][]docTF // term -> the docs with it, ascending
	n, total int                // docs with any term, and their terms
}

// docTF is a term's frequency in one written doc.
type docTF struct{ doc, tf int32 }

// index returns the docs' terms of slot, inverted (o not nil).
func (o *overlay) index(slot int) *overIndex {
	o.once[slot].Do(func() {
		x := overIndex{post: map[string][]docTF{}}
		for d, doc := range o.docs {
			ts := doc.a.terms[slot]
			if len(ts) > 0 {
				x.n++
				x.total += len(ts)
			}
			for _, w := range ts {
				l := x.post[w]
				if k := len(l) - 1; k >= 0 && l[k].doc == int32(d) {
					l[k].tf++
					continue
				}
				x.post[w] = append(l, docTF{int32(d), 1})
			}
		}
		o.inv[slot] = x
	})
	return &o.inv[slot]
}

// overDoc is a case as written since the build.
type overDoc struct {
	id   string
	a    analysedCase
	lens [4]int32
}

// Apply follows changes (memstore.Applier): the engine over the corpus
// after them, sharing the build's indexes.
func (k *consumer) Apply(v any, _ *memstore.Snapshot, changes []memstore.Applied) (any, error) {
	return v.(*Engine).with(changes), nil
}

// with returns e after the changes, in order (a case nil: deleted). e is
// not changed.
func (e *Engine) with(changes []memstore.Applied) *Engine {
	n := *e
	o := &overlay{gone: map[int32]bool{}}
	if e.over != nil {
		o.gone = maps.Clone(e.over.gone)
		o.docs = slices.Clone(e.over.docs)
	}
	// The texts are analysed on every processor (each case's analysis is
	// its own), then the overlay follows the changes in order.
	written := make([]overDoc, len(changes))
	parallel.For(len(changes), func(k int) {
		if ch := changes[k]; ch.Case != nil {
			d := overDoc{id: ch.ID, a: e.analyse(ch.Case)}
			for i, ts := range d.a.terms {
				d.lens[i] = int32(len(ts))
			}
			written[k] = d
		}
	})
	// A case changed again leaves the docs and comes back at the end, as
	// of its last change.
	last := make(map[string]int, len(changes))
	for k, ch := range changes {
		if i, ok := e.snap.Number(ch.ID); ok {
			o.gone[i] = true
		}
		last[ch.ID] = k
	}
	o.docs = slices.DeleteFunc(o.docs, func(d overDoc) bool { _, ok := last[d.id]; return ok })
	for k, ch := range changes {
		if ch.Case != nil && last[ch.ID] == k {
			o.docs = append(o.docs, written[k])
		}
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
// ex and o's gone ones, and o's written docs (of which slot gives each
// one's terms for this index) but skip (-1: none). It returns the build
// cases' scores and the docs'. With no overlay it is BM25 over the build
// less ex.
func (ix *bm25) scoreNow(query []string, ex excluded, o *overlay, slot, skip int) (main, over []float64) {
	main = make([]float64, len(ix.lens))
	var gone map[int32]bool
	var inv *overIndex
	if o != nil {
		gone, inv = o.gone, o.index(slot)
		over = make([]float64, len(o.docs))
	}
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
	if inv != nil {
		n += inv.n
		total += inv.total
		if skip >= 0 {
			if l := len(o.docs[skip].a.terms[slot]); l > 0 {
				n--
				total -= l
			}
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
		var docs []docTF
		if inv != nil {
			docs = inv.post[w]
			for _, d := range docs {
				if int(d.doc) != skip {
					df++
				}
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
		for _, d := range docs {
			if int(d.doc) != skip {
				over[d.doc] += add(int(d.tf), len(o.docs[d.doc].a.terms[slot]))
			}
		}
	}
	return main, over
}
