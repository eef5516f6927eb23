package resolvers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/admission"
)

// Options are the API server's limits and settings.
type Options struct {
	MaxBodyBytes   int64         // request body limit (default 1 MiB)
	MaxDepth       int           // query depth limit (default 12)
	MaxComplexity  int           // query complexity limit (default 20000)
	MaxTokens      int           // tokens in a document (default 10000)
	MaxFields      int           // field selections in a document, fragments not expanded (default 500)
	MaxAliases     int           // aliases in a document (default 100)
	MaxDirectives  int           // directives in a document (default 100)
	MaxErrors      int           // errors in a response, then one "too many errors" (default 100)
	RequestTimeout time.Duration // per-request timeout (default 15s)
	Logger         *slog.Logger  // default slog.Default()
	// CORSOrigins are the browser origins allowed to call the API; none by
	// default (browsers then refuse cross-origin calls).
	CORSOrigins []string
	// Ready reports whether the backing store answers (/readyz); nil: always
	// ready.
	Ready func(context.Context) error
	// Routes are other front doors (the JSON API, MCP, the explorer) served
	// on the same mux, behind the same request ids, logging, metrics and
	// CORS: pattern → handler, as http.ServeMux takes them.
	Routes map[string]http.Handler
	// MetricOperations are the operation names /metrics labels requests by;
	// any other name counts as "other", so clients cannot grow the number of
	// series. nil: DefaultMetricOperations; empty: none.
	MetricOperations []string
	// Introspection answers __schema and __type (nil: on). Off, an operation
	// that selects them is refused, as a request error with code
	// INTROSPECTION_DISABLED, before anything runs.
	Introspection *bool
	// IDE serves the GraphQL IDE at /ide (nil: on); off, /ide answers 404.
	IDE *bool
	// Admission bounds the requests running at once per cost class, with
	// a short queue each (internal/admission); zero settings take
	// admission.Default. Beyond it a request answers 503, OVERLOADED.
	Admission admission.Config
	// Admitter is the controller to take slots from, shared with the other
	// front doors (the JSON API, MCP) so that a class's bound holds across
	// them; nil: one made from Admission. NewHandler sets its hooks (the
	// metrics, the request log, StoreDown).
	Admitter *admission.Controller
	// NoAdmission turns the bound off.
	NoAdmission bool
	// StoreDown reports whether the store is known unreachable now, so that
	// requests fail at once (graph.DB.Down, with graph.Config.FailFast).
	// Such requests skip admission: they cost nothing, and would otherwise
	// queue behind requests that are still finding out, and answer
	// OVERLOADED instead of UNAVAILABLE. nil: never.
	StoreDown func() bool
}

// on reads an optional setting that defaults to on.
func on(b *bool) bool { return b == nil || *b }

// The server's default limits: the zero Options get them, and ilgraph
// serve's flags default to them.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxDepth       = 12
	DefaultMaxComplexity  = 20000
	DefaultRequestTimeout = 15 * time.Second
	DefaultMaxTokens      = 10000
	DefaultMaxFields      = 500
	DefaultMaxAliases     = 100
	DefaultMaxDirectives  = 100
	DefaultMaxErrors      = 100
)

