package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestLoadWritesSimilarCases: ilgraph load stores each case's --similar-k
// most similar cases after a load that changed the cases or k, and leaves
// them alone otherwise (the loader reports the change; the command runs the
// write-back).
func TestLoadWritesSimilarCases(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	brute := corpus.NewBrute(cases)
	want := func(k int) int64 {
		n := 0
		for _, c := range cases {
			n += len(brute.Similar(c, k, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, nil))
		}
		return int64(n)
	}
	load := func(args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, append([]string{"load", "--quiet"}, args...), &out, &errb); code != exitOK {
			t.Fatalf("load %v: exit %d: %s", args, code, errb.String())
		}
	}
	similar := func() int64 {
		t.Helper()
		c, err := graph.NewBench(db).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.Relationships["SIMILAR_TO"]
	}
	checksum := func() string {
		t.Helper()
		s, err := graph.NewBench(db).Checksum(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	load("--similar-k", "3", seeds)
	if got := similar(); got != want(3) || got == 0 {
		t.Fatalf("after the first load: %d SIMILAR_TO, want %d", got, want(3))
	}
	before := checksum()
	load("--similar-k", "3", seeds)
	load("--check", "--similar-k", "2", seeds)
	if after := checksum(); after != before {
		t.Errorf("an unchanged load or a check rewrote the graph (checksum %s -> %s)", before, after)
	}
	for _, k := range []int{2, 0} {
		load("--similar-k", strconv.Itoa(k), seeds)
		if got := similar(); got != want(k) {
			t.Errorf("after a load with --similar-k %d and no changed case: %d SIMILAR_TO, want %d", k, got, want(k))
		}
	}
}

// TestLoadTaggingWarnings: a case that breaks a tagging rule is a warning
// that load --check prints and a load counts, and --strict makes it a
// problem: exit 3, nothing written.
func TestLoadTaggingWarnings(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	dir := t.TempDir()
	vocab, err := os.ReadFile(filepath.Join(corpus.Seeds(t), "vocab.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "vocab.json"), vocab, 0o644)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"id":"ILG-9601","org":"Fernwick","org_slug":"fernwick","date":"2024-02-03",
"title":{"en":"Fernwick's build queue stalled"},"summary":{"en":"The Fernwick CI queue stopped."},"root_cause":"capacity",
"components":["ci-cd"],"symptoms":["processing-backlog"],"domain":["saas","developer-tools"]}`), 0o644)
	load := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"load", "--quiet"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	wantWarning := `c.json:1: case ILG-9601: field "domain[0]": rule saas-with-specific-domain: "saas" next to the more specific domain "developer-tools"; remove "saas"`

	code, out, errb := load("--check", dir)
	if code != exitOK || !strings.Contains(errb, "warning: "+filepath.Join(dir, wantWarning)) || !strings.Contains(out, "1 tagging warning(s) in 1 case(s)") {
		t.Errorf("--check: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	for _, args := range [][]string{{"--check", "--strict", dir}, {"--strict", dir}} {
		code, _, errb := load(args...)
		if code != exitInvalid || !strings.Contains(errb, wantWarning) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
	if c, err := graph.NewBench(db).Count(ctx); err != nil || c.Nodes["Case"] != 0 {
		t.Fatalf("a strict or checking load wrote cases: %v %v", c.Nodes, err)
	}
	code, out, errb = load(dir)
	if code != exitOK || !strings.Contains(errb, "1 tagging warning(s); list them with: ilgraph load --check") || strings.Contains(errb, "warning: ") {
		t.Errorf("load: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	if c, err := graph.NewBench(db).Count(ctx); err != nil || c.Nodes["Case"] != 1 {
		t.Errorf("a load with warnings did not write the case: %v %v", c.Nodes, err)
	}
}
