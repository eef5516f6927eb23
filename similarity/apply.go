package similarity

import (
	"cmp"
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
// weighs every text with the corpus's own statistics again. The changes'
// edits of a term's postings are gathered and merged into one new list
// once the last change is read: a term shared by many changed cases costs
// one pass over its list, not one move of its tail per change.
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
	e := textEditor{ix: n, edits: map[int32][]postingEdit{}}
	for k, m := range moves {
		e.move(m, texts[k])
	}
	e.finish()
	return n
}

// textEditor applies changes to an index's text vectors (WithAll),
// copying what numbers terms the first time a change adds one, and
// gathers the changes' edits of each term's postings, in order, for
// finish to merge.
type textEditor struct {
	ix    *Index
	terms bool                    // terms and termID are the index's own
	edits map[int32][]postingEdit // by term, in the order the changes made them
}

// postingEdit gives a case a weight in a term's postings (ub, as weightUp
// makes it) or, with drop, takes it out.
type postingEdit struct {
	c    int32
	ub   uint8
	drop bool
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

// addCase gives case c the weight w in term's postings.
func (e *textEditor) addCase(term, c int32, w float32) {
	e.edits[term] = append(e.edits[term], postingEdit{c: c, ub: weightUp(w)})
}

// dropCase takes case c out of term's postings.
func (e *textEditor) dropCase(term, c int32) {
	e.edits[term] = append(e.edits[term], postingEdit{c: c, drop: true})
}

// finish writes every edited term's postings anew: the list it had, with
// each edited case as its last edit left it. The lists the index started
// from are not changed (readers may hold them).
func (e *textEditor) finish() {
	for term, edits := range e.edits {
		// Stable: a case's edits keep the changes' order, the last wins.
		slices.SortStableFunc(edits, func(a, b postingEdit) int { return cmp.Compare(a.c, b.c) })
		last := edits[:0]
		for k, ed := range edits {
			if k+1 < len(edits) && edits[k+1].c == ed.c {
				continue
			}
			last = append(last, ed)
		}
		p := &e.ix.textPost[term]
		was := *p
		cases := make([]int32, 0, len(was.cases)+len(last))
		ub := make([]uint8, 0, cap(cases))
		i := 0
		for _, ed := range last {
			for i < len(was.cases) && was.cases[i] < ed.c {
				cases, ub = append(cases, was.cases[i]), append(ub, was.ub[i])
				i++
			}
			if i < len(was.cases) && was.cases[i] == ed.c {
				i++
			}
			if !ed.drop {
				cases, ub = append(cases, ed.c), append(ub, ed.ub)
			}
		}
		cases, ub = append(cases, was.cases[i:]...), append(ub, was.ub[i:]...)
		p.cases, p.ub, p.top = slices.Clip(cases), slices.Clip(ub), topOf(ub)
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
		}
		v[j].Case = id
	}
	return v
}