func (o *Options) defaults() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxComplexity <= 0 {
		o.MaxComplexity = DefaultMaxComplexity
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.MaxFields <= 0 {
		o.MaxFields = DefaultMaxFields
	}
	if o.MaxAliases <= 0 {
		o.MaxAliases = DefaultMaxAliases
	}
	if o.MaxDirectives <= 0 {
		o.MaxDirectives = DefaultMaxDirectives
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = DefaultMaxErrors
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MetricOperations == nil {
		o.MetricOperations = DefaultMetricOperations
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

// NewHandler returns the whole HTTP API over the application core:
// /graphql (POST and GET), the GraphQL IDE at /ide, /healthz, /readyz,
// /metrics, and opt.Routes.
func NewHandler(core *explore.Service, opt Options) *Handler {
	opt.defaults()
	metrics := newMetrics(opt.MetricOperations)

	cfg := Config{Resolvers: &Resolver{Core: core}}
	setComplexity(&cfg.Complexity)
	schema := NewExecutableSchema(cfg)
	srv := handler.New(schema)
	srv.AddTransport(transport.Options{})
	var admit *admission.Controller
	if !opt.NoAdmission {
		admit = opt.Admitter
		if admit == nil {
			admit = admission.New(opt.Admission)
		}
		metrics.watchAdmission(admit)
		admit.Observe(admission.Hooks{
			Refused:    func(cl admission.Class, reason string) { metrics.refused.WithLabelValues(cl.String(), reason).Inc() },
			Classified: func(ctx context.Context, cl admission.Class) { setClass(ctx, cl.String()) },
		}, opt.StoreDown)
	}
	// GET and POST, as GraphQL over HTTP says, and admission: graphqlhttp.go
	srv.AddTransport(graphQLHTTP{admission: admit, metrics: metrics, maxErrors: opt.MaxErrors})
	queries := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(opt.MaxTokens) // docLimits refuses first, with a LIMIT code
	if on(opt.Introspection) {
		srv.Use(extension.Introspection{})
	} else {
		// gqlgen would refuse introspection fields anyway, but while the
		// query runs, as an error our presenter cannot tell from a bug.
		srv.Use(noIntrospection{})
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	// After APQ, which may fill the query in: limits.go.
	srv.Use(docLimits{schema: schema.Schema(), cache: queries, tokens: opt.MaxTokens, fields: opt.MaxFields, aliases: opt.MaxAliases, directives: opt.MaxDirectives})
	srv.AroundResponses(capResponse(opt.MaxErrors))
	srv.Use(extension.FixedComplexityLimit(opt.MaxComplexity))
	srv.Use(depthLimit{max: opt.MaxDepth})
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		oc := graphql.GetOperationContext(ctx)
		name := oc.OperationName
		if name == "" && oc.Operation != nil {
			name = oc.Operation.Name
		}
		if name == "" {
			name = opAnonymous
		}
		setOperation(ctx, name, rootFieldLabel(rootFields(oc.Operation, oc.Doc.Fragments)))
		return withWarnings(ctx, next)
	})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		var ie *ilgraph.Error
		if !errors.As(err, &ie) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
			ie = ilgraph.WrapError(ilgraph.ETIMEOUT, err, "the request took longer than its time limit")
		}
		if ie != nil {
			// The client reads the code and the short message; the cause
			// (addresses, advice, the driver's message) goes to the log,
			// with the request id to find it by.
			gerr.Message = errorMessage(ie)
			if gerr.Extensions == nil {
				gerr.Extensions = map[string]any{}
			}
			gerr.Extensions["code"] = strings.ToUpper(ie.Code)
			if ie.Code == ilgraph.EINTERNAL {
				opt.Logger.ErrorContext(ctx, "internal error", "err", ie.Error(), "request_id", requestID(ctx))
				gerr.Message = "internal error"
			} else if ie.Err != nil {
				opt.Logger.WarnContext(ctx, "request failed", "code", ie.Code, "err", ie.Error(), "request_id", requestID(ctx))
			}
		} else if gerr.Extensions == nil || gerr.Extensions["code"] == nil {
			// Parse and validation errors carry gqlgen's own codes; anything
			// else is ours and unexpected.
			if _, isGQL := err.(*gqlerror.Error); !isGQL {
				opt.Logger.ErrorContext(ctx, "unexpected error", "err", err, "request_id", requestID(ctx))
				gerr.Message = "internal error"
				gerr.Extensions = map[string]any{"code": "INTERNAL"}
			}
		}
		return gerr
	})
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		opt.Logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()), "request_id", requestID(ctx))
		return ilgraph.Errorf(ilgraph.EINTERNAL, "internal error")
	})

	mux := http.NewServeMux()
	gql := WithLoaders(core, limitBody(opt.MaxBodyBytes, srv))
	mux.Handle("/graphql", gql)
	if on(opt.IDE) {
		mux.Handle("GET /ide", playground.Handler("ilgraph", "/graphql"))
	}
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
			opt.Logger.WarnContext(ctx, "not ready", "err", err.Error(), "request_id", requestID(ctx))
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", ilgraph.ErrorMessage(err))
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("GET /metrics", metrics)
	for pattern, h := range opt.Routes {
		mux.Handle(pattern, h)
	}
	return &Handler{Handler: withRequest(opt, metrics, withCORS(opt.CORSOrigins, mux)), metrics: metrics}
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
			h.Set("Access-Control-Expose-Headers", "ETag, X-Request-Id, Retry-After")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				// If-None-Match for the JSON API's ETags; Mcp-Protocol-Version,
				// which MCP clients send on every call after the first, and
				// Accept, which they set to JSON and event streams.
				h.Set("Access-Control-Allow-Headers", "Content-Type, X-Request-Id, If-None-Match, Accept, Mcp-Protocol-Version")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withRequest gives each request an id (X-Request-Id, kept from the client
// when sane), a timeout, a log line and metrics.
func withRequest(opt Options, m *metrics, next http.Handler) http.Handler {
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
		if r.URL.Path == "/graphql" {
			m.observeRequest(info.op, info.field, sw.status, elapsed)
		}
		opt.Logger.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("operation", info.operation()), slog.String("class", info.class), slog.Int("status", sw.status),
			slog.Float64("ms", float64(elapsed.Microseconds())/1000))
	})
}

type requestKey struct{}

type requestInfo struct {
	id    string
	class string // the operation's cost class, "" until classified
	op    string // the client's operation name, "" until one runs
	field string // the operation's root field label
}

func (i *requestInfo) operation() string {
	if i.op == "" {
		return "-"
	}
	return i.op
}

