package memstore

import (
	"encoding/binary"
	"unsafe"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/arena"
)

// titles holds each case's title, English and Korean, as bytes in an
// arena: 8 bytes a case where two strings took 32 (and two allocations). A
// title is written once and never changed, so a snapshot reads its bytes
// as strings without copying them.
type titles struct{ arena.Column[byte] }

func newTitles() titles { return titles{arena.NewColumn[byte]()} }

// add writes t to the arena: its English and Korean bytes, each after its
// length.
func (ts *titles) add(t ilgraph.Text) uint64 {
	return ts.Add(2*binary.MaxVarintLen64+len(t.En)+len(t.Ko), func(c []byte) []byte {
		return appendString(appendString(c, t.En), t.Ko)
	})
}

// append adds a case's title at the end.
func (ts *titles) append(t ilgraph.Text) { ts.At = append(ts.At, ts.add(t)) }

// set makes t case i's title (ts.At is the snapshot's own).
func (ts *titles) set(i int32, t ilgraph.Text) { ts.At[i] = ts.add(t) }

// get returns case i's title.
func (ts *titles) get(i int32) ilgraph.Text {
	b := ts.Record(i)
	en, b := readString(b)
	ko, _ := readString(b)
	return ilgraph.Text{En: en, Ko: ko}
}

// appendString appends s after its length: one string of a record (a
// title, an id).
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// readString reads one string appendString wrote, without a copy, and
// returns the bytes after it.
func readString(b []byte) (string, []byte) {
	n, k := binary.Uvarint(b)
	b = b[k:]
	if n == 0 {
		return "", b
	}
	return unsafe.String(&b[0], int(n)), b[n:]
}
