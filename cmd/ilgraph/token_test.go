package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/token"
)

// TestTokenEndToEnd: with the built binary, an operator creates a token
// (printed once), lists it, a private server (ILGRAPH_PRIVATE) refuses
// requests without it and answers them with it, stdio MCP acts as it
// (ILGRAPH_TOKEN), its last use shows in the list, and once it is revoked
// the running server refuses it within the cache's bound and stdio MCP
// refuses to start with it.
func TestTokenEndToEnd(t *testing.T) {
	neo4jtest.MustOpenSeeds(t)
	bin := buildBinary(t)
	env := neo4jEnv()
	ilgraph := func(extra []string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append(os.Environ(), env...), extra...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}

	out, errs, code := ilgraph(nil, "token", "create", "--name", "analyst", "--role", "viewer", "--expires", "30d")
	tok := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(tok, token.Prefix) || strings.Count(out, "\n") != 1 || !strings.Contains(errs, "cannot be shown again") {
		t.Fatalf("token create: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code := ilgraph(nil, "token", "create", "--name", "analyst", "--role", "admin"); code != exitFailure || !strings.Contains(errs, "exists already") {
		t.Errorf("a second analyst: exit %d, %q", code, errs)
	}
	if _, _, code := ilgraph(nil, "token", "create", "--name", "x", "--role", "root"); code != exitUsage {
		t.Errorf("an unknown role: exit %d", code)
	}
	list := func() map[string]tokenJSON {
		t.Helper()
		out, errs, code := ilgraph(nil, "token", "list", "--json")
		var ts []tokenJSON
		if code != 0 || json.Unmarshal([]byte(out), &ts) != nil {
			t.Fatalf("token list: exit %d %q %q", code, out, errs)
		}
		if strings.Contains(out, tok) || strings.Contains(out, tok[len(token.Prefix)+17:]) {
			t.Fatal("token list shows the token")
		}
		m := map[string]tokenJSON{}
		for _, x := range ts {
			m[x.Name] = x
		}
		return m
	}
	if a := list()["analyst"]; a.Role != "viewer" || a.Status != "active" || a.Expires == "" || a.LastUsed != "" {
		t.Errorf("listed %+v", a)
	}

	base := serveBinary(t, bin, append(env, "ILGRAPH_PRIVATE=true"))
	get := func(path, tok string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}
	if code, ch := get("/cases/IL-0384", ""); code != 401 || ch != `Bearer realm="ilgraph"` {
		t.Errorf("private, no token: %d %q", code, ch)
	}
	if code, _ := get("/cases/IL-0384", tok); code != 200 {
		t.Errorf("private, with the token: %d", code)
	}
	if code, _ := get("/healthz", ""); code != 200 {
		t.Errorf("healthz: %d", code)
	}

	// stdio MCP as the token.
	mcpCall := fmt.Sprintf("%s\n%s\n%s\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_incident","arguments":{"id":"IL-0384"}}}`)
	// stdio runs ilgraph mcp as tok, sends the messages and waits for the
	// answer to the tool call before closing its input.
	stdio := func(tok string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, "mcp")
		cmd.Env = append(append(os.Environ(), env...), "ILGRAPH_PRIVATE=true", "ILGRAPH_TOKEN="+tok)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		outp, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(in, mcpCall)
		got := make(chan string, 1)
		go func() {
			var all strings.Builder
			sc := bufio.NewScanner(outp)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				all.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), `"id":2`) {
					break
				}
			}
			got <- all.String()
			io.Copy(io.Discard, outp)
		}()
		var out string
		select {
		case out = <-got:
		case <-time.After(time.Minute):
			t.Error("stdio MCP did not answer in a minute")
		}
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		return out, errb.String(), cmd.ProcessState.ExitCode()
	}
	out, errs, _ = stdio(tok)
	if !strings.Contains(out, `"id":2`) || !strings.Contains(out, "IL-0384") || strings.Contains(out, `"isError":true`) {
		t.Errorf("stdio MCP as the token: %s\n%s", out, errs)
	}
	if strings.Contains(errs, tok) {
		t.Error("stdio MCP logged the token")
	}
	out, _, _ = stdio("")
	if !strings.Contains(out, `"id":2`) || !strings.Contains(out, "UNAUTHORIZED") && !strings.Contains(out, "unauthorized") && !strings.Contains(out, "token") {
		t.Errorf("stdio MCP without a token, private: %s", out)
	}
	if a := list()["analyst"]; a.LastUsed == "" {
		t.Errorf("no last use after use: %+v", a)
	}

	if out, errs, code := ilgraph(nil, "token", "revoke", "analyst"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke: exit %d %q %q", code, out, errs)
	}
	if a := list()["analyst"]; a.Status != "revoked" || a.Revoked == "" {
		t.Errorf("after revoke: %+v", a)
	}
	deadline := time.Now().Add(token.CacheTTL + 2*time.Second)
	for {
		code, ch := get("/cases/IL-0384", tok)
		if code == 401 && ch == `Bearer realm="ilgraph", error="invalid_token"` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running server still answers a revoked token after %s: %d", token.CacheTTL+2*time.Second, code)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, errs, code := stdio(tok); code != exitFailure || !strings.Contains(errs, "ILGRAPH_TOKEN") {
		t.Errorf("stdio MCP with a revoked token: exit %d %q", code, errs)
	}
	if _, errs, code := ilgraph(nil, "token", "revoke", "nobody"); code != exitFailure || !strings.Contains(errs, "no token is named") {
		t.Errorf("revoking an unknown name: exit %d %q", code, errs)
	}
}
