// Package session is the explorer's sign-in: a browser sends its token once
// to POST /auth/session, and from then on carries a session cookie instead.
// The token is checked with an ilgraph.Authenticator (the one bearer tokens
// use); the session lives on the server, in memory, and ends when the
// browser signs out (DELETE /auth/session), when its lifetime or its
// token's runs out, or when the token is revoked.
//
// The cookie is HttpOnly, SameSite=Strict, Path=/, Secure (and named with
// the __Host- prefix) when the request came over TLS, and expires with the
// session. Because a browser attaches the cookie by itself, a request that
// may change something (any method but GET, HEAD and OPTIONS) counts only
// if it also carries the session's CSRF token in the X-CSRF-Token header
// and comes from the server's own origin (its Origin header, or else its
// Referer): a page of another origin can make the browser send the cookie,
// even same-site (another port of the same host), but can neither read the
// CSRF token nor forge the Origin. Such a request is refused (403) rather
// than treated as anonymous.
//
// Sessions are per server process: they are not shared between instances
// behind a balancer (route a browser to one instance, or sign in on each)
// and do not survive a restart (the browser signs in again).
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ilgraph/ilgraph"
)

// Pattern is where Handler is mounted.
const Pattern = "/auth/session"

// CSRFHeader is the request header that carries a session's CSRF token.
const CSRFHeader = "X-CSRF-Token"

// The cookie's names: the __Host- prefix, for a cookie set over TLS, makes
// the browser refuse it unless it is Secure, has Path=/ and no Domain, so
// that neither a plain-HTTP page nor a sibling domain can plant one that
// shadows it.
const (
	cookieName       = "ilgraph-session"
	secureCookieName = "__Host-ilgraph-session"
)

// Defaults of Options.
const (
	DefaultLifetime    = 8 * time.Hour
	DefaultMaxSessions = 10000
	DefaultMaxPerToken = 20
	// DefaultRecheck leaves room, within a minute, for the token store's
	// own cache (token.CacheTTL, 10 s): a revocation ends its sessions
	// within a minute.
	DefaultRecheck = 50 * time.Second
)

// maxRecheck is the longest Options.Recheck may be.
const maxRecheck = time.Minute

// maxSignInBody bounds a sign-in request's body: a token is a few dozen
// bytes.
const maxSignInBody = 4 << 10

// ExpiryAuthenticator is an Authenticator that also says when a token
// expires (the zero time: never), asked at sign-in. With one, a session
// and its cookie never outlive the token; with a plain Authenticator, a
// session ends at the first re-check after its token has expired.
type ExpiryAuthenticator interface {
	ilgraph.Authenticator
	AuthenticateExpiry(ctx context.Context, token string) (ilgraph.Principal, time.Time, error)
}

// FailureLimiter limits failed authentication attempts per client (the
// HTTP shell's httpapi.FailureLimiter).
type FailureLimiter interface {
	// Blocked is how long r's client must wait before it may try again
	// (0: it may now).
	Blocked(r *http.Request) time.Duration
	// Failed counts a failed attempt by r's client.
	Failed(r *http.Request)
}

