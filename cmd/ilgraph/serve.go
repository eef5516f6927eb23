package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/ratelimit"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/session"
	"github.com/ilgraph/ilgraph/token"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := f.logger(stderr)
	if f.memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(f.memLimit << 20)
	}
	db, err := openStore(ctx, f)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := listen(f)
	if err != nil {
		return err
	}
	tokens := token.New(db, token.Options{Logger: logger})
	core, src := newServingCore(ctx, db, logger, f.corpus, f.coreOptions(tokens)...)
	h := newAPI(core, db, tokens, f, logger, corpusCollectors(src)...)
	return serve(ctx, f, ln, h, stdout, logger)
}

// serveFlags are ilgraph serve's settings, parsed and checked.
type serveFlags struct {
	addr, pprofAddr string
	grace           time.Duration
	logJSON         bool
	memLimit        int64
	// corpus are the in-memory corpus's settings.
	corpus corpusSettings
	// The shell's and the doors' settings.
	timeout                   time.Duration
	maxBody                   int64
	cors                      []string
	gql                       resolvers.Options
	ide, explorer, mcpAnyHost bool
	admission                 admission.Config
	// The rate limit's.
	rate ratelimit.Options
	// The store's.
	store graph.Config
	// Authentication: a private corpus, the role /metrics needs, failed
	// attempts allowed per client and minute.
	private      bool
	metricsRole  ilgraph.Role
	authFailures float64
	// The explorer's sessions.
	session sessionFlags
}

// coreOptions are the core's options for f: it manages tokens, and every
// read needs a viewer when the corpus is private.
func (f *serveFlags) coreOptions(tokens *token.Service) []explore.Option {
	opts := []explore.Option{explore.WithTokens(tokens)}
	if f.private {
		opts = append(opts, explore.WithPrivate())
	}
	return opts
}

// envPrivate is ILGRAPH_PRIVATE as --private's default.
func envPrivate() bool {
	v, _ := strconv.ParseBool(os.Getenv("ILGRAPH_PRIVATE"))
	return v
}

