// Package snapfile writes and reads the binary file in which a server keeps
// its built in-memory corpus (memstore.Source.SnapshotDir), so that a
// restart reads the file instead of analysing every case again.
//
// The format is ours and simple: a header (magic, format version), then
// the values in the order the writer put them — little-endian fixed-size
// numbers, varint lengths, slices as a length and their elements — and a
// CRC-32 of everything before it at the end. A reader checks the magic,
// the format and, at Close, the checksum, so that a file cut short, from
// another format or damaged is refused as a whole and never half-read into
// a corpus. Errors are sticky: after the first, every call does nothing and
// Err (or Close) returns it.
package snapfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"unsafe"
)

// magic opens every file; Format is bumped whenever the layout of any
// section changes, so that an old file is refused, not misread.
const (
	magic  = "ILGSNAP\x00"
	Format = 1
)

// maxLen bounds any one length read, so that a damaged length is an error,
// not an allocation of exabytes.
const maxLen = 1 << 31

// Writer writes a snapshot file.
type Writer struct {
	w   *bufio.Writer
	crc hash.Hash32
	err error
	buf [binary.MaxVarintLen64]byte
}

// NewWriter starts a file on w, writing its header.
func NewWriter(w io.Writer) *Writer {
	c := crc32.NewIEEE()
	sw := &Writer{w: bufio.NewWriterSize(io.MultiWriter(w, c), 1<<20), crc: c}
	sw.raw([]byte(magic))
	sw.Uvarint(Format)
	return sw
}

func (w *Writer) raw(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// Err is the first error met.
func (w *Writer) Err() error { return w.err }

// Close writes the checksum and flushes; it returns the first error met.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.err = w.w.Flush(); w.err != nil {
		return w.err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], w.crc.Sum32())
	w.raw(sum[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// Uvarint writes an unsigned number.
func (w *Writer) Uvarint(x uint64) { w.raw(w.buf[:binary.PutUvarint(w.buf[:], x)]) }

// Varint writes a signed number.
func (w *Writer) Varint(x int64) { w.raw(w.buf[:binary.PutVarint(w.buf[:], x)]) }

// Int writes an int.
func (w *Writer) Int(x int) { w.Varint(int64(x)) }

// Bool writes a bool.
func (w *Writer) Bool(b bool) {
	if b {
		w.raw([]byte{1})
	} else {
		w.raw([]byte{0})
	}
}

// Float64 writes a float64 exactly.
func (w *Writer) Float64(f float64) {
	binary.LittleEndian.PutUint64(w.buf[:8], math.Float64bits(f))
	w.raw(w.buf[:8])
}

// String writes a string.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// head writes a slice's length, 0 for a nil slice and n+1 otherwise, so
// that a slice reads back nil or empty as it was.
func (w *Writer) head(isNil bool, n int) {
	if isNil {
		w.Uvarint(0)
	} else {
		w.Uvarint(uint64(n) + 1)
	}
}

// Strings writes a slice of strings.
func (w *Writer) Strings(ss []string) {
	w.head(ss == nil, len(ss))
	for _, s := range ss {
		w.String(s)
	}
}

// StringsOf writes n strings, the i-th at(i), as Strings writes a slice of
// them: for strings held otherwise than in a slice.
func (w *Writer) StringsOf(n int, at func(i int) string) {
	w.head(false, n)
	for i := range n {
		w.String(at(i))
	}
}

// Bytes writes a byte slice.
func (w *Writer) Bytes(b []byte) {
	w.head(b == nil, len(b))
	w.raw(b)
}

// fixed writes the elements of a slice of fixed-size little-endian
// numbers as they lie in memory (every platform Go runs this on is little
// endian; init refuses another).
func fixed[T int8 | int16 | int32 | uint32 | float32 | float64](w *Writer, xs []T) {
	w.head(xs == nil, len(xs))
	if len(xs) > 0 {
		w.raw(unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(xs[0]))))
	}
}

// Int32s writes a slice of int32.
func (w *Writer) Int32s(xs []int32) { fixed(w, xs) }

// Int16s writes a slice of int16.
func (w *Writer) Int16s(xs []int16) { fixed(w, xs) }

// Int8s writes a slice of int8.
func (w *Writer) Int8s(xs []int8) { fixed(w, xs) }

// Float32s writes a slice of float32 exactly.
func (w *Writer) Float32s(xs []float32) { fixed(w, xs) }

// Float64s writes a slice of float64 exactly.
func (w *Writer) Float64s(xs []float64) { fixed(w, xs) }

// Bools writes a slice of bool, one byte each.
func (w *Writer) Bools(bs []bool) {
	w.head(bs == nil, len(bs))
	if len(bs) > 0 {
		w.raw(unsafe.Slice((*byte)(unsafe.Pointer(&bs[0])), len(bs)))
	}
}