// Options are a Manager's settings.
type Options struct {
	// Authenticator checks the tokens browsers sign in with, and re-checks
	// them while their sessions last. Required.
	Authenticator ilgraph.Authenticator
	// Lifetime is how long a session lasts after sign-in (default 8h),
	// cut short by its token's expiry.
	Lifetime time.Duration
	// MaxSessions bounds the sessions held (default 10,000); when full, a
	// new session pushes out the one that would end first.
	MaxSessions int
	// MaxPerToken bounds the sessions one token holds (default 20): a
	// token's next sign-in pushes out its own session that would end
	// first.
	MaxPerToken int
	// Recheck is the longest a session goes without its token being
	// checked again (default 50 s, at most 1 minute), so that revoking a
	// token ends its sessions within it. State-changing requests re-check
	// every time.
	Recheck time.Duration
	// Failures, when set, limits failed sign-ins per client: the shell's
	// limiter of failed authentications (ratelimit.Failures), so that
	// guessing tokens through the sign-in costs what guessing them as
	// bearer tokens does. A blocked client's sign-in answers 429 with
	// Retry-After; each refused token counts.
	Failures FailureLimiter
	// TrustedProxies are the proxies (serve's --trusted-proxies) whose
	// X-Forwarded-Proto is believed: a request from one of them with
	// X-Forwarded-Proto: https counts as one over TLS (a Secure cookie, an
	// https origin). From anyone else the header is ignored.
	TrustedProxies []netip.Prefix
	// Origins are the server's own origins (scheme://host[:port], as
	// browsers send Origin), when the Host a request arrives with is not
	// the one browsers use (a proxy that rewrites it). Empty: the
	// request's own scheme and Host.
	Origins []string
	// Logger logs sign-ins and sign-outs (names and roles, never tokens,
	// cookies or CSRF tokens). Default slog.Default().
	Logger *slog.Logger
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// Manager holds the sessions.
type Manager struct {
	opt     Options
	origins map[string]bool
	mu      sync.Mutex
	signIns *prometheus.CounterVec
	held    prometheus.GaugeFunc
	// sessions are keyed by the SHA-256 of their id: the map's lookup then
	// depends on the id only through a hash, and the ids themselves are
	// held nowhere on the server.
	sessions map[[32]byte]*entry
}

type entry struct {
	principal ilgraph.Principal
	// token is what the browser signed in with, kept in memory only, to be
	// checked again; it is never written out.
	token   string
	csrf    string
	expires time.Time
	checked time.Time // when the token was last found valid
}

// New returns a Manager with opt's settings.
func New(opt Options) *Manager {
	if opt.Authenticator == nil {
		panic("session.New: no Authenticator")
	}
	if opt.Lifetime <= 0 {
		opt.Lifetime = DefaultLifetime
	}
	if opt.MaxSessions <= 0 {
		opt.MaxSessions = DefaultMaxSessions
	}
	if opt.MaxPerToken <= 0 {
		opt.MaxPerToken = DefaultMaxPerToken
	}
	if opt.Recheck <= 0 {
		opt.Recheck = DefaultRecheck
	}
	opt.Recheck = min(opt.Recheck, maxRecheck)
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	m := &Manager{opt: opt, origins: map[string]bool{}, sessions: map[[32]byte]*entry{}}
	m.signIns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ilgraph_session_signins_total",
		Help: "Explorer sign-ins (POST /auth/session) by result: ok, invalid_token, rate_limited, refused (another origin, a malformed request), error.",
	}, []string{"result"})
	for _, r := range []string{"ok", "invalid_token", "rate_limited", "refused", "error"} {
		m.signIns.WithLabelValues(r)
	}
	m.held = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ilgraph_sessions",
		Help: "Explorer sessions held by this process (expired ones not yet dropped included).",
	}, func() float64 { return float64(m.Len()) })
	for _, o := range opt.Origins {
		m.origins[strings.TrimSuffix(o, "/")] = true
	}
	return m
}

// Collectors are the manager's metrics, for /metrics (httpapi.Options
// Collectors): sign-ins by result and the sessions held.
func (m *Manager) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.signIns, m.held}
}

// Len is the number of sessions held, expired ones not yet dropped
// included.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// safe reports whether a method only reads.
func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// FromRequest returns the principal of r's session cookie. ok is false when
// r carries no cookie of a live session; the caller then tries its other
// credentials, or treats r as anonymous. For a state-changing method, a
// live session's request must also come from the server's own origin and
// carry the session's CSRF token; otherwise err is EFORBIDDEN and the
// request must be refused (403), not run as anonymous. err is also set when
// the token cannot be re-checked (the store is down).
func (m *Manager) FromRequest(r *http.Request) (p ilgraph.Principal, ok bool, err error) {
	key, e := m.lookup(r)
	if e == nil {
		return ilgraph.Principal{}, false, nil
	}
	if !safe(r.Method) {
		if err := m.checkOrigin(r); err != nil {
			return ilgraph.Principal{}, false, err
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(e.csrf)) != 1 {
			return ilgraph.Principal{}, false, ilgraph.Errorf(ilgraph.EFORBIDDEN,
				"this request carries the session cookie but not the session's CSRF token (%s): refused", CSRFHeader)
		}
	}
	e, err = m.recheck(r.Context(), key, e, !safe(r.Method))
	if e == nil || err != nil {
		return ilgraph.Principal{}, false, err
	}
	return e.principal, true, nil
}

// lookup returns the live session r's cookie names, and its key, or nil.
func (m *Manager) lookup(r *http.Request) ([32]byte, *entry) {
	c, err := r.Cookie(m.cookieName(r))
	if err != nil || c.Value == "" {
		return [32]byte{}, nil
	}
	key := sha256.Sum256([]byte(c.Value))
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.sessions[key]
	if e == nil {
		return key, nil
	}
	if !m.opt.Now().Before(e.expires) {
		delete(m.sessions, key)
		return key, nil
	}
	cp := *e
	return key, &cp
}

