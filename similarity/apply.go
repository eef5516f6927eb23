package similarity

import (
	"maps"
	"slices"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
)

// Apply follows changes (memstore.Applier): the index over next, from the
// index over the snapshot before them.
func (*consumer) Apply(v any, next *memstore.Snapshot, changes []memstore.Applied) (any, error) {
	moves := make([]memstore.Moved, len(changes))
	texts := make([]string, len(changes))
	for k, ch := range changes {
		moves[k] = ch.Moved
		if ch.Case != nil {
			texts[k] = ilgraph.SimilarityText(ch.Case.Trigger.En, ch.Case.Lessons.En)
		}
	}
	return v.(*Index).WithAll(next, moves, texts), nil
}

// With returns the index over next, the snapshot after one case's change
// (m, as memstore.Snapshot.With says; text is the changed case's
// SimilarityText): WithAll of one change.
func (ix *Index) With(next *memstore.Snapshot, m memstore.Moved, text string) *Index {
	return ix.WithAll(next, []memstore.Moved{m}, []string{text})
}

// WithAll returns the index over next, the snapshot after changes
// (moves[k] where change k put the cases, as memstore.Snapshot.WithAll
// says; texts[k] the changed case's SimilarityText). ix is not changed. The
// rarity factors and per-kind sums follow the new corpus exactly, as a
// build over it makes them (they cost a pass over the features, not over
// the texts), once however many changes there are. The text channel keeps
// the corpus statistics of the build the index started from: a changed
// case's text is weighed with them (BuildFrozen's rule), the other cases'
// vectors stay, and the next build (memstore.Source's settling build)
// weighs every text with the corpus's own statistics again. A term's
// postings are copied the first time a change touches them and changed in
// place after.
func (ix *Index) WithAll(next *memstore.Snapshot, moves []memstore.Moved, texts []string) *Index {
	n := &Index{snap: next, features: next.FeatureList(), postings: next.Postings(), caseFeat: next.CaseFeatureIDs(),
		terms: ix.terms, termID: ix.termID, textVec: ix.textVec.clone(), textPost: slices.Clone(ix.textPost),
		textStats: ix.textStats, textAn: ix.textAn, Version: next.Version, Built: next.Built}
	cases := next.Len()
	n.scratch.New = func() any { return &scratch{acc: make([]accum, cases)} }
	n.weighFeatures(nil)
	if ix.bits.made.Load() {
		n.bits.get(n, ix) // while ix's are at hand: most are shared
	}
	if n.termID == nil {
		n.termID = make(map[string]int32, len(n.terms))
		for id, t := range n.terms {
			n.termID[t] = int32(id)
		}
	}
	e := textEditor{ix: n, own: map[int32]bool{}}
	for k, m := range moves {
		e.move(m, texts[k])
	}
	return n
}

// textEditor applies changes to an index's text vectors and postings of
// its own (WithAll), copying a term's postings, and what numbers terms,
// the first time a change writes them.
type textEditor struct {
	ix    *Index
	terms bool           // terms and termID are the index's own
	own   map[int32]bool // terms whose postings are the index's own
}

// move follows one change: the changed case's vector goes (Old) and comes
// (New), and a delete moves the last case's to the deleted case's number.
func (e *textEditor) move(m memstore.Moved, text string) {
	n := e.ix
	if m.Old >= 0 {
		for _, t := range n.textVec.get(m.Old).terms(nil) {
			e.dropCase(t.Case, m.Old)
		}
		n.textVec.At[m.Old] = noVector
	}
	switch {
	case m.New < 0 && m.Old < 0: // the delete of a case the index did not have
	case m.New < 0 && m.From >= 0:
		for _, t := range n.textVec.get(m.From).terms(nil) {
			e.dropCase(t.Case, m.From)
			e.addCase(t.Case, m.Old, t.W)
		}
		n.textVec.At[m.Old] = n.textVec.At[m.From]
		n.textVec.At = n.textVec.At[:m.From]
	case m.New < 0:
		n.textVec.At = n.textVec.At[:n.textVec.len()-1]
	default:
		if int(m.New) == n.textVec.len() {
			n.textVec.At = append(n.textVec.At, noVector)
		}
		v := e.vectorOf(text)
		for _, t := range v {
			e.addCase(t.Case, m.New, t.W)
		}
		n.textVec.set(m.New, v)
	}
}

// postings returns term's postings, the index's own.
func (e *textEditor) postings(term int32) *textPostings {
	p := &e.ix.textPost[term]
	if !e.own[term] {
		e.own[term] = true
		p.cases, p.ub = slices.Clone(p.cases), slices.Clone(p.ub)
	}
	return p
}

// addCase gives case c the weight w in term's postings.
func (e *textEditor) addCase(term, c int32, w float32) {
	p := e.postings(term)
	q := weightUp(w)
	at, found := slices.BinarySearch(p.cases, c)
	if found {
		was := p.ub[at]
		p.ub[at] = q
		if q < was && was == p.top {
			p.top = topOf(p.ub)
		}
	} else {
		p.cases = slices.Insert(p.cases, at, c)
		p.ub = slices.Insert(p.ub, at, q)
	}
	p.top = max(p.top, q)
}

// dropCase takes case c out of term's postings.
func (e *textEditor) dropCase(term, c int32) {
	at, found := slices.BinarySearch(e.ix.textPost[term].cases, c)
	if !found {
		return
	}
	p := e.postings(term)
	was := p.ub[at]
	p.cases = slices.Delete(p.cases, at, at+1)
	p.ub = slices.Delete(p.ub, at, at+1)
	if was == p.top {
		p.top = topOf(p.ub)
	}
}

// vectorOf is the text vector of text under the index's text statistics,
// by the index's term ids (numbering the terms it did not have).
func (e *textEditor) vectorOf(text string) []termWeight {
	ix := e.ix
	ta := newTextAnalyser(ix.textAn.get(ix.textStats.Extra))
	ta.add(text)
	a := ta.finish()
	vecs := a.vectorsWith(ix.textStats)
	if len(vecs) == 0 {
		return nil
	}
	v := vecs[0]
	for j, t := range v {
		term := a.terms[t.Case]
		id, ok := ix.termID[term]
		if !ok {
			if !e.terms {
				e.terms = true
				ix.terms, ix.termID = slices.Clip(ix.terms), maps.Clone(ix.termID)
			}
			id = int32(len(ix.terms))
			ix.terms = append(ix.terms, term)
			ix.termID[term] = id
			ix.textPost = append(ix.textPost, textPostings{})
			e.own[id] = true
		}
		v[j].Case = id
	}
	return v
}
