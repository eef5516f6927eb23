package session_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/session"
)

// tokens is a test Authenticator: a token's principal and expiry, until
// revoked.
type tokens struct {
	mu    sync.Mutex
	now   func() time.Time
	known map[string]tokenInfo
	down  bool // answer EUNAVAILABLE, as with the store down
	calls int
}

type tokenInfo struct {
	p       ilgraph.Principal
	expires time.Time // zero: never
}

func (t *tokens) AuthenticateExpiry(_ context.Context, token string) (ilgraph.Principal, time.Time, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls++
	if t.down {
		return ilgraph.Principal{}, time.Time{}, ilgraph.Errorf(ilgraph.EUNAVAILABLE, "the token store is not answering")
	}
	info, ok := t.known[token]
	if !ok || (!info.expires.IsZero() && !t.now().Before(info.expires)) {
		return ilgraph.Principal{}, time.Time{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "unknown token")
	}
	return info.p, info.expires, nil
}

func (t *tokens) Authenticate(ctx context.Context, token string) (ilgraph.Principal, error) {
	p, _, err := t.AuthenticateExpiry(ctx, token)
	return p, err
}

func (t *tokens) revoke(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.known, token)
}

func (t *tokens) setDown(d bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.down = d
}

// plain hides AuthenticateExpiry: an Authenticator that knows no expiry.
type plain struct{ a ilgraph.Authenticator }

func (p plain) Authenticate(ctx context.Context, token string) (ilgraph.Principal, error) {
	return p.a.Authenticate(ctx, token)
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const host = "ilgraph.test:8080"
const own = "http://" + host

type fixture struct {
	t    testing.TB
	clk  *clock
	toks *tokens
	m    *session.Manager
	logs *bytes.Buffer
}

func newFixture(t testing.TB, opt session.Options) *fixture {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	toks := &tokens{now: clk.now, known: map[string]tokenInfo{
		"tok-viewer": {p: ilgraph.Principal{Name: "val", Role: ilgraph.RoleViewer}},
		"tok-editor": {p: ilgraph.Principal{Name: "eve", Role: ilgraph.RoleEditor}},
		"tok-short":  {p: ilgraph.Principal{Name: "sam", Role: ilgraph.RoleReviewer}, expires: clk.t.Add(30 * time.Minute)},
	}}
	logs := &bytes.Buffer{}
	if opt.Authenticator == nil {
		opt.Authenticator = toks
	}
	opt.Now = clk.now
	opt.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &fixture{t: t, clk: clk, toks: toks, m: session.New(opt), logs: logs}
}

// answer is a response from the Handler.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	cookie *http.Cookie // the one Set-Cookie, if any
}

func (f *fixture) do(r *http.Request) answer {
	f.t.Helper()
	w := httptest.NewRecorder()
	f.m.Handler().ServeHTTP(w, r)
	a := answer{status: w.Code, header: w.Header()}
	if w.Body.Len() > 0 {
		if err := json.Unmarshal(w.Body.Bytes(), &a.body); err != nil {
			f.t.Fatalf("%s %s: body %q: %v", r.Method, r.URL, w.Body, err)
		}
	}
	if cs := w.Result().Cookies(); len(cs) == 1 {
		a.cookie = cs[0]
	} else if len(cs) > 1 {
		f.t.Fatalf("%d cookies set", len(cs))
	}
	return a
}

