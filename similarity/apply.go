package similarity

import (
	"maps"
	"slices"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
)

// Apply follows one case's change (memstore.Applier): the index over next,
// from the index over the snapshot before it.
func (*consumer) Apply(v any, next *memstore.Snapshot, m memstore.Moved, _ string, c *ilgraph.Case) (any, error) {
	text := ""
	if c != nil {
		text = ilgraph.SimilarityText(c.Trigger.En, c.Lessons.En)
	}
	return v.(*Index).With(next, m, text), nil
}

// With returns the index over next, the snapshot after one case's change
// (m, as memstore.Snapshot.With says; text is the changed case's
// SimilarityText). ix is not changed. The rarity factors and per-kind sums
// follow the new corpus exactly, as a build over it makes them (they cost
// a pass over the features, not over the texts). The text channel keeps
// the corpus statistics of the build the index started from: the changed
// case's text is weighed with them (BuildFrozen's rule), the other cases'
// vectors stay, and the next build (memstore.Source's settling build)
// weighs every text with the corpus's own statistics again.
func (ix *Index) With(next *memstore.Snapshot, m memstore.Moved, text string) *Index {
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
	// The text vectors: the changed case's goes (Old) and comes (New), and
	// a delete moves the last case's to the deleted case's number.
	if m.Old >= 0 {
		n.dropVector(m.Old)
	}
	switch {
	case m.New < 0 && m.Old < 0: // the delete of a case the index did not have
	case m.New < 0 && m.From >= 0:
		for _, t := range n.textVec.get(m.From).terms(nil) {
			n.textPost[t.Case] = n.textPost[t.Case].without(m.From).with(m.Old, t.W)
		}
		n.textVec.At[m.Old] = n.textVec.At[m.From]
		n.textVec.At = n.textVec.At[:m.From]
	case m.New < 0:
		n.textVec.At = n.textVec.At[:n.textVec.len()-1]
	default:
		if int(m.New) == n.textVec.len() {
			n.textVec.At = append(n.textVec.At, noVector)
		}
		v := n.vectorOf(text)
		for _, t := range v {
			n.textPost[t.Case] = n.textPost[t.Case].with(m.New, t.W)
		}
		n.textVec.set(m.New, v)
	}
	return n
}

// dropVector takes case i's text vector out of the postings.
func (ix *Index) dropVector(i int32) {
	for _, t := range ix.textVec.get(i).terms(nil) {
		ix.textPost[t.Case] = ix.textPost[t.Case].without(i)
	}
	ix.textVec.At[i] = noVector
}

// vectorOf is the text vector of text under the index's text statistics,
// by the index's term ids (numbering the terms it did not have).
func (ix *Index) vectorOf(text string) []termWeight {
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
			id = int32(len(ix.terms))
			ix.terms = append(slices.Clip(ix.terms), term)
			ix.termID = maps.Clone(ix.termID)
			ix.termID[term] = id
			ix.textPost = append(ix.textPost, textPostings{})
		}
		v[j].Case = id
	}
	return v
}
