package ilgraph_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestCosineSameBits checks that Cosine gives the same bits for the same
// two vectors on every call and in either order, whatever order the maps
// iterate in: an index built by streaming and one built at once must rank
// and explain alike (a sum in map order varied in its last bit).
func TestCosineSameBits(t *testing.T) {
	a, b := ilgraph.TextVector{}, ilgraph.TextVector{}
	var na, nb float64
	for i := 0; i < 200; i++ {
		x, y := 1/float64(i+3), math.Sqrt(float64(i%17+1))/7
		a["t"+strconv.Itoa(i)], b["t"+strconv.Itoa(199-i)] = x, y
		na, nb = na+x*x, nb+y*y
	}
	for t := range a {
		a[t] /= math.Sqrt(na)
	}
	for t := range b {
		b[t] /= math.Sqrt(nb)
	}
	want := ilgraph.Cosine(a, b)
	if want <= 0 || want > 1 {
		t.Fatalf("Cosine = %v, want in (0, 1]", want)
	}
	for i := 0; i < 200; i++ {
		if got := ilgraph.Cosine(a, b); got != want {
			t.Fatalf("call %d: Cosine(a, b) = %v, want %v", i, got, want)
		}
		if got := ilgraph.Cosine(b, a); got != want {
			t.Fatalf("call %d: Cosine(b, a) = %v, want %v", i, got, want)
		}
	}
	var direct float64
	for t, x := range a {
		direct += x * b[t]
	}
	if math.Abs(direct-want) > 1e-12 {
		t.Errorf("Cosine = %v, the plain sum %v", want, direct)
	}
}
