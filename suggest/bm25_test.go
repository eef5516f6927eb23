package suggest

import (
	"math/rand"
	"testing"
)

// TestPostingsRoundTrip checks the varint coding of postings: every case
// and count added comes back in order, across gaps and counts of one, two
// and three bytes.
func TestPostingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	type pair struct{ c, tf int32 }
	var want []pair
	var p postings
	c := int32(rng.Intn(3))
	for i := 0; i < 5000; i++ {
		tf := int32(1 + rng.Intn([]int{3, 300, 40000}[i%3]))
		want = append(want, pair{c, tf})
		p.add(c, tf)
		c += int32(1 + rng.Intn([]int{2, 500, 70000}[i%3]))
	}
	var got []pair
	p.each(func(c, tf int32) { got = append(got, pair{c, tf}) })
	if len(got) != len(want) || int(p.df) != len(want) {
		t.Fatalf("got %d postings (df %d), want %d", len(got), p.df, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("posting %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if !p.valid(int(want[len(want)-1].c) + 1) {
		t.Errorf("the postings as added are not valid")
	}
	if p.valid(int(want[len(want)-1].c)) {
		t.Errorf("the postings are valid for a corpus without their last case")
	}
	if tf := tfIn(&p, int(want[1234].c)); tf != want[1234].tf {
		t.Errorf("tfIn: got %d, want %d", tf, want[1234].tf)
	}
	if tf := tfIn(&p, int(want[1234].c)+1); tf != 0 {
		t.Errorf("tfIn of a case without the term: got %d, want 0", tf)
	}
}