// parseServeFlags reads ilgraph serve's flags; a bad one is errUsage, said
// on stderr.
func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	fs := newFlagSet("serve", `Usage: ilgraph serve [--addr HOST:PORT] [flags]

Serves the explorer (the web page for analysts) at /; the GraphQL API: POST
and GET /graphql, a GraphQL IDE at /ide, /healthz, /readyz (ready while Neo4j
answers) and /metrics (Prometheus); the JSON API (/cases, /cases/{id},
/cases/{id}/similar, /topics/{kind}/{id}, /vocab, described by
/openapi.json); and the MCP server over Streamable HTTP at /mcp.
Stops gracefully on SIGINT or SIGTERM, letting requests in flight finish.

Every client address may make --rate-limit requests a second (bursts of
--rate-burst) across all of them, except loopback clients unless
--rate-limit-loopback; the explorer's static files (/assets/) do not count.
Behind a proxy, name it in --trusted-proxies so that
its X-Forwarded-For is believed; no other client's is.

Requests may carry an API token (ilgraph token create) as Authorization:
Bearer <token>; one that is not valid answers 401. The explorer signs in
with a token once (/auth/session) and then carries a session cookie, with
a CSRF token on every state-changing request. With --private (or
ILGRAPH_PRIVATE=true) every read needs a token with the viewer role or
above, on every door, the IDE, /openapi.json and /metrics; /healthz and
/readyz stay open, and so do the explorer's page and its sign-in, which
hold no data (docs/operations.md).

Introspection and the IDE are on by default, since the server listens on
loopback by default. In production turn both off (--ide=false
--introspection=false), or keep introspection for tools that read the schema.`, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	timeout := fs.Duration("timeout", httpapi.DefaultRequestTimeout, "per-request timeout")
	maxBody := fs.Int64("max-body", httpapi.DefaultMaxBodyBytes, "request body limit in bytes")
	maxDepth := fs.Int("max-depth", resolvers.DefaultMaxDepth, "query depth limit")
	maxComplexity := fs.Int("max-complexity", resolvers.DefaultMaxComplexity, "query complexity limit")
	maxTokens := fs.Int("max-tokens", resolvers.DefaultMaxTokens, "tokens in a query document")
	maxFields := fs.Int("max-fields", resolvers.DefaultMaxFields, "field selections in a query document (fragments counted once)")
	maxAliases := fs.Int("max-aliases", resolvers.DefaultMaxAliases, "aliases in a query document")
	maxDirectives := fs.Int("max-directives", resolvers.DefaultMaxDirectives, "directives in a query document")
	maxErrors := fs.Int("max-errors", resolvers.DefaultMaxErrors, "errors in a response; then one \"too many errors\"")
	grace := fs.Duration("shutdown-grace", 20*time.Second, "how long requests in flight may take to finish at shutdown")
	logJSON := fs.Bool("log-json", false, "log as JSON lines instead of text")
	retry := fs.Duration("neo4j-retry", 2*time.Second, "how long to retry a Neo4j transaction on transient errors before answering UNAVAILABLE")
	cors := fs.String("cors-origins", "", "comma-separated origins allowed to call the API from a browser (none by default)")
	metricOps := fs.String("metric-operations", strings.Join(resolvers.DefaultMetricOperations, ","),
		"comma-separated operation names /metrics labels requests by; other names count as \"other\" (empty: none)")
	introspection := fs.Bool("introspection", true, "answer introspection queries (__schema, __type); --introspection=false refuses them")
	ide := fs.Bool("ide", true, "serve the GraphQL IDE at /ide; --ide=false answers 404 there")
	explorerOn := fs.Bool("explorer", true, "serve the explorer at /; --explorer=false answers 404 there")
	rateLimit := fs.Float64("rate-limit", 10, "requests per second each client address may make (0: no limit)")
	rateBurst := fs.Int("rate-burst", 20, "requests a client may make at once before --rate-limit applies")
	rateLoopback := fs.Bool("rate-limit-loopback", false, "limit loopback clients too (exempt by default)")
	trusted := fs.String("trusted-proxies", "", "comma-separated addresses or CIDR prefixes of proxies whose X-Forwarded-For names the client")
	mcpAnyHost := fs.Bool("mcp-allow-any-host", false, "let /mcp answer a request that reaches a loopback address with a non-loopback Host (a reverse proxy on the same host); off, such requests get 403 (DNS-rebinding protection)")
	def := admission.Default
	var inFlight, queue [admission.NumClasses]*int
	for cl := admission.Class(0); cl < admission.NumClasses; cl++ {
		inFlight[cl] = fs.Int("max-"+cl.String(), def.Limits[cl].InFlight,
			fmt.Sprintf("%s requests (%s) running at once", cl, classHelp[cl]))
		queue[cl] = fs.Int("queue-"+cl.String(), def.Limits[cl].Queue,
			fmt.Sprintf("%s requests waiting for a slot; more answer 503 (0: none wait)", cl))
	}
	queueWait := fs.Duration("queue-wait", def.Wait, "longest wait for a slot before a request answers 503 (its Retry-After)")
	pool := fs.Int("neo4j-pool", 0, "Neo4j driver connections (0: the sum of the --max-* bounds plus 16)")
	acquire := fs.Duration("neo4j-acquire-timeout", 3*time.Second, "longest wait for a Neo4j connection (a free one, or a new one opened) before a request fails as UNAVAILABLE")
	connectTimeout := fs.Duration("neo4j-connect-timeout", 2*time.Second, "longest time to open one Neo4j connection (a starting Neo4j may accept and not answer)")
	failFast := fs.Duration("neo4j-fail-fast", time.Second, "after a request finds Neo4j unreachable, answer UNAVAILABLE at once for this long instead of retrying each request (0: always retry)")
	pprofAddr := fs.String("pprof-addr", "", "serve Go's profiler (net/http/pprof) on this address, apart from the API (empty: off)")
	private := fs.Bool("private", envPrivate(), "a private corpus: every read needs a token with the viewer role or above (default: ILGRAPH_PRIVATE)")
	metricsRole := fs.String("metrics-role", "", "the role /metrics needs: public, viewer, reviewer, editor or admin (default: viewer with --private, public without)")
	sessionFlags := addSessionFlags(fs)
	authFailures := fs.Float64("auth-failures", 10, "failed authentications each client address may make a minute (bursts of as many) before its credentials are refused with 429 (0: no limit); loopback counts too")
	settle := fs.Duration("settle-after", memstore.DefaultSettleAfter, "after a write, how long without another before the in-memory corpus is built again from Neo4j, for what a write does not update at once (the text channel's corpus statistics); writes are visible at once regardless (0 or less: never)")
	maxStale := fs.Duration("max-staleness", 0, "how long an answer from the in-memory corpus may lag a change made by another replica or a load: the corpus version read from Neo4j is reused for that long instead of read for every request (0: read for every request, never stale); this server's own writes are visible at once regardless")
	snapshotDir := fs.String("snapshot-dir", os.Getenv("ILGRAPH_SNAPSHOT_DIR"), "keep the built in-memory corpus in this directory (file corpus.snap, about 1 GB per million cases) and read it back at start instead of analysing every case again, when it is of the same Neo4j database at its corpus version or one the change feed leads on from (empty: not kept; default: ILGRAPH_SNAPSHOT_DIR)")
	memLimit := fs.Int64("memory-limit-mb", 400, "soft heap limit: the garbage collector works harder as the heap nears it (0: Go's default pacing)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	proxies, err := ratelimit.ParsePrefixes(*trusted)
	if err != nil {
		fmt.Fprintf(stderr, "ilgraph serve: --trusted-proxies: %v\n", err)
		return nil, errUsage
	}
	if *rateLimit < 0 || *rateBurst < 0 {
		fmt.Fprintln(stderr, "ilgraph serve: --rate-limit and --rate-burst must not be negative")
		return nil, errUsage
	}
	adm := admission.Config{Wait: *queueWait}
	for cl := range adm.Limits {
		adm.Limits[cl] = admission.Limit{InFlight: *inFlight[cl], Queue: *queue[cl]}
		if *queue[cl] == 0 {
			adm.Limits[cl].Queue = -1 // no queue
		}
		if *inFlight[cl] <= 0 {
			fmt.Fprintf(stderr, "ilgraph serve: --max-%s must be at least 1\n", admission.Class(cl))
			return nil, errUsage
		}
	}
	mrole := ilgraph.RoleNone
	switch *metricsRole {
	case "public":
	case "":
		if *private {
			mrole = ilgraph.RoleViewer
		}
	default:
		if mrole, err = ilgraph.ParseRole(*metricsRole); err != nil {
			fmt.Fprintf(stderr, "ilgraph serve: --metrics-role: want public, viewer, reviewer, editor or admin, not %q\n", *metricsRole)
			return nil, errUsage
		}
	}
	if *authFailures < 0 {
		fmt.Fprintln(stderr, "ilgraph serve: --auth-failures must not be negative")
		return nil, errUsage
	}
	ops := splitList(*metricOps)
	if ops == nil {
		ops = []string{} // none allowed, rather than the default list
	}
	cfg := graph.ConfigFromEnv()
	cfg.RetryTime = *retry
	cfg.MaxPoolSize = *pool
	if cfg.MaxPoolSize <= 0 {
		cfg.MaxPoolSize = adm.WithDefaults().InFlight() + poolHeadroom
	}
	cfg.AcquireTimeout = *acquire
	cfg.FailFast = *failFast
	cfg.ConnectTimeout = *connectTimeout
	return &serveFlags{
		addr: *addr, pprofAddr: *pprofAddr, grace: *grace, logJSON: *logJSON, memLimit: *memLimit, corpus: corpusSettings{settle: *settle, maxStaleness: *maxStale, snapshotDir: *snapshotDir},
		timeout: *timeout, maxBody: *maxBody, cors: splitList(*cors),
		gql: resolvers.Options{
			MaxDepth: *maxDepth, MaxComplexity: *maxComplexity,
			MaxTokens: *maxTokens, MaxFields: *maxFields, MaxAliases: *maxAliases, MaxDirectives: *maxDirectives, MaxErrors: *maxErrors,
			MetricOperations: ops, Introspection: introspection,
		},
		ide: *ide, explorer: *explorerOn, mcpAnyHost: *mcpAnyHost,
		admission: adm,
		rate: ratelimit.Options{Rate: *rateLimit, Burst: *rateBurst, TrustedProxies: proxies,
			LimitLoopback: *rateLoopback, Exempt: exempt},
		store:   cfg,
		private: *private, metricsRole: mrole, authFailures: *authFailures,
		session: sessionFlags.parse(),
	}, nil
}

func (f *serveFlags) logger(stderr io.Writer) *slog.Logger {
	if f.logJSON {
		return slog.New(slog.NewJSONHandler(stderr, nil))
	}
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// openStore connects to Neo4j and brings its schema up to date.
func openStore(ctx context.Context, f *serveFlags) (*graph.DB, error) {
	db, err := graph.Open(ctx, f.store)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// probedStore is what the HTTP shell asks of the store beside the core:
// whether it answers (/readyz), whether it is known down (requests then fail
// at once), and its query timings for /metrics. graph.DB is one.
type probedStore interface {
	Ping(ctx context.Context) error
	Down() bool
	SetQueryHook(fn func(name string, d time.Duration))
}

// newAPI builds the front doors over the core and mounts them in the HTTP
// shell: GraphQL, the JSON API, MCP, the IDE and the explorer, sharing one
// admission controller, so that a class's bound holds whichever door the
// requests come in by.
func newAPI(core *explore.Service, db probedStore, tokens ilgraph.Authenticator, f *serveFlags, logger *slog.Logger, collectors ...prometheus.Collector) *httpapi.Handler {
	admitter := admission.New(f.admission)
	gqlOpt := f.gql
	gqlOpt.Logger, gqlOpt.Admitter = logger, admitter
	gql := resolvers.NewHandler(core, gqlOpt)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: logger, Admitter: admitter})
	routes := map[string]httpapi.Door{
		resolvers.Pattern: {Handler: gql, Fail: gql.Fail, Name: "graphql"},
		"/mcp": {Handler: mcpserver.NewHandler(core, mcpserver.Options{Logger: logger, Timeout: f.timeout, RequestTimeout: f.timeout, Version: buildVersion(), AllowAnyHost: f.mcpAnyHost, Admitter: admitter}),
			Fail: mcpserver.Fail, Name: "mcp"},
	}
	for _, p := range jsonapi.Patterns {
		routes[p] = httpapi.Door{Handler: api, Fail: jsonapi.Fail, Name: "jsonapi"}
	}
	if f.ide {
		// GraphiQL and everything it loads, from the binary.
		ide := explorer.IDEHandler()
		routes["GET /ide"] = httpapi.Door{Handler: ide}
		routes["GET /ide/assets/"] = httpapi.Door{Handler: ide}
	}
	failures := ratelimit.NewFailures(ratelimit.Options{Rate: f.authFailures / 60, Burst: max(1, int(f.authFailures)),
		TrustedProxies: f.rate.TrustedProxies, LimitLoopback: true})
	sessions := f.session.manager(tokens, failures, f.rate.TrustedProxies, logger)
	// Signing in is open even on a private server, as is the explorer's
	// page, which holds no data: what it shows comes from the API, which
	// is not open.
	routes[session.Pattern] = httpapi.Door{Handler: sessions.Handler(), Fail: jsonapi.Fail, Open: true}
	if f.explorer {
		// Every path the other front doors leave: the explorer's screens
		// (/, /graph, /case/…, /topic/…, /live, /dashboard) and /assets/.
		routes["/"] = httpapi.Door{Handler: explorer.Handler(), Open: true}
	}
	h := httpapi.New(httpapi.Options{
		MaxBodyBytes: f.maxBody, RequestTimeout: f.timeout, Logger: logger, CORSOrigins: f.cors,
		Ready: db.Ping, StoreDown: db.Down, Admitter: admitter, Collectors: append(append(gql.Collectors(), sessions.Collectors()...), collectors...),
		Routes: routes,
		// A bearer token first: a request with one is judged by it alone.
		Credentials: []httpapi.Credential{httpapi.Bearer(tokens), sessions.Credential()},
		Private:     f.private, MetricsRole: f.metricsRole,
		AuthFailures: failures,
	})
	db.SetQueryHook(h.ObserveQuery)
	return h
}

// listen opens f.addr, and serves the profiler on f.pprofAddr.
func listen(f *serveFlags) (net.Listener, error) {
	if f.pprofAddr != "" {
		pl, err := net.Listen("tcp", f.pprofAddr)
		if err != nil {
			return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "cannot listen on %s", f.pprofAddr)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go http.Serve(pl, mux) //nolint:errcheck // a profiling aid
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "cannot listen on %s", f.addr)
	}
	return ln, nil
}

