package similarity

import (
	"context"
	"fmt"
	"slices"

	"github.com/ilgraph/ilgraph/internal/snapfile"
	"github.com/ilgraph/ilgraph/memstore"
)

// The index in a snapshot file (memstore.Persister). The memstore snapshot
// is saved and read back apart, and the index shares its ids, features,
// postings and case features; what the index adds that costs a build its
// time is the text channel — every case's text analysed and weighed — so
// its section holds that, and nothing that is cheap to derive again: the
// rarity factors, the per-kind sums and the text postings (the inversion
// of the text vectors) are derived at load by the code a build derives
// them with (weighFeatures, invertText), so that a loaded index is the
// built one, to the bit. The section, in order:
//
//	Int      MaxTextTerms, TextMinDF  } the text channel's parameters the
//	Float64  TextMaxDFShare           } vectors were weighed under
//	Int      rarityN
//	Int      textStats.N
//	Strings  textStats.Extra
//	Strings  terms                     term id -> term
//	Int32s   the document frequency of each term in terms (textStats.DF),
//	         by term id, -1 for a term DF lacks
//	Strings  DF's other terms, in byte order
//	Int32s   their document frequencies
//	Int32s   case -> the length of its text vector, -1 for nil
//	Uvarint  the vectors' total length
//	then the vectors one after another, in pieces of at most textChunk
//	(term, weight) pairs, each piece
//	Int32s   term ids
//	Float32s weights
//
// At a million cases the vectors hold some 46 million pairs: pieces keep
// what a load holds besides the index to a few megabytes rather than a
// copy of them all.

// persistName names the section; see memstore.Persister.PersistName.
const persistName = "similarity/1"

// textChunk is the most (term, weight) pairs Save writes in one piece.
const textChunk = 1 << 20

var _ memstore.Persister = (*consumer)(nil)

// PersistName names the index's section of a snapshot file.
func (*consumer) PersistName() string { return persistName }

// Save writes what the index v (a full build's) holds beyond its snapshot:
// the text channel.
func (*consumer) Save(w *snapfile.Writer, v any) error {
	ix, ok := v.(*Index)
	if !ok || ix == nil {
		return fmt.Errorf("similarity: cannot save a %T as a similarity index", v)
	}
	// The parameters, so that a file weighed under others is refused
	// rather than served beside vectors this build would weigh otherwise.
	w.Int(MaxTextTerms)
	w.Int(TextMinDF)
	w.Float64(TextMaxDFShare)
	w.Int(ix.rarityN)
	w.Int(ix.textStats.N)
	w.Strings(ix.textStats.Extra)
	w.Strings(ix.terms)
	// DF by term id holds every term of a vector (a vector only has terms
	// the statistics keep) without writing it twice; the terms the
	// vectors left out follow by name.
	termDF := make([]int32, len(ix.terms))
	inTerms := make(map[string]bool, len(ix.terms))
	for id, t := range ix.terms {
		inTerms[t] = true
		termDF[id] = -1
		if d, ok := ix.textStats.DF[t]; ok {
			if d < 0 || d > 1<<31-1 {
				return fmt.Errorf("similarity: term %q has a document frequency of %d", t, d)
			}
			termDF[id] = int32(d)
		}
	}
	var others []string
	for t := range ix.textStats.DF {
		if !inTerms[t] {
			others = append(others, t)
		}
	}
	slices.Sort(others) // the same index, the same bytes
	otherDF := make([]int32, len(others))
	for i, t := range others {
		d := ix.textStats.DF[t]
		if d < 0 || d > 1<<31-1 {
			return fmt.Errorf("similarity: term %q has a document frequency of %d", t, d)
		}
		otherDF[i] = int32(d)
	}
	w.Int32s(termDF)
	w.Strings(others)
	w.Int32s(otherDF)
	var lens []int32
	if ix.textVec.At != nil {
		lens = make([]int32, ix.textVec.len())
	}
	total := 0
	for i := range lens {
		v := ix.textVec.get(int32(i))
		n := v.count()
		lens[i] = int32(n)
		if v == nil {
			lens[i] = -1
		}
		total += n
	}
	w.Int32s(lens)
	w.Uvarint(uint64(total))
	// The pairs, in pieces; the writer copies each piece as it goes, so
	// that one pair of buffers serves them all.
	ids := make([]int32, 0, min(total, textChunk))
	ws := make([]float32, 0, min(total, textChunk))
	flush := func() {
		w.Int32s(ids)
		w.Float32s(ws)
		ids, ws = ids[:0], ws[:0]
	}
	var terms []termWeight
	for i := range ix.textVec.len() {
		terms = ix.textVec.get(int32(i)).terms(terms[:0])
		for _, t := range terms {
			ids = append(ids, t.Case)
			ws = append(ws, t.W)
			if len(ids) == textChunk {
				flush()
			}
		}
	}
	if len(ids) > 0 {
		flush()
	}
	return w.Err()
}

