package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/mcpserver"
)

// TestReadToolsPinOneCorpus: a read-only tool that asks several questions
// (a topic: its cases, counts and co-occurring terms) reads the corpus
// version once per call, as a GraphQL query does; and a call right after
// another process changed the cases answers with the change.
func TestReadToolsPinOneCorpus(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	core := apitest.Core(db)
	versionReads := apitest.VersionReads(db)
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewServer(core, mcpserver.Options{Logger: quiet(), Timeout: 10 * time.Second}).Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-test", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(t *testing.T, name string, args map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	// The corpus is built by the first answers from memory.
	for deadline := time.Now().Add(time.Minute); ; {
		if _, check := core.Pin(ctx); check != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no corpus built after a minute")
		}
		call(t, "list_incidents", map[string]any{"root_cause": []string{"capacity"}})
		time.Sleep(50 * time.Millisecond)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_topic", map[string]any{"kind": "root_cause", "id": "capacity"}},
		{"same_root_cause", map[string]any{"id": "IL-0064"}},
		{"similar_incidents", map[string]any{"id": "IL-0064"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			call(t, tc.tool, tc.args) // warm
			versionReads.Store(0)
			const n = 4
			for range n {
				call(t, tc.tool, tc.args)
			}
			if got := versionReads.Load(); got != n {
				t.Errorf("%d calls read the corpus version %d times, want %d (one each)", n, got, n)
			}
		})
	}

	t.Run("a change by another process is seen by the next call", func(t *testing.T) {
		apitest.LoadElsewhere(t, "IL-9823")
		call(t, "same_root_cause", map[string]any{"id": "IL-9823"})
	})
}
