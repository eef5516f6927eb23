package suggest

import (
	"encoding/binary"
	"slices"
	"strings"
)

// bm25 is an Okapi BM25 index over the cases' texts of one language, kept
// as an inverted index: each term once (interned), and per term the cases
// that use it in case order with how often. A query visits only the
// postings of its own terms, so its cost follows how common its words are,
// not the size of the corpus. Postings are varint-coded (see postings):
// under 2 bytes a posting where a pair of int32 took 8, which is what lets
// the engine hold a million cases.
type bm25 struct {
	ids   map[string]int32 // term -> its postings
	post  []postings
	lens  []int32 // terms per case
	total int     // sum of lens
	n     int     // cases with any text

	tf    map[int32]int32 // add's scratch
	order []int32
}

// postings are the cases that use a term, ascending, each with how often,
// as varints: the case minus the previous case (the case itself for the
// first), doubled, plus 1 when the count is above 1 — and then the count.
// Most words are once in a text, and their count takes no byte.
type postings struct {
	buf  []byte
	last int32 // the case added last, for the next gap
	df   int32 // cases
}

// postingsSlack is how much room, past an eighth of their length, a
// term's postings may keep unused: a build grows a long list by an eighth
// (and this) at a time, and compact copies only the lists with more room
// than that. So the end of a build copies only short lists, not every
// list at once — at a million cases a burst of some 250 MB, which the
// collector, bound to half the CPU, let the process grow past its soft
// limit for — and a long list keeps on average a sixteenth unused.
const postingsSlack = 16

func (p *postings) add(c, tf int32) {
	gap := c
	if p.df > 0 {
		gap = c - p.last
	}
	if n := len(p.buf); n >= 256 && cap(p.buf)-n < 2*binary.MaxVarintLen32 {
		grown := make([]byte, n, n+n/8+postingsSlack) // not append's quarter
		copy(grown, p.buf)
		p.buf = grown
	}
	if tf > 1 {
		p.buf = binary.AppendUvarint(p.buf, uint64(gap)<<1|1)
		p.buf = binary.AppendUvarint(p.buf, uint64(tf))
	} else {
		p.buf = binary.AppendUvarint(p.buf, uint64(gap)<<1)
	}
	p.last = c
	p.df++
}

// each calls f with every case and count, in case order.
func (p *postings) each(f func(c, tf int32)) {
	var c int32
	for i := 0; i < len(p.buf); {
		x, n := binary.Uvarint(p.buf[i:])
		i += n
		tf := uint64(1)
		if x&1 != 0 {
			var m int
			tf, m = binary.Uvarint(p.buf[i:])
			i += m
		}
		c += int32(x >> 1)
		f(c, int32(tf))
	}
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

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
			ix.post = append(ix.post, postings{})
		}
		if ix.tf[id] == 0 {
			ix.order = append(ix.order, id)
		}
		ix.tf[id]++
	}
	for _, id := range ix.order {
		ix.post[id].add(ci, ix.tf[id])
	}
	ix.lens = append(ix.lens, int32(len(d)))
	ix.total += len(d)
	if len(d) > 0 {
		ix.n++
	}
}

// compact ends the build: the postings with more room unused than
// postingsSlack allows (the short lists, which appending doubles) are
// copied to a buffer of their own size, and add's scratch is dropped.
func (ix *bm25) compact() {
	for i := range ix.post {
		p := &ix.post[i]
		if cap(p.buf)-len(p.buf) > len(p.buf)/8+postingsSlack {
			p.buf = append(make([]byte, 0, len(p.buf)), p.buf...)
		}
	}
	ix.post = slices.Clip(ix.post)
	ix.lens = slices.Clip(ix.lens)
	ix.tf, ix.order = nil, nil
}

// tfIn is how often case c uses the term whose postings are p.
func tfIn(p *postings, c int) int32 {
	var out int32
	p.each(func(x, tf int32) {
		if int(x) == c {
			out = tf
		}
	})
	return out
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
