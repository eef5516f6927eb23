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

// TestCompactCopiesOnlyShortLists checks what a build's end costs: after
// compact, no term's postings keep more room unused than an eighth of
// their length and postingsSlack, and the long lists — grown by an eighth
// at a time — are not copied, so that the end of a build at a million
// cases allocates only the short lists again. Every list still reads back
// the cases and counts added.
func TestCompactCopiesOnlyShortLists(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	ix := &bm25{ids: map[string]int32{}}
	words := []string{"common", "often", "sometimes", "rare", "unique"}
	every := []int{1, 3, 40, 900, 1 << 30}
	type pair struct{ c, tf int32 }
	want := map[string][]pair{}
	for c := range 20000 {
		var d []string
		for w, word := range words {
			if c%every[w] == 0 {
				tf := 1 + rng.Intn(3)
				for range tf {
					d = append(d, word)
				}
				want[word] = append(want[word], pair{int32(c), int32(tf)})
			}
		}
		ix.add(d)
	}
	before := map[string]*byte{}
	for _, w := range words {
		if p := ix.post[ix.ids[w]]; len(p.buf) >= 4096 {
			before[w] = &p.buf[0]
		}
	}
	if len(before) < 2 {
		t.Fatalf("%d long lists, want the test to have several", len(before))
	}
	ix.compact()
	for _, w := range words {
		p := ix.post[ix.ids[w]]
		if room := cap(p.buf) - len(p.buf); room > len(p.buf)/8+postingsSlack {
			t.Errorf("%s: %d bytes unused of %d after compact", w, room, cap(p.buf))
		}
		if b, ok := before[w]; ok && b != &p.buf[0] {
			t.Errorf("%s: a long list (%d bytes) was copied by compact", w, len(p.buf))
		}
		var got []pair
		p.each(func(c, tf int32) { got = append(got, pair{c, tf}) })
		if len(got) != len(want[w]) {
			t.Fatalf("%s: %d postings, want %d", w, len(got), len(want[w]))
		}
		for i := range got {
			if got[i] != want[w][i] {
				t.Fatalf("%s posting %d: got %+v, want %+v", w, i, got[i], want[w][i])
			}
		}
	}
}
