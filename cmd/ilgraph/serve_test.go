package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/token"
)

// TestRateLimitExempt: the probes and the static files of the explorer and
// of the IDE skip the rate limit; pages and API requests do not.
func TestRateLimitExempt(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/healthz", true},
		{"GET", "/assets/app/main.js", true},
		{"HEAD", "/assets/app/main.js", true},
		{"GET", "/ide/assets/vendor/graphiql/graphiql.min.js", true},
		{"POST", "/ide/assets/vendor/graphiql/graphiql.min.js", false},
		{"GET", "/ide", false},
		{"GET", "/", false},
		{"POST", "/graphql", false},
		{"GET", "/cases", false},
	} {
		if got := exempt(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("%s %s: exempt %v, want %v", c.method, c.path, got, c.want)
		}
	}
}

// TestServeLimitsAuthFailures: as ilgraph serve wires it (the default
// --auth-failures, loopback counted), a client's eleventh failed
// authentication in a minute answers 429 before anything is checked, and
// /metrics counts it. Malformed tokens are refused without the store, so
// no Neo4j is needed.
func TestServeLimitsAuthFailures(t *testing.T) {
	f, err := parseServeFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	db, err := graph.Connect(graph.Config{URI: "bolt://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tokens := token.New(db, token.Options{})
	h := newAPI(coreOver(db, newInMemory(db, true), f.coreOptions(tokens)...), db, tokens, f, quietLogger())
	do := func(path, auth string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = "127.0.0.1:5555"
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range int(f.authFailures) {
		if w := do("/vocab", "Bearer not-a-token"); w.Code != 401 {
			t.Fatalf("failure %d: %d %s", i+1, w.Code, w.Body.String())
		}
	}
	w := do("/vocab", "Bearer not-a-token")
	if w.Code != 429 || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), `"RATE_LIMITED"`) {
		t.Errorf("after %g failures: %d %q %s", f.authFailures, w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	m := do("/metrics", "").Body.String()
	if !strings.Contains(m, `ilgraph_auth_failures_total{reason="invalid_token"} 10`) || !strings.Contains(m, `ilgraph_auth_failures_total{reason="rate_limited"} 1`) {
		t.Errorf("metrics:\n%s", grepMetric(m, "ilgraph_auth_failures_total"))
	}
}

func grepMetric(s, name string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, name) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
