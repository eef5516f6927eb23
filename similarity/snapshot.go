package similarity

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/memstore"
)

// Frozen corpus statistics. Under the default options a score depends on
// the whole corpus: a feature's rarity factor follows how many cases have
// it, a text term's weight how many cases use it (and the organization
// names the analyser leaves out). The stored SIMILAR_TO links are computed
// under a snapshot of those statistics, taken by the last full write-back
// (graph.SimilarSnapshot): with it fixed, a score depends on the two cases
// alone, and a load changes only the links of the cases it can reach, which
// an incremental write-back recomputes exactly (see affected).

// Snapshot returns the statistics the index's weights follow: the corpus's
// own for an index made by Build. Features keep the index's numbering;
// terms are in byte order.
func (ix *Index) Snapshot() *graph.SimilarSnapshot {
	s := &graph.SimilarSnapshot{N: ix.rarityN, Features: slices.Clone(ix.features), Extra: slices.Clone(ix.textStats.Extra)}
	s.FeatureDF = make([]int, len(ix.postings))
	for f, p := range ix.postings {
		s.FeatureDF[f] = len(p)
	}
	for t := range ix.textStats.DF {
		s.Terms = append(s.Terms, t)
	}
	sort.Strings(s.Terms)
	s.TermDF = make([]int, len(s.Terms))
	for i, t := range s.Terms {
		s.TermDF[i] = ix.textStats.DF[t]
	}
	return s
}

func textStatsOf(s *graph.SimilarSnapshot) TextStats {
	st := TextStats{N: s.N, DF: make(map[string]int, len(s.Terms)), Extra: s.Extra}
	for i, t := range s.Terms {
		st.DF[t] = s.TermDF[i]
	}
	return st
}

// A case under a snapshot, as the write-back stores it on the case
// (similar_vec): its features as positions in the snapshot's feature list,
// ascending, and its text vector as positions in the snapshot's term list,
// ascending, each with its weight (float32 bits). Counts and positions are
// unsigned varints, positions as deltas from the previous one.
type frozenCase struct {
	feats []int32
	text  []termWeight // Case is the term's position
}

func (c frozenCase) encode() []byte {
	b := make([]byte, 0, 4+2*len(c.feats)+6*len(c.text))
	b = binary.AppendUvarint(b, uint64(len(c.feats)))
	prev := int32(0)
	for _, f := range c.feats {
		b = binary.AppendUvarint(b, uint64(f-prev))
		prev = f
	}
	b = binary.AppendUvarint(b, uint64(len(c.text)))
	prev = 0
	for _, t := range c.text {
		b = binary.AppendUvarint(b, uint64(t.Case-prev))
		prev = t.Case
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(t.W))
	}
	return b
}

// decodeFrozen reads an encoded case; ok is false when b is not one made
// under a snapshot of nFeat features and nTerms terms.
func decodeFrozen(b []byte, nFeat, nTerms int) (c frozenCase, ok bool) {
	next := func() (int, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	nf, ok := next()
	if !ok || nf > len(b) {
		return c, false
	}
	c.feats = make([]int32, nf)
	at := 0
	for i := range c.feats {
		d, ok := next()
		if !ok || i > 0 && d == 0 || at+d >= nFeat {
			return c, false
		}
		at += d
		c.feats[i] = int32(at)
	}
	nt, ok := next()
	if !ok || nt > len(b) {
		return c, false
	}
	c.text = make([]termWeight, nt)
	at = 0
	for i := range c.text {
		d, ok := next()
		if !ok || i > 0 && d == 0 || at+d >= nTerms || len(b) < 4 {
			return c, false
		}
		at += d
		c.text[i] = termWeight{int32(at), math.Float32frombits(binary.LittleEndian.Uint32(b))}
		b = b[4:]
	}
	return c, len(b) == 0
}

// frozenOf computes rows under a snapshot, numbering a feature the
// snapshot does not have at its end (frequency 0: snap grows).
func frozenOf(rows []ilgraph.CaseFeatures, snap *graph.SimilarSnapshot, featID map[ilgraph.Feature]int32, termID map[string]int32) []frozenCase {
	vecs := TextVectorsWith(rows, textStatsOf(snap))
	out := make([]frozenCase, len(rows))
	for i, r := range rows {
		var fs []int32
		for _, f := range r.Features {
			id, ok := featID[f]
			if !ok {
				id = int32(len(snap.Features))
				featID[f] = id
				snap.Features = append(snap.Features, f)
				snap.FeatureDF = append(snap.FeatureDF, 0)
			}
			fs = append(fs, id)
		}
		slices.Sort(fs)
		out[i].feats = slices.Compact(fs)
		terms := make([]string, 0, len(vecs[i]))
		for t := range vecs[i] {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		for _, t := range terms {
			out[i].text = append(out[i].text, termWeight{termID[t], float32(vecs[i][t])})
		}
	}
	return out
}

// frozenCases returns each case of an index made by Build under its own
// Snapshot s, numbered as s numbers features and terms.
func (ix *Index) frozenCases(s *graph.SimilarSnapshot) []frozenCase {
	pos := make(map[string]int32, len(s.Terms))
	for i, t := range s.Terms {
		pos[t] = int32(i)
	}
	out := make([]frozenCase, ix.Len())
	for i := range out {
		out[i].feats = ix.caseFeat.Sorted(int32(i))
		for _, t := range ix.textVec.get(int32(i)).terms(nil) {
			out[i].text = append(out[i].text, termWeight{pos[ix.terms[t.Case]], t.W})
		}
	}
	return out
}

// compactIndex makes an index, for ranking only (no read model, no
// filters), of cases already computed under a snapshot.
func compactIndex(snap *graph.SimilarSnapshot, ids []string, cases []frozenCase) *Index {
	feats := make([][]int32, len(cases))
	for i, c := range cases {
		feats[i] = c.feats
	}
	s := memstore.Ranking(snap.Features, ids, feats)
	n := len(ids)
	ix := &Index{
		snap: s, features: s.FeatureList(), postings: s.Postings(), caseFeat: s.CaseFeatureIDs(),
		rarity: make([]float64, len(snap.Features)), rarityN: snap.N,
		terms: snap.Terms,
	}
	for f := range snap.Features {
		ix.rarity[f] = ilgraph.Rarity(snap.N, snap.FeatureDF[f])
	}
	ix.sumKinds()
	vecs := make([][]termWeight, n)
	for i, c := range cases {
		vecs[i] = c.text
	}
	ix.textVec = vectorsOf(vecs)
	ix.textPost = invertText(&ix.textVec, len(snap.Terms))
	ix.scratch.New = func() any { return &scratch{acc: make([]accum, n)} }
	return ix
}
