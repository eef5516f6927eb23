package memstore_test

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/snapfile"
	"github.com/ilgraph/ilgraph/memstore"
)

// roundTrip writes a snapshot's section and reads it back.
func roundTrip(t *testing.T, s *memstore.Snapshot) (*memstore.Snapshot, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := snapfile.NewWriter(&buf)
	memstore.WriteSnapshot(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	r := snapfile.NewReader(&buf, "test.snap")
	got := memstore.ReadSnapshot(r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return got, data
}

// TestSnapshotFileRoundTrip writes the snapshot of the seeds, of a
// generated corpus and of an empty corpus (a file holds only snapshots
// built from the graph, never one changes were applied to) to the file's section and reads each back: the snapshot read is
// the one written, field by field (reflect.DeepEqual over the whole
// struct, its build time compared apart, its id table by lookups), and answers every question of
// the read model as it does.
func TestSnapshotFileRoundTrip(t *testing.T) {
	seeds := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	for _, tc := range []struct {
		name string
		snap *memstore.Snapshot
	}{
		{"seeds", memstore.Build(rowsOf(seeds), 7)},
		{"generated", memstore.Build(rowsOf(append(append([]*ilgraph.Case{}, seeds...), generated(t, 3000, 11)...)), 42)},
		{"empty", memstore.Build(nil, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.snap
			got, _ := roundTrip(t, want)
			if !got.Built.Equal(want.Built) {
				t.Errorf("Built %v, want %v", got.Built, want.Built)
			}
			if got.Version != want.Version || got.Len() != want.Len() {
				t.Fatalf("version %d, %d cases; want %d, %d", got.Version, got.Len(), want.Version, want.Len())
			}
			// The id table is compared by what it answers: where an id
			// lands in it depends on the order the ids went in and on
			// the process's hash seed (a table grown case by case, or
			// made at its size at once).
			for _, f := range differingFields(got, want, "Built", "byID") {
				t.Errorf("field %s of the snapshot read back differs from the one written", f)
			}
			for i := range want.Len() {
				id := want.ID(int32(i))
				if n, ok := got.Number(id); !ok || n != int32(i) {
					t.Errorf("case %q is number %d (found %v) in the snapshot read back, want %d", id, n, ok, i)
				}
			}
			if _, ok := got.Number("no such case"); ok {
				t.Error("an unknown id is found in the snapshot read back")
			}
			f := ilgraph.CaseFilter{}
			if a, b := got.Stats(f), want.Stats(f); !reflect.DeepEqual(a, b) {
				t.Errorf("stats %+v, want %+v", a, b)
			}
			if a, b := got.Facets(f), want.Facets(f); !reflect.DeepEqual(a, b) {
				t.Errorf("facets %+v, want %+v", a, b)
			}
		})
	}
}

// differingFields names the fields of two structs (pointers to them) that
// are not reflect.DeepEqual, unexported ones included, but those skipped.
func differingFields(a, b any, skip ...string) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := 0; i < va.NumField(); i++ {
		if slices.Contains(skip, va.Type().Field(i).Name) {
			continue
		}
		fa, fb := va.Field(i), vb.Field(i)
		x := reflect.NewAt(fa.Type(), unsafe.Pointer(fa.UnsafeAddr())).Elem().Interface()
		y := reflect.NewAt(fb.Type(), unsafe.Pointer(fb.UnsafeAddr())).Elem().Interface()
		if !reflect.DeepEqual(x, y) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}

// TestSnapshotFileRefusesDamage: a file cut short anywhere, or with any
// one byte changed, is refused with an error naming the file — never read
// as a snapshot, never a panic.
func TestSnapshotFileRefusesDamage(t *testing.T) {
	seeds := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	_, data := roundTrip(t, memstore.Build(rowsOf(seeds[:40]), 3))
	read := func(b []byte) error {
		r := snapfile.NewReader(bytes.NewReader(b), "damaged.snap")
		memstore.ReadSnapshot(r)
		return r.Close()
	}
	step := max(len(data)/300, 1)
	for n := 0; n < len(data); n += step {
		if err := read(data[:n]); err == nil {
			t.Errorf("a file cut at %d of %d bytes was read", n, len(data))
		}
	}
	for i := 0; i < len(data); i += step {
		b := bytes.Clone(data)
		b[i] ^= 0x5a
		if err := read(b); err == nil {
			t.Errorf("a file with byte %d of %d changed was read", i, len(data))
		}
	}
	if err := read(append(bytes.Clone(data), 0)); err == nil {
		t.Error("a file with a byte after its checksum was read")
	}
}
