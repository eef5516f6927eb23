package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/corpus"
)

// failingClose is a file whose Close fails, as a full or remote file system
// may report a lost write only there.
type failingClose struct{ io.Writer }

func (failingClose) Close() error { return errors.New("disk quota exceeded") }

func TestGenReportsTheCloseError(t *testing.T) {
	seeds := corpus.Seeds(t)
	args := func(out string) []string {
		return []string{"gen", "--cases", "3", "--vocab", filepath.Join(seeds, "vocab.json"), "--prior", filepath.Join(seeds, "cases"), "--out", out}
	}
	out := filepath.Join(t.TempDir(), "gen.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args(out), &stdout, &stderr); code != exitOK {
		t.Fatalf("gen: exit %d: %s", code, stderr.String())
	}
	if data, err := os.ReadFile(out); err != nil || bytes.Count(data, []byte("\n")) != 3 {
		t.Fatalf("gen wrote %q, %v; want 3 lines", data, err)
	}

	defer func(orig func(string) (io.WriteCloser, error)) { createFile = orig }(createFile)
	createFile = func(string) (io.WriteCloser, error) { return failingClose{io.Discard}, nil }
	stderr.Reset()
	code := run(context.Background(), args(out), &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "disk quota exceeded") || !strings.Contains(stderr.String(), out) {
		t.Errorf("a failed close: got exit %d, stderr %q; want exit %d naming the file and the error", code, stderr.String(), exitFailure)
	}
}