// Load reads what Save wrote and returns the index over s, identical to
// the one a build over s makes (Built is s's). A section of another corpus
// (another number of cases) or with values no Save writes (a term id out
// of range, a term twice in a vector) is an error, never a panic; damage
// that leaves the values plausible is the checksum's to find
// (snapfile.Reader.Close).
func (*consumer) Load(ctx context.Context, r *snapfile.Reader, s *memstore.Snapshot) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("similarity: no snapshot to load the index over")
	}
	maxTerms, minDF, maxShare := r.Int(), r.Int(), r.Float64()
	if r.Err() == nil && (maxTerms != MaxTextTerms || minDF != TextMinDF || maxShare != TextMaxDFShare) {
		r.Fail("similarity: text vectors of at most %d terms with %d ≤ df ≤ N·%v, this ilgraph weighs at most %d with %d ≤ df ≤ N·%v",
			maxTerms, minDF, maxShare, MaxTextTerms, TextMinDF, TextMaxDFShare)
	}
	rarityN := r.Int()
	statsN := r.Int()
	extra := r.Strings()
	terms := r.Strings()
	termDF := r.Int32s()
	others := r.Strings()
	otherDF := r.Int32s()
	lens := r.Int32s()
	total := r.Len()
	if err := r.Err(); err != nil {
		return nil, err
	}
	// The section must be of s's corpus: a vector per case, and, the index
	// weighing by the corpus's own statistics, rarity factors and text
	// weights over its number of cases.
	switch {
	case len(lens) != s.Len():
		r.Fail("similarity: text vectors of %d cases, the snapshot has %d", len(lens), s.Len())
	case rarityN != s.Len() || statsN != s.Len():
		r.Fail("similarity: rarity over %d cases and text weights over %d, the snapshot has %d", rarityN, statsN, s.Len())
	case len(termDF) != len(terms) || len(otherDF) != len(others):
		r.Fail("similarity: %d document frequencies of %d terms, %d of %d others (the file is damaged)", len(termDF), len(terms), len(otherDF), len(others))
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	// The rarity factors and per-kind sums, as a build derives them.
	ix := indexOver(s)
	ix.weighFeatures(nil)
	ix.textStats = TextStats{N: statsN, DF: make(map[string]int, len(termDF)+len(otherDF)), Extra: extra}
	for id, d := range termDF {
		if d < -1 {
			r.Fail("similarity: a document frequency of %d (the file is damaged)", d)
			return nil, r.Err()
		}
		if d >= 0 {
			ix.textStats.DF[terms[id]] = int(d)
		}
	}
	for i, d := range otherDF {
		if d < 0 {
			r.Fail("similarity: a document frequency of %d (the file is damaged)", d)
			return nil, r.Err()
		}
		ix.textStats.DF[others[i]] = int(d)
	}
	// The vectors, coded as they are read (vectorArena), none longer than
	// MaxTextTerms, which bounds what a damaged length can make the load
	// allocate.
	sum := 0
	for _, n := range lens {
		if n < -1 || n > MaxTextTerms {
			r.Fail("similarity: a text vector of length %d (the file is damaged)", n)
			return nil, r.Err()
		}
		sum += max(int(n), 0)
	}
	if sum != total {
		r.Fail("similarity: text vectors' lengths add up to %d, not %d (the file is damaged)", sum, total)
		return nil, r.Err()
	}
	var vecs vectors
	if lens != nil {
		vecs = newVectors(len(lens))
	}
	var (
		cur = make([]termWeight, 0, MaxTextTerms)
		vi  int // the vector being read
	)
	// next codes the vectors of no terms from vi on, and says whether one
	// with terms is left to read.
	next := func() bool {
		for ; vi < len(lens) && lens[vi] <= 0; vi++ {
			if lens[vi] == 0 {
				vecs.set(int32(vi), []termWeight{})
			}
		}
		return vi < len(lens)
	}
	for at := 0; at < total; {
		ids, ws := r.Int32s(), r.Float32s()
		if err := r.Err(); err != nil {
			return nil, err
		}
		if len(ids) == 0 || len(ids) > total-at || len(ws) != len(ids) {
			r.Fail("similarity: a piece of %d terms and %d weights with %d of %d pairs read (the file is damaged)", len(ids), len(ws), at, total)
			return nil, r.Err()
		}
		for j, id := range ids {
			if uint32(id) >= uint32(len(terms)) {
				r.Fail("similarity: term id %d of %d terms (the file is damaged)", id, len(terms))
				return nil, r.Err()
			}
			next() // the lengths add up to total: a vector with terms is left
			cur = append(cur, termWeight{id, ws[j]})
			if len(cur) == int(lens[vi]) {
				vecs.set(int32(vi), cur)
				cur = cur[:0]
				vi++
			}
		}
		at += len(ids)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	next()
	// The postings, as a build inverts the vectors. Each list must be
	// strictly ascending — a term at most once in a vector — as the
	// rankers and with's binary search take it to be.
	ix.terms, ix.textVec = terms, vecs
	ix.textPost = invertText(&ix.textVec, len(terms))
	for id, p := range ix.textPost {
		for k := 1; k < len(p.cases); k++ {
			if p.cases[k] <= p.cases[k-1] {
				r.Fail("similarity: case %d has term %q twice (the file is damaged)", p.cases[k], terms[id])
				return nil, r.Err()
			}
		}
	}
	return ix, nil
}