// req is a request to the server at host, from its own origin unless
// headers say otherwise ("Origin", "" drops it).
func req(method, path, body string, cookie *http.Cookie, headers ...string) *http.Request {
	r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet && method != http.MethodHead {
		r.Header.Set("Origin", own)
	}
	if cookie != nil {
		r.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
		} else {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	return r
}

// signIn signs in with token and returns the cookie and the CSRF token.
func (f *fixture) signIn(token string, headers ...string) (*http.Cookie, string) {
	f.t.Helper()
	a := f.do(req("POST", session.Pattern, `{"token":"`+token+`"}`, nil, headers...))
	if a.status != 200 || a.cookie == nil {
		f.t.Fatalf("sign in with %s: HTTP %d %v", token, a.status, a.body)
	}
	csrf, _ := a.body["csrfToken"].(string)
	if len(csrf) < 43 {
		f.t.Fatalf("csrfToken %q: want 256 bits, base64url", csrf)
	}
	return a.cookie, csrf
}

// principal asks FromRequest about a request with cookie.
func (f *fixture) principal(method string, cookie *http.Cookie, headers ...string) (ilgraph.Principal, bool, error) {
	return f.m.FromRequest(req(method, "/graphql", "", cookie, headers...))
}

func TestSignInCookie(t *testing.T) {
	f := newFixture(t, session.Options{Lifetime: 2 * time.Hour})
	a := f.do(req("POST", session.Pattern, `{"token":"tok-editor"}`, nil))
	if a.status != 200 {
		t.Fatalf("HTTP %d %v", a.status, a.body)
	}
	c := a.cookie
	if c == nil {
		t.Fatal("no cookie set")
	}
	if c.Name != "ilgraph-session" || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || c.Domain != "" {
		t.Errorf("cookie %+v: want ilgraph-session, HttpOnly, SameSite=Strict, Path=/, not Secure over plain HTTP, no Domain", c)
	}
	if c.MaxAge != int((2 * time.Hour).Seconds()) {
		t.Errorf("Max-Age %d, want the lifetime, %d", c.MaxAge, int((2 * time.Hour).Seconds()))
	}
	if len(c.Value) < 43 {
		t.Errorf("session id %d characters: want 256 bits", len(c.Value))
	}
	if a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", a.header.Get("Cache-Control"))
	}
	if a.body["name"] != "eve" || a.body["role"] != "editor" || a.body["signedIn"] != true {
		t.Errorf("body %v", a.body)
	}
	var roles []string
	for _, r := range ilgraph.Roles {
		if r <= ilgraph.RoleEditor {
			roles = append(roles, r.String())
		}
	}
	if got, _ := json.Marshal(a.body["roles"]); string(got) != mustJSON(roles) {
		t.Errorf("roles %s, want %s", got, mustJSON(roles))
	}
	// GET says the same, with the same CSRF token.
	g := f.do(req("GET", session.Pattern, "", c))
	if g.status != 200 || g.body["name"] != "eve" || g.body["csrfToken"] != a.body["csrfToken"] || g.cookie != nil {
		t.Errorf("GET: HTTP %d %v", g.status, g.body)
	}
	if p, ok, err := f.principal("GET", c); !ok || err != nil || p != (ilgraph.Principal{Name: "eve", Role: ilgraph.RoleEditor}) {
		t.Errorf("FromRequest: %v %v %v", p, ok, err)
	}
	// Anonymous: signed out, no role, no token.
	if g := f.do(req("GET", session.Pattern, "", nil)); g.status != 200 || g.body["signedIn"] != false || g.body["role"] != "none" || g.body["csrfToken"] != nil {
		t.Errorf("GET without a session: HTTP %d %v", g.status, g.body)
	}
	// Two sessions never share an id or a CSRF token.
	c2, csrf2 := f.signIn("tok-editor")
	if c2.Value == c.Value || csrf2 == a.body["csrfToken"] {
		t.Error("a second sign-in got the same id or CSRF token")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSecureCookie(t *testing.T) {
	// httptest requests come from 192.0.2.1.
	proxy := []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	other := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		tls     bool
		fwd     []string
		secure  bool
	}{
		{"plain", nil, false, nil, false},
		{"tls", nil, true, nil, true},
		{"forwarded https by a trusted proxy", proxy, false, []string{"https"}, true},
		{"forwarded https, no proxy trusted", nil, false, []string{"https"}, false},
		{"forwarded https by another than the trusted proxy", other, false, []string{"https"}, false},
		{"forwarded http by a trusted proxy", proxy, false, []string{"http"}, false},
		{"the trusted proxy's value is the last", proxy, false, []string{"https, http"}, false},
		{"the trusted proxy's value is the last header", proxy, false, []string{"http", "https"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, session.Options{TrustedProxies: tc.proxies})
			origin := own
			if tc.secure {
				origin = "https://" + host
			}
			r := req("POST", session.Pattern, `{"token":"tok-viewer"}`, nil, "Origin", origin)
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for _, v := range tc.fwd {
				r.Header.Add("X-Forwarded-Proto", v)
			}
			a := f.do(r)
			if a.status != 200 {
				t.Fatalf("HTTP %d %v", a.status, a.body)
			}
			wantName := "ilgraph-session"
			if tc.secure {
				wantName = "__Host-ilgraph-session"
			}
			if a.cookie.Secure != tc.secure || a.cookie.Name != wantName {
				t.Errorf("cookie %s Secure=%v, want %s Secure=%v", a.cookie.Name, a.cookie.Secure, wantName, tc.secure)
			}
		})
	}
	// Over TLS, only the __Host- cookie counts: one planted over plain HTTP
	// under the other name is ignored.
	f := newFixture(t, session.Options{})
	c, _ := f.signIn("tok-editor")
	r := req("GET", "/graphql", "", c)
	r.TLS = &tls.ConnectionState{}
	if _, ok, _ := f.m.FromRequest(r); ok {
		t.Error("over TLS, the plain cookie's session was used")
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t, session.Options{Lifetime: time.Hour})
	// The cookie never outlives its token: 30 minutes left on tok-short.
	a := f.do(req("POST", session.Pattern, `{"token":"tok-short"}`, nil))
	if a.status != 200 {
		t.Fatalf("HTTP %d", a.status)
	}
	left := f.toks.known["tok-short"].expires.Sub(f.clk.now())
	if a.cookie.MaxAge != int(left.Seconds()) {
		t.Errorf("Max-Age %d, want the token's %d seconds left", a.cookie.MaxAge, int(left.Seconds()))
	}
	short := a.cookie
	long, _ := f.signIn("tok-viewer")
	f.clk.advance(left)
	if _, ok, _ := f.principal("GET", short); ok {
		t.Error("the session outlived its token")
	}
	if _, ok, _ := f.principal("GET", long); !ok {
		t.Error("the hour-long session ended at 30 minutes")
	}
	f.clk.advance(time.Hour - left)
	if _, ok, _ := f.principal("GET", long); ok {
		t.Error("the session outlived its lifetime")
	}
	if g := f.do(req("GET", session.Pattern, "", long)); g.body["signedIn"] != false {
		t.Errorf("GET after expiry: %v", g.body)
	}
	if n := f.m.Len(); n != 0 {
		t.Errorf("%d sessions held after both expired and were asked for", n)
	}

	// Without AuthenticateExpiry, the re-check ends the session within a
	// minute of the token's expiry.
	f = newFixture(t, session.Options{Lifetime: time.Hour})
	f.m = session.New(session.Options{Authenticator: plain{f.toks}, Lifetime: time.Hour, Now: f.clk.now, Logger: slog.New(slog.DiscardHandler)})
	c, _ := f.signIn("tok-short")
	f.clk.advance(30*time.Minute + session.DefaultRecheck)
	if _, ok, _ := f.principal("GET", c); ok {
		t.Error("a session outlived its token by more than the re-check period")
	}
}

