package graph_test

import (
	"context"
	"path/filepath"
	"reflect"
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

// TestChangeFeedHoldsWritesAndTheLatestLoad: the change feed names, version
// by version, the writes through the core (their revisions' JSON) and the
// cases of the latest load (as the graph holds them), in the order they
// moved the corpus version; a reader further back than the latest load, or
// across a version moved by a load too large to publish, gets ok false.
func TestChangeFeedHoldsWritesAndTheLatestLoad(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	a, b, c, d := cases[0].ID, cases[1].ID, cases[2].ID, cases[3].ID
	v0, err := db.CorpusVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ca, probs, err := loader.CheckCaseJSON(ctx, db, corpus.SeedFile(t, a), time.Now())
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	ca.Severity = "sev0"
	if ca.Severity == cases[0].Severity {
		ca.Severity = "sev1"
	}
	rev, err := db.WriteCase(ctx, ilgraph.CaseChange{Action: ilgraph.ActionUpdate, ID: a, Case: ca, Expect: 1, By: "t", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PublishLoad(ctx, []string{b, c}); err != nil {
		t.Fatal(err)
	}
	raw := func(id string) string {
		t.Helper()
		s, _, err := db.CaseJSON(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(s)
	}
	feed := func(from, to int64) ([]ilgraph.CorpusChange, bool) {
		t.Helper()
		got, ok, err := db.ChangesSince(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return got, ok
	}
	want := []ilgraph.CorpusChange{{Version: v0 + 1, ID: a, JSON: rev.JSON}, {Version: v0 + 2, ID: b, JSON: raw(b)}, {Version: v0 + 3, ID: c, JSON: raw(c)}}
	if v, _ := db.CorpusVersion(ctx); v != v0+3 {
		t.Fatalf("corpus version %d after a write and a load of two cases, want %d", v, v0+3)
	}
	if got, ok := feed(v0, v0+3); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("feed from %d: %v %+v, want %+v", v0, ok, got, want)
	}
	if got, ok := feed(v0+2, v0+3); !ok || !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("feed from %d: %v %+v, want %+v", v0+2, ok, got, want[2:])
	}
	// A second load replaces the first in the feed.
	if _, err := db.PublishLoad(ctx, []string{d}); err != nil {
		t.Fatal(err)
	}
	if _, ok := feed(v0, v0+4); ok {
		t.Error("the feed still holds the load before the latest")
	}
	if got, ok := feed(v0+3, v0+4); !ok || len(got) != 1 || got[0].ID != d || got[0].JSON != raw(d) {
		t.Errorf("feed of the latest load: %v %+v", ok, got)
	}
	// A load moving the version by one, unpublished: the feed has a gap.
	if _, err := db.BumpCorpusVersion(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := feed(v0+3, v0+5); ok {
		t.Error("the feed claims to hold a version an unpublished load made")
	}
	if _, err := db.PublishLoad(ctx, nil); err == nil {
		t.Error("a load of no case was published")
	}
}
