package memstore

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/arena"
)

// TestTitles: titles read back as written — empty ones, Korean ones, one
// longer than a chunk, enough to fill several chunks — and a title set on
// a copy (as a change sets it) leaves the titles the original reads, even
// when two copies of one original are set.
func TestTitles(t *testing.T) {
	var want []ilgraph.Text
	for i := range 30_000 {
		x := ilgraph.Text{En: fmt.Sprintf("Case %d: the %s went down", i, strings.Repeat("database ", i%7))}
		if i%3 == 0 {
			x.Ko = fmt.Sprintf("사례 %d: 데이터베이스 장애", i)
		}
		switch i {
		case 5:
			x = ilgraph.Text{}
		case 6:
			x.En = strings.Repeat("a long title ", arena.Chunk/10)
		}
		want = append(want, x)
	}
	ts := newTitles()
	for _, x := range want {
		ts.append(x)
	}
	if n := ts.At[len(ts.At)-1]>>32 + 1; n < 3 {
		t.Fatalf("%d chunks: the test fills fewer than it means to", n)
	}
	check := func(label string, ts titles, want []ilgraph.Text) {
		t.Helper()
		if len(ts.At) != len(want) {
			t.Fatalf("%s: %d titles, want %d", label, len(ts.At), len(want))
		}
		for i, w := range want {
			if got := ts.get(int32(i)); got != w {
				t.Fatalf("%s: title %d is %.60q / %.60q, want %.60q / %.60q", label, i, got.En, got.Ko, w.En, w.Ko)
			}
		}
	}
	check("written", ts, want)

	// Two changes to the same snapshot, as two copies of its columns.
	a, b := ts, ts
	a.At, b.At = slices.Clone(ts.At), slices.Clone(ts.At)
	wantA, wantB := slices.Clone(want), slices.Clone(want)
	a.set(7, ilgraph.Text{En: "changed in a"})
	wantA[7] = ilgraph.Text{En: "changed in a"}
	b.set(7, ilgraph.Text{En: "changed in b", Ko: "b에서 바뀜"})
	wantB[7] = ilgraph.Text{En: "changed in b", Ko: "b에서 바뀜"}
	a.At = append(a.At, 0)
	a.set(int32(len(want)), ilgraph.Text{En: "new in a"})
	wantA = append(wantA, ilgraph.Text{En: "new in a"})
	check("the original after two changes", ts, want)
	check("the first change", a, wantA)
	check("the second change", b, wantB)
}

// TestTitlesConcurrently: changes applied to copies of one snapshot's
// titles from several goroutines while others read the original — for
// the race detector, and each copy reads back its own title.
func TestTitlesConcurrently(t *testing.T) {
	ts := newTitles()
	for i := range 5000 {
		ts.append(ilgraph.Text{En: fmt.Sprintf("title %d", i)})
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				c := ts
				c.At = slices.Clone(ts.At)
				want := ilgraph.Text{En: fmt.Sprintf("writer %d, change %d", w, i), Ko: strings.Repeat("가", i%50)}
				c.set(int32(i), want)
				if got := c.get(int32(i)); got != want {
					t.Errorf("writer %d: got %q, want %q", w, got.En, want.En)
					return
				}
			}
		})
		wg.Go(func() {
			for i := range 5000 {
				if got, want := ts.get(int32(i)).En, fmt.Sprintf("title %d", i); got != want {
					t.Errorf("reader %d: title %d is %q", w, i, got)
					return
				}
			}
		})
	}
	wg.Wait()
}