func requestID(ctx context.Context) string {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		return i.id
	}
	return ""
}

func setClass(ctx context.Context, class string) {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		i.class = class
	}
}

func setOperation(ctx context.Context, name, field string) {
	if i, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		i.op, i.field = name, field
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// setComplexity makes list fields cost their page size times their children,
// so that FixedComplexityLimit bounds the work a query can ask for.
func setComplexity(c *ComplexityRoot) {
	pageCost := func(child int, first *int, def int) int {
		n := def
		if first != nil && *first > 0 {
			n = *first
		}
		return 1 + n*max(child, 1)
	}
	c.Query.Cases = func(child int, _ *CaseFilter, _ *ilgraph.CaseSort, first *int, _ *string) int {
		return pageCost(child, first, explore.DefaultPageSize)
	}
	c.Query.SharedWith = func(child int, _ string, _ ilgraph.Kind, _ *string, _ *CaseFilter, _ *ilgraph.CaseSort, first *int, _ *string) int {
		return pageCost(child, first, explore.DefaultPageSize)
	}
	c.Query.SameRootCause = func(child int, _ string, first *int, _ *string) int {
		return pageCost(child, first, explore.DefaultSameRootCause)
	}
	c.Term.Cases = func(child int, _ *CaseFilter, _ *ilgraph.CaseSort, first *int, _ *string) int {
		return pageCost(child, first, explore.DefaultPageSize)
	}
	c.Case.SameRootCause = func(child int, first *int) int { return pageCost(child, first, explore.DefaultSameRootCause) }
	c.Case.Related = func(child int) int { return 1 + 10*max(child, 1) }
	c.Case.Recurrences = func(child int) int { return 1 + 10*max(child, 1) }
	c.Term.Cooccurring = func(child int, _ ilgraph.Kind, first *int) int {
		return pageCost(child, first, explore.DefaultCooccurring)
	}
	c.Query.SimilarCases = func(child int, _ string, k *int, _ *WeightsInput, _ *bool, _ *CaseFilter, _ *float64) int {
		return pageCost(child, k, explore.DefaultSimilarK)
	}
	c.Query.SimilarToProfile = func(child int, _ ProfileInput, k *int, _ *WeightsInput, _ *bool, _ *CaseFilter, _ *float64) int {
		return pageCost(child, k, explore.DefaultSimilarK)
	}
	c.Case.Similar = func(child int, k *int) int { return pageCost(child, k, explore.DefaultSimilarK) }
}

// noIntrospection refuses operations that select __schema or __type, which
// only the query root has.
type noIntrospection struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = noIntrospection{}

func (noIntrospection) ExtensionName() string                   { return "NoIntrospection" }
func (noIntrospection) Validate(graphql.ExecutableSchema) error { return nil }
func (noIntrospection) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if names := rootFields(oc.Operation, oc.Doc.Fragments); names["__schema"] || names["__type"] {
		err := gqlerror.Errorf("introspection is disabled on this server")
		err.Extensions = map[string]any{"code": "INTROSPECTION_DISABLED"}
		return err
	}
	return nil
}

// depthLimit rejects operations nested deeper than max selection levels.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (d depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); depth > d.max {
		err := gqlerror.Errorf("query is nested %d levels deep, more than the limit of %d", depth, d.max)
		err.Extensions = map[string]any{"code": "LIMIT"}
		return err
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen int) int {
	if seen > 100 { // fragment cycles are rejected by validation; stay safe anyway
		return seen
	}
	deepest := 0
	for _, s := range set {
		var d int
		switch s := s.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = 1
			} else {
				d = 1 + selectionDepth(s.SelectionSet, frags, seen+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen+1)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, seen+1)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// limitBody refuses bodies over limit with 413 and a GraphQL-shaped error.
func limitBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			fmt.Fprintf(w, `{"errors":[{"message":"request body is larger than %d bytes","extensions":{"code":"LIMIT"}}]}`, limit)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// warningJSON is one warning as extensions.warnings lists it.
type warningJSON struct {
	Field       string   `json:"field"`
	Value       string   `json:"value"`
	Message     string   `json:"message"`
	Resolved    string   `json:"resolved,omitempty"`
	Suggestions []string `json:"suggestions"`
}

// withWarnings runs an operation with a collector for the core's warnings
// (values in filters and profiles that were resolved or matched nothing)
// and lists them in the response's extensions.warnings.
func withWarnings(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	ctx, ws := explore.WithWarnings(ctx)
	responses := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		resp := responses(ctx)
		list := ws.List()
		if resp == nil || len(list) == 0 {
			return resp
		}
		out := make([]warningJSON, len(list))
		for i, w := range list {
			out[i] = warningJSON{Field: w.Field, Value: w.Value, Message: w.Message, Resolved: w.Resolved, Suggestions: append([]string{}, w.Suggestions...)}
		}
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		resp.Extensions["warnings"] = out
		return resp
	}
}
