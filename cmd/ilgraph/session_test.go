package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/session"
	"github.com/ilgraph/ilgraph/token"
)

// TestServeSessions signs in to ilgraph serve's own wiring (newAPI, private,
// over the seeds in Neo4j) with tokens from the token store, and checks
// that the explorer and sign-in are open, that the session cookie is a
// credential on the API with its CSRF token and only then, that it never
// outlives its token, that a bearer token is judged alone, and that
// revoking the token ends the session.
func TestServeSessions(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	tokens := token.New(db, token.Options{Logger: quietLogger()})
	editorExpires := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	editor, _, err := tokens.CreateToken(ctx, "session-editor", ilgraph.RoleEditor, editorExpires)
	if err != nil {
		t.Fatal(err)
	}
	viewer, _, err := tokens.CreateToken(ctx, "session-viewer", ilgraph.RoleViewer, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseServeFlags([]string{"--private", "--auth-failures", "0", "--session-lifetime", "8h"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newAPI(coreOver(db, newInMemory(db, true), f.coreOptions(tokens)...), db, tokens, f, quietLogger()))
	defer srv.Close()

	type answer struct {
		status int
		body   string
		cookie *http.Cookie
	}
	do := func(method, path, body string, hdr ...string) answer {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		a := answer{status: resp.StatusCode, body: string(b)}
		if cs := resp.Cookies(); len(cs) > 0 {
			a.cookie = cs[0]
		}
		return a
	}
	const query = `{"query":"{ vocabulary { id } }"}`

	// Private: the explorer and sign-in are open, the API is not.
	if a := do("GET", "/", ""); a.status != 200 || !strings.Contains(a.body, "main.js") {
		t.Errorf("the explorer, anonymous: HTTP %d", a.status)
	}
	if a := do("GET", session.Pattern, ""); a.status != 200 || !strings.Contains(a.body, `"signedIn":false`) {
		t.Errorf("GET %s, anonymous: HTTP %d %s", session.Pattern, a.status, a.body)
	}
	if a := do("POST", "/graphql", query, "Origin", srv.URL); a.status != 401 {
		t.Errorf("GraphQL, anonymous: HTTP %d, want 401", a.status)
	}

	// Sign in: the cookie ends with the token, not after the 8 h lifetime.
	a := do("POST", session.Pattern, `{"token":"`+editor+`"}`, "Origin", srv.URL)
	if a.status != 200 || a.cookie == nil {
		t.Fatalf("sign in: HTTP %d %s", a.status, a.body)
	}
	left := time.Until(editorExpires)
	if got := time.Duration(a.cookie.MaxAge) * time.Second; got > left || got < left-time.Minute {
		t.Errorf("Max-Age %v, want the token's %v left", got, left.Round(time.Second))
	}
	var st struct {
		Name, Role, CSRFToken string
	}
	json.Unmarshal([]byte(a.body), &st)
	if st.Name != "session-editor" || st.Role != "editor" || st.CSRFToken == "" {
		t.Fatalf("sign in answered %s", a.body)
	}
	cookie := a.cookie.Name + "=" + a.cookie.Value

	// The cookie reads, and with the CSRF token from this origin posts.
	if a := do("GET", "/metrics", "", "Cookie", cookie); a.status != 200 || !strings.Contains(a.body, `ilgraph_session_signins_total{result="ok"} 1`) {
		t.Errorf("/metrics with the cookie: HTTP %d, or no sign-in counted", a.status)
	}
	if a := do("POST", "/graphql", query, "Cookie", cookie, "Origin", srv.URL, session.CSRFHeader, st.CSRFToken); a.status != 200 || !strings.Contains(a.body, `"vocabulary"`) {
		t.Errorf("GraphQL with the cookie and CSRF token: HTTP %d %.200s", a.status, a.body)
	}
	for name, hdr := range map[string][]string{
		"without the CSRF token": {"Cookie", cookie, "Origin", srv.URL},
		"from another origin":    {"Cookie", cookie, "Origin", "http://evil.test", session.CSRFHeader, st.CSRFToken},
	} {
		if a := do("POST", "/graphql", query, hdr...); a.status != 403 || !strings.Contains(a.body, "FORBIDDEN") || strings.Contains(a.body, `"vocabulary"`) {
			t.Errorf("GraphQL %s: HTTP %d %.200s, want 403 FORBIDDEN and no data", name, a.status, a.body)
		}
	}
	// A bearer token is judged alone: the cookie without CSRF does not
	// spoil it.
	if a := do("POST", "/graphql", query, "Cookie", cookie, "Authorization", "Bearer "+viewer); a.status != 200 {
		t.Errorf("GraphQL with a bearer token and the cookie: HTTP %d", a.status)
	}

	// Revoked: the next state-changing request finds it so, and the
	// session is gone.
	if err := tokens.RevokeToken(ctx, "session-editor"); err != nil {
		t.Fatal(err)
	}
	if a := do("POST", "/graphql", query, "Cookie", cookie, "Origin", srv.URL, session.CSRFHeader, st.CSRFToken); a.status != 401 {
		t.Errorf("GraphQL after revocation: HTTP %d, want 401", a.status)
	}
	if a := do("GET", session.Pattern, "", "Cookie", cookie); !strings.Contains(a.body, `"signedIn":false`) {
		t.Errorf("the session outlived its token's revocation: %s", a.body)
	}

	// Behind a TLS-terminating proxy, trusted: a Secure __Host- cookie.
	f, err = parseServeFlags([]string{"--trusted-proxies", "127.0.0.1", "--public-origins", "https://ilgraph.example.com"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tls := httptest.NewServer(newAPI(coreOver(db, newInMemory(db, true), f.coreOptions(tokens)...), db, tokens, f, quietLogger()))
	defer tls.Close()
	srv = tls
	a = do("POST", session.Pattern, `{"token":"`+viewer+`"}`, "Origin", "https://ilgraph.example.com", "X-Forwarded-Proto", "https")
	if a.status != 200 || a.cookie == nil || !a.cookie.Secure || a.cookie.Name != "__Host-ilgraph-session" {
		t.Errorf("behind TLS: HTTP %d, cookie %+v", a.status, a.cookie)
	}
	if a := do("POST", session.Pattern, `{"token":"`+viewer+`"}`, "Origin", tls.URL); a.status != 403 {
		t.Errorf("sign-in from the Host's origin when the public origin is set: HTTP %d, want 403", a.status)
	}
}
