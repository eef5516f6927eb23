package resolvers

import (
	"context"
	"encoding/json"
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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
)

// Options are the GraphQL door's limits and settings.
type Options struct {
	MaxDepth      int          // query depth limit (default 12)
	MaxComplexity int          // query complexity limit (default 20000)
	MaxTokens     int          // tokens in a document (default 10000)
	MaxFields     int          // field selections in a document, fragments not expanded (default 500)
	MaxAliases    int          // aliases in a document (default 100)
	MaxDirectives int          // directives in a document (default 100)
	MaxErrors     int          // errors in a response, then one "too many errors" (default 100)
	Logger        *slog.Logger // default slog.Default()
	// MetricOperations are the operation names /metrics labels requests by;
	// any other name counts as "other", so clients cannot grow the number of
	// series. nil: DefaultMetricOperations; empty: none.
	MetricOperations []string
	// Introspection answers __schema and __type (nil: on). Off, an operation
	// that selects them is refused, as a request error with code
	// INTROSPECTION_DISABLED, before anything runs.
	Introspection *bool
	// Admission bounds the requests running at once per cost class, with
	// a short queue each (internal/admission); zero settings take
	// admission.Default. Beyond it a request answers 503, OVERLOADED.
	Admission admission.Config
	// Admitter is the controller to take slots from, shared with the other
	// front doors (the JSON API, MCP) so that a class's bound holds across
	// them; nil: one made from Admission (Handler.Admitter). The HTTP shell
	// (httpapi.Options.Admitter) sets its hooks: the metrics, the request
	// log, StoreDown.
	Admitter *admission.Controller
	// NoAdmission turns the bound off.
	NoAdmission bool
}

// on reads an optional setting that defaults to on.
func on(b *bool) bool { return b == nil || *b }

// The door's default limits: the zero Options get them, and ilgraph
// serve's flags default to them.
const (
	DefaultMaxDepth      = 12
	DefaultMaxComplexity = 20000
	DefaultMaxTokens     = 10000
	DefaultMaxFields     = 500
	DefaultMaxAliases    = 100
	DefaultMaxDirectives = 100
	DefaultMaxErrors     = 100
)

// Pattern is the path the GraphQL API is served at (POST and GET).
const Pattern = "/graphql"

func (o *Options) defaults() {
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
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MetricOperations == nil {
		o.MetricOperations = DefaultMetricOperations
	}
}

// Handler is the GraphQL API, to mount at Pattern in the HTTP shell
// (httpapi): gqlgen's executor with the document limits, APQ, admission
// by cost class, the error presenter and the per-operation metrics.
type Handler struct {
	next    http.Handler
	metrics *metrics
	admit   *admission.Controller
}

// Collectors are the door's metrics, for the shell's /metrics
// (httpapi.Options.Collectors).
func (h *Handler) Collectors() []prometheus.Collector { return h.metrics.collectors() }

// Admitter is the admission controller the door takes slots from
// (Options.Admitter, or the one made from Options.Admission); nil with
// NoAdmission.
func (h *Handler) Admitter() *admission.Controller { return h.admit }

// ServeHTTP answers one GraphQL request and counts it in the metrics.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.observed(w, r, h.next.ServeHTTP)
}