// recheck checks e's token again when the last check is older than
// Options.Recheck, or always when force, and returns the session as it now
// is: nil when it has ended (a token no longer valid ends it).
func (m *Manager) recheck(ctx context.Context, key [32]byte, e *entry, force bool) (*entry, error) {
	now := m.opt.Now()
	if !force && now.Sub(e.checked) < m.opt.Recheck {
		return e, nil
	}
	// The expiry is the session's since sign-in; an expired token fails
	// Authenticate.
	p, err := m.opt.Authenticator.Authenticate(ctx, e.token)
	if err == nil && p.Anonymous() {
		err = ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid")
	}
	if ilgraph.ErrorCode(err) == ilgraph.EUNAUTHORIZED {
		m.mu.Lock()
		delete(m.sessions, key)
		m.mu.Unlock()
		m.opt.Logger.InfoContext(ctx, "session ended: its token is no longer valid", "name", e.principal.Name)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.sessions[key]
	if cur == nil { // signed out meanwhile
		return nil, nil
	}
	cur.principal, cur.checked = p, now
	if !now.Before(cur.expires) {
		delete(m.sessions, key)
		return nil, nil
	}
	cp := *cur
	return &cp, nil
}

// authenticate checks token at sign-in, with its expiry when the
// Authenticator knows it.
func (m *Manager) authenticate(ctx context.Context, token string) (ilgraph.Principal, time.Time, error) {
	if ea, ok := m.opt.Authenticator.(ExpiryAuthenticator); ok {
		return ea.AuthenticateExpiry(ctx, token)
	}
	p, err := m.opt.Authenticator.Authenticate(ctx, token)
	return p, time.Time{}, err
}

// secure reports whether r came over TLS, as far as the server can tell:
// directly, or through a trusted proxy that says so. Of a list of values
// (proxies that append), the last is the one the trusted proxy added.
func (m *Manager) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	fwd := r.Header.Values("X-Forwarded-Proto")
	if len(fwd) == 0 || !m.fromTrustedProxy(r) {
		return false
	}
	last := fwd[len(fwd)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

func (m *Manager) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range m.opt.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func (m *Manager) cookieName(r *http.Request) string {
	if m.secure(r) {
		return secureCookieName
	}
	return cookieName
}

// checkOrigin refuses a request whose Origin (or, without one, Referer) is
// not the server's own: a state-changing request from another page.
func (m *Manager) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if ref, err := url.Parse(r.Referer()); err == nil && ref.Scheme != "" && ref.Host != "" {
			origin = ref.Scheme + "://" + ref.Host
		}
	}
	if origin == "" {
		return ilgraph.Errorf(ilgraph.EFORBIDDEN, "a state-changing request with the session cookie must say where it comes from (Origin): refused")
	}
	if !m.ownOrigin(r, origin) {
		return ilgraph.Errorf(ilgraph.EFORBIDDEN, "a state-changing request from another origin is refused")
	}
	return nil
}

func (m *Manager) ownOrigin(r *http.Request, origin string) bool {
	if len(m.origins) > 0 {
		return m.origins[origin]
	}
	scheme := "http"
	if m.secure(r) {
		scheme = "https"
	}
	return strings.EqualFold(origin, scheme+"://"+r.Host)
}

// Handler serves Pattern: GET says who is signed in (and the CSRF token),
// POST signs in with {"token": "…"}, DELETE signs out.
func (m *Manager) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Nothing here may be cached: the answer carries the CSRF token.
		w.Header().Set("Cache-Control", "no-store")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			m.get(w, r)
		case http.MethodPost:
			m.signIn(w, r)
		case http.MethodDelete:
			m.signOut(w, r)
		default:
			w.Header().Set("Allow", "GET, HEAD, POST, DELETE")
			writeError(w, http.StatusMethodNotAllowed, ilgraph.Errorf(ilgraph.EINVALID, "%s is not allowed here: GET, POST or DELETE", r.Method))
		}
	})
}

// state is what GET and POST answer.
type state struct {
	SignedIn bool   `json:"signedIn"`
	Name     string `json:"name,omitempty"`
	Role     string `json:"role"`
	// Roles are the roles the principal holds: its own and those below
	// it, for the explorer's role-gated controls.
	Roles     []string   `json:"roles"`
	CSRFToken string     `json:"csrfToken,omitempty"`
	Expires   *time.Time `json:"expires,omitempty"`
}

