package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestMCPOverStdio runs ilgraph mcp as a desktop assistant does — its
// stdin and stdout are the client's pipe — and drives it with the SDK's
// client.
func TestMCPOverStdio(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	var errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, io.Discard, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	old := stdin
	stdin = inR
	defer func() { stdin = old }()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"mcp"}, outW, io.Discard)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 14 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-0384"}})
	if err != nil || res.IsError {
		t.Fatalf("get_incident: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"id":"IL-0384"`) {
		t.Fatalf("get_incident: %s", b)
	}
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-9999"}})
	if err != nil || !res.IsError {
		t.Fatalf("unknown id: %v %+v", err, res)
	}
	// Without ILGRAPH_TOKEN it is anonymous: a judgment is refused as a
	// tool error, with the core's code and message.
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "judge_similar", Arguments: map[string]any{"id": "IL-0384", "match": "IL-0282", "grade": "relevant"}})
	if err != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("judge_similar without a token: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.HasPrefix(tc.Text, "UNAUTHORIZED: this needs a token with the reviewer role") {
		t.Fatalf("judge_similar without a token: %v %+v", err, res)
	}
	// The client closing its end stops the server cleanly.
	s.Close()
	inW.Close()
	if code := <-done; code != exitOK {
		t.Fatalf("mcp exited %d", code)
	}
}

// TestServeFrontDoorsAndRateLimit starts ilgraph serve with a tight limit
// that applies to loopback and checks that every door is mounted and shares
// the limit, and that health checks are exempt.
func TestServeFrontDoorsAndRateLimit(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, io.Discard, io.Discard); code != exitOK {
		t.Fatalf("load: exit %d", code)
	}
	var errb bytes.Buffer
	if code := run(ctx, []string{"serve", "--trusted-proxies", "proxy.example"}, io.Discard, &errb); code != exitUsage || !strings.Contains(errb.String(), "trusted") {
		t.Fatalf("bad --trusted-proxies: exit %d %q", code, errb.String())
	}
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--rate-limit", "0.001", "--rate-burst", "4", "--rate-limit-loopback"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	base := regexp.MustCompile(`http://[0-9.:]+`).FindString(line)

	get := func(path string) *http.Response {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := get("/cases/IL-0384"); r.StatusCode != 200 {
		t.Fatalf("JSON API: %d", r.StatusCode)
	}
	if r := get("/openapi.json"); r.StatusCode != 200 {
		t.Fatalf("openapi.json: %d", r.StatusCode)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("MCP over HTTP: %v", err)
	}
	s.Close()
	// Spend what is left of the burst of 4; then every door answers 429
	// with Retry-After, and health checks still pass.
	for i := 0; get("/vocab").StatusCode == 200; i++ {
		if i == 4 {
			t.Fatal("no 429 after the burst")
		}
	}
	for _, path := range []string{"/cases/IL-0384", "/graphql?query=%7B__typename%7D", "/vocab"} {
		r := get(path)
		if r.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("%s after the burst: %d", path, r.StatusCode)
		}
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
	}
	if r := get("/healthz"); r.StatusCode != 200 {
		t.Fatalf("healthz rate-limited: %d", r.StatusCode)
	}
	stop()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d", code)
	}
}