// Fail answers err with status as a GraphQL request error, nothing having
// run (httpapi.Door.Fail: a body over the shell's limit).
func (h *Handler) Fail(w http.ResponseWriter, r *http.Request, status int, err *ilgraph.Error) {
	h.observed(w, r, func(w http.ResponseWriter, r *http.Request) {
		gerr := gqlerror.Errorf("%s", err.Message)
		gerr.Extensions = map[string]any{"code": strings.ToUpper(err.Code)}
		body, _ := json.Marshal(struct {
			Errors gqlerror.List `json:"errors"`
		}{gqlerror.List{gerr}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	})
}

// operationKey holds the *operation a request runs, for the metrics.
type operationKey struct{}

type operation struct {
	name  string // the client's operation name, "" until one runs
	field string // the operation's root field label
}

// observed runs serve and counts the request by operation, root field and
// status.
func (h *Handler) observed(w http.ResponseWriter, r *http.Request, serve http.HandlerFunc) {
	start := time.Now()
	op := &operation{}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	serve(sw, r.WithContext(context.WithValue(r.Context(), operationKey{}, op)))
	h.metrics.observeRequest(op.name, op.field, sw.status, time.Since(start))
}

// setOperation names the operation a request runs, for the metrics and
// the request log.
func setOperation(ctx context.Context, name, field string) {
	if op, ok := ctx.Value(operationKey{}).(*operation); ok {
		op.name, op.field = name, field
	}
	httpapi.SetOperation(ctx, name)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// extensions are the server's extensions, in order. None may intercept
// fields (graphql.FieldInterceptor): internal/gqlinline writes plain leaf
// fields without the field middleware, and TestNoFieldInterceptor holds
// this list to that.
func extensions(schema graphql.ExecutableSchema, queries graphql.Cache[*ast.QueryDocument], opt Options) []graphql.HandlerExtension {
	var exts []graphql.HandlerExtension
	if on(opt.Introspection) {
		exts = append(exts, extension.Introspection{})
	} else {
		// gqlgen would refuse introspection fields anyway, but while the
		// query runs, as an error our presenter cannot tell from a bug.
		exts = append(exts, noIntrospection{})
	}
	return append(exts,
		extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)},
		// After APQ, which may fill the query in: limits.go.
		docLimits{schema: schema.Schema(), cache: queries, tokens: opt.MaxTokens, fields: opt.MaxFields, aliases: opt.MaxAliases, directives: opt.MaxDirectives},
		extension.FixedComplexityLimit(opt.MaxComplexity),
		depthLimit{max: opt.MaxDepth},
	)
}

// NewHandler returns the GraphQL API over the application core.
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
	}
	// GET and POST, as GraphQL over HTTP says, and admission: graphqlhttp.go
	srv.AddTransport(graphQLHTTP{admission: admit, metrics: metrics, maxErrors: opt.MaxErrors})
	queries := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(opt.MaxTokens) // docLimits refuses first, with a LIMIT code
	for _, ext := range extensions(schema, queries, opt) {
		srv.Use(ext)
	}
	srv.AroundResponses(capResponse(opt.MaxErrors))
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
		if oc.Operation != nil && oc.Operation.Operation == ast.Query {
			return pinned(ctx, core, next)
		}
		return withWarnings(ctx, next)
	})
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		if ie := httpapi.Coded(err); ie != nil {
			// The client reads the code and the short message; the cause
			// (addresses, advice, the driver's message) goes to the log,
			// with the request id to find it by.
			gerr.Message = errorMessage(ie)
			if gerr.Extensions == nil {
				gerr.Extensions = map[string]any{}
			}
			gerr.Extensions["code"] = strings.ToUpper(ie.Code)
			if len(ie.Problems) > 0 {
				gerr.Extensions["problems"] = problemsJSON(ie.Problems)
			}
			if ie.Code == ilgraph.EINTERNAL {
				opt.Logger.ErrorContext(ctx, "internal error", "err", ie.Error(), "request_id", httpapi.RequestID(ctx))
				gerr.Message = "internal error"
			} else if ie.Err != nil {
				opt.Logger.WarnContext(ctx, "request failed", "code", ie.Code, "err", ie.Error(), "request_id", httpapi.RequestID(ctx))
			}
		} else if gerr.Extensions == nil || gerr.Extensions["code"] == nil {
			// Parse and validation errors carry gqlgen's own codes; anything
			// else is ours and unexpected.
			if _, isGQL := err.(*gqlerror.Error); !isGQL {
				opt.Logger.ErrorContext(ctx, "unexpected error", "err", err, "request_id", httpapi.RequestID(ctx))
				gerr.Message = "internal error"
				gerr.Extensions = map[string]any{"code": "INTERNAL"}
			}
		}
		return gerr
	})
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		opt.Logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()), "request_id", httpapi.RequestID(ctx))
		return ilgraph.Errorf(ilgraph.EINTERNAL, "internal error")
	})
	return &Handler{next: WithLoaders(core, srv), metrics: metrics, admit: admit}
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
	c.Query.SimilarCases = func(child int, _ string, k *int, _ *WeightsInput, _ *bool, _ *CaseFilter, _ *float64, _ *bool) int {
		return pageCost(child, k, explore.DefaultSimilarK)
	}
	c.Query.SimilarToProfile = func(child int, _ ProfileInput, k *int, _ *WeightsInput, _ *bool, _ *CaseFilter, _ *float64, _ *string, _ *string) int {
		return pageCost(child, k, explore.DefaultSimilarK)
	}
	c.Case.Similar = func(child int, k *int, _ *bool) int { return pageCost(child, k, explore.DefaultSimilarK) }
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
// The selections under __schema and __type count once against max and are
// bounded on their own by MaxIntrospectionDepth: schema tools' standard
// introspection query nests type references 15 levels or more, and its
// answer comes from the schema in memory, whatever the depth.
type depthLimit struct{ max int }

