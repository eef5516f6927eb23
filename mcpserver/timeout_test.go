package mcpserver_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestToolCallPastTheRequestTimeout: a tool call that cannot finish before
// the API's request timeout (here: the similarity index waits for a write
// under way that never comes) answers a TIMEOUT tool error the client can
// read, not a response cut off with the request (which the SDK's client
// read as "unmarshaling jsonrpc message: EOF").
func TestToolCallPastTheRequestTimeout(t *testing.T) {
	ctx := context.Background()
	db := neo4jtest.MustOpenSeeds(t)
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	core := explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)))
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}
	// The graph moves ahead while a write is held: similarity waits for it.
	release := src.Hold()
	defer release()
	if _, err := db.BumpCorpusVersion(ctx); err != nil {
		t.Fatal(err)
	}
	opt := mcpserver.Options{Logger: quiet(), Timeout: 30 * time.Second, RequestTimeout: 2 * time.Second}
	routes := apitest.JSONAPI(map[string]httpapi.Door{"/mcp": apitest.MCP(mcpserver.NewHandler(core, opt))}, nil)
	srv := httptest.NewServer(apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()},
		Shell: httpapi.Options{Routes: routes, RequestTimeout: 2 * time.Second}}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "similar_incidents", Arguments: map[string]any{"id": "IL-0282"}})
	if err != nil {
		t.Fatalf("the call failed in transport (%v); want a TIMEOUT tool error", err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "TIMEOUT") {
		t.Fatalf("got IsError %v, %q; want a TIMEOUT tool error", res.IsError, text)
	}
}
