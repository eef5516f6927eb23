package apitest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

// VersionReads counts db's reads of the corpus version from now on (it
// takes db's query hook).
func VersionReads(db *graph.DB) *atomic.Int64 {
	var n atomic.Int64
	db.SetQueryHook(func(name string, _ time.Duration) {
		if name == "reading the corpus version" {
			n.Add(1)
		}
	})
	return &n
}

// LoadElsewhere loads a new case, a copy of the seed IL-0206 with the id
// id and the root cause capacity, as another process would: through a
// connection of its own, with ilgraph load's loader, so that a server
// over the same graph learns of it only from the graph.
func LoadElsewhere(tb testing.TB, id string) {
	tb.Helper()
	ctx := context.Background()
	added := corpus.SeedJSON(tb, "IL-0206")
	added["id"] = id
	added["root_cause"] = "capacity"
	path := filepath.Join(tb.TempDir(), "added.json")
	data, _ := json.Marshal(added)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	other, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		tb.Fatal(err)
	}
	defer other.Close()
	if _, err := loader.Load(ctx, other, []string{filepath.Join(corpus.Seeds(tb), "vocab.json"), path}, loader.Options{}); err != nil {
		tb.Fatal(err)
	}
}
