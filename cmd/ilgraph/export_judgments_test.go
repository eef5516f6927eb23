package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/relevance"
)

// TestExportJudgments: judgments made through the core come out of
// ilgraph export judgments as a judged set relevance reads back, grades
// and reasons as made, and eval similar --judgments scores against them.
func TestExportJudgments(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	core := coreOver(db, newInMemory(db, false))
	for _, j := range []struct {
		judge  string
		match  string
		grade  ilgraph.Grade
		reason string
	}{
		{"alice", "IL-0282", ilgraph.GradeStronglyRelevant, "the same fan-out"},
		{"bob", "IL-0282", ilgraph.GradeStronglyRelevant, ""},
		{"alice", "IL-0206", ilgraph.GradeNotRelevant, "another failure"},
	} {
		ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: j.judge, Role: ilgraph.RoleReviewer})
		if _, err := core.JudgeSimilar(ctx, "IL-0384", j.match, j.grade, j.reason); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("to standard output", func(t *testing.T) {
		var out bytes.Buffer
		if err := runExport(context.Background(), []string{"judgments", "-"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		want := []string{"IL-0384\tIL-0206\t0\talice: another failure", "IL-0384\tIL-0282\t2\talice: the same fan-out"}
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "#") || lines[1] != want[0] || lines[2] != want[1] {
			t.Errorf("got %q, want a comment then %q", lines, want)
		}
	})
	t.Run("to a file relevance reads", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "inuse.tsv")
		if err := runExport(context.Background(), []string{"judgments", path}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		s, err := relevance.ReadSet(path)
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := s.Grade("IL-0384", "IL-0282"); !ok || g != 2 || s.Pairs() != 2 {
			t.Errorf("IL-0384–IL-0282 %v (judged %v), %d pairs; want 2 of 2 pairs", g, ok, s.Pairs())
		}
	})
	t.Run("without a file it is a usage error", func(t *testing.T) {
		if err := runExport(context.Background(), []string{"judgments"}, io.Discard, io.Discard); err != errUsage {
			t.Errorf("got %v, want the usage error", err)
		}
	})
	t.Run("eval similar scores against them", func(t *testing.T) {
		var out bytes.Buffer
		seeds := filepath.Join("..", "..", "seeds")
		judged := filepath.Join("..", "..", "testdata", "relevance")
		if _, err := os.Stat(seeds); err != nil {
			t.Fatal(err)
		}
		if err := runEvalSimilar([]string{"--seeds", seeds, "--judged", judged, "--judgments"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "set judgments (1 queries, 2 pairs, judge in use)") {
			t.Errorf("the report has no set of the judgments made in use:\n%s", out.String())
		}
	})
}