func TestSignOut(t *testing.T) {
	f := newFixture(t, session.Options{})
	c, csrf := f.signIn("tok-editor")
	other, _ := f.signIn("tok-editor")
	// Without the CSRF token, or from another origin: refused, and the
	// session goes on.
	for _, hdr := range [][]string{
		nil,
		{session.CSRFHeader, "wrong"},
		{session.CSRFHeader, csrf, "Origin", "http://evil.test"},
		{session.CSRFHeader, csrf, "Origin", ""},
	} {
		a := f.do(req("DELETE", session.Pattern, "", c, hdr...))
		if a.status != 403 || a.body["error"].(map[string]any)["code"] != "FORBIDDEN" || a.cookie != nil {
			t.Errorf("sign out with %v: HTTP %d %v", hdr, a.status, a.body)
		}
		if _, ok, _ := f.principal("GET", c); !ok {
			t.Fatalf("sign out with %v ended the session", hdr)
		}
	}
	n := f.m.Len()
	a := f.do(req("DELETE", session.Pattern, "", c, session.CSRFHeader, csrf))
	if a.status != 204 || a.cookie == nil || a.cookie.MaxAge >= 0 || a.cookie.Value != "" {
		t.Fatalf("sign out: HTTP %d, cookie %+v: want 204 and the cookie cleared", a.status, a.cookie)
	}
	// Ended on the server: the old cookie, replayed, is no one.
	if _, ok, _ := f.principal("GET", c); ok {
		t.Error("the session outlived signing out")
	}
	if g := f.do(req("GET", session.Pattern, "", c)); g.body["signedIn"] != false {
		t.Errorf("GET after sign out: %v", g.body)
	}
	if f.m.Len() != n-1 {
		t.Errorf("%d sessions, want %d", f.m.Len(), n-1)
	}
	if _, ok, _ := f.principal("GET", other); !ok {
		t.Error("signing out ended another session")
	}
}

