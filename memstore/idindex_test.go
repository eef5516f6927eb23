package memstore

import (
	"fmt"
	"testing"
)

// TestIDIndex checks the id table against a map: every id is found with
// its number, absent ids are not, a clone changes apart from its original,
// and a repeated id is reported.
func TestIDIndex(t *testing.T) {
	var ids []string
	var x idIndex
	want := map[string]int32{}
	for i := range 5000 {
		id := fmt.Sprintf("C-%05d", i*7)
		ids = append(ids, id)
		x.put(ids, int32(i))
		want[id] = int32(i)
	}
	check := func(name string, x idIndex, ids []string, want map[string]int32) {
		t.Helper()
		for id, w := range want {
			if got, ok := x.find(ids, id); !ok || got != w {
				t.Fatalf("%s: find(%q) = %d, %v; want %d", name, id, got, ok, w)
			}
		}
		for _, id := range []string{"", "C-00001", "C-99999", "c-00000"} {
			if got, ok := x.find(ids, id); ok {
				t.Fatalf("%s: find(%q) = %d, want none", name, id, got)
			}
		}
		if 2*x.n > len(x.slots) || x.n != len(want) {
			t.Fatalf("%s: %d cases in %d slots, want %d at most half full", name, x.n, len(x.slots), len(want))
		}
	}
	check("built by put", x, ids, want)
	y, dup := newIDIndex(ids, 0)
	if dup != "" {
		t.Fatalf("newIDIndex reports %q twice", dup)
	}
	check("made at once", y, ids, want)

	c := x.clone()
	ids2 := append(ids[:len(ids):len(ids)], "NEW-1")
	c.put(ids2, int32(len(ids)))
	want2 := map[string]int32{"NEW-1": int32(len(ids))}
	for id, w := range want {
		want2[id] = w
	}
	check("the clone after a put", c, ids2, want2)
	check("the original after its clone's put", x, ids, want)

	// Deletes as a snapshot makes them: the last case takes the deleted
	// case's number. A small table, so that probe runs wrap and collide.
	small := []string{}
	var z idIndex
	m := map[string]int32{}
	for i := range 300 {
		small = append(small, fmt.Sprintf("s%d", i))
		z.put(small, int32(i))
		m[small[i]] = int32(i)
	}
	for k := range 250 {
		i := int32((k * 37) % len(small))
		last := int32(len(small) - 1)
		z.remove(small, i, last)
		delete(m, small[i])
		if i != last {
			m[small[last]] = i
		}
		small[i] = small[last]
		small = small[:last]
		check(fmt.Sprintf("after delete %d", k), z, small, m)
	}

	if _, dup := newIDIndex([]string{"a", "b", "a", "c"}, 0); dup != "a" {
		t.Errorf("newIDIndex of a repeated id reports %q, want a", dup)
	}
	if e, dup := newIDIndex(nil, 0); e.slots != nil || dup != "" {
		t.Errorf("newIDIndex of no ids: %d slots, %q", len(e.slots), dup)
	}
}
