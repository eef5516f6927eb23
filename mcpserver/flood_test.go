package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/resolvers"
)

// floodAnswer is what a flood client reads of an answer to a tools/call.
type floodAnswer struct {
	tool    string
	status  int
	retry   string
	id      int
	rpcCode int    // the JSON-RPC error's code; 0 for a result
	code    string // the error's data.code
	msg     string
	isError bool // a tool error result
	text    string
}

// TestFloodThroughMCP floods MCP's heavy tools — match_incident,
// similar_incidents, suggest_terms, get_topic — from 32 client addresses
// at once while 4 other clients call get_incident and vocab, through the
// per-client rate limit as ilgraph serve runs it. The similarity and
// aggregate classes have one slot each and no queue. First with those
// slots held: every heavy call is refused — HTTP 503 with Retry-After and
// a JSON-RPC error for the call's id that says OVERLOADED, which class is
// busy and when to retry; then with them free: every heavy call is
// answered or refused so, at least one answered. The lookups are answered
// throughout, and /metrics counts exactly the refusals the clients saw.
func TestFloodThroughMCP(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	core := apitest.Core(db)
	var cfg admission.Config
	cfg.Limits[admission.Similarity] = admission.Limit{InFlight: 1, Queue: -1}
	cfg.Limits[admission.Aggregate] = admission.Limit{InFlight: 1, Queue: -1}
	adm := admission.New(cfg)
	routes := map[string]httpapi.Door{"/mcp": apitest.MCP(mcpserver.NewHandler(core, mcpserver.Options{Logger: quiet(), Admitter: adm}))}
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet(), Admitter: adm}, Shell: httpapi.Options{Routes: routes}})
	srv := httptest.NewServer(apitest.ManyClients().Middleware(h))
	defer srv.Close()
	ids := seedIDs(t)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	call := func(addr string, id int, tool string, args map[string]any) floodAnswer {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := client.Do(req)
		if err != nil {
			return floodAnswer{tool: tool, status: -1, msg: err.Error()}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var rpc struct {
			ID    int
			Error struct {
				Code    int
				Message string
				Data    struct{ Code string }
			}
			Result struct {
				IsError bool
				Content []struct{ Text string }
			}
		}
		json.Unmarshal(b, &rpc)
		a := floodAnswer{tool: tool, status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), id: rpc.ID,
			rpcCode: rpc.Error.Code, code: rpc.Error.Data.Code, msg: rpc.Error.Message, isError: rpc.Result.IsError}
		if len(rpc.Result.Content) > 0 {
			a.text = rpc.Result.Content[0].Text
		}
		if a.status != 200 && a.msg == "" {
			a.msg = string(b)
		}
		return a
	}
	heavy := []struct {
		tool  string
		class string
		args  func(c, i int) map[string]any
	}{
		{"match_incident", "similarity", func(c, i int) map[string]any {
			return map[string]any{"root_cause": "capacity", "components": []string{"message-broker"}, "text": "queue backlog grew after a deploy", "k": 5}
		}},
		{"similar_incidents", "similarity", func(c, i int) map[string]any { return map[string]any{"id": ids[(c*4+i)%len(ids)], "k": 5} }},
		{"suggest_terms", "similarity", func(c, i int) map[string]any {
			return map[string]any{"text": "connection pool exhausted after a deploy"}
		}},
		{"get_topic", "aggregate", func(c, i int) map[string]any {
			return map[string]any{"kind": "component", "id": "message-broker", "limit": 5}
		}},
	}
	classOf := map[string]string{}
	for _, x := range heavy {
		classOf[x.tool] = x.class
	}
	const clients, perClient = 32, 4 // under the rate limit's burst
	flood := func() apitest.FloodAnswers[floodAnswer] {
		return apitest.Flood(clients, perClient, 4,
			func(c, i int) floodAnswer {
				x := heavy[(c+i)%len(heavy)]
				return call(apitest.ClientAddr(c), c*100+i, x.tool, x.args(c, i))
			},
			func(c, i int) floodAnswer {
				addr := apitest.ClientAddr(1<<16 + c<<12 + i) // never rate-limited
				if i%5 == 4 {
					return call(addr, i, "vocab", map[string]any{"kinds": []string{"root_cause"}})
				}
				return call(addr, i, "get_incident", map[string]any{"id": ids[(c*31+i)%len(ids)]})
			})
	}
	checkLookups := func(phase string, out []floodAnswer) {
		t.Helper()
		for _, a := range out {
			if a.status != 200 || a.rpcCode != 0 || a.isError {
				t.Errorf("%s: %s answered HTTP %d %d %s %s", phase, a.tool, a.status, a.rpcCode, a.msg, a.text)
			}
		}
	}
	refusal := func(a floodAnswer) bool {
		return a.status == 503 && a.retry == "2" && a.rpcCode == -32000 && a.code == "OVERLOADED" &&
			strings.HasPrefix(a.msg, "OVERLOADED: the server is busy with "+classOf[a.tool]+" requests; retry in 2 s")
	}

	var holds []func()
	for _, cl := range []admission.Class{admission.Similarity, admission.Aggregate} {
		r, err := adm.Acquire(context.Background(), cl)
		if err != nil {
			t.Fatal(err)
		}
		holds = append(holds, r)
	}
	busy := flood()
	for _, a := range busy.Heavy {
		if !refusal(a) {
			t.Errorf("with its class busy, %s answered HTTP %d Retry-After %q error %d %s %q; want 503, Retry-After 2, -32000 OVERLOADED naming the class", a.tool, a.status, a.retry, a.rpcCode, a.code, a.msg)
		}
	}
	checkLookups("with the heavy classes busy", busy.Lookups)
	for _, r := range holds {
		r()
	}

	free := flood()
	answered, refused := 0, len(busy.Heavy)
	for _, a := range free.Heavy {
		switch {
		case a.status == 200 && a.rpcCode == 0 && !a.isError:
			answered++
		case refusal(a):
			refused++
		default:
			t.Errorf("in the flood, %s answered HTTP %d error %d %s %q %s", a.tool, a.status, a.rpcCode, a.code, a.msg, a.text)
		}
	}
	checkLookups("in the flood", free.Lookups)
	if answered == 0 {
		t.Errorf("no heavy call of %d answered with the classes free", len(free.Heavy))
	}
	t.Logf("%d heavy calls from %d addresses refused while their classes were busy; then %d answered and %d refused; %d lookups answered",
		len(busy.Heavy), clients, answered, refused-len(busy.Heavy), len(busy.Lookups)+len(free.Lookups))
	by := refusedMetrics(t, client, srv.URL)
	if len(by) != 2 || by["similarity mcp"]+by["aggregate mcp"] != refused {
		t.Errorf("/metrics counts refusals %v; want %d similarity and aggregate ones at the mcp door, none else", by, refused)
	}
}