func TestCSRF(t *testing.T) {
	f := newFixture(t, session.Options{})
	c, csrf := f.signIn("tok-editor")
	_, csrfViewer := f.signIn("tok-viewer")
	editor := ilgraph.Principal{Name: "eve", Role: ilgraph.RoleEditor}
	for _, tc := range []struct {
		name   string
		method string
		hdr    []string
		ok     bool
	}{
		{"GET needs no token", "GET", nil, true},
		{"HEAD needs no token", "HEAD", nil, true},
		{"OPTIONS needs no token", "OPTIONS", nil, true},
		{"POST with the token", "POST", []string{session.CSRFHeader, csrf}, true},
		{"PUT with the token", "PUT", []string{session.CSRFHeader, csrf}, true},
		{"DELETE with the token", "DELETE", []string{session.CSRFHeader, csrf}, true},
		{"POST without it", "POST", nil, false},
		{"POST with an empty one", "POST", []string{session.CSRFHeader, ""}, false},
		{"POST with another session's", "POST", []string{session.CSRFHeader, csrfViewer}, false},
		{"POST with a prefix of it", "POST", []string{session.CSRFHeader, csrf[:len(csrf)-1]}, false},
		{"PATCH with a wrong one", "PATCH", []string{session.CSRFHeader, strings.ToUpper(csrf)}, false},
	} {
		p, ok, err := f.principal(tc.method, c, tc.hdr...)
		if tc.ok && (!ok || err != nil || p != editor) {
			t.Errorf("%s: %v %v %v, want the editor", tc.name, p, ok, err)
		}
		if !tc.ok && (ok || ilgraph.ErrorCode(err) != ilgraph.EFORBIDDEN) {
			t.Errorf("%s: %v %v %v, want EFORBIDDEN", tc.name, p, ok, err)
		}
	}
	// No session: nothing to forge, and no refusal (the request is
	// anonymous, and anonymous requests are judged as such).
	if _, ok, err := f.principal("POST", nil); ok || err != nil {
		t.Errorf("POST without a cookie: %v %v", ok, err)
	}
	if _, ok, err := f.principal("POST", &http.Cookie{Name: "ilgraph-session", Value: "made-up"}); ok || err != nil {
		t.Errorf("POST with an unknown cookie: %v %v", ok, err)
	}
}

func TestForeignOrigin(t *testing.T) {
	f := newFixture(t, session.Options{})
	c, csrf := f.signIn("tok-editor")
	for _, tc := range []struct {
		name string
		hdr  []string
		ok   bool
	}{
		{"own Origin", nil, true},
		{"own Origin, other case", []string{"Origin", strings.ToUpper(own)}, true},
		{"no Origin, own Referer", []string{"Origin", "", "Referer", own + "/case/IL-0384?lang=ko"}, true},
		{"another port", []string{"Origin", "http://ilgraph.test:8081"}, false},
		{"another host", []string{"Origin", "http://evil.test"}, false},
		{"https instead of http", []string{"Origin", "https://" + host}, false},
		{"a suffix", []string{"Origin", own + ".evil.test"}, false},
		{"null", []string{"Origin", "null"}, false},
		{"no Origin, foreign Referer", []string{"Origin", "", "Referer", "http://evil.test/" + host}, false},
		{"no Origin, no Referer", []string{"Origin", ""}, false},
		{"own Referer, foreign Origin", []string{"Origin", "http://evil.test", "Referer", own + "/"}, false},
	} {
		hdr := append([]string{session.CSRFHeader, csrf}, tc.hdr...)
		_, ok, err := f.principal("POST", c, hdr...)
		if ok != tc.ok || (!tc.ok && ilgraph.ErrorCode(err) != ilgraph.EFORBIDDEN) {
			t.Errorf("%s: ok=%v err=%v, want ok=%v", tc.name, ok, err, tc.ok)
		}
	}
	// Signing in is state-changing too (login CSRF): from another origin
	// it is refused, and no session is made.
	n := f.m.Len()
	if a := f.do(req("POST", session.Pattern, `{"token":"tok-editor"}`, nil, "Origin", "http://evil.test")); a.status != 403 || a.cookie != nil {
		t.Errorf("sign in from another origin: HTTP %d", a.status)
	}
	if f.m.Len() != n {
		t.Error("a refused sign-in made a session")
	}
	// Configured origins replace the request's own.
	g := newFixture(t, session.Options{Origins: []string{"https://ilgraph.example.com/"}})
	gc, gcsrf := g.signIn("tok-editor", "Origin", "https://ilgraph.example.com")
	if _, ok, err := g.principal("POST", gc, session.CSRFHeader, gcsrf, "Origin", "https://ilgraph.example.com"); !ok || err != nil {
		t.Errorf("configured origin: %v %v", ok, err)
	}
	if _, ok, _ := g.principal("POST", gc, session.CSRFHeader, gcsrf); ok {
		t.Error("with configured origins, the Host's origin was accepted")
	}
}