func stateOf(p ilgraph.Principal, e *entry) state {
	s := state{Role: p.Role.String(), Roles: []string{}}
	for _, r := range ilgraph.Roles {
		if p.Can(r) {
			s.Roles = append(s.Roles, r.String())
		}
	}
	if e != nil {
		s.SignedIn, s.Name, s.CSRFToken = true, p.Name, e.csrf
		exp := e.expires.UTC()
		s.Expires = &exp
	}
	return s
}

func (m *Manager) get(w http.ResponseWriter, r *http.Request) {
	key, e := m.lookup(r)
	if e == nil {
		writeJSON(w, http.StatusOK, stateOf(ilgraph.Principal{}, nil))
		return
	}
	e, err := m.recheck(r.Context(), key, e, false)
	if err != nil {
		m.fail(w, r, err)
		return
	}
	if e == nil {
		m.clearCookie(w, r)
		writeJSON(w, http.StatusOK, stateOf(ilgraph.Principal{}, nil))
		return
	}
	writeJSON(w, http.StatusOK, stateOf(e.principal, e))
}

func (m *Manager) signIn(w http.ResponseWriter, r *http.Request) {
	// A sign-in from another page would sign the browser in as someone
	// else (login CSRF); a JSON body also needs a CORS preflight from
	// another origin, which the shell does not grant with credentials.
	if err := m.checkOrigin(r); err != nil {
		m.signIns.WithLabelValues("refused").Inc()
		writeError(w, http.StatusForbidden, err)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		m.signIns.WithLabelValues("refused").Inc()
		writeError(w, http.StatusUnsupportedMediaType, ilgraph.Errorf(ilgraph.EINVALID, `sign in with a JSON body, {"token": "…"}, as application/json`))
		return
	}
	var in struct {
		Token string `json:"token"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxSignInBody))
	if err := dec.Decode(&in); err != nil || strings.TrimSpace(in.Token) == "" {
		m.signIns.WithLabelValues("refused").Inc()
		writeError(w, http.StatusBadRequest, ilgraph.Errorf(ilgraph.EINVALID, `sign in with a JSON body, {"token": "…"}`))
		return
	}
	token := strings.TrimSpace(in.Token)
	if m.opt.Failures != nil {
		if wait := m.opt.Failures.Blocked(r); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			m.signIns.WithLabelValues("rate_limited").Inc()
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeError(w, http.StatusTooManyRequests, ilgraph.Errorf("rate_limited",
				"too many failed sign-ins from this client; retry after %d s", secs))
			return
		}
	}
	p, until, err := m.authenticate(r.Context(), token)
	if err == nil && p.Anonymous() {
		err = ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid")
	}
	if err != nil {
		if ilgraph.ErrorCode(err) == ilgraph.EUNAUTHORIZED {
			// Say no more than the Authenticator did: unknown, expired and
			// revoked tokens look alike.
			err = ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid: it is unknown, expired or revoked")
			m.signIns.WithLabelValues("invalid_token").Inc()
			if m.opt.Failures != nil {
				m.opt.Failures.Failed(r)
			}
		} else {
			m.signIns.WithLabelValues("error").Inc()
		}
		m.fail(w, r, err)
		return
	}
	now := m.opt.Now()
	expires := now.Add(m.opt.Lifetime)
	if !until.IsZero() && until.Before(expires) {
		expires = until
	}
	if !expires.After(now) {
		m.signIns.WithLabelValues("invalid_token").Inc()
		writeError(w, http.StatusUnauthorized, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid: it is unknown, expired or revoked"))
		return
	}
	id, csrf := randomString(), randomString()
	e := &entry{principal: p, token: token, csrf: csrf, expires: expires, checked: now}
	m.mu.Lock()
	// A new session replaces the one this browser had (no fixation: the
	// id is always new).
	if c, err := r.Cookie(m.cookieName(r)); err == nil {
		delete(m.sessions, sha256.Sum256([]byte(c.Value)))
	}
	m.makeRoom(now, p.Name)
	m.sessions[sha256.Sum256([]byte(id))] = e
	m.mu.Unlock()
	http.SetCookie(w, &http.Cookie{
		Name: m.cookieName(r), Value: id, Path: "/",
		MaxAge:   int(expires.Sub(now) / time.Second),
		Expires:  expires.UTC(),
		HttpOnly: true, Secure: m.secure(r), SameSite: http.SameSiteStrictMode,
	})
	m.signIns.WithLabelValues("ok").Inc()
	m.opt.Logger.InfoContext(r.Context(), "signed in", "name", p.Name, "role", p.Role.String())
	writeJSON(w, http.StatusOK, stateOf(p, e))
}

// makeRoom drops expired sessions, then makes room for one more session
// of name: if name holds MaxPerToken sessions, its own that would end
// first goes (so that one token, signing in again and again, cannot push
// out everyone else's sessions); if the table is full, the session that
// would end first goes. m.mu is held.
func (m *Manager) makeRoom(now time.Time, name string) {
	var first, firstOwn [32]byte
	var firstEnd, firstOwnEnd time.Time
	own := 0
	for k, e := range m.sessions {
		if !now.Before(e.expires) {
			delete(m.sessions, k)
			continue
		}
		if firstEnd.IsZero() || e.expires.Before(firstEnd) {
			first, firstEnd = k, e.expires
		}
		if e.principal.Name == name {
			own++
			if firstOwnEnd.IsZero() || e.expires.Before(firstOwnEnd) {
				firstOwn, firstOwnEnd = k, e.expires
			}
		}
	}
	switch {
	case own >= m.opt.MaxPerToken:
		delete(m.sessions, firstOwn)
	case len(m.sessions) >= m.opt.MaxSessions:
		delete(m.sessions, first)
	}
}

func (m *Manager) signOut(w http.ResponseWriter, r *http.Request) {
	if err := m.checkOrigin(r); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	key, e := m.lookup(r)
	if e != nil {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(e.csrf)) != 1 {
			writeError(w, http.StatusForbidden, ilgraph.Errorf(ilgraph.EFORBIDDEN,
				"signing out needs the session's CSRF token (%s): refused", CSRFHeader))
			return
		}
		m.mu.Lock()
		delete(m.sessions, key)
		m.mu.Unlock()
		m.opt.Logger.InfoContext(r.Context(), "signed out", "name", e.principal.Name)
	}
	m.clearCookie(w, r)
	w.WriteHeader(http.StatusNoContent)
}

func (m *Manager) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: m.cookieName(r), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: m.secure(r), SameSite: http.SameSiteStrictMode})
}

// Cookie is the session cookie as a credential of the HTTP shell (it has
// the methods of httpapi.Credential), asked after the bearer token: a
// request with Authorization: Bearer is judged by that alone (a browser
// never adds one by itself, so it is no cross-site forgery).
type Cookie struct{ m *Manager }

// Credential returns the session cookie as a credential of the HTTP shell.
func (m *Manager) Credential() Cookie { return Cookie{m} }

// Present reports whether r carries the cookie of a live session (a lookup
// in memory, no store). A stale cookie — signed out in another tab,
// expired, from before a restart — is no credential: the request goes on
// as anonymous rather than being refused. Requests to Pattern itself judge
// the cookie in Handler (a sign-in from a tab that missed another tab's
// sign-in carries a live cookie but no CSRF token, and must still work).
func (c Cookie) Present(r *http.Request) bool {
	if r.URL.Path == Pattern {
		return false
	}
	_, e := c.m.lookup(r)
	return e != nil
}

// Principal is FromRequest's principal: EFORBIDDEN for a state-changing
// request without the session's CSRF token or from another origin; the
// anonymous principal for a session that ended meanwhile (its token
// revoked).
func (c Cookie) Principal(r *http.Request) (ilgraph.Principal, error) {
	p, _, err := c.m.FromRequest(r)
	return p, err
}

// randomString is 256 random bits, base64url.
func randomString() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func statusOf(err error) int {
	switch ilgraph.ErrorCode(err) {
	case ilgraph.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case ilgraph.EFORBIDDEN:
		return http.StatusForbidden
	case ilgraph.EINVALID:
		return http.StatusBadRequest
	case ilgraph.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case ilgraph.ETIMEOUT:
		return http.StatusGatewayTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// fail answers err; an internal one is logged (the Authenticator's errors
// name no token) and answered without its details.
func (m *Manager) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	if status == http.StatusInternalServerError {
		m.opt.Logger.ErrorContext(r.Context(), "session: internal error", "err", err.Error())
	}
	writeError(w, status, err)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError writes err as the JSON API's error body,
// {"error": {"code": "FORBIDDEN", "message": "…"}}; an error without a code
// is internal and says no more.
func writeError(w http.ResponseWriter, status int, err error) {
	code, msg := ilgraph.ErrorCode(err), ilgraph.ErrorMessage(err)
	if status == http.StatusInternalServerError {
		code, msg = ilgraph.EINTERNAL, "internal error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": strings.ToUpper(code), "message": msg}})
}
