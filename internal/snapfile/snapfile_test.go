package snapfile

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestRoundTrip writes one value of every kind the format has — nil and
// empty slices apart, extreme numbers, NaN's bits — and reads each back
// as written.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Uvarint(math.MaxUint64)
	w.Varint(math.MinInt64)
	w.Int(-7)
	w.Bool(true)
	w.Bool(false)
	w.Float64(math.Float64frombits(0x7ff8000000000123))
	w.String("")
	w.String("장애 – outage")
	w.Strings(nil)
	w.Strings([]string{})
	w.Strings([]string{"a", "", "b"})
	w.Bytes(nil)
	w.Bytes([]byte{0, 1, 2})
	w.Int32s(nil)
	w.Int32s([]int32{})
	w.Int32s([]int32{math.MinInt32, 0, math.MaxInt32})
	w.Int16s([]int16{-1, 2})
	w.Int8s([]int8{-128, 127})
	w.Float32s([]float32{1.5, float32(math.Inf(-1))})
	w.Float64s([]float64{math.SmallestNonzeroFloat64, math.Copysign(0, -1)})
	w.Bools([]bool{true, false, true})
	w.Int32ss(nil)
	w.Int32ss([][]int32{nil, {}, {1, 2}, {3}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf, "t.snap")
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", what, got, want)
		}
	}
	check("uvarint", r.Uvarint(), uint64(math.MaxUint64))
	check("varint", r.Varint(), int64(math.MinInt64))
	check("int", r.Int(), -7)
	check("true", r.Bool(), true)
	check("false", r.Bool(), false)
	check("float64 bits", math.Float64bits(r.Float64()), uint64(0x7ff8000000000123))
	check("empty string", r.String(), "")
	check("string", r.String(), "장애 – outage")
	check("nil strings", r.Strings(), []string(nil))
	check("empty strings", r.Strings(), []string{})
	check("strings", r.Strings(), []string{"a", "", "b"})
	check("nil bytes", r.Bytes(), []byte(nil))
	check("bytes", r.Bytes(), []byte{0, 1, 2})
	check("nil int32s", r.Int32s(), []int32(nil))
	check("empty int32s", r.Int32s(), []int32{})
	check("int32s", r.Int32s(), []int32{math.MinInt32, 0, math.MaxInt32})
	check("int16s", r.Int16s(), []int16{-1, 2})
	check("int8s", r.Int8s(), []int8{-128, 127})
	check("float32s", r.Float32s(), []float32{1.5, float32(math.Inf(-1))})
	f := r.Float64s()
	if len(f) != 2 || f[0] != math.SmallestNonzeroFloat64 || !math.Signbit(f[1]) {
		t.Errorf("float64s: %v", f)
	}
	check("bools", r.Bools(), []bool{true, false, true})
	check("nil int32ss", r.Int32ss(), [][]int32(nil))
	ss := r.Int32ss()
	check("int32ss", ss, [][]int32{nil, {}, {1, 2}, {3}})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// Each piece is capped at its length: an append copies it.
	_ = append(ss[2], 99)
	check("int32ss after an append to a piece", ss[3], []int32{3})
}

// TestRefused: another file, another format, a short file and a damaged
// one are errors that name the file.
func TestRefused(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Strings([]string{"x", "y"})
	w.Int32ss([][]int32{{1, 2, 3}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	read := func(b []byte) error {
		r := NewReader(bytes.NewReader(b), "f.snap")
		r.Strings()
		r.Int32ss()
		return r.Close()
	}
	if err := read(good); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	other := bytes.Clone(good)
	other[len(magic)] = Format + 1
	flipped := bytes.Clone(good)
	flipped[len(good)-6] ^= 1
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"not a snapshot": {[]byte("PK\x03\x04 a zip"), "not an ilgraph corpus snapshot"},
		"another format": {other, "snapshot format"},
		"short":          {good[:len(good)-3], "ends early"},
		"damaged":        {flipped, "checksum mismatch"},
		"empty":          {nil, "ends early"},
	} {
		err := read(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "f.snap") {
			t.Errorf("%s: %v, want an error naming f.snap with %q", name, err, tc.want)
		}
	}
}

// TestLengthBeyondTheFile: with the file's size known, a length asking for
// more than the file has left is refused before anything is allocated.
func TestLengthBeyondTheFile(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Uvarint(1<<30 + 1) // Int32s of 2^30 elements: 4 GB
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := NewReaderSize(bytes.NewReader(buf.Bytes()), "big.snap", int64(buf.Len()))
	if got := r.Int32s(); got != nil || r.Err() == nil || !strings.Contains(r.Err().Error(), "more than the file has left") {
		t.Errorf("got %d elements, error %v; want a refusal", len(got), r.Err())
	}
}

// StringsOf writes what Strings writes, and EachString reads what Strings
// reads, one string at a time (each valid during its call only: kept here
// by copying).
func TestStringsOne(t *testing.T) {
	want := []string{"GEN-0000001", "", "장애", strings.Repeat("x", 300), "b"}
	var a, b bytes.Buffer
	wa, wb := NewWriter(&a), NewWriter(&b)
	wa.Strings(want)
	wb.StringsOf(len(want), func(i int) string { return want[i] })
	wa.Strings([]string{})
	wb.StringsOf(0, func(int) string { return "never" })
	if err := errors.Join(wa.Close(), wb.Close()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("StringsOf writes otherwise than Strings")
	}
	r := NewReader(&b, "t.snap")
	var got []string
	if n := r.EachString(func(s string) { got = append(got, strings.Clone(s)) }); n != len(want) || !reflect.DeepEqual(got, want) {
		t.Errorf("EachString read %d: %q, want %q", n, got, want)
	}
	if n := r.EachString(func(string) { t.Error("a string in an empty slice") }); n != 0 {
		t.Errorf("EachString of an empty slice read %d", n)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// Cut short: an error, never a panic.
	r = NewReader(bytes.NewReader(a.Bytes()[:a.Len()/2]), "cut.snap")
	r.EachString(func(string) {})
	if r.Close() == nil {
		t.Error("a file cut inside a slice of strings read without an error")
	}
}