func TestSignInRefused(t *testing.T) {
	f := newFixture(t, session.Options{})
	for _, tc := range []struct {
		name, body string
		hdr        []string
		status     int
	}{
		{"unknown token", `{"token":"nope"}`, nil, 401},
		{"no token", `{}`, nil, 400},
		{"not JSON", `token=tok-editor`, nil, 400},
		{"a form", `token=tok-editor`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"text/plain", `{"token":"tok-editor"}`, []string{"Content-Type", "text/plain"}, 415},
		{"too long", `{"token":"` + strings.Repeat("x", 5000) + `"}`, nil, 400},
	} {
		a := f.do(req("POST", session.Pattern, tc.body, nil, tc.hdr...))
		if a.status != tc.status || a.cookie != nil {
			t.Errorf("%s: HTTP %d (cookie %v), want %d and no cookie", tc.name, a.status, a.cookie != nil, tc.status)
		}
	}
	if f.m.Len() != 0 {
		t.Errorf("%d sessions after refused sign-ins", f.m.Len())
	}
	if a := f.do(req("PUT", session.Pattern, "", nil)); a.status != 405 || a.header.Get("Allow") == "" {
		t.Errorf("PUT: HTTP %d", a.status)
	}
	// The store down: 503, no session.
	f.toks.setDown(true)
	if a := f.do(req("POST", session.Pattern, `{"token":"tok-editor"}`, nil)); a.status != 503 || a.cookie != nil {
		t.Errorf("store down: HTTP %d", a.status)
	}
}

func TestRevokedToken(t *testing.T) {
	f := newFixture(t, session.Options{})
	c, csrf := f.signIn("tok-editor")
	c2, _ := f.signIn("tok-editor")
	viewer, _ := f.signIn("tok-viewer")
	f.toks.revoke("tok-editor")
	// A state-changing request re-checks at once.
	if _, ok, err := f.principal("POST", c, session.CSRFHeader, csrf); ok || err != nil {
		t.Errorf("write after revocation: ok=%v err=%v, want no session", ok, err)
	}
	if _, ok, _ := f.principal("GET", c); ok {
		t.Error("the session the write found revoked goes on")
	}
	// Reads re-check within a minute.
	f.clk.advance(session.DefaultRecheck)
	if _, ok, _ := f.principal("GET", c2); ok {
		t.Error("a read a minute after revocation still had the session")
	}
	if g := f.do(req("GET", session.Pattern, "", c2)); g.body["signedIn"] != false {
		t.Errorf("GET after revocation: %v", g.body)
	}
	if _, ok, _ := f.principal("GET", viewer); !ok {
		t.Error("revoking one token ended another's session")
	}
	if f.m.Len() != 1 {
		t.Errorf("%d sessions held, want the viewer's only", f.m.Len())
	}
	// Within the minute, reads do not ask the Authenticator each time.
	calls := f.toks.calls
	for range 5 {
		f.principal("GET", viewer)
	}
	if f.toks.calls != calls {
		t.Errorf("%d re-checks for 5 reads within a minute", f.toks.calls-calls)
	}
	// With the store down, a session whose re-check is due fails closed,
	// and survives for when the store is back.
	f.clk.advance(session.DefaultRecheck)
	f.toks.setDown(true)
	if _, ok, err := f.principal("GET", viewer); ok || ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE {
		t.Errorf("store down: ok=%v err=%v, want EUNAVAILABLE", ok, err)
	}
	f.toks.setDown(false)
	if _, ok, _ := f.principal("GET", viewer); !ok {
		t.Error("the session did not survive the store's outage")
	}
}

