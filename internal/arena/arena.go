// Package arena holds per-case records — titles, feature lists, text
// vectors — in chunks that the in-memory snapshots made one from another
// share, so that a case costs its record and an 8-byte position rather
// than a slice or string of its own: less memory, no pointer a case for
// the collector to follow at every cycle, and a change copies positions
// instead of headers.
package arena

import (
	"sync"
	"unsafe"
)

// Arena holds records of T. Records are only appended, at the end of the
// last chunk, past every element that any snapshot reads, so a change
// applied to any snapshot (even two changes to one) never writes what
// another reads; a record, once written, never changes. Safe for
// concurrent use.
type Arena[T byte | int32] struct {
	mu     sync.Mutex
	chunks [][]T // every chunk, each at its full length; only the last has room
	used   int   // elements written in the last chunk
}

// Chunk is a chunk's size in bytes (a longer record gets a chunk of its
// own).
const Chunk = 1 << 20

// Add appends a record of at most size elements, which write appends to
// the slice it is given, and returns the record's position (its chunk in
// the high 32 bits, its offset in the low) and the chunks as they
// now are, for the snapshot that reads the record. The list of chunks only
// grows: a chunk's header never changes once in it, so the snapshots read
// the list they were given while later records go in after what they read.
func (a *Arena[T]) Add(size int, write func([]T) []T) (uint64, [][]T) {
	var zero T
	perChunk := Chunk / int(unsafe.Sizeof(zero))
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.chunks)
	if n == 0 || len(a.chunks[n-1])-a.used < size {
		a.chunks = append(a.chunks, make([]T, max(perChunk, size)))
		a.used = 0
		n++
	}
	c := a.chunks[n-1]
	pos := uint64(n-1)<<32 | uint64(a.used)
	written := len(write(c[:a.used])) - a.used
	if written > size {
		panic("arena: a record longer than the size it was given")
	}
	a.used += written
	return pos, a.chunks
}

// Column is a per-case column of records in one Arena: At holds each
// case's record's position (the owner may copy, move and truncate it like
// any column), and the column keeps the arena's chunks as far as its
// records reach. A copy whose At is cloned changes apart from the
// original while both share the arena.
type Column[T byte | int32] struct {
	At     []uint64 // case -> its record's position
	chunks [][]T
	arena  *Arena[T]
}

// NewColumn returns an empty column over an arena of its own.
func NewColumn[T byte | int32]() Column[T] { return Column[T]{arena: &Arena[T]{}} }

// Add writes a record (as Arena.Add) and returns its position; it does not
// place it in At.
func (c *Column[T]) Add(size int, write func([]T) []T) uint64 {
	pos, chunks := c.arena.Add(size, write)
	c.chunks = chunks
	return pos
}

// Record returns the elements from case i's record on, to the end of its
// chunk: the record is at their start. Read only.
func (c *Column[T]) Record(i int32) []T {
	p := c.At[i]
	return c.chunks[p>>32][uint32(p):]
}

// Chunk returns chunk k, for an owner that keeps positions of its own
// making in At. Read only.
func (c *Column[T]) Chunk(k uint64) []T { return c.chunks[k] }
