package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ilgraph/ilgraph"
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
		c, err := db.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.Relationships["SIMILAR_TO"]
	}
	checksum := func() string {
		t.Helper()
		s, err := db.Checksum(ctx)
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
