package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/ratelimit"
)

// tokens is an Authenticator of fixed tokens.
type tokens map[string]ilgraph.Principal

func (ts tokens) Authenticate(_ context.Context, tok string) (ilgraph.Principal, error) {
	if p, ok := ts[tok]; ok {
		return p, nil
	}
	return ilgraph.Principal{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid")
}

// cookie is a second credential source, as an explorer session would be.
type cookie map[string]ilgraph.Principal

func (c cookie) Present(r *http.Request) bool { _, err := r.Cookie("s"); return err == nil }

func (c cookie) Principal(r *http.Request) (ilgraph.Principal, error) {
	k, _ := r.Cookie("s")
	if p, ok := c[k.Value]; ok {
		return p, nil
	}
	return ilgraph.Principal{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the session has ended")
}

// whoami answers with the principal the request's context carries.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	p := ilgraph.PrincipalFrom(r.Context())
	fmt.Fprintf(w, "%s/%s", p.Name, p.Role)
})

const (
	viewerTok = "ilg_viewer-secret"
	adminTok  = "ilg_admin-secret"
)

func authShell(private bool, metrics ilgraph.Role, failures httpapi.FailureLimiter, log io.Writer) http.Handler {
	if log == nil {
		log = io.Discard
	}
	return httpapi.New(httpapi.Options{
		Logger: slog.New(slog.NewTextHandler(log, nil)),
		Credentials: []httpapi.Credential{
			httpapi.Bearer(tokens{viewerTok: {Name: "v", Role: ilgraph.RoleViewer}, adminTok: {Name: "a", Role: ilgraph.RoleAdmin}}),
			cookie{"good": {Name: "session", Role: ilgraph.RoleReviewer}},
		},
		Private: private, MetricsRole: metrics, AuthFailures: failures,
		Routes: map[string]httpapi.Door{
			"/door":   {Handler: whoami, Fail: failJSON},
			"/static": {Handler: whoami},
			"/signin": {Handler: whoami, Fail: failJSON, Open: true},
		},
	})
}

type call struct {
	path, auth, cookie string
}

func (c call) do(h http.Handler) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", c.path, nil)
	if c.auth != "" {
		r.Header.Set("Authorization", c.auth)
	}
	if c.cookie != "" {
		r.AddCookie(&http.Cookie{Name: "s", Value: c.cookie})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestAuthentication: every route but the probes authenticates the
// credential a request carries (a bad one is 401 with the bearer challenge,
// in the door's format, public or private); in private mode a route needs a
// viewer unless it is open; the principal reaches the door.
func TestAuthentication(t *testing.T) {
	for _, private := range []bool{false, true} {
		h := authShell(private, ilgraph.RoleNone, nil, nil)
		anon, anonBody, anonChallenge := 200, "/none", ""
		if private {
			anon, anonBody, anonChallenge = 401, `"unauthorized"`, `Bearer realm="ilgraph"`
		}
		for _, c := range []struct {
			call
			status    int
			body      string // the body, or a JSON code
			challenge string
		}{
			{call{path: "/door"}, anon, anonBody, anonChallenge},
			{call{path: "/static"}, anon, "/none", anonChallenge}, // plain text when private
			{call{path: "/signin"}, 200, "/none", ""},
			{call{path: "/door", auth: "Bearer " + viewerTok}, 200, "v/viewer", ""},
			{call{path: "/door", auth: "bearer " + adminTok}, 200, "a/admin", ""},
			{call{path: "/door", cookie: "good"}, 200, "session/reviewer", ""},
			{call{path: "/door", auth: "Bearer " + viewerTok, cookie: "good"}, 200, "v/viewer", ""}, // the first present wins
			{call{path: "/door", auth: "Bearer nope"}, 401, `"unauthorized"`, `Bearer realm="ilgraph", error="invalid_token"`},
			{call{path: "/door", auth: "Bearer"}, 401, `"unauthorized"`, `Bearer realm="ilgraph", error="invalid_token"`},
			{call{path: "/door", auth: "Basic dXNlcjpwYXNz"}, anon, anonBody, anonChallenge}, // not ours: anonymous
			{call{path: "/signin", auth: "Bearer nope"}, 401, `"unauthorized"`, `Bearer realm="ilgraph", error="invalid_token"`},
			{call{path: "/door", cookie: "stale"}, 401, `"unauthorized"`, `Bearer realm="ilgraph", error="invalid_token"`},
			{call{path: "/healthz", auth: "Bearer nope"}, 200, "ok\n", ""},
			{call{path: "/readyz", auth: "Bearer nope"}, 200, "ready\n", ""},
		} {
			w := c.do(h)
			body := w.Body.String()
			if w.Code == 401 && c.call.path == "/door" {
				var e struct{ Code, Message string }
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
					t.Errorf("private %v %+v: not the door's format: %q", private, c.call, body)
				}
				body = `"` + e.Code + `"`
			}
			if w.Code != c.status || (w.Code != 401 || c.call.path == "/door") && !strings.Contains(body, c.body) || w.Header().Get("WWW-Authenticate") != c.challenge {
				t.Errorf("private %v %+v: %d %q %q, want %d %q %q", private, c.call, w.Code, body, w.Header().Get("WWW-Authenticate"), c.status, c.body, c.challenge)
			}
		}
	}
}