// Int32ss writes a slice of int32 slices: their lengths, then every
// element in one run (read back into one allocation, Reader.Int32ss).
func (w *Writer) Int32ss(xss [][]int32) {
	var lens []int32 // -1 for a nil slice
	if xss != nil {
		lens = make([]int32, len(xss))
	}
	total := 0
	for i, xs := range xss {
		lens[i] = int32(len(xs))
		if xs == nil {
			lens[i] = -1
		}
		total += len(xs)
	}
	w.Int32s(lens)
	w.Uvarint(uint64(total))
	for _, xs := range xss {
		if len(xs) > 0 {
			w.raw(unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*4))
		}
	}
}

// Reader reads a snapshot file.
type Reader struct {
	r    *bufio.Reader
	crc  uint32 // of every byte handed out so far
	one  [1]byte
	err  error
	file string
	// left is how many bytes the file has left (negative: not known): a
	// length asking for more is refused before anything is allocated for
	// it, so that a damaged length is an error, not an allocation of
	// gigabytes ahead of the checksum.
	left int64
}

// NewReader starts reading a file from r, checking its header; name names
// the file in errors.
func NewReader(r io.Reader, name string) *Reader {
	return NewReaderSize(r, name, -1)
}

// NewReaderSize is NewReader for a file of size bytes: no length read may
// ask for more than the file has left.
func NewReaderSize(r io.Reader, name string, size int64) *Reader {
	sr := &Reader{r: bufio.NewReaderSize(r, 1<<20), file: name, left: size}
	var m [len(magic)]byte
	sr.full(m[:])
	if sr.err == nil && string(m[:]) != magic {
		sr.err = fmt.Errorf("%s: not an ilgraph corpus snapshot", name)
	}
	if f := sr.Uvarint(); sr.err == nil && f != Format {
		sr.err = fmt.Errorf("%s: snapshot format %d, this ilgraph reads format %d", name, f, Format)
	}
	return sr
}

// Err is the first error met.
func (r *Reader) Err() error { return r.err }

// Fail records an error found in what was read (a value out of range).
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s", r.file, fmt.Sprintf(format, args...))
	}
}

func (r *Reader) early(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the file ends early")
	}
	r.err = fmt.Errorf("%s: %w", r.file, err)
}

func (r *Reader) full(b []byte) {
	if r.err != nil || len(b) == 0 {
		return
	}
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.early(err)
		return
	}
	r.left -= int64(len(b))
	r.crc = crc32.Update(r.crc, crc32.IEEETable, b)
}

// ReadByte is one byte, for binary.ReadUvarint.
func (r *Reader) ReadByte() (byte, error) {
	b, err := r.r.ReadByte()
	if err != nil {
		return 0, err
	}
	r.one[0] = b
	r.left--
	r.crc = crc32.Update(r.crc, crc32.IEEETable, r.one[:])
	return b, nil
}

// Close checks the checksum and that nothing follows it; it returns the
// first error met.
func (r *Reader) Close() error {
	if r.err != nil {
		return r.err
	}
	want := r.crc
	var sum [4]byte
	r.full(sum[:])
	if r.err != nil {
		return r.err
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != want {
		return fmt.Errorf("%s: checksum mismatch (the file is damaged)", r.file)
	}
	if _, err := r.r.ReadByte(); err != io.EOF {
		return fmt.Errorf("%s: data after the checksum", r.file)
	}
	return nil
}

// Uvarint reads an unsigned number.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(r)
	if err != nil {
		r.early(err)
		return 0
	}
	return x
}

// Len reads a length written by Uvarint, refusing one beyond any the file
// could hold.
func (r *Reader) Len() int {
	n := r.Uvarint()
	if n > maxLen {
		r.Fail("a length of %d is beyond any this file holds (the file is damaged)", n)
		return 0
	}
	return int(n)
}

// head reads a slice's length as Writer.head wrote it, each element at
// least size bytes in the file.
func (r *Reader) head(size int) (n int, isNil bool) {
	x := r.Len()
	if r.err != nil || x == 0 {
		return 0, true
	}
	if !r.fits(x-1, size) {
		return 0, true
	}
	return x - 1, false
}

// fits reports whether n elements of size bytes can be in what the file
// has left, recording an error when not.
func (r *Reader) fits(n, size int) bool {
	if r.err != nil {
		return false
	}
	if r.left >= 0 && int64(n)*int64(size) > r.left {
		r.Fail("a length of %d is more than the file has left (the file is damaged)", n)
		return false
	}
	return true
}

// Varint reads a signed number.
func (r *Reader) Varint() int64 {
	if r.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(r)
	if err != nil {
		r.early(err)
		return 0
	}
	return x
}

