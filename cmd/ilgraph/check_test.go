package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestCheckWithoutDatabase runs `ilgraph load --check --strict` with no
// Neo4j to reach, as on a fresh clone: the seeds pass on their own, and a
// case whose link points outside the files is reported, not taken on trust.
func TestCheckWithoutDatabase(t *testing.T) {
	t.Setenv("NEO4J_URI", "bolt://127.0.0.1:1") // nothing listens there
	seeds := corpus.Seeds(t)
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"load", "--check", "--strict", seeds}, &out, &errb); code != exitOK {
		t.Fatalf("seeds: exit %d, want %d: %s", code, exitOK, errb.String())
	}
	if !strings.Contains(errb.String(), "no database reachable") || !strings.Contains(out.String()+errb.String(), "valid cases") {
		t.Errorf("seeds: output %q %q", out.String(), errb.String())
	}

	dir := t.TempDir()
	for _, f := range []string{"vocab.json", filepath.Join("cases", "IL-0064.json")} {
		b, err := os.ReadFile(filepath.Join(seeds, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	errb.Reset()
	if code := run(ctx, []string{"load", "--check", dir}, &out, &errb); code != exitInvalid {
		t.Fatalf("a link outside the files: exit %d, want %d: %s", code, exitInvalid, errb.String())
	}
	if msg := errb.String(); !strings.Contains(msg, "IL-0064.json") || !strings.Contains(msg, `"IL-0282" is not a case of this load`) {
		t.Errorf("a link outside the files: stderr %q", msg)
	}

	os.Remove(filepath.Join(dir, "vocab.json"))
	errb.Reset()
	if code := run(ctx, []string{"load", "--check", dir}, &out, &errb); code == exitOK || !strings.Contains(errb.String(), "no vocab.json") {
		t.Errorf("no vocabulary: exit %d, stderr %q", code, errb.String())
	}
}
