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
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/ratelimit"
	"github.com/ilgraph/ilgraph/resolvers"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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

Introspection and the IDE are on by default, since the server listens on
loopback by default. In production turn both off (--ide=false
--introspection=false), or keep introspection for tools that read the schema.`, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	timeout := fs.Duration("timeout", resolvers.DefaultRequestTimeout, "per-request timeout")
	maxBody := fs.Int64("max-body", resolvers.DefaultMaxBodyBytes, "request body limit in bytes")
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
	memLimit := fs.Int64("memory-limit-mb", 400, "soft heap limit: the garbage collector works harder as the heap nears it (0: Go's default pacing)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	proxies, err := ratelimit.ParsePrefixes(*trusted)
	if err != nil {
		fmt.Fprintf(stderr, "ilgraph serve: --trusted-proxies: %v\n", err)
		return errUsage
	}
	if *rateLimit < 0 || *rateBurst < 0 {
		fmt.Fprintln(stderr, "ilgraph serve: --rate-limit and --rate-burst must not be negative")
		return errUsage
	}
	var logger *slog.Logger
	if *logJSON {
		logger = slog.New(slog.NewJSONHandler(stderr, nil))
	} else {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	adm := admission.Config{Wait: *queueWait}
	for cl := range adm.Limits {
		adm.Limits[cl] = admission.Limit{InFlight: *inFlight[cl], Queue: *queue[cl]}
		if *queue[cl] == 0 {
			adm.Limits[cl].Queue = -1 // no queue
		}
		if *inFlight[cl] <= 0 {
			fmt.Fprintf(stderr, "ilgraph serve: --max-%s must be at least 1\n", admission.Class(cl))
			return errUsage
		}
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
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if *pprofAddr != "" {
		pl, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot listen on %s", *pprofAddr)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go http.Serve(pl, mux) //nolint:errcheck // a profiling aid
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot listen on %s", *addr)
	}
	ops := splitList(*metricOps)
	if ops == nil {
		ops = []string{} // none allowed, rather than the default list
	}
	core := newServingCore(ctx, db, logger)
	// One controller for every front door, so that a class's bound holds
	// whichever door the requests come in by.
	admitter := admission.New(adm)
	h := resolvers.NewHandler(core, resolvers.Options{
		MaxBodyBytes: *maxBody, MaxDepth: *maxDepth, MaxComplexity: *maxComplexity,
		RequestTimeout: *timeout, Logger: logger, CORSOrigins: splitList(*cors), Ready: db.Ping,
		MetricOperations: ops, Introspection: introspection, IDE: ide,
		Routes:    frontDoors(core, admitter, logger, *maxBody, *timeout, *mcpAnyHost, *explorerOn),
		MaxTokens: *maxTokens, MaxFields: *maxFields, MaxAliases: *maxAliases, MaxDirectives: *maxDirectives, MaxErrors: *maxErrors,
		StoreDown: db.Down,
		Admitter:  admitter,
	})
	db.SetQueryHook(h.ObserveQuery)
	limiter := ratelimit.New(ratelimit.Options{Rate: *rateLimit, Burst: *rateBurst, TrustedProxies: proxies,
		LimitLoopback: *rateLoopback, Exempt: exempt})
	srv := &http.Server{Handler: limiter.Middleware(h), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
	var notes []string
	if *explorerOn {
		notes = append(notes, fmt.Sprintf("explorer at http://%s/", ln.Addr()))
	}
	if *ide {
		notes = append(notes, fmt.Sprintf("IDE at http://%s/ide", ln.Addr()))
	}
	if len(notes) == 0 {
		notes = append(notes, "no explorer, no IDE")
	}
	fmt.Fprintf(stdout, "ilgraph: serving GraphQL on http://%s/graphql (%s), the JSON API on http://%s/cases, MCP on http://%s/mcp, Neo4j at %s\n",
		ln.Addr(), strings.Join(notes, ", "), ln.Addr(), ln.Addr(), cfg.URI)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: waiting for requests in flight", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// frontDoors are the doors served beside GraphQL, on the same mux: the JSON
// API and MCP over Streamable HTTP, with the server's limits.
func frontDoors(core *explore.Service, admitter *admission.Controller, logger *slog.Logger, maxBody int64, timeout time.Duration, mcpAnyHost, withExplorer bool) map[string]http.Handler {
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: logger, MaxBodyBytes: maxBody, Admitter: admitter})
	routes := map[string]http.Handler{
		"/mcp": mcpserver.NewHandler(core, mcpserver.Options{Logger: logger, Timeout: timeout, MaxBodyBytes: maxBody, Version: buildVersion(), AllowAnyHost: mcpAnyHost, Admitter: admitter}),
	}
	for _, p := range jsonapi.Patterns {
		routes[p] = api
	}
	if withExplorer {
		// Every path the other front doors leave: the explorer's screens
		// (/, /graph, /case/…, /topic/…, /live, /dashboard) and /assets/.
		routes["/"] = explorer.Handler()
	}
	return routes
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
