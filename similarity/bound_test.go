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
	for c, v := range ix.textVec {
		for _, tw := range v {
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