func TestBounded(t *testing.T) {
	const max = 3
	f := newFixture(t, session.Options{MaxSessions: max})
	var cookies []*http.Cookie
	for range max + 2 {
		c, _ := f.signIn("tok-viewer")
		cookies = append(cookies, c)
		f.clk.advance(time.Second) // each ends a second after the one before
		if f.m.Len() > max {
			t.Fatalf("%d sessions, bound %d", f.m.Len(), max)
		}
	}
	for i, c := range cookies {
		_, ok, _ := f.principal("GET", c)
		if want := i >= len(cookies)-max; ok != want {
			t.Errorf("session %d live=%v, want %v (the ones ending first make room)", i, ok, want)
		}
	}
	// One token's sessions are bounded apart: its own that ends first
	// makes room, and another token's sessions stay.
	g := newFixture(t, session.Options{MaxPerToken: 2})
	editor, _ := g.signIn("tok-editor")
	var mine []*http.Cookie
	for range 3 {
		c, _ := g.signIn("tok-viewer")
		mine = append(mine, c)
		g.clk.advance(time.Second)
	}
	for i, c := range mine {
		if _, ok, _ := g.principal("GET", c); ok != (i > 0) {
			t.Errorf("the token's session %d live=%v, want %v", i, ok, i > 0)
		}
	}
	if _, ok, _ := g.principal("GET", editor); !ok || g.m.Len() != 3 {
		t.Errorf("another token's session pushed out (%d sessions, want 3)", g.m.Len())
	}

	// Signing in again from a browser replaces its session.
	last := cookies[len(cookies)-1]
	n := f.m.Len()
	a := f.do(req("POST", session.Pattern, `{"token":"tok-viewer"}`, last))
	if a.status != 200 || a.cookie.Value == last.Value {
		t.Fatalf("sign in again: HTTP %d", a.status)
	}
	if _, ok, _ := f.principal("GET", last); ok || f.m.Len() != n {
		t.Errorf("the old session goes on after signing in again (%d sessions, want %d)", f.m.Len(), n)
	}
}

// TestNothingSecretLogged signs in, uses and ends a session, and finds none
// of its secrets in the log.
func TestNothingSecretLogged(t *testing.T) {
	f := newFixture(t, session.Options{})
	c, csrf := f.signIn("tok-editor")
	f.principal("POST", c, session.CSRFHeader, csrf)
	f.principal("POST", c, session.CSRFHeader, "wrong")
	f.do(req("POST", session.Pattern, `{"token":"tok-unknown-secret"}`, nil))
	f.do(req("DELETE", session.Pattern, "", c, session.CSRFHeader, csrf))
	log := f.logs.String()
	if !strings.Contains(log, "signed in") || !strings.Contains(log, "eve") {
		t.Errorf("the log does not say who signed in: %q", log)
	}
	for _, secret := range []string{"tok-editor", "tok-unknown-secret", c.Value, csrf} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a secret: %q", log)
		}
	}
}

