package arena_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph/internal/arena"
)

// TestAdd checks that records come back as written, across chunks, with a
// record longer than a chunk in one of its own, and that records added
// from many goroutines (as changes to snapshots of one corpus are) never
// overwrite each other.
func TestAdd(t *testing.T) {
	var a arena.Arena[int32]
	type rec struct {
		pos  uint64
		want []int32
	}
	var (
		mu   sync.Mutex
		recs []rec
		wg   sync.WaitGroup
	)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				n := (i*7 + g) % 300
				if i == 1500 && g == 0 {
					n = arena.Chunk // longer than a chunk of int32s
				}
				want := make([]int32, n)
				for j := range want {
					want[j] = int32(g<<24 | i<<8 | j&0xff)
				}
				pos, _ := a.Add(n, func(c []int32) []int32 { return append(c, want...) })
				mu.Lock()
				recs = append(recs, rec{pos, want})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	_, chunks := a.Add(0, func(c []int32) []int32 { return c })
	if len(chunks) < 2 {
		t.Fatalf("%d chunks, want records across several", len(chunks))
	}
	for k, r := range recs {
		c := chunks[r.pos>>32]
		off := int(uint32(r.pos))
		if got := c[off : off+len(r.want)]; !slices.Equal(got, r.want) {
			t.Fatalf("record %d (chunk %d, offset %d, %d long) reads back otherwise", k, r.pos>>32, off, len(r.want))
		}
	}
}

// TestAddLongerThanSaid panics: a record may not write past the size it
// was given, into the room of the records after it.
func TestAddLongerThanSaid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a record longer than its size did not panic")
		}
	}()
	var a arena.Arena[byte]
	a.Add(2, func(c []byte) []byte { return append(c, 1, 2, 3) })
}