// serve answers on ln until ctx is done, behind the per-client rate
// limit, then lets the requests in flight finish.
func serve(ctx context.Context, f *serveFlags, ln net.Listener, h http.Handler, stdout io.Writer, logger *slog.Logger) error {
	limiter := ratelimit.New(f.rate)
	srv := &http.Server{Handler: limiter.Middleware(h), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
	var notes []string
	if f.explorer {
		notes = append(notes, fmt.Sprintf("explorer at http://%s/", ln.Addr()))
	}
	if f.ide {
		notes = append(notes, fmt.Sprintf("IDE at http://%s/ide", ln.Addr()))
	}
	if len(notes) == 0 {
		notes = append(notes, "no explorer, no IDE")
	}
	fmt.Fprintf(stdout, "ilgraph: serving GraphQL on http://%s/graphql (%s), the JSON API on http://%s/cases, MCP on http://%s/mcp, Neo4j at %s\n",
		ln.Addr(), strings.Join(notes, ", "), ln.Addr(), ln.Addr(), f.store.URI)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: waiting for requests in flight", "grace", f.grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), f.grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// exempt spares from the rate limit the probes of load balancers and
// monitors, and the static files of the explorer and of the IDE: a first
// visit loads a dozen of them from memory, which would otherwise spend
// most of a burst before the page asks the API anything.
func exempt(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	static := strings.HasPrefix(r.URL.Path, "/assets/") || strings.HasPrefix(r.URL.Path, "/ide/assets/")
	return static && (r.Method == http.MethodGet || r.Method == http.MethodHead)
}

// poolHeadroom is the Neo4j connections beyond the admission bounds: for
// /readyz, and for operations whose root fields run at once.
const poolHeadroom = 16

var classHelp = [admission.NumClasses]string{
	admission.Lookup:     "case, term, vocabulary",
	admission.List:       "cases, sharedWith, sameRootCause, neighbourhood",
	admission.Similarity: "similarCases, similarToProfile, similarToText, suggest; /cases/{id}/similar; similar_incidents",
	admission.Aggregate:  "cooccurrence, stats, breakdown, connections, facets; GET /topics; get_topic",
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
