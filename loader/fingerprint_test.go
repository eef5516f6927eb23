package loader

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestVerifyingReader checks that the write pass's reader returns a file
// read as validated in full, and refuses every kind of change before
// returning a byte of the block it is in.
func TestVerifyingReader(t *testing.T) {
	defer func(n int) { fingerprintBlock = n }(fingerprintBlock)
	fingerprintBlock = 8
	orig := []byte("0123456789abcdefghijklmnopqrstuvwxyz") // 4 full blocks and a short one
	fp := func(data []byte) fingerprint {
		w := newFingerprinter()
		w.Write(data[:3]) // in pieces that straddle blocks
		w.Write(data[3:])
		return w.sum()
	}(orig)
	if fp.size != int64(len(orig)) || len(fp.blocks) != 5 {
		t.Fatalf("fingerprint: size %d, %d blocks; want %d and 5", fp.size, len(fp.blocks), len(orig))
	}
	for _, tc := range []struct {
		name  string
		data  string
		valid int // bytes the reader may return before refusing
	}{
		{"unchanged", string(orig), len(orig)},
		{"a byte changed", "0123456789abcdefgh!jklmnopqrstuvwxyz", 16},
		{"last byte changed", "0123456789abcdefghijklmnopqrstuvwxy!", 32},
		{"grown", string(orig) + "\n", 32},
		{"grown by a block", string(orig) + "ABCD", 32},
		{"cut short", string(orig[:30]), 24},
		{"cut at a block", string(orig[:32]), 32},
		{"emptied", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vr := newVerifyingReader("cases.jsonl", strings.NewReader(tc.data), fp)
			got, err := io.ReadAll(vr)
			if tc.name == "unchanged" {
				if err != nil || !bytes.Equal(got, orig) {
					t.Fatalf("got %q, %v; want the file", got, err)
				}
				return
			}
			if ilgraph.ErrorCode(err) != ilgraph.ECONFLICT || !strings.Contains(err.Error(), "cases.jsonl changed since it was validated") {
				t.Errorf("got error %v, want one naming the file as changed", err)
			}
			if len(got) > tc.valid || !bytes.Equal(got, orig[:len(got)]) {
				t.Errorf("returned %q before refusing: more than the %d unchanged bytes", got, tc.valid)
			}
			if again := vr.drain(); again != err {
				t.Errorf("the error is not kept: drain says %v", again)
			}
		})
	}
	t.Run("empty file", func(t *testing.T) {
		w := newFingerprinter()
		if err := newVerifyingReader("e", strings.NewReader(""), w.sum()).drain(); err != nil {
			t.Errorf("an unchanged empty file: %v", err)
		}
	})
}
