package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestMaxStaleness: as ilgraph serve wires --max-staleness, a core that may
// reuse its corpus-version read answers from memory without seeing a case
// another process loaded meanwhile, while the default core (read every
// time) sees it at once — so the flag reaches the in-memory corpus, and
// the default stays never stale.
func TestMaxStaleness(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	var errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, &bytes.Buffer{}, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stale, staleSrc := newServingCore(ctx, db, quietLogger(), corpusSettings{maxStaleness: time.Hour})
	fresh, freshSrc := newServingCore(ctx, db, quietLogger(), corpusSettings{})
	if _, err := staleSrc.Get(ctx); err != nil { // waits for the build; reads the version once
		t.Fatal(err)
	}
	if _, err := freshSrc.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := stale.CaseTags(ctx, "IL-0064"); err != nil || c == nil || c.ID != "IL-0064" {
		t.Fatalf("a seed case: %v", err)
	}

	// Another process loads a new case.
	dir := t.TempDir()
	added := corpus.SeedJSON(t, "IL-0206")
	added["id"] = "IL-9820"
	data, _ := json.Marshal(added)
	if err := os.WriteFile(filepath.Join(dir, "added.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(ctx, []string{"load", "--quiet", filepath.Join(corpus.Seeds(t), "vocab.json"), dir}, &bytes.Buffer{}, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}

	idOf := func(c *ilgraph.Case) string {
		if c == nil {
			return "no case"
		}
		return c.ID
	}
	if c, err := fresh.CaseTags(ctx, "IL-9820"); err != nil || idOf(c) != "IL-9820" {
		t.Errorf("default core, right after the load: %s, %v; want the new case", idOf(c), err)
	}
	if c, err := stale.CaseTags(ctx, "IL-9820"); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
		t.Errorf("core with --max-staleness 1h, right after the load: %s, %v; want NOT_FOUND (its version read is reused)", idOf(c), err)
	}
	if c, err := stale.Case(ctx, "IL-9820"); err != nil || idOf(c) != "IL-9820" {
		t.Errorf("the same core's whole case (read from Neo4j): %s, %v; want the new case", idOf(c), err)
	}
}
