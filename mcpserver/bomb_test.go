package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/mcpserver"
)

// Bodies of nearly 1 MiB built to make the SDK quote or repeat them are
// refused before it reads them, with a short answer: a batch of 10,000
// calls, a 1 MB tool name, method, request id or argument value. (Before,
// each was answered with as many bytes as it sent: the SDK quotes what it
// refuses, and answers a batch message by message.)
func TestBodyBombs(t *testing.T) {
	srv := httptest.NewServer(mcpserver.NewHandler(nil, mcpserver.Options{Logger: quiet()}))
	defer srv.Close()
	long := strings.Repeat("x", 1000000)
	call := func(id any, name string, args map[string]any) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}}
	}
	var batch []any
	for i := 0; i < 10000; i++ {
		batch = append(batch, call(i, "nope", nil))
	}
	for _, tt := range []struct {
		name string
		body any
		want string
	}{
		{"a batch of 10,000 calls", batch, "a batch of 10000 messages; at most 10"},
		{"a 1 MB tool name", call(1, long, nil), "params.name: longer than 100 bytes"},
		{"a 1 MB method", map[string]any{"jsonrpc": "2.0", "id": 1, "method": long}, "method: longer than 100 bytes"},
		{"a 1 MB request id", map[string]any{"jsonrpc": "2.0", "id": long, "method": "tools/list"}, "id: longer than 200 bytes"},
		{"a 1 MB query", call(1, "search_incidents", map[string]any{"query": long}), "a string longer than 16384 characters"},
		{"a 1 MB value deep down", call(1, "list_incidents", map[string]any{"components": []any{"a", long}}), "a string longer than 16384 characters"},
	} {
		body, _ := json.Marshal(tt.body)
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rpc struct {
			ID    any
			Error struct {
				Code    int
				Message string
			}
		}
		json.Unmarshal(out, &rpc)
		if resp.StatusCode != 400 || len(out) > 512 || rpc.Error.Code != -32600 || !strings.Contains(rpc.Error.Message, tt.want) {
			t.Errorf("%s (%d bytes): HTTP %d, %d bytes: %.300s; want 400 and a short JSON-RPC error saying %q", tt.name, len(body), resp.StatusCode, len(out), out, tt.want)
		}
	}
	// At the limits, the SDK answers as before: ten unknown tools, ten errors.
	batch = nil
	for i := 0; i < 10; i++ {
		batch = append(batch, call(i, fmt.Sprintf("nope%d", i), map[string]any{"query": strings.Repeat("y", 16000)}))
	}
	body, _ := json.Marshal(batch)
	req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(out), "unknown tool"); n != 10 {
		t.Errorf("a batch of 10 unknown tools: HTTP %d, %d answers: %.300s", resp.StatusCode, n, out)
	}
}
