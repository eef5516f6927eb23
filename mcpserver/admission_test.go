package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/resolvers"
)

// TestAdmissionAcrossFrontDoors: GraphQL, the JSON API and MCP over HTTP
// take their slots from one controller, by the classes of
// admission.Classes. With the aggregate class full (its one slot held, no
// queue) an aggregate answers 503 with Retry-After through every door, each
// in its own error format, while lookups through every door are answered;
// the refusals are counted by class on /metrics.
func TestAdmissionAcrossFrontDoors(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	core := apitest.Core(db)
	var cfg admission.Config
	cfg.Limits[admission.Aggregate] = admission.Limit{InFlight: 1, Queue: -1}
	adm := admission.New(cfg)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quiet(), Admitter: adm})
	routes := apitest.JSONAPI(map[string]httpapi.Door{"/mcp": apitest.MCP(mcpserver.NewHandler(core, mcpserver.Options{Logger: quiet(), Admitter: adm}))}, api)
	srv := httptest.NewServer(apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet(), Admitter: adm}, Shell: httpapi.Options{Routes: routes}}))
	defer srv.Close()

	type answer struct {
		status int
		retry  string
		body   string
	}
	do := func(method, path, body string) answer {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b)}
	}
	graphql := func(q string) answer {
		b, _ := json.Marshal(map[string]string{"query": q})
		return do("POST", "/graphql", string(b))
	}
	tool := func(id int, name string, args map[string]any) answer {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args}})
		return do("POST", "/mcp", string(b))
	}

	// Every door answers before the class is full, so the refusals below
	// are the bound's doing, not a broken request.
	for _, a := range []answer{
		do("GET", "/topics/component/message-broker?limit=3", ""),
		graphql(`{ stats { cases } }`),
		tool(1, "get_topic", map[string]any{"kind": "component", "id": "message-broker", "limit": 3}),
	} {
		if a.status != 200 || strings.Contains(a.body, "OVERLOADED") {
			t.Fatalf("an aggregate with a free slot: HTTP %d %s", a.status, a.body)
		}
	}

	hold, err := adm.Acquire(ctx, admission.Aggregate)
	if err != nil {
		t.Fatal(err)
	}
	defer hold()

	a := do("GET", "/topics/component/message-broker?limit=3", "")
	var jsonErr struct {
		Error struct{ Code, Message string }
	}
	json.Unmarshal([]byte(a.body), &jsonErr)
	if a.status != 503 || a.retry != "2" || jsonErr.Error.Code != "OVERLOADED" || !strings.Contains(jsonErr.Error.Message, "aggregate") {
		t.Errorf("JSON API aggregate with its class full: HTTP %d Retry-After %q %s; want 503, 2, OVERLOADED", a.status, a.retry, a.body)
	}
	a = graphql(`{ stats { cases } }`)
	if a.status != 503 || a.retry != "2" || !strings.Contains(a.body, `"code":"OVERLOADED"`) {
		t.Errorf("GraphQL aggregate with its class full: HTTP %d Retry-After %q %s", a.status, a.retry, a.body)
	}
	a = tool(7, "get_topic", map[string]any{"kind": "component", "id": "message-broker"})
	var rpc struct {
		ID    int `json:"id"`
		Error struct {
			Code    int
			Message string
			Data    struct {
				Code       string
				RetryAfter int
			}
		}
	}
	json.Unmarshal([]byte(a.body), &rpc)
	if a.status != 503 || a.retry != "2" || rpc.ID != 7 || rpc.Error.Code != -32000 || rpc.Error.Data.Code != "OVERLOADED" || rpc.Error.Data.RetryAfter != 2 {
		t.Errorf("MCP get_topic with its class full: HTTP %d Retry-After %q %s; want 503, 2 and a JSON-RPC error for id 7 with data.code OVERLOADED", a.status, a.retry, a.body)
	}
	// An MCP client sees the refusal as a failed call that names it.
	client := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting while aggregates are full (initialize is a lookup): %v", err)
	}
	defer session.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if res, err := session.CallTool(cctx, &mcp.CallToolParams{Name: "get_topic", Arguments: map[string]any{"kind": "component", "id": "message-broker"}}); err == nil {
		t.Errorf("MCP client: get_topic with its class full answered %+v", res)
	}

	// Lookups through every door are answered meanwhile.
	if a := do("GET", "/cases/IL-0282", ""); a.status != 200 || !strings.Contains(a.body, `"IL-0282"`) {
		t.Errorf("JSON API lookup while aggregates are full: HTTP %d %.200s", a.status, a.body)
	}
	if a := graphql(`{ case(id: "IL-0282") { id } }`); a.status != 200 || !strings.Contains(a.body, `"IL-0282"`) {
		t.Errorf("GraphQL lookup while aggregates are full: HTTP %d %.200s", a.status, a.body)
	}
	if a := tool(8, "get_incident", map[string]any{"id": "IL-0282"}); a.status != 200 || !strings.Contains(a.body, `IL-0282`) || strings.Contains(a.body, `"isError":true`) {
		t.Errorf("MCP lookup while aggregates are full: HTTP %d %.200s", a.status, a.body)
	}
	if res, err := session.CallTool(cctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-0282"}}); err != nil || res.IsError {
		t.Errorf("MCP client lookup while aggregates are full: %v %+v", err, res)
	}
	if n := adm.Running(admission.Lookup); n != 0 {
		t.Errorf("%d lookup slots not given back", n)
	}

	// Three refusals at the HTTP doors, and the client's call, each
	// counted at its door.
	m := do("GET", "/metrics", "")
	for _, want := range []string{
		`ilgraph_admission_refused_total{class="aggregate",door="graphql",reason="queue_full"} 1`,
		`ilgraph_admission_refused_total{class="aggregate",door="jsonapi",reason="queue_full"} 1`,
		`ilgraph_admission_refused_total{class="aggregate",door="mcp",reason="queue_full"} 2`,
	} {
		if strings.Contains(m.body, want) {
			continue
		}
		var got []string
		for _, l := range strings.Split(m.body, "\n") {
			if strings.HasPrefix(l, "ilgraph_admission_refused_total") {
				got = append(got, l)
			}
		}
		t.Errorf("metrics: want %s, have %s", want, strings.Join(got, "; "))
	}
}
