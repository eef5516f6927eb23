package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestWeightUpIsTheLeastBound checks the postings' one-byte weights: the
// bound a weight gets is at least the weight, and the next lower one is
// below it, for weights across [0, 1] and at every step's edges.
func TestWeightUpIsTheLeastBound(t *testing.T) {
	ws := []float32{0, 1, math.SmallestNonzeroFloat32, math.Nextafter32(1, 0)}
	for q := range 256 {
		v := float32(float64(q) / 255)
		ws = append(ws, v, math.Nextafter32(v, 0), math.Nextafter32(v, 2))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		ws = append(ws, r.Float32())
	}
	for _, w := range ws {
		if w < 0 || w > 1 {
			continue
		}
		q := weightUp(w)
		if ubWeight[q] < w {
			t.Fatalf("weightUp(%v) = %d, whose bound %v is below the weight", w, q, ubWeight[q])
		}
		if q > 0 && ubWeight[q-1] >= w {
			t.Fatalf("weightUp(%v) = %d, but %d's bound %v is already at least the weight", w, q, q-1, ubWeight[q-1])
		}
		if got := float64(ubWeight[q]); got < float64(q)/255 {
			t.Fatalf("ubWeight[%d] = %v, below %d/255", q, got, q)
		}
	}
}

// TestPostingsBoundTheVectors checks that every posting of an index bounds
// the weight its case's vector holds for the term, and that the postings
// are exactly the vectors inverted.
func TestPostingsBoundTheVectors(t *testing.T) {
	// Texts of words drawn from a small vocabulary, so that most words are
	// on several cases and under a third of them (the channel's terms).
	r := rand.New(rand.NewPCG(3, 4))
	var rows []ilgraph.CaseFeatures
	for i := range 300 {
		var words []string
		for range 20 + r.IntN(40) {
			words = append(words, fmt.Sprintf("w%03dx", r.IntN(400)))
		}
		rows = append(rows, ilgraph.CaseFeatures{ID: fmt.Sprintf("c%03d", i), Org: "Org", Text: strings.Join(words, " ")})
	}
	ix := Build(rows, 1)
	n := 0
	for c, v := range ix.textVec.list() {
		for _, tw := range v.terms(nil) {
			p := ix.textPost[tw.Case]
			j, ok := slicesIndex(p.cases, int32(c))
			if !ok {
				t.Fatalf("case %d has term %d but is not in its postings", c, tw.Case)
			}
			if ubWeight[p.ub[j]] < tw.W {
				t.Fatalf("case %d, term %d: bound %v below the weight %v", c, tw.Case, ubWeight[p.ub[j]], tw.W)
			}
			n++
		}
	}
	total := 0
	if term := WrongTextTops(ix); term != "" {
		t.Errorf("the postings of %q hold a top that is not their largest bound", term)
	}
	for _, p := range ix.textPost {
		if len(p.ub) != len(p.cases) {
			t.Fatalf("postings with %d cases and %d bounds", len(p.cases), len(p.ub))
		}
		total += len(p.cases)
	}
	if n == 0 || total != n {
		t.Fatalf("%d postings for %d vector terms", total, n)
	}
}

func slicesIndex(s []int32, x int32) (int, bool) {
	for i, v := range s {
		if v == x {
			return i, true
		}
	}
	return -1, false
}

// TestTextVectorRoundTrip checks the vectors' coding: terms of ids that
// take one to five bytes and weights of every kind come back in order and
// to the bit, a nil vector stays nil and an empty one empty, and vectors
// coded together are pieces that an append cannot run into each other.
func TestTextVectorRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var vecs [][]termWeight
	for i := range 200 {
		if i%50 == 7 {
			vecs = append(vecs, nil)
			continue
		}
		v := []termWeight{}
		for j := range r.IntN(60) {
			id := int32(r.Uint32() >> (1 + 7*uint(j%5)))
			w := math.Float32frombits(r.Uint32())
			if j%3 == 0 {
				w = r.Float32()
			}
			v = append(v, termWeight{id, w})
		}
		vecs = append(vecs, v)
	}
	coded := vectorsOf(vecs).list()
	for i, v := range vecs {
		got := coded[i].terms(nil)
		if (v == nil) != (coded[i] == nil) || len(got) != len(v) || coded[i].count() != len(v) {
			t.Fatalf("vector %d: %d terms (nil %v), coded %d (nil %v)", i, len(v), v == nil, len(got), coded[i] == nil)
		}
		for j := range v {
			if got[j].Case != v[j].Case || math.Float32bits(got[j].W) != math.Float32bits(v[j].W) {
				t.Fatalf("vector %d term %d: got %+v, want %+v", i, j, got[j], v[j])
			}
		}
		if cap(coded[i]) != len(coded[i]) {
			t.Fatalf("vector %d: capacity %d, length %d", i, cap(coded[i]), len(coded[i]))
		}
		if one := vectorOfTerms(v); string(one) != string(coded[i]) || (one == nil) != (v == nil) {
			t.Fatalf("vector %d coded alone differs from coded with the others", i)
		}
	}
}

// vectorOfTerms is v as a textVector of its own (nil for nil v).
func vectorOfTerms(v []termWeight) textVector {
	if v == nil {
		return nil
	}
	out, _ := encodeVector(make([]byte, 0, vectorSize(v)), v)
	return out
}