// TestCredential checks the cookie as the HTTP shell asks it: present only
// for a live session, refused without CSRF, anonymous once revoked.
func TestCredential(t *testing.T) {
	f := newFixture(t, session.Options{})
	cred := f.m.Credential()
	c, csrf := f.signIn("tok-editor")
	if cred.Present(req("GET", "/", "", nil)) {
		t.Error("present without a cookie")
	}
	if cred.Present(req("GET", "/", "", &http.Cookie{Name: "ilgraph-session", Value: "stale"})) {
		t.Error("a stale cookie is present: the browser would be refused instead of anonymous")
	}
	if !cred.Present(req("GET", "/", "", c)) {
		t.Fatal("a live session's cookie is not present")
	}
	if p, err := cred.Principal(req("POST", "/graphql", "", c, session.CSRFHeader, csrf)); err != nil || p.Name != "eve" {
		t.Errorf("with CSRF: %v %v", p, err)
	}
	if _, err := cred.Principal(req("POST", "/graphql", "", c)); ilgraph.ErrorCode(err) != ilgraph.EFORBIDDEN {
		t.Errorf("without CSRF: %v, want EFORBIDDEN", err)
	}
	f.toks.revoke("tok-editor")
	if p, err := cred.Principal(req("POST", "/graphql", "", c, session.CSRFHeader, csrf)); err != nil || !p.Anonymous() {
		t.Errorf("revoked: %v %v, want anonymous", p, err)
	}
	if cred.Present(req("GET", "/", "", c)) {
		t.Error("the revoked session's cookie is still present")
	}
	// The session's own endpoint judges the cookie itself: a sign-in from
	// a tab that does not know the CSRF token of a live session works.
	c2, _ := f.signIn("tok-viewer")
	if cred.Present(req("POST", session.Pattern, "", c2)) {
		t.Error("the cookie is a credential at /auth/session")
	}
	if a := f.do(req("POST", session.Pattern, `{"token":"tok-viewer"}`, c2)); a.status != 200 {
		t.Errorf("signing in again without the CSRF token: HTTP %d", a.status)
	}
}

// metric reads a sample of the manager's metrics: name{result=label}, or
// name alone for the gauge.
func metric(t *testing.T, m *session.Manager, name, label string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			if len(s.GetLabel()) == 0 && label == "" {
				return s.GetGauge().GetValue()
			}
			for _, l := range s.GetLabel() {
				if l.GetValue() == label {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{%s}", name, label)
	return 0
}

// limiter blocks after max failures.
type limiter struct {
	mu     sync.Mutex
	failed int
	max    int
}

func (l *limiter) Blocked(*http.Request) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed >= l.max {
		return 1500 * time.Millisecond
	}
	return 0
}

func (l *limiter) Failed(*http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed++
}

func TestSignInFailuresLimited(t *testing.T) {
	l := &limiter{max: 3}
	f := newFixture(t, session.Options{Failures: l})
	f.signIn("tok-viewer") // a success counts nothing
	for i := range l.max {
		if a := f.do(req("POST", session.Pattern, `{"token":"guess"}`, nil)); a.status != 401 {
			t.Fatalf("guess %d: HTTP %d", i, a.status)
		}
	}
	if l.failed != l.max {
		t.Errorf("%d failures counted, want %d", l.failed, l.max)
	}
	// Blocked: even the right token waits.
	a := f.do(req("POST", session.Pattern, `{"token":"tok-editor"}`, nil))
	if a.status != 429 || a.header.Get("Retry-After") != "2" || a.cookie != nil {
		t.Errorf("blocked: HTTP %d Retry-After %q, want 429 and 2 s", a.status, a.header.Get("Retry-After"))
	}
	f.do(req("POST", session.Pattern, `{"token":"tok-editor"}`, nil, "Origin", "http://evil.test"))
	for result, want := range map[string]float64{"ok": 1, "invalid_token": float64(l.max), "rate_limited": 1, "refused": 1, "error": 0} {
		if got := metric(t, f.m, "ilgraph_session_signins_total", result); got != want {
			t.Errorf("ilgraph_session_signins_total{result=%q} = %v, want %v", result, got, want)
		}
	}
	if got := metric(t, f.m, "ilgraph_sessions", ""); got != float64(f.m.Len()) || got != 1 {
		t.Errorf("ilgraph_sessions = %v, want 1", got)
	}
}

// BenchmarkFromRequest is the cost the cookie adds to a request, with the
// table full (10,000 sessions): a read (a lookup in memory) and a
// state-changing one (the origin, the CSRF token and a re-check with the
// Authenticator, here in memory too).
func BenchmarkFromRequest(b *testing.B) {
	f := newFixture(b, session.Options{MaxSessions: 10000, MaxPerToken: 10000})
	for range 9999 {
		f.signIn("tok-viewer")
	}
	c, csrf := f.signIn("tok-editor")
	for _, method := range []string{"GET", "POST"} {
		r := req(method, "/graphql", "", c, session.CSRFHeader, csrf)
		b.Run(method, func(b *testing.B) {
			for b.Loop() {
				if _, ok, err := f.m.FromRequest(r); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
