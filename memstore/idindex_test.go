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
		x.put(colOf(ids), int32(i))
		want[id] = int32(i)
	}
	check := func(name string, x idIndex, ids []string, want map[string]int32) {
		t.Helper()
		for id, w := range want {
			if got, ok := x.find(colOf(ids), id); !ok || got != w {
				t.Fatalf("%s: find(%q) = %d, %v; want %d", name, id, got, ok, w)
			}
		}
		for _, id := range []string{"", "C-00001", "C-99999", "c-00000"} {
			if got, ok := x.find(colOf(ids), id); ok {
				t.Fatalf("%s: find(%q) = %d, want none", name, id, got)
			}
		}
		if 2*x.n > len(x.slots) || x.n != len(want) {
			t.Fatalf("%s: %d cases in %d slots, want %d at most half full", name, x.n, len(x.slots), len(want))
		}
	}
	check("built by put", x, ids, want)
	y, dup := newIDIndex(colOf(ids), 0)
	if dup != "" {
		t.Fatalf("newIDIndex reports %q twice", dup)
	}
	check("made at once", y, ids, want)

	c := x.clone()
	ids2 := append(ids[:len(ids):len(ids)], "NEW-1")
	c.put(colOf(ids2), int32(len(ids)))
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
		z.put(colOf(small), int32(i))
		m[small[i]] = int32(i)
	}
	for k := range 250 {
		i := int32((k * 37) % len(small))
		last := int32(len(small) - 1)
		z.remove(colOf(small), i, last)
		delete(m, small[i])
		if i != last {
			m[small[last]] = i
		}
		small[i] = small[last]
		small = small[:last]
		check(fmt.Sprintf("after delete %d", k), z, small, m)
	}

	if _, dup := newIDIndex(colOf([]string{"a", "b", "a", "c"}), 0); dup != "a" {
		t.Errorf("newIDIndex of a repeated id reports %q, want a", dup)
	}
	if e, dup := newIDIndex(colOf(nil), 0); e.slots != nil || dup != "" {
		t.Errorf("newIDIndex of no ids: %d slots, %q", len(e.slots), dup)
	}
}

// colOf is a column of ids, for the table's tests.
func colOf(ids []string) *idColumn {
	c := idColumnOf(ids)
	return &c
}

// The ids column reads back every id as written, the empty one included,
// across the arena's chunks, and a copy's set changes only the copy.
func TestIDColumn(t *testing.T) {
	var want []string
	c := newIDColumn()
	for i := range 200_000 {
		id := fmt.Sprintf("GEN-%07d", i)
		if i%1000 == 0 {
			id = ""
		}
		want = append(want, id)
		c.append(id)
	}
	if c.len() != len(want) {
		t.Fatalf("len %d, want %d", c.len(), len(want))
	}
	for i, w := range want {
		if got := c.at(int32(i)); got != w {
			t.Fatalf("at(%d) = %q, want %q", i, got, w)
		}
	}
	d := c
	d.At = append([]uint64(nil), c.At...)
	d.set(7, "CHANGED-7")
	if got := d.at(7); got != "CHANGED-7" {
		t.Errorf("the copy's id 7 is %q after set", got)
	}
	if got := c.at(7); got != want[7] {
		t.Errorf("the original's id 7 is %q after the copy's set, want %q", got, want[7])
	}
}
