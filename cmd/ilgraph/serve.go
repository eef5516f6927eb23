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
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/resolvers"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", `Usage: ilgraph serve [--addr HOST:PORT] [flags]

Serves the GraphQL API: POST and GET /graphql, a GraphQL IDE at /, /healthz,
/readyz (ready while Neo4j answers) and /metrics (Prometheus). Stops
gracefully on SIGINT or SIGTERM, letting requests in flight finish.

Introspection and the IDE are on by default, since the server listens on
loopback by default. In production turn both off (--ide=false
--introspection=false), or keep introspection for tools that read the schema.`, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	timeout := fs.Duration("timeout", resolvers.DefaultRequestTimeout, "per-request timeout")
	maxBody := fs.Int64("max-body", resolvers.DefaultMaxBodyBytes, "request body limit in bytes")
	maxDepth := fs.Int("max-depth", resolvers.DefaultMaxDepth, "query depth limit")
	maxComplexity := fs.Int("max-complexity", resolvers.DefaultMaxComplexity, "query complexity limit")
	grace := fs.Duration("shutdown-grace", 20*time.Second, "how long requests in flight may take to finish at shutdown")
	logJSON := fs.Bool("log-json", false, "log as JSON lines instead of text")
	retry := fs.Duration("neo4j-retry", 2*time.Second, "how long to retry a Neo4j transaction on transient errors before answering UNAVAILABLE")
	cors := fs.String("cors-origins", "", "comma-separated origins allowed to call the API from a browser (none by default)")
	metricOps := fs.String("metric-operations", strings.Join(resolvers.DefaultMetricOperations, ","),
		"comma-separated operation names /metrics labels requests by; other names count as \"other\" (empty: none)")
	introspection := fs.Bool("introspection", true, "answer introspection queries (__schema, __type); --introspection=false refuses them")
	ide := fs.Bool("ide", true, "serve the GraphQL IDE at /; --ide=false answers 404 there")
	pprofAddr := fs.String("pprof-addr", "", "serve Go's profiler (net/http/pprof) on this address, apart from the API (empty: off)")
	memLimit := fs.Int64("memory-limit-mb", 400, "soft heap limit: the garbage collector works harder as the heap nears it (0: Go's default pacing)")
	if err := parseFlags(fs, args); err != nil {
		return err
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
	cfg := graph.ConfigFromEnv()
	cfg.RetryTime = *retry
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
	h := resolvers.NewHandler(newServingCore(ctx, db), resolvers.Options{
		MaxBodyBytes: *maxBody, MaxDepth: *maxDepth, MaxComplexity: *maxComplexity,
		RequestTimeout: *timeout, Logger: logger, CORSOrigins: splitList(*cors), Ready: db.Ping,
		MetricOperations: ops, Introspection: introspection, IDE: ide,
	})
	db.SetQueryHook(h.ObserveQuery)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
	ideNote := fmt.Sprintf("IDE at http://%s/", ln.Addr())
	if !*ide {
		ideNote = "no IDE"
	}
	fmt.Fprintf(stdout, "ilgraph: serving GraphQL on http://%s/graphql (%s), Neo4j at %s\n", ln.Addr(), ideNote, cfg.URI)
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

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
