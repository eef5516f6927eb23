// Package httpapi is the HTTP shell every front door is served in: one mux
// on which ilgraph serve mounts the doors (GraphQL, the JSON API, MCP, the
// explorer and the GraphQL IDE) beside /healthz, /readyz and /metrics, and
// around all of them, written once, the request id, the request log, CORS,
// authentication (auth.go), the per-request timeout and the request-body
// limit.
//
// The shell knows no door: each is a Door, a handler with the function that
// writes an error in the door's own body format. The shell puts the limit
// and the deadline on the request; a door maps what comes of them (an
// over-long body, a context error) to its own answer, through Coded and
// http.MaxBytesError, with the same codes whichever door it is.
package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/admission"
)

// The shell's default limits: the zero Options get them, and ilgraph
// serve's flags default to them.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultRequestTimeout = 15 * time.Second
)

// Options are the shell's settings.
type Options struct {
	MaxBodyBytes   int64         // request body limit (default 1 MiB)
	RequestTimeout time.Duration // per-request timeout (default 15s)
	Logger         *slog.Logger  // default slog.Default()
	// CORSOrigins are the browser origins allowed to call the API; none by
	// default (browsers then refuse cross-origin calls).
	CORSOrigins []string
	// Ready reports whether the backing store answers (/readyz); nil: always
	// ready.
	Ready func(context.Context) error
	// Routes are the front doors: pattern → door, as http.ServeMux takes
	// patterns.
	Routes map[string]Door
	// Admitter is the admission controller the doors share: /metrics
	// exports its requests running and queued and its refusals, and the
	// request log names each request's cost class. nil: none.
	Admitter *admission.Controller
	// StoreDown reports whether the store is known unreachable now, so that
	// requests fail at once (graph.DB.Down, with graph.Config.FailFast).
	// Such requests skip admission: they cost nothing, and would otherwise
	// queue behind requests that are still finding out, and answer
	// OVERLOADED instead of UNAVAILABLE. nil: never.
	StoreDown func() bool
	// Collectors are the doors' own metrics (resolvers.Handler.Collectors),
	// served on /metrics with the shell's.
	Collectors []prometheus.Collector

	// Credentials are the kinds of credential requests may carry (Bearer,
	// an explorer session), asked in order; the first one present is
	// checked, and one that is not valid answers 401 on every route but
	// /healthz and /readyz, private or not. A request with a valid one has
	// its principal in the context (ilgraph.PrincipalFrom). None: every
	// request is anonymous.
	Credentials []Credential
	// Private makes every route but /healthz, /readyz and Open doors need
	// a principal with the viewer role (401 before the door sees the
	// request).
	Private bool
	// MetricsRole is the role /metrics needs (RoleNone: open).
	MetricsRole ilgraph.Role
	// AuthFailures limits failed authentication attempts per client
	// (ratelimit.Failures); nil: no limit.
	AuthFailures FailureLimiter
}

// Door is one front door.
type Door struct {
	http.Handler
	// Fail writes err with status in the door's error format. The shell
	// calls it for a request whose declared body is over the limit (413,
	// code LIMIT) before the door sees it; nil: the shell only bounds the
	// body's reading (a door that reads no bodies, such as the explorer).
	Fail func(w http.ResponseWriter, r *http.Request, status int, err *ilgraph.Error)
	// Open serves the door without a principal even when the shell is
	// private: the explorer's sign-in screen and what it loads. A
	// credential the request carries is still checked.
	Open bool
	// Name names the door on /metrics (the door label of the admission
	// refusals: graphql, jsonapi, mcp) and in the request log; "" for a
	// door that takes no admission slots (the explorer, the IDE), which
	// counts as "other".
	Name string
}

func (o *Options) defaults() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Handler is the whole HTTP API. ObserveQuery takes the store's timings
// for /metrics (graph.DB.SetQueryHook).
type Handler struct {
	http.Handler
	metrics *metrics
}

// ObserveQuery records one store query's duration.
func (h *Handler) ObserveQuery(name string, d time.Duration) { h.metrics.observeNeo4j(name, d) }

