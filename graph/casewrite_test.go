package graph_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
)

// TestWriteCaseIsOneTransaction makes a write fail at its last statement
// but one (the history entry, which a revision already at that version
// refuses) after the case, its tags and its organization were written:
// the graph is as it was, corpus version included.
func TestWriteCaseIsOneTransaction(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	id := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))[0].ID
	c, probs, err := loader.CheckCaseJSON(ctx, db, corpus.SeedFile(t, id), time.Now())
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	c.RootCause, c.OrgSlug, c.Org = "capacity", "an-org-of-its-own", "An org of its own"
	if c.RootCause == corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))[0].RootCause {
		c.RootCause = "software-bug"
	}
	if err := graph.WriteForTest(ctx, db, "CREATE (:CaseRevision {case_id: $id, version: 2})", map[string]any{"id": id}); err != nil {
		t.Fatal(err)
	}
	before, err := graph.NewBench(db).Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v0, _ := db.CorpusVersion(ctx)
	_, err = db.WriteCase(ctx, ilgraph.CaseChange{Action: ilgraph.ActionUpdate, ID: id, Case: c, Expect: 1, By: "t", At: time.Now()})
	if err == nil {
		t.Fatal("the write went through a revision already at its version")
	}
	if after, _ := graph.NewBench(db).Checksum(ctx); after != before {
		t.Error("a failed write left part of itself in the graph")
	}
	if v, _ := db.CorpusVersion(ctx); v != v0 {
		t.Errorf("corpus version %d, was %d", v, v0)
	}
}
