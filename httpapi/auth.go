package httpapi

import (
	"context"

	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Credential is one kind of credential a request may carry: a bearer token
// (Bearer), an explorer session's cookie. The shell asks each in turn and
// uses the first one present.
type Credential interface {
	// Present reports whether r carries a credential of this kind,
	// without checking it (no lookup).
	Present(r *http.Request) bool
	// Principal checks the credential r carries: EUNAUTHORIZED for one
	// that is not valid (saying no more), EFORBIDDEN for a valid one the
	// request may not use (a session's state-changing request without its
	// CSRF token), or the store's error when it cannot tell.
	Principal(r *http.Request) (ilgraph.Principal, error)
}

// FailureLimiter limits failed authentication attempts per client
// (ratelimit.Failures implements it).
type FailureLimiter interface {
	// Blocked returns how long r's client must wait before it may present
	// a credential again (0: it may now).
	Blocked(r *http.Request) time.Duration
	// Failed counts a failed attempt by r's client.
	Failed(r *http.Request)
}

// Bearer is the credential of an Authorization: Bearer header, checked by
// a.
func Bearer(a ilgraph.Authenticator) Credential { return bearer{a} }

type bearer struct{ a ilgraph.Authenticator }

// Present is true for an Authorization header of the Bearer scheme only:
// another scheme (the Basic credentials of a proxy's own sign-in, passed
// on) is not ilgraph's to check, and the request is anonymous.
func (bearer) Present(r *http.Request) bool {
	scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer")
}

func (b bearer) Principal(r *http.Request) (ilgraph.Principal, error) {
	_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if tok = strings.TrimSpace(tok); tok == "" {
		return ilgraph.Principal{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the Authorization header must be Bearer <token>")
	}
	return b.a.Authenticate(r.Context(), tok)
}

// The WWW-Authenticate challenges (RFC 6750): without a credential, with
// one that is not valid, and with one whose role is too low.
const (
	challenge             = `Bearer realm="ilgraph"`
	challengeInvalid      = `Bearer realm="ilgraph", error="invalid_token"`
	challengeInsufficient = `Bearer realm="ilgraph", error="insufficient_scope"`
)

// codeRateLimited is the code of a refusal for too many failed attempts,
// the same as the rate limit's (ratelimit).
const codeRateLimited = "rate_limited"

// authn authenticates the requests of the routes it guards.
type authn struct {
	creds    []Credential
	failures FailureLimiter
	m        *metrics
}

// guard runs h with the request's principal in its context, after
// authenticating whichever credential the request carries (a bad one is
// 401 whatever need is) and requiring need of it (RoleNone: none). Its
// refusals are written by fail, in the door's format (nil: plain text).
func (a *authn) guard(need ilgraph.Role, fail func(http.ResponseWriter, *http.Request, int, *ilgraph.Error), h http.Handler) http.Handler {
	if fail == nil {
		fail = plainFail
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p ilgraph.Principal
		for _, c := range a.creds {
			if !c.Present(r) {
				continue
			}
			if a.failures != nil {
				if wait := a.failures.Blocked(r); wait > 0 {
					a.m.authFailures.WithLabelValues("rate_limited").Inc()
					secs := int(math.Ceil(wait.Seconds()))
					w.Header().Set("Retry-After", strconv.Itoa(secs))
					fail(w, r, http.StatusTooManyRequests, &ilgraph.Error{Code: codeRateLimited,
						Message: fmt.Sprintf("too many failed authentication attempts from this client; retry after %d s", secs)})
					return
				}
			}
			var err error
			p, err = c.Principal(r)
			if err != nil {
				a.refuse(w, r, err, fail)
				return
			}
			break
		}
		if p.Anonymous() && need > ilgraph.RoleNone {
			a.m.authFailures.WithLabelValues("missing_token").Inc()
			w.Header().Set("WWW-Authenticate", challenge)
			fail(w, r, http.StatusUnauthorized, ilgraph.Errorf(ilgraph.EUNAUTHORIZED,
				"this server is private: send a token with the %s role or above as Authorization: Bearer <token>", need))
			return
		}
		ctx := ilgraph.NewContextWithPrincipal(r.Context(), p)
		if err := ilgraph.Require(ctx, need); err != nil {
			w.Header().Set("WWW-Authenticate", challengeInsufficient)
			fail(w, r, http.StatusForbidden, err.(*ilgraph.Error))
			return
		}
		if !p.Anonymous() {
			setPrincipal(ctx, p.Name)
		}
		h.ServeHTTP(challenging{w}, r.WithContext(ctx))
	})
}

// refuse answers a credential that did not authenticate.
func (a *authn) refuse(w http.ResponseWriter, r *http.Request, err error, fail func(http.ResponseWriter, *http.Request, int, *ilgraph.Error)) {
	ie := Coded(err)
	if ie == nil {
		ie = ilgraph.WrapError(ilgraph.EINTERNAL, err, "internal error")
	}
	switch ie.Code {
	case ilgraph.EUNAUTHORIZED:
		a.m.authFailures.WithLabelValues("invalid_token").Inc()
		if a.failures != nil {
			a.failures.Failed(r)
		}
		w.Header().Set("WWW-Authenticate", challengeInvalid)
		fail(w, r, http.StatusUnauthorized, ie)
	case ilgraph.EFORBIDDEN:
		fail(w, r, http.StatusForbidden, ie)
	case ilgraph.EUNAVAILABLE:
		fail(w, r, http.StatusServiceUnavailable, ie)
	case ilgraph.ETIMEOUT:
		fail(w, r, http.StatusGatewayTimeout, ie)
	default:
		fail(w, r, http.StatusInternalServerError, ilgraph.Errorf(ilgraph.EINTERNAL, "internal error"))
	}
}

// plainFail writes err as plain text, for routes without an error format
// of their own (the explorer, the IDE, /metrics).
func plainFail(w http.ResponseWriter, _ *http.Request, status int, err *ilgraph.Error) {
	http.Error(w, err.Message, status)
}

// challenging adds the bearer challenge to a 401 a door answers on its own
// (the core refusing an anonymous write), as RFC 9110 requires of every
// 401.
type challenging struct{ http.ResponseWriter }

func (c challenging) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", challenge)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the writer underneath (the
// MCP door flushes event streams).
func (c challenging) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// setPrincipal names the request's principal (a token's name, never the
// token) for the request log.
func setPrincipal(ctx context.Context, name string) {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		i.principal = name
	}
}
