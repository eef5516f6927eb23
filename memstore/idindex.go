package memstore

import "hash/maphash"

// idIndex finds a case's number by its id: an open-addressing table of
// case numbers hashed by id (linear probing, -1 an empty slot, at most half
// full), whose ids are the snapshot's ids column. Four to eight bytes a case
// where a map[string]int32 took about fifty, and a copy is one slice copy:
// a write that adds or deletes a case copies the table rather than a map
// of every id.
type idIndex struct {
	slots []int32
	n     int // cases in the table
}

// idSeed is the hash seed of every table of the process (tables copied
// from one another must hash alike).
var idSeed = maphash.MakeSeed()

// newIDIndex returns a table of the cases of ids, sized for at least
// capacity cases, and the first id found twice ("" when none); a case
// whose id an earlier case has is left out.
func newIDIndex(ids *idColumn, capacity int) (idIndex, string) {
	var x idIndex
	if ids.len() == 0 && capacity <= 0 {
		return x, "" // as a builder's before its first case
	}
	x.slots = make([]int32, tableSize(max(ids.len(), capacity)))
	for i := range x.slots {
		x.slots[i] = -1
	}
	dup := ""
	for i := range ids.len() {
		id := ids.at(int32(i))
		if _, found := x.find(ids, id); found {
			if dup == "" {
				dup = id
			}
			continue
		}
		x.put(ids, int32(i))
	}
	return x, dup
}

// tableSize is the smallest power of two at least twice n (and 8).
func tableSize(n int) int {
	size := 8
	for size < 2*n {
		size *= 2
	}
	return size
}

// find returns the number of the case id, whose ids column is ids.
func (x *idIndex) find(ids *idColumn, id string) (int32, bool) {
	if h, ok := x.slot(ids, id); ok {
		return x.slots[h], true
	}
	return -1, false
}

// slot returns the slot that holds the case id.
func (x *idIndex) slot(ids *idColumn, id string) (uint64, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for h := maphash.String(idSeed, id) & mask; ; h = (h + 1) & mask {
		c := x.slots[h]
		if c < 0 {
			return 0, false
		}
		if ids.at(c) == id {
			return h, true
		}
	}
}

// remove takes case i out and gives case last (when not i) the number i,
// as a delete renumbers them; ids is the ids column before the delete.
func (x *idIndex) remove(ids *idColumn, i, last int32) {
	h, ok := x.slot(ids, ids.at(i))
	if !ok {
		return
	}
	// Backward-shift deletion: each case after the hole in its probe run
	// moves into it unless its home slot lies between the hole and it.
	mask := uint64(len(x.slots) - 1)
	for j := (h + 1) & mask; x.slots[j] >= 0; j = (j + 1) & mask {
		home := maphash.String(idSeed, ids.at(x.slots[j])) & mask
		if (j-home)&mask >= (j-h)&mask {
			x.slots[h] = x.slots[j]
			h = j
		}
	}
	x.slots[h] = -1
	x.n--
	if i != last {
		if l, ok := x.slot(ids, ids.at(last)); ok {
			x.slots[l] = i
		}
	}
}

// put adds case i (ids.at(i) its id, not in the table), growing the table
// when it would be more than half full.
func (x *idIndex) put(ids *idColumn, i int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow(ids, max(2*len(x.slots), 8))
	}
	mask := uint64(len(x.slots) - 1)
	h := maphash.String(idSeed, ids.at(i)) & mask
	for x.slots[h] >= 0 {
		h = (h + 1) & mask
	}
	x.slots[h] = i
	x.n++
}

// grow moves the table's cases to a table of size slots.
func (x *idIndex) grow(ids *idColumn, size int) {
	old := x.slots
	x.slots = make([]int32, size)
	for i := range x.slots {
		x.slots[i] = -1
	}
	x.n = 0
	for _, c := range old {
		if c >= 0 {
			x.put(ids, c)
		}
	}
}

// clone is a copy of the table that changes apart from x.
func (x *idIndex) clone() idIndex {
	return idIndex{slots: append([]int32(nil), x.slots...), n: x.n}
}
