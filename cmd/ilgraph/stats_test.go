package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
)

// TestCorpusReportIsCurrent checks that docs/corpus.md is what
// `ilgraph stats --markdown` prints for the seeds. UPDATE_DOCS=1 rewrites it.
func TestCorpusReportIsCurrent(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	if _, err := loader.Load(ctx, db, []string{corpus.Seeds(t)}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx, ilgraph.CaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeStats(&buf, st, true)
	path := filepath.Join(corpus.Root(t), "docs", "corpus.md")
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("docs/corpus.md is not current: run UPDATE_DOCS=1 go test ./cmd/ilgraph -run CorpusReport")
	}
	if st.Cases != len(corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))) {
		t.Errorf("stats count %d cases", st.Cases)
	}
}