// MaxIntrospectionDepth bounds the nesting under __schema and __type.
const MaxIntrospectionDepth = 32

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
	var meta int
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0, &meta); depth > d.max {
		err := gqlerror.Errorf("query is nested %d levels deep, more than the limit of %d", depth, d.max)
		err.Extensions = map[string]any{"code": "LIMIT"}
		return err
	}
	if meta > MaxIntrospectionDepth {
		err := gqlerror.Errorf("introspection is nested %d levels deep, more than the limit of %d", meta, MaxIntrospectionDepth)
		err.Extensions = map[string]any{"code": "LIMIT"}
		return err
	}
	return nil
}

// selectionDepth is the nesting of set, an introspection field (__schema,
// __type) counting as one level; the deepest introspection subtree's own
// nesting goes to *meta.
func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen int, meta *int) int {
	if seen > 100 { // fragment cycles are rejected by validation; stay safe anyway
		return seen
	}
	deepest := 0
	for _, s := range set {
		var d int
		switch s := s.(type) {
		case *ast.Field:
			switch {
			case len(s.SelectionSet) == 0:
				d = 1
			case s.Name == "__schema" || s.Name == "__type":
				var inner int
				*meta = max(*meta, 1+selectionDepth(s.SelectionSet, frags, seen+1, &inner))
				d = 1
			default:
				d = 1 + selectionDepth(s.SelectionSet, frags, seen+1, meta)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen+1, meta)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, seen+1, meta)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
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
// pinned runs a query over one in-memory corpus while the graph's version
// is read beside it (explore.Service.Pin): the query's answers from memory
// wait for no round trip, and the version's overlaps the whole operation
// rather than each question paying its own. When the corpus turns out
// behind the graph, the answer is thrown away and the query runs again,
// each question reading the version, with fresh loaders (the first run's
// may hold what the old corpus said).
func pinned(ctx context.Context, core *explore.Service, next graphql.OperationHandler) graphql.ResponseHandler {
	runs := 0
	return func(context.Context) *graphql.Response {
		if runs > 0 {
			return nil // a query has one response
		}
		resp, _ := explore.Consistently(ctx, core, func(ctx context.Context) (*graphql.Response, error) {
			if runs++; runs > 1 {
				ctx = context.WithValue(ctx, loadersKey{}, NewLoaders(core))
			}
			// The executor runs the operation in the context its handler
			// was made in (which holds the warnings' collector).
			var inner context.Context
			responses := withWarnings(ctx, func(ctx context.Context) graphql.ResponseHandler {
				inner = ctx
				return next(ctx)
			})
			return responses(inner), nil
		})
		return resp
	}
}

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
			out[i] = warningJSON{Field: ilgraph.FieldName(w.Field, fieldNames), Value: w.Value, Message: w.Message, Resolved: w.Resolved, Suggestions: append([]string{}, w.Suggestions...)}
		}
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		resp.Extensions["warnings"] = out
		return resp
	}
}