// TestMetricsRole: /metrics needs the role it is given, 403 naming the
// role for a principal below it, and counts refused authentications.
func TestMetricsRole(t *testing.T) {
	h := authShell(false, ilgraph.RoleAdmin, nil, nil)
	if w := (call{path: "/metrics"}).do(h); w.Code != 401 {
		t.Errorf("anonymous: %d", w.Code)
	}
	w := (call{path: "/metrics", auth: "Bearer " + viewerTok}).do(h)
	if w.Code != 403 || !strings.Contains(w.Body.String(), "admin role") {
		t.Errorf("viewer: %d %q", w.Code, w.Body.String())
	}
	(call{path: "/door", auth: "Bearer nope"}).do(h)
	w = (call{path: "/metrics", auth: "Bearer " + adminTok}).do(h)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `ilgraph_auth_failures_total{reason="invalid_token"} 1`) ||
		!strings.Contains(w.Body.String(), `ilgraph_auth_failures_total{reason="missing_token"} 1`) {
		t.Errorf("admin: %d, failures not counted:\n%s", w.Code, grepLines(w.Body.String(), "ilgraph_auth"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestAuthFailuresLimited: after its allowance of failures a client's
// credentials — good ones too — get 429 with Retry-After, before they are
// checked; another client is not affected; after the wait it may try again.
func TestAuthFailuresLimited(t *testing.T) {
	now := time.Unix(1e9, 0)
	clock := func() time.Time { return now }
	h := authShell(false, ilgraph.RoleNone, ratelimit.NewFailures(ratelimit.Options{Rate: 1.0 / 60, Burst: 3, LimitLoopback: true, Now: clock}), nil)
	from := func(addr, auth string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/door", nil)
		r.RemoteAddr = addr + ":1234"
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range 3 {
		if w := from("192.0.2.1", "Bearer bad"); w.Code != 401 {
			t.Fatalf("failure %d: %d", i+1, w.Code)
		}
	}
	w := from("192.0.2.1", "Bearer "+viewerTok)
	if w.Code != 429 || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "rate_limited") {
		t.Errorf("blocked client with a good token: %d %q %q", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	if w := from("192.0.2.1", ""); w.Code != 200 {
		t.Errorf("blocked client without a credential (public): %d", w.Code)
	}
	if w := from("192.0.2.2", "Bearer "+viewerTok); w.Code != 200 {
		t.Errorf("another client: %d", w.Code)
	}
	now = now.Add(time.Minute)
	if w := from("192.0.2.1", "Bearer "+viewerTok); w.Code != 200 {
		t.Errorf("after the wait: %d", w.Code)
	}
}

// TestTokensNotLogged: the request log names the principal by its token's
// name and never holds a token, good or bad.
func TestTokensNotLogged(t *testing.T) {
	var log bytes.Buffer
	h := authShell(true, ilgraph.RoleNone, nil, &log)
	(call{path: "/door", auth: "Bearer " + viewerTok}).do(h)
	(call{path: "/door", auth: "Bearer ilg_wrong-secret"}).do(h)
	(call{path: "/door?token=" + viewerTok}).do(h)
	if s := log.String(); strings.Contains(s, "secret") || !strings.Contains(s, "principal=v") {
		t.Errorf("log:\n%s", s)
	}
}

// TestCORSAuthorization: an allowed origin's preflight may send
// Authorization; no origin is ever told it may send cookies, and an origin
// not on the list gets no CORS headers.
func TestCORSAuthorization(t *testing.T) {
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.DiscardHandler), CORSOrigins: []string{"https://tools.example"},
		Routes: map[string]httpapi.Door{"/door": {Handler: whoami, Fail: failJSON}}})
	for origin, allowed := range map[string]bool{"https://tools.example": true, "https://evil.example": false} {
		r := httptest.NewRequest("OPTIONS", "/door", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "GET")
		r.Header.Set("Access-Control-Request-Headers", "authorization")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		hdr := w.Header()
		if got := strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "Authorization") && hdr.Get("Access-Control-Allow-Origin") == origin; got != allowed {
			t.Errorf("%s: allowed %v, want %v (%v)", origin, got, allowed, hdr)
		}
		if hdr.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: Access-Control-Allow-Credentials sent", origin)
		}
	}
}

// TestCORSWrites: a script on an allowed origin may send the JSON API's
// writes (PUT and DELETE with If-Match, the version it read).
func TestCORSWrites(t *testing.T) {
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.DiscardHandler), CORSOrigins: []string{"https://tools.example"},
		Routes: map[string]httpapi.Door{"/door": {Handler: whoami, Fail: failJSON}}})
	for _, method := range []string{"PUT", "DELETE"} {
		r := httptest.NewRequest("OPTIONS", "/door", nil)
		r.Header.Set("Origin", "https://tools.example")
		r.Header.Set("Access-Control-Request-Method", method)
		r.Header.Set("Access-Control-Request-Headers", "authorization, if-match")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		hdr := w.Header()
		if !strings.Contains(hdr.Get("Access-Control-Allow-Methods"), method) {
			t.Errorf("%s: Access-Control-Allow-Methods = %q, want it to list %s", method, hdr.Get("Access-Control-Allow-Methods"), method)
		}
		if !strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "If-Match") {
			t.Errorf("%s: Access-Control-Allow-Headers = %q, want If-Match", method, hdr.Get("Access-Control-Allow-Headers"))
		}
	}
}

// TestDoorsOwn401Challenges: a 401 a door answers on its own (the core
// refusing an anonymous write) carries the bearer challenge too.
func TestDoorsOwn401Challenges(t *testing.T) {
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.DiscardHandler), Routes: map[string]httpapi.Door{
		"/write": {Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			failJSON(w, r, http.StatusUnauthorized, ilgraph.Require(r.Context(), ilgraph.RoleEditor).(*ilgraph.Error))
		}), Fail: failJSON},
	}})
	w := (call{path: "/write"}).do(h)
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != `Bearer realm="ilgraph"` || !strings.Contains(w.Body.String(), "editor role") {
		t.Errorf("%d %q %q", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
}