// New returns the shell around opt.Routes, with /healthz, /readyz and
// /metrics.
func New(opt Options) *Handler {
	opt.defaults()
	m := newMetrics(opt.Collectors)
	if opt.Admitter != nil {
		var doors []string
		for _, d := range opt.Routes {
			if d.Name != "" && !slices.Contains(doors, d.Name) {
				doors = append(doors, d.Name)
			}
		}
		m.watchAdmission(opt.Admitter, doors)
		opt.Admitter.Observe(admission.Hooks{
			Refused: func(ctx context.Context, cl admission.Class, reason string) {
				m.refused.WithLabelValues(cl.String(), doorOf(ctx), reason).Inc()
			},
			Classified: func(ctx context.Context, cl admission.Class) { setClass(ctx, cl.String()) },
		}, opt.StoreDown)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if opt.Ready == nil {
			fmt.Fprintln(w, "ready")
			return
		}
		if err := opt.Ready(ctx); err != nil {
			opt.Logger.WarnContext(ctx, "not ready", "err", err.Error(), "request_id", RequestID(ctx))
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", ilgraph.ErrorMessage(err))
			return
		}
		fmt.Fprintln(w, "ready")
	})
	a := &authn{creds: opt.Credentials, failures: opt.AuthFailures, m: m}
	mux.Handle("GET /metrics", a.guard(opt.MetricsRole, nil, m))
	for pattern, d := range opt.Routes {
		need := ilgraph.RoleNone
		if opt.Private && !d.Open {
			need = ilgraph.RoleViewer
		}
		mux.Handle(pattern, a.guard(need, d.Fail, limitBody(opt.MaxBodyBytes, d)))
	}
	return &Handler{Handler: withRequest(opt, withCORS(opt.CORSOrigins, mux)), metrics: m}
}

// limitBody names the request's door, bounds the body a door may read to
// limit bytes, and refuses, in the door's format, a request that declares
// a larger one.
func limitBody(limit int64, d Door) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i, ok := r.Context().Value(requestKey{}).(*requestInfo); ok {
			i.door = d.Name
		}
		if r.ContentLength > limit && d.Fail != nil {

			d.Fail(w, r, http.StatusRequestEntityTooLarge, ilgraph.Errorf(ilgraph.ELIMIT, "request body is larger than %d bytes", limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		d.ServeHTTP(w, r)
	})
}

// Coded is err as the coded error a door answers with: the first
// *ilgraph.Error in its chain; for a context error (the shell's deadline
// passed, or the client went away) one with code ETIMEOUT; nil for any
// other error, which a door treats as internal.
func Coded(err error) *ilgraph.Error {
	var ie *ilgraph.Error
	if errors.As(err, &ie) {
		return ie
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return ilgraph.WrapError(ilgraph.ETIMEOUT, err, "the request took longer than its time limit")
	}
	return nil
}

// withCORS answers browsers from the allowed origins, and only them.
func withCORS(origins []string, next http.Handler) http.Handler {
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && allowed[origin] {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			// Scripts may read the JSON API's validators and the request id.
			h.Set("Access-Control-Expose-Headers", "ETag, X-Request-Id, Retry-After, WWW-Authenticate")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				// PUT and DELETE: the JSON API's case writes, which a
				// script on an allowed origin sends with a bearer token.
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
				// If-None-Match and If-Match for the JSON API's ETags (a
				// read's validator, a write's expected version); Mcp-Protocol-Version,
				// which MCP clients send on every call after the first, and
				// Accept, which they set to JSON and event streams.
				// Authorization, for bearer tokens. Never
				// Access-Control-Allow-Credentials: cookies (the explorer's
				// session) are for the explorer's own origin only.
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id, If-None-Match, If-Match, Accept, Mcp-Protocol-Version")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withRequest gives each request an id (X-Request-Id, kept from the client
// when sane), a timeout and a log line.
func withRequest(opt Options, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 || strings.ContainsAny(id, " \t\r\n\"") {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		info := &requestInfo{id: id}
		ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), requestKey{}, info), opt.RequestTimeout)
		defer cancel()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r.WithContext(ctx))
		elapsed := time.Since(start)
		// The path only (no query string, no headers): credentials never
		// reach the log; the principal is named by its token's name.
		attrs := []slog.Attr{slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("operation", info.operation()), slog.String("class", info.class), slog.Int("status", sw.status),
			slog.Float64("ms", float64(elapsed.Microseconds())/1000)}
		if info.door != "" {
			attrs = append(attrs, slog.String("door", info.door))
		}
		if info.principal != "" {
			attrs = append(attrs, slog.String("principal", info.principal))
		}
		opt.Logger.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
	})
}

type requestKey struct{}

// requestInfo is what the request log says of a request besides its HTTP
// line, filled in by the doors as it runs.
type requestInfo struct {
	id    string
	door  string // the door's name (Door.Name), "" for none
	class string // the operation's cost class, "" until classified
	op    string // the client's operation name, "" until one runs
	// principal is the name of the request's principal ("" anonymous).
	principal string
}

func (i *requestInfo) operation() string {
	if i.op == "" {
		return "-"
	}
	return i.op
}

// RequestID is the id of the request ctx belongs to ("" outside the shell),
// for a door's log lines.
func RequestID(ctx context.Context) string {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		return i.id
	}
	return ""
}

// SetOperation names the operation the request runs (a GraphQL operation
// name), for the request log.
func SetOperation(ctx context.Context, name string) {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		i.op = name
	}
}

// doorOf is the name of the door ctx's request came in by, for the
// metrics: "other" for a door without a name, or outside the shell.
func doorOf(ctx context.Context) string {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok && i.door != "" {
		return i.door
	}
	return "other"
}

func setClass(ctx context.Context, class string) {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		i.class = class
	}
}

// statusWriter keeps the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