// Int reads an int.
func (r *Reader) Int() int { return int(r.Varint()) }

// Bool reads a bool.
func (r *Reader) Bool() bool {
	r.full(r.one[:])
	if r.err != nil {
		return false
	}
	switch r.one[0] {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail("a bool of %d (the file is damaged)", r.one[0])
	return false
}

// Float64 reads a float64.
func (r *Reader) Float64() float64 {
	var b [8]byte
	r.full(b[:])
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

// String reads a string.
func (r *Reader) String() string {
	b := r.stringBytes(nil)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// stringBytes reads a string's bytes into buf when it has room (into a new
// buffer otherwise); empty when the string is, or on an error.
func (r *Reader) stringBytes(buf []byte) []byte {
	n := r.Len()
	if r.err != nil || n == 0 || !r.fits(n, 1) {
		return nil
	}
	if n > cap(buf) {
		buf = make([]byte, n)
	}
	b := buf[:n]
	r.full(b)
	if r.err != nil {
		return nil
	}
	return b
}

// Strings reads a slice of strings.
func (r *Reader) Strings() []string {
	n, isNil := r.head(1)
	if isNil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.String()
	}
	return out
}

// EachString reads a slice of strings as Strings does, calling f with each
// in order instead of keeping them, and returns how many it read. The
// string f is given is valid only during the call: f copies what it keeps.
func (r *Reader) EachString(f func(s string)) int {
	n, isNil := r.head(1)
	if isNil {
		return 0
	}
	var buf []byte
	for i := range n {
		b := r.stringBytes(buf)
		if r.err != nil {
			return i
		}
		if len(b) == 0 {
			f("")
			continue
		}
		buf = b
		f(unsafe.String(&b[0], len(b)))
	}
	return n
}

// Bytes reads a byte slice.
func (r *Reader) Bytes() []byte {
	n, isNil := r.head(1)
	if isNil {
		return nil
	}
	b := make([]byte, n)
	r.full(b)
	return b
}

func readFixed[T int8 | int16 | int32 | uint32 | float32 | float64](r *Reader) []T {
	var zero T
	n, isNil := r.head(int(unsafe.Sizeof(zero)))
	if isNil {
		return nil
	}
	xs := make([]T, n)
	if n == 0 {
		return xs
	}
	r.full(unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), n*int(unsafe.Sizeof(xs[0]))))
	return xs
}

// Int32s reads a slice of int32
func (r *Reader) Int32s() []int32 { return readFixed[int32](r) }

// Int16s reads a slice of int16
func (r *Reader) Int16s() []int16 { return readFixed[int16](r) }

// Int8s reads a slice of int8
func (r *Reader) Int8s() []int8 { return readFixed[int8](r) }

// Float32s reads a slice of float32
func (r *Reader) Float32s() []float32 { return readFixed[float32](r) }

// Float64s reads a slice of float64
func (r *Reader) Float64s() []float64 { return readFixed[float64](r) }

// Bools reads a slice of bool
func (r *Reader) Bools() []bool {
	b := readFixed[int8](r)
	if len(b) == 0 {
		if b == nil {
			return nil
		}
		return []bool{}
	}
	for _, x := range b {
		if x != 0 && x != 1 {
			r.Fail("a bool of %d (the file is damaged)", x)
			return nil
		}
	}
	return unsafe.Slice((*bool)(unsafe.Pointer(&b[0])), len(b))
}

// Int32ss reads what Writer.Int32ss wrote: every slice a piece of one
// allocation, capped at its own length (an append to one copies it rather
// than overwrite the next); nil and empty slices read back as they were.
func (r *Reader) Int32ss() [][]int32 {
	lens := r.Int32s()
	total := r.Len()
	if r.err != nil {
		return nil
	}
	sum := 0
	for _, n := range lens {
		if n < -1 {
			r.Fail("a negative length (the file is damaged)")
			return nil
		}
		sum += max(int(n), 0)
	}
	if sum != total {
		r.Fail("slice lengths add up to %d, not %d (the file is damaged)", sum, total)
		return nil
	}
	if !r.fits(total, 4) {
		return nil
	}
	var all []int32
	if total > 0 {
		all = make([]int32, total)
		r.full(unsafe.Slice((*byte)(unsafe.Pointer(&all[0])), total*4))
	}
	if r.err != nil || lens == nil {
		return nil
	}
	out := make([][]int32, len(lens))
	at := 0
	for i, n := range lens {
		switch {
		case n > 0:
			out[i] = all[at : at+int(n) : at+int(n)]
			at += int(n)
		case n == 0:
			out[i] = []int32{}
		}
	}
	return out
}

func init() {
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) != 1 {
		panic("snapfile: a big-endian platform; the file's numbers are little endian")
	}
}
