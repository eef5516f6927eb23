package similarity

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/ilgraph/ilgraph/internal/arena"
)

// textVector is a case's text vector as the index keeps it: per term, in
// the vector's order, the term id as a uvarint and then the weight's four
// bytes (float32, little endian). Term ids are small (a few bytes where an
// int32 took four), and the weights are kept to the bit, so every sum over
// a vector is the one its terms make. Empty for a case without text; nil
// for a case the index does not have.
type textVector []byte

// encodeVector appends the vector v to buf, and returns what it added.
func encodeVector(buf []byte, v []termWeight) (textVector, []byte) {
	if len(v) == 0 {
		return textVector{}, buf
	}
	at := len(buf)
	for _, t := range v {
		buf = binary.AppendUvarint(buf, uint64(uint32(t.Case)))
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(t.W))
	}
	return textVector(buf[at:len(buf):len(buf)]), buf
}

// vectorSize is how many bytes v takes as a textVector.
func vectorSize(v []termWeight) int {
	n := 0
	for _, t := range v {
		n += uvarintLen(uint32(t.Case)) + 4
	}
	return n
}

func uvarintLen(x uint32) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// next reads the term at byte i of v: its id, its weight and where the
// next term begins. Small enough to inline, as the exact cosine's loop
// wants it.
func (v textVector) next(i int) (id int32, w float32, j int) {
	x := uint32(v[i] & 0x7f)
	for shift := uint(7); v[i] >= 0x80; shift += 7 {
		i++
		x |= uint32(v[i]&0x7f) << shift
	}
	return int32(x), math.Float32frombits(binary.LittleEndian.Uint32(v[i+1 : i+5])), i + 5
}

// terms appends v's terms to buf, in order.
func (v textVector) terms(buf []termWeight) []termWeight {
	for i := 0; i < len(v); {
		id, w, j := v.next(i)
		buf = append(buf, termWeight{id, w})
		i = j
	}
	return buf
}

// count is how many terms v has.
func (v textVector) count() int {
	n := 0
	for i := 0; i < len(v); {
		_, _, i = v.next(i)
		n++
	}
	return n
}

// vectors are the cases' text vectors, each a record in an arena shared
// by the indexes made one from another (With). A case holds its vector's
// place in 8 bytes — its chunk (20 bits), its offset in the chunk (20)
// and its length (24) — where a slice header took 24 bytes and a pointer
// for the collector, and a change copies places. The zero value is an
// index without a text channel.
type vectors struct {
	arena.Column[byte] // At: case -> its vector's place (noVector: nil)
}

// noVector is the place of a nil vector: a case the index does not have
// (an empty one is a record of no bytes).
const noVector = ^uint64(0)

const (
	placeLenBits = 24
	placeOffBits = 20 // arena.Chunk is 1 << 20 bytes: an offset is less
	placeMaxLen  = 1<<placeLenBits - 1
	placeMaxPart = 1<<placeOffBits - 1
)

// newVectors returns vectors for n cases, every one nil until set.
func newVectors(n int) vectors {
	vs := vectors{arena.NewColumn[byte]()}
	vs.At = make([]uint64, n)
	for i := range vs.At {
		vs.At[i] = noVector
	}
	return vs
}

// vectorsOf codes vecs (a nil vector stays nil, an empty one empty).
func vectorsOf(vecs [][]termWeight) vectors {
	if vecs == nil {
		return vectors{}
	}
	vs := newVectors(len(vecs))
	for i, v := range vecs {
		vs.set(int32(i), v)
	}
	return vs
}

// add writes v to the arena and returns its place.
func (vs *vectors) add(v []termWeight) uint64 {
	if v == nil {
		return noVector
	}
	size := vectorSize(v)
	pos := vs.Add(size, func(c []byte) []byte {
		_, c = encodeVector(c, v)
		return c
	})
	chunk, off := pos>>32, pos&(1<<32-1)
	if size > placeMaxLen || off > placeMaxPart || chunk >= placeMaxPart {
		// 16 MB in one vector, or a terabyte of vectors: not a text
		// vector of MaxTextTerms terms.
		panic("similarity: a text vector out of what its place can say")
	}
	return chunk<<(placeOffBits+placeLenBits) | off<<placeLenBits | uint64(size)
}

// set makes v case i's vector (vs.At is these vectors' own).
func (vs *vectors) set(i int32, v []termWeight) { vs.At[i] = vs.add(v) }

// len is the number of cases.
func (vs *vectors) len() int { return len(vs.At) }

// get returns case i's vector, capped at its length. Read only.
func (vs *vectors) get(i int32) textVector {
	p := vs.At[i]
	if p == noVector {
		return nil
	}
	c := vs.Chunk(p >> (placeOffBits + placeLenBits))
	off, n := int(p>>placeLenBits)&placeMaxPart, int(p&placeMaxLen)
	return textVector(c[off : off+n : off+n])
}

// clone returns vectors that share vs's records and may be changed
// without changing vs.
func (vs *vectors) clone() vectors {
	n := *vs
	n.At = slices.Clone(vs.At)
	return n
}

// list returns every case's vector.
func (vs vectors) list() []textVector {
	if vs.At == nil {
		return nil
	}
	out := make([]textVector, vs.len())
	for i := range out {
		out[i] = vs.get(int32(i))
	}
	return out
}
