package similarity

import (
	"encoding/binary"
	"math"
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

// vectorOfTerms is v as a textVector of its own (nil for nil v).
func vectorOfTerms(v []termWeight) textVector {
	if v == nil {
		return nil
	}
	out, _ := encodeVector(make([]byte, 0, vectorSize(v)), v)
	return out
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

// vectorArena codes vectors into chunks of memory shared by many: each
// vector a piece of a chunk, capped at its length (an append to one copies
// it rather than overwrite the next). Chunks grow from 4 KB to 1 MB, so a
// small corpus takes little and a large one leaves at most one longest
// vector unused per megabyte.
type vectorArena struct{ buf []byte }

const (
	arenaFirst = 4 << 10
	arenaMax   = 1 << 20
)

// add codes v (nil stays nil, empty stays empty).
func (a *vectorArena) add(v []termWeight) textVector {
	if v == nil {
		return nil
	}
	need := vectorSize(v)
	if cap(a.buf)-len(a.buf) < need {
		size := min(max(2*cap(a.buf), arenaFirst), arenaMax)
		a.buf = make([]byte, 0, max(size, need))
	}
	var out textVector
	out, a.buf = encodeVector(a.buf, v)
	return out
}

// encodeVectors codes the vectors vecs (see vectorArena); a nil vector
// stays nil. (A build codes each vector as it is weighed instead:
// buildText.)
func encodeVectors(vecs [][]termWeight) []textVector {
	if vecs == nil {
		return nil
	}
	var a vectorArena
	out := make([]textVector, len(vecs))
	for i, v := range vecs {
		out[i] = a.add(v)
	}
	return out
}
