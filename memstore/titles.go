package memstore

import (
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"

	"github.com/ilgraph/ilgraph"
)

// titles holds each case's title, English and Korean, as bytes in chunks
// that the snapshots made one from another share: 8 bytes a case where two
// strings took 32 (and two allocations), and no pointer a case for the
// collector to follow at every cycle. A title is written once and never
// changed, so a snapshot reads its bytes as strings without copying them.
type titles struct {
	at     []uint64    // case -> its title's chunk (high 32 bits) and offset in it
	chunks [][]byte    // the chunks as far as this snapshot reads them
	arena  *titleArena // where a change appends a title
}

// titleArena is the chunks' writer. Titles are only appended, at the end
// of the last chunk, past every byte that any snapshot reads, so a change
// applied to any snapshot (even two changes to one) never writes what
// another reads.
type titleArena struct {
	mu     sync.Mutex
	chunks [][]byte // every chunk; only the last has room
}

// titleChunk is a chunk's size (a longer title gets a chunk of its own).
const titleChunk = 1 << 20

func newTitles() titles { return titles{arena: &titleArena{}} }

// add appends t's bytes and returns where they are and the chunks as they
// now are (a list of its own, for the snapshot that reads them).
func (a *titleArena) add(t ilgraph.Text) (uint64, [][]byte) {
	size := 2*binary.MaxVarintLen64 + len(t.En) + len(t.Ko)
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.chunks)
	if n == 0 || cap(a.chunks[n-1])-len(a.chunks[n-1]) < size {
		a.chunks = append(a.chunks, make([]byte, 0, max(titleChunk, size)))
		n++
	}
	c := a.chunks[n-1]
	pos := uint64(n-1)<<32 | uint64(len(c))
	c = binary.AppendUvarint(c, uint64(len(t.En)))
	c = append(c, t.En...)
	c = binary.AppendUvarint(c, uint64(len(t.Ko)))
	c = append(c, t.Ko...)
	a.chunks[n-1] = c
	return pos, slices.Clone(a.chunks)
}

// append adds a case's title at the end.
func (ts *titles) append(t ilgraph.Text) {
	pos, chunks := ts.arena.add(t)
	ts.at, ts.chunks = append(ts.at, pos), chunks
}

// set makes t case i's title (ts.at is the snapshot's own).
func (ts *titles) set(i int32, t ilgraph.Text) {
	ts.at[i], ts.chunks = ts.arena.add(t)
}

// get returns case i's title.
func (ts *titles) get(i int32) ilgraph.Text {
	p := ts.at[i]
	b := ts.chunks[p>>32][uint32(p):]
	en, b := titleString(b)
	ko, _ := titleString(b)
	return ilgraph.Text{En: en, Ko: ko}
}

// titleString reads one string of a title and returns the bytes after it.
func titleString(b []byte) (string, []byte) {
	n, k := binary.Uvarint(b)
	b = b[k:]
	if n == 0 {
		return "", b
	}
	return unsafe.String(&b[0], int(n)), b[n:]
}