// TestEveryToolClassified: every tool MCP lists has a cost class in
// admission.Classes, and the table names no tool that is gone.
func TestEveryToolClassified(t *testing.T) {
	tools, _ := listed(t)
	listedNames := map[string]bool{}
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		listedNames[name] = true
		if _, ok := admission.Classes["mcp "+name]; !ok {
			t.Errorf("tool %s has no cost class in admission.Classes", name)
		}
	}
	for key := range admission.Classes {
		if name, ok := strings.CutPrefix(key, "mcp "); ok && !listedNames[name] {
			t.Errorf("admission.Classes classifies %q, which MCP does not list", key)
		}
	}
}

// seedIDs are the ids of the seed cases, read from their files.
func seedIDs(t *testing.T) []string {
	t.Helper()
	names, err := os.ReadDir(filepath.Join(corpus.Seeds(t), "cases"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range names {
		if id, ok := strings.CutSuffix(n.Name(), ".json"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// refusedMetrics is ilgraph_admission_refused_total on /metrics, summed
// by "class door", the counts that are not zero.
func refusedMetrics(t *testing.T, client *http.Client, url string) map[string]int {
	t.Helper()
	resp, err := client.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	by := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, `ilgraph_admission_refused_total{class="`)
		if !ok {
			continue
		}
		class, rest, _ := strings.Cut(rest, `"`)
		_, rest, _ = strings.Cut(rest, `door="`)
		door, _, _ := strings.Cut(rest, `"`)
		var v float64
		fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
		if v != 0 {
			by[class+" "+door] += int(v)
		}
	}
	return by
}
