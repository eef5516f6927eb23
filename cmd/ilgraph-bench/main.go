// Command ilgraph-bench measures ilgraph end to end on a generated corpus and
// prints one table, also written as JSON under bench/results/: the loader
// beside a naive one-transaction-per-case load, each GraphQL query at several
// concurrencies beside the same question asked of the store directly (raw
// Cypher through the driver, no HTTP or GraphQL: the floor), and the peak
// memory of the loader and the server. Run it with `make bench`.
//
// Every ratio compares two things measured in the same run on the same
// machine; absolute numbers are context only.
//
// Environment: BENCH_CASES (corpus size), BENCH_REQUESTS (per row),
// BENCH_CONCURRENCY (e.g. "1,8"), BENCH_NO_PEER=1 (no @neo4j/graphql
// columns), BENCH_NO_FLOOR=1 (no hand-written Cypher columns),
// BENCH_NO_WRITEBACK=1 (load and queries only, for a million cases) and
// BENCH_SERVER_MEMORY_MB (the server's --memory-limit-mb; its default soft
// limit is sized for 100k cases) and BENCH_MAX_STALENESS (the server's
// --max-staleness, e.g. 250ms; unset: the default, never stale).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
)

// Result is the JSON written under bench/results/.
type Result struct {
	When    string `json:"when"`
	Machine string `json:"machine"`
	Cases   int    `json:"cases"`
	// MaxStaleness is the server's --max-staleness (BENCH_MAX_STALENESS;
	// empty: the default, every answer reads the corpus version).
	MaxStaleness string `json:"max_staleness,omitempty"`
	// WarmupS is how long the queries' warm-up took: the server's read
	// model builds meanwhile.
	WarmupS float64 `json:"warmup_s,omitempty"`
	// SnapshotFileLoadS is how long the server took to read its corpus from
	// the snapshot file (BENCH_SNAPSHOT_DIR), when it read one instead of
	// building (its ilgraph_corpus_file_load_seconds).
	SnapshotFileLoadS float64 `json:"snapshot_file_load_s,omitempty"`
	// PeerWarmupErrors counts the peer's warm-up requests that failed
	// (timed out, mostly); the run goes on.
	PeerWarmupErrors int `json:"peer_warmup_errors,omitempty"`
	Loader           struct {
		Seconds         float64 `json:"seconds"`
		CasesPerS       float64 `json:"cases_per_s"`
		RelsPerS        float64 `json:"relationships_per_s"`
		NaiveCases      int     `json:"naive_cases"`
		NaiveCasesPerS  float64 `json:"naive_cases_per_s"`
		RatioVsNaive    float64 `json:"ratio_vs_naive"`
		PeakRSSMB       float64 `json:"peak_rss_mb"`
		SimilarKSeconds float64 `json:"similar_writeback_seconds"`
		// A load that changes 100 cases (60 changed, 40 new), then the
		// incremental write-back it needs.
		ChangeLoadSeconds     float64 `json:"change_load_seconds"`
		IncrementalSeconds    float64 `json:"similar_incremental_seconds"`
		IncrementalRecomputed int     `json:"similar_incremental_recomputed"`
		// IncrementalUsed says whether that write-back recomputed only the
		// affected cases (under the frozen corpus statistics of the first
		// write-back; docs/similarity.md), and IncrementalPhases how long
		// each of its steps took.
		IncrementalUsed   bool               `json:"similar_incremental_used"`
		IncrementalPhases []similarity.Phase `json:"similar_incremental_phases,omitempty"`
		Relationships     int64              `json:"relationships"`
	} `json:"loader"`
	Queries []Query `json:"queries"`
	Server  struct {
		PeakRSSMB float64 `json:"peak_rss_mb"`
	} `json:"server"`
	Peer struct {
		Version   string  `json:"version"`
		PeakRSSMB float64 `json:"peak_rss_mb"`
	} `json:"peer"`
}

// Query is one query at one concurrency.
type Query struct {
	Name             string  `json:"name"`
	Concurrency      int     `json:"concurrency"`
	Requests         int     `json:"requests"`
	P50Ms            float64 `json:"p50_ms"`
	P99Ms            float64 `json:"p99_ms"`
	RPS              float64 `json:"requests_per_s"`
	Errors           int     `json:"errors"`
	CypherP50Ms      float64 `json:"cypher_p50_ms"`
	CypherP99Ms      float64 `json:"cypher_p99_ms"`
	CypherRPS        float64 `json:"cypher_requests_per_s"`
	P50RatioVsCypher float64 `json:"p50_ratio_vs_cypher"`
	// The peer (@neo4j/graphql on Apollo Server, bench/peer/) asked the
	// same question over the same Neo4j; zero when it cannot express it.
	PeerP50Ms        float64 `json:"peer_p50_ms,omitempty"`
	PeerP99Ms        float64 `json:"peer_p99_ms,omitempty"`
	PeerRPS          float64 `json:"peer_rps,omitempty"`
	PeerErrors       int     `json:"peer_errors,omitempty"`
	RPSRatioVsPeer   float64 `json:"rps_ratio_vs_peer,omitempty"`
	RPSRatioVsCypher float64 `json:"rps_ratio_vs_cypher"`
	// At concurrency 1, the question and the server's per-request floor
	// ({ __typename }: parse, validate, one HTTP round trip, no work)
	// asked in turn, so both see the same machine: their p50s and the
	// ratio (the goal is ≤ 3 for answers from memory).
	PairedP50Ms        float64 `json:"paired_p50_ms,omitempty"`
	TypenameP50Ms      float64 `json:"typename_p50_ms,omitempty"`
	P50RatioVsTypename float64 `json:"p50_ratio_vs_typename,omitempty"`
}

func main() {
	n := flag.Int("cases", envInt("BENCH_CASES", 10_000), "generated cases (BENCH_CASES)")
	reqs := flag.Int("requests", envInt("BENCH_REQUESTS", 300), "requests per query and concurrency")
	naiveN := flag.Int("naive", 300, "cases in the naive load")
	bin := flag.String("bin", "bin/ilgraph", "the ilgraph binary")
	out := flag.String("out", "bench/results", "folder for the JSON result")
	flag.BoolVar(&queriesOnly, "queries-only", false, "skip generating and loading: measure the queries over the corpus already loaded (of --cases cases)")
	only := flag.String("only", "", "comma-separated query names to run (default: all)")
	flag.DurationVar(&soakFor, "soak", 0, "with --queries-only: instead of the concurrency sweep, a mixed load through GraphQL, the JSON API and MCP, and paced writes, for this long against the server as deployed (default limits); a line per --soak-window: memory, goroutines, open files, latency, refusals, errors")
	flag.IntVar(&soakClients, "soak-clients", 8, "clients of --soak")
	flag.DurationVar(&soakPause, "soak-pause", 100*time.Millisecond, "each --soak client's pause between requests")
	flag.DurationVar(&soakWindow, "soak-window", time.Minute, "how often --soak records a window")
	flag.DurationVar(&soakWriteEvery, "soak-write-every", 30*time.Second, "one change through the write path this often during --soak (0: no writes)")
	flag.StringVar(&soakWrites, "soak-writes", "cases,judgments", "the writes of --soak: cases (create, replace, delete a case), judgments (judge a similar match, withdraw it), or both")
	flag.StringVar(&soakToken, "soak-token", "", "an editor token for --soak's writes (default: one made with `ilgraph token create`)")
	flag.IntVar(&replicaWrites, "replicas", 0, "with --queries-only: instead of the queries, two ilgraph serve replicas over the corpus loaded and this many case writes through the first, each timed until the second answers it from memory (the change feed at scale); the cases written are deleted after")
	flag.Parse()
	for _, q := range strings.Split(*only, ",") {
		if q != "" {
			onlyQueries[q] = true
		}
	}
	if err := run(*n, *reqs, *naiveN, *bin, *out); err != nil {
		fmt.Fprintln(os.Stderr, "ilgraph-bench:", err)
		os.Exit(1)
	}
}

var (
	queriesOnly bool
	onlyQueries = map[string]bool{}
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func run(n, reqs, naiveN int, bin, outDir string) error {
	ctx := context.Background()
	res := &Result{When: time.Now().UTC().Format(time.RFC3339), Cases: n, Machine: machine(), MaxStaleness: os.Getenv("BENCH_MAX_STALENESS")}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	bench := graph.NewBench(db)
	if queriesOnly && soakFor > 0 {
		return soak(ctx, db, n, bin, outDir)
	}
	if queriesOnly && replicaWrites > 0 {
		return replicas(ctx, db, n, bin, outDir)
	}
	if queriesOnly {
		return measureQueries(ctx, db, res, n, reqs, bin, outDir)
	}
	fmt.Fprintf(os.Stderr, "emptying Neo4j at %s\n", graph.ConfigFromEnv().URI)
	if err := db.Reset(ctx); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "ilgraph-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	corpusPath := filepath.Join(tmp, "gen.jsonl")
	fmt.Fprintf(os.Stderr, "generating %d cases\n", n)
	if err := gen.WriteFile(corpusPath, "seeds", n, 1); err != nil {
		return err
	}

	// The loader, as a user runs it, in its own process (for its peak RSS).
	fmt.Fprintf(os.Stderr, "loading\n")
	start := time.Now()
	rss, err := runMeasured(bin, "load", "--quiet", "--similar-k", "0", "seeds/vocab.json", corpusPath)
	if err != nil {
		return err
	}
	res.Loader.Seconds = time.Since(start).Seconds()
	res.Loader.PeakRSSMB = rss
	counts, err := bench.Count(ctx)
	if err != nil {
		return err
	}
	res.Loader.Relationships = counts.TotalRelationships()
	res.Loader.CasesPerS = float64(n) / res.Loader.Seconds
	res.Loader.RelsPerS = float64(res.Loader.Relationships) / res.Loader.Seconds

	// The naive load of a slice of the same corpus, under other ids.
	naive, err := naiveCases(corpusPath, naiveN)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "naive load of %d cases\n", len(naive))
	start = time.Now()
	var ids []string
	for _, c := range naive {
		if err := bench.WriteCaseNaive(ctx, c); err != nil {
			return err
		}
		ids = append(ids, c.ID)
	}
	naiveSecs := time.Since(start).Seconds()
	res.Loader.NaiveCases = len(naive)
	res.Loader.NaiveCasesPerS = float64(len(naive)) / naiveSecs
	res.Loader.RatioVsNaive = res.Loader.CasesPerS / res.Loader.NaiveCasesPerS
	if err := db.DeleteCases(ctx, ids); err != nil {
		return err
	}

	if os.Getenv("BENCH_NO_WRITEBACK") == "1" {
		// At a million cases a full write-back ranks a million cases
		// against a million: the 1M run measures the load and the queries.
		fmt.Fprintln(os.Stderr, "BENCH_NO_WRITEBACK=1: no similarity write-back")
		return measureQueries(ctx, db, res, n, reqs, bin, outDir)
	}
	// Similarity write-back, timed on its own.
	start = time.Now()
	if _, err := similarity.WriteBack(ctx, db, 5, false, 2000); err != nil {
		return err
	}
	res.Loader.SimilarKSeconds = time.Since(start).Seconds()

	// A load that changes 100 cases, then the write-back that puts
	// SIMILAR_TO right again (incremental: only the cases it can affect).
	changes := filepath.Join(tmp, "changes.jsonl")
	if err := gen.WriteChanges(changes, "seeds", n, 60, 40, 2); err != nil {
		return err
	}
	// Loaded here rather than by ilgraph load, whose --similar-k 0 would
	// remove the links and whose default would write back within the load.
	start = time.Now()
	rep, err := loader.Load(ctx, db, []string{"seeds/vocab.json", changes}, loader.Options{})
	if err != nil {
		return err
	}
	res.Loader.ChangeLoadSeconds = time.Since(start).Seconds()
	start = time.Now()
	wb, err := similarity.WriteBack(ctx, db, 5, rep.CasesChanged(), 2000)
	if err != nil {
		return err
	}
	res.Loader.IncrementalSeconds = time.Since(start).Seconds()
	res.Loader.IncrementalRecomputed = wb.Recomputed
	res.Loader.IncrementalUsed = wb.Incremental
	res.Loader.IncrementalPhases = wb.Phases
	if soakFor > 0 {
		return soak(ctx, db, n, bin, outDir)
	}
	return measureQueries(ctx, db, res, n, reqs, bin, outDir)
}

// measureQueries runs the server and the peer, and the query set, then
// writes the result.
func measureQueries(ctx context.Context, db *graph.DB, res *Result, n, reqs int, bin, outDir string) error {
	// The server, as a user runs it.
	port, err := freePort()
	if err != nil {
		return err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	// Admission control would refuse the aggregates beyond 20 at once; the
	// benchmark measures each query's throughput and latency, so it lets
	// every class queue all its workers for as long as the timeout (the
	// flood test in resolvers/overload_test.go measures refusals).
	serveArgs := []string{"serve", "--addr", "127.0.0.1:" + strconv.Itoa(port), "--timeout", "60s",
		"--queue-wait", "60s", "--queue-list", "64", "--queue-similarity", "64", "--queue-aggregate", "64"}
	// At a million cases the index alone is over the default soft heap
	// limit: docs/operations.md tells an operator to raise it, and so does
	// the benchmark when told (BENCH_SERVER_MEMORY_MB=1800).
	if mb := os.Getenv("BENCH_SERVER_MEMORY_MB"); mb != "" {
		serveArgs = append(serveArgs, "--memory-limit-mb", mb)
	}
	if d := os.Getenv("BENCH_MAX_STALENESS"); d != "" {
		serveArgs = append(serveArgs, "--max-staleness", d)
	}
	// With a snapshot directory the server reads its corpus from the file
	// a run before wrote over the same graph (docs/scaling.md): the
	// warm-up is then a restart's.
	if d := os.Getenv("BENCH_SNAPSHOT_DIR"); d != "" {
		serveArgs = append(serveArgs, "--snapshot-dir", d)
	}
	srv := exec.Command(bin, serveArgs...)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	if err := waitReady(base); err != nil {
		return err
	}
	peer, stopPeer, err := startPeer(res)
	if err != nil {
		return err
	}
	defer stopPeer()
	st := store{db, graph.NewBench(db)}
	args, err := sampleArgs(ctx, st.Bench, n)
	if err != nil {
		return err
	}
	var qs []query
	for _, q := range queries(args) {
		if len(onlyQueries) == 0 || onlyQueries[q.name] {
			qs = append(qs, q)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 120 * time.Second}
	// Warm up: the similarity index (the read model) builds; caches fill.
	// While the read model builds, aggregates go to Neo4j and may answer
	// TIMEOUT on a large corpus: ask again until they answer (at most 30
	// minutes), as the soak does.
	warm := time.Now()
	for _, q := range qs {
		peerWarm := q.peer != nil && peer != ""
		for i := 0; i < 5; i++ {
			if err := untilAnswered(q, client, base, i, warm, 30*time.Minute, 5*time.Second); err != nil {
				return err
			}
			if peerWarm {
				// The peer's slowest questions can outlast the client's
				// timeout on a busy machine: that is its answer, counted
				// (peer_warmup_errors) and shown, not a reason to stop —
				// nor to wait out four more timeouts (the measured rows
				// ask it again anyway).
				if err := q.peer(client, peer, i); err != nil {
					fmt.Fprintf(os.Stderr, "%s (peer) warm-up: %v; no more warm-up for it\n", q.name, err)
					res.PeerWarmupErrors++
					peerWarm = false
				}
			}
			if noFloor {
				continue
			}
			if err := q.floor(ctx, st, i); err != nil {
				return fmt.Errorf("%s (floor): %w", q.name, err)
			}
		}
	}
	// The warm-up's questions can all be answered before the server's
	// in-memory corpus is built (from the graph, while the first of them
	// go to Cypher); measuring then would time the Cypher path.
	if err := untilCorpusCurrent(ctx, client, base, db, 30*time.Minute); err != nil {
		return err
	}
	res.WarmupS = time.Since(warm).Seconds()
	if loads, err := serverMetric(client, base, "ilgraph_corpus_file_loads_total"); err == nil && loads > 0 {
		res.SnapshotFileLoadS, _ = serverMetric(client, base, "ilgraph_corpus_file_load_seconds")
	}
	for _, q := range qs {
		for _, c := range concurrencies() {
			fmt.Fprintf(os.Stderr, "%s at concurrency %d\n", q.name, c)
			r := Query{Name: q.name, Concurrency: c}
			lat, errs, rps := hammer(reqs, c, func(i int) error { return q.graphql(client, base, i) })
			r.Requests = len(lat)
			r.P50Ms, r.P99Ms, r.RPS, r.Errors = pct(lat, 0.5), pct(lat, 0.99), rps, errs
			if q.peer != nil && peer != "" {
				lat, errs, rps = hammer(reqs, c, func(i int) error { return q.peer(client, peer, i) })
				r.PeerP50Ms, r.PeerP99Ms, r.PeerRPS, r.PeerErrors = pct(lat, 0.5), pct(lat, 0.99), rps, errs
				r.RPSRatioVsPeer = r.RPS / r.PeerRPS
				if errs > 0 {
					// Requests the client gave up on leave their queries
					// running in Neo4j, slowing every row after this one.
					n, err := st.Bench.TerminateOlderThan(ctx, leftoverAge)
					if err != nil {
						return err
					}
					if n > 0 {
						fmt.Fprintf(os.Stderr, "  ended %d query(ies) left running in Neo4j by requests that timed out\n", n)
					}
				}
			}
			if c == 1 {
				qs, ts := paired(reqs, func(i int) error { return q.graphql(client, base, i) }, func() error { return post(client, base+"/graphql", "{ __typename }", nil) })
				r.PairedP50Ms, r.TypenameP50Ms = pct(qs, 0.5), pct(ts, 0.5)
				r.P50RatioVsTypename = r.PairedP50Ms / r.TypenameP50Ms
			}
			if !noFloor {
				lat, _, rps = hammer(reqs, c, func(i int) error { return q.floor(ctx, st, i) })
				r.CypherP50Ms, r.CypherP99Ms, r.CypherRPS = pct(lat, 0.5), pct(lat, 0.99), rps
				r.P50RatioVsCypher = r.P50Ms / r.CypherP50Ms
				r.RPSRatioVsCypher = r.RPS / r.CypherRPS
			}
			res.Queries = append(res.Queries, r)
		}
	}
	res.Server.PeakRSSMB = peakRSS(srv.Process.Pid)
	if peerProc != nil {
		res.Peer.PeakRSSMB = peakRSS(peerProc.Pid)
	}

	printTable(os.Stdout, res)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s-%dcases.json", time.Now().UTC().Format("20060102T150405Z"), n))
	data, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", path)
	return nil
}

// concurrencies are the client concurrencies each query runs at
// (BENCH_CONCURRENCY, comma-separated; 1 and 8 by default).
func concurrencies() []int {
	var out []int
	for _, f := range strings.Split(os.Getenv("BENCH_CONCURRENCY"), ",") {
		if c, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && c > 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []int{1, 8}
	}
	return out
}

var peerProc *os.Process

// startPeer runs the peer (bench/peer/server.mjs: @neo4j/graphql on Apollo
// Server) over the same Neo4j and returns its URL, or "" when Node.js or
// its packages are missing (scripts/bench installs them with npm ci).
func startPeer(res *Result) (string, func(), error) {
	nop := func() {}
	if os.Getenv("BENCH_NO_PEER") == "1" {
		// At a million cases the peer's two-hop and topic questions take
		// minutes a request: the 1M run records ilgraph's own latencies.
		fmt.Fprintln(os.Stderr, "BENCH_NO_PEER=1: the peer columns stay empty")
		return "", nop, nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		fmt.Fprintln(os.Stderr, "no node: the peer columns stay empty")
		return "", nop, nil
	}
	if _, err := os.Stat("bench/peer/node_modules/@neo4j/graphql"); err != nil {
		fmt.Fprintln(os.Stderr, "bench/peer has no node_modules (run npm ci there): the peer columns stay empty")
		return "", nop, nil
	}
	if data, err := os.ReadFile("bench/peer/node_modules/@neo4j/graphql/package.json"); err == nil {
		var pkg struct{ Version string }
		json.Unmarshal(data, &pkg)
		res.Peer.Version = "@neo4j/graphql " + pkg.Version
	}
	port, err := freePort()
	if err != nil {
		return "", nop, err
	}
	cmd := exec.Command("node", "bench/peer/server.mjs")
	cmd.Env = append(os.Environ(), "PEER_PORT="+strconv.Itoa(port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nop, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nop, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ready") {
				ready <- nil
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("the peer stopped before it was ready")
	}()
	select {
	case err := <-ready:
		if err != nil {
			stop()
			return "", nop, err
		}
	case <-time.After(60 * time.Second):
		stop()
		return "", nop, fmt.Errorf("the peer did not start within 60 s")
	}
	peerProc = cmd.Process
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/", stop, nil
}

// query is one benchmarked question, asked through ilgraph's GraphQL API,
// of the peer (nil when it cannot express it) and as hand-written Cypher
// (the floor). Request i draws its arguments from a spread of values, so
// that no response cache answers for the engine.
type query struct {
	name    string
	graphql func(c *http.Client, base string, i int) error
	peer    func(c *http.Client, url string, i int) error
	floor   func(ctx context.Context, db store, i int) error
}

// store is what the floors ask: the serving store, for the aggregates it
// answers itself, and the benchmark's own Cypher beside it.
type store struct {
	*graph.DB
	*graph.Bench
}

// args are the spreads requests draw their arguments from, sampled from
// the loaded corpus.
type args struct {
	ids     []string    // case ids across the corpus
	factors [][2]string // (case id, one of its contributing factors)
	terms   []ilgraph.TermKey
	causes  []string // the most frequent root causes
	comps   []string // the most frequent components
	years   []int
}

func (a *args) id(i int) string { return a.ids[(i*7919)%len(a.ids)] }

func sampleArgs(ctx context.Context, db *graph.Bench, n int) (*args, error) {
	a := &args{}
	for i := 0; i < 500; i++ {
		a.ids = append(a.ids, gen.ID(1+(i*7919)%n))
	}
	rows, err := db.BenchRows(ctx, "factors_of", map[string]any{"ids": a.ids})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		a.factors = append(a.factors, [2]string{r[0], r[1]})
	}
	top := func(k ilgraph.Kind, n int) ([]string, error) {
		rows, err := db.BenchRows(ctx, "top_terms:"+string(k), map[string]any{"k": int64(n)})
		var out []string
		for _, r := range rows {
			out = append(out, r[0])
		}
		return out, err
	}
	if a.causes, err = top(ilgraph.KindRootCause, 6); err != nil {
		return nil, err
	}
	if a.comps, err = top(ilgraph.KindComponent, 8); err != nil {
		return nil, err
	}
	for _, k := range []ilgraph.Kind{ilgraph.KindRootCause, ilgraph.KindComponent, ilgraph.KindSymptom, ilgraph.KindContributing, ilgraph.KindDomain} {
		ids, err := top(k, 12)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			a.terms = append(a.terms, ilgraph.TermKey{Kind: k, ID: id})
		}
	}
	for y := 2014; y <= 2025; y++ {
		a.years = append(a.years, y)
	}
	if len(a.factors) == 0 || len(a.causes) == 0 || len(a.comps) == 0 {
		return nil, fmt.Errorf("the corpus has too few cases, factors or terms to benchmark")
	}
	return a, nil
}

// The peer's names for our kinds: its fields and the graph's labels and
// relationship types.
var peerField = map[ilgraph.Kind]string{ilgraph.KindRootCause: "rootCause", ilgraph.KindComponent: "components", ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "factors", ilgraph.KindDomain: "domains"}

func gqlKind(k ilgraph.Kind) string { return strings.ToUpper(string(k)) }

func post(c *http.Client, url, q string, vars map[string]any) error {
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || bytes.Contains(data, []byte(`"errors"`)) {
		return &httpError{resp.StatusCode, data}
	}
	return nil
}

// httpError is a GraphQL answer that is not a 200 without errors; the soak
// reads its status and body to tell a refusal for load from an error.
type httpError struct {
	status int
	body   []byte
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %.300s", e.status, e.body) }

func queries(a *args) []query {
	api := func(c *http.Client, base, q string, vars map[string]any) error {
		return post(c, base+"/graphql", q, vars)
	}
	rows := func(ctx context.Context, db store, floor string, params map[string]any) error {
		_, err := db.BenchFloor(ctx, floor, params)
		return err
	}
	day := func(i int) string { // a spread of dates over the last ten years
		return time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i*37)%3650).Format(ilgraph.DateLayout)
	}
	year := func(i int) int { return a.years[(i*5)%len(a.years)] }
	term := func(i int) ilgraph.TermKey { return a.terms[(i*7)%len(a.terms)] }
	page := func(i int) (rc, comp, from string) {
		return a.causes[i%len(a.causes)], a.comps[(i/len(a.causes))%len(a.comps)], fmt.Sprintf("%d-01-01", 2016+(i*3)%9)
	}
	filterVars := func(i int) (map[string]any, ilgraph.CaseFilter) {
		switch i % 3 {
		case 0:
			return map[string]any{"filter": map[string]any{}}, ilgraph.CaseFilter{}
		case 1:
			y := year(i)
			from, to := fmt.Sprintf("%d-01-01", y), fmt.Sprintf("%d-12-31", y)
			return map[string]any{"filter": map[string]any{"dateFrom": from, "dateTo": to}}, ilgraph.CaseFilter{DateFrom: from, DateTo: to}
		}
		t := term(i)
		if t.Kind == ilgraph.KindRootCause {
			return map[string]any{"filter": map[string]any{"rootCauses": []string{t.ID}}}, ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{t.Kind: {AnyOf: []string{t.ID}}}}
		}
		return map[string]any{"filter": map[string]any{gqlFilterField[t.Kind]: map[string]any{"anyOf": []string{t.ID}}}}, ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{t.Kind: {AnyOf: []string{t.ID}}}}
	}
	return []query{
		{name: "case_by_id",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query CaseById($id: ID!) { case(id: $id) { id date title { en } organization { en } rootCause { id en } components { id en } symptoms { id en } contributing { id en } domains { id en } } }`, map[string]any{"id": a.id(i)})
			},
			peer: func(c *http.Client, url string, i int) error {
				return post(c, url, `query CaseById($id: ID!) { cases(where: {id: {eq: $id}}) { id date title_en org rootCause { id en } components { id en } symptoms { id en } factors { id en } domains { id en } } }`, map[string]any{"id": a.id(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, err := db.CaseWithTerms(ctx, a.id(i))
				return err
			}},
		{name: "mission_shared_factor",
			graphql: func(c *http.Client, base string, i int) error {
				f := a.factors[(i*13)%len(a.factors)]
				return api(c, base, `query Mission($id: ID!, $f: ID!) { sharedWith(caseId: $id, kind: CONTRIBUTING, term: $f, filter: {rootCauses: ["capacity"]}, first: 20) { nodes { id date title { en } } } }`, map[string]any{"id": f[0], "f": f[1]})
			},
			peer: func(c *http.Client, url string, i int) error {
				f := a.factors[(i*13)%len(a.factors)]
				return post(c, url, `query Mission($id: ID!, $f: ID!) { cases(where: {rootCause: {some: {id: {eq: "capacity"}}}, factors: {some: {id: {eq: $f}}}, NOT: {id: {eq: $id}}}, sort: [{date: DESC}], limit: 20) { id date title_en } }`, map[string]any{"id": f[0], "f": f[1]})
			},
			floor: func(ctx context.Context, db store, i int) error {
				f := a.factors[(i*13)%len(a.factors)]
				return rows(ctx, db, "mission_shared_factor", map[string]any{"id": f[0], "f": f[1]})
			}},
		{name: "newest_50_with_tags",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query Newest($to: String) { cases(filter: {dateTo: $to}, first: 50) { nodes { id date rootCause { id en } components { id en } symptoms { id en } } } }`, map[string]any{"to": day(i)})
			},
			peer: func(c *http.Client, url string, i int) error {
				return post(c, url, `query Newest($to: Date) { cases(where: {date: {lte: $to}}, sort: [{date: DESC}], limit: 50) { id date rootCause { id en } components { id en } symptoms { id en } } }`, map[string]any{"to": day(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				return rows(ctx, db, "newest_50_with_tags", map[string]any{"to": day(i)})
			}},
		// The Cases screen's page as it shows it: both titles, the
		// organization's name, the date and three kinds of tags, over one
		// year's cases (a different year each request).
		{name: "list_page_50",
			graphql: func(c *http.Client, base string, i int) error {
				y := year(i)
				return api(c, base, `query List($from: String, $to: String) { cases(filter: {dateFrom: $from, dateTo: $to}, first: 50) { nodes { id date title { en ko } organization { en } rootCause { id en } components { id en } symptoms { id en } } } }`, map[string]any{"from": fmt.Sprintf("%d-01-01", y), "to": fmt.Sprintf("%d-12-31", y)})
			},
			peer: func(c *http.Client, url string, i int) error {
				y := year(i)
				return post(c, url, `query List($from: Date, $to: Date) { cases(where: {date: {gte: $from, lte: $to}}, sort: [{date: DESC}], limit: 50) { id date title_en title_ko org rootCause { id en } components { id en } symptoms { id en } } }`, map[string]any{"from": fmt.Sprintf("%d-01-01", y), "to": fmt.Sprintf("%d-12-31", y)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				y := year(i)
				return rows(ctx, db, "list_page_50", map[string]any{"from": fmt.Sprintf("%d-01-01", y), "to": fmt.Sprintf("%d-12-31", y)})
			}},
		{name: "filtered_page_ids",
			graphql: func(c *http.Client, base string, i int) error {
				rc, comp, from := page(i)
				return api(c, base, `query Page($rc: ID!, $comp: ID!, $from: String) { cases(filter: {rootCauses: [$rc], components: {anyOf: [$comp]}, dateFrom: $from}, first: 20) { nodes { id date } } }`, map[string]any{"rc": rc, "comp": comp, "from": from})
			},
			peer: func(c *http.Client, url string, i int) error {
				rc, comp, from := page(i)
				return post(c, url, `query Page($rc: ID!, $comp: ID!, $from: Date) { cases(where: {rootCause: {some: {id: {eq: $rc}}}, components: {some: {id: {eq: $comp}}}, date: {gte: $from}}, sort: [{date: DESC}], limit: 20) { id date } }`, map[string]any{"rc": rc, "comp": comp, "from": from})
			},
			floor: func(ctx context.Context, db store, i int) error {
				rc, comp, from := page(i)
				return rows(ctx, db, "filtered_page_ids", map[string]any{"rc": rc, "comp": comp, "from": from})
			}},
		{name: "topic_page",
			graphql: func(c *http.Client, base string, i int) error {
				t := term(i)
				return api(c, base, `query Topic($kind: Kind!, $id: ID!) { term(kind: $kind, id: $id) { cases(first: 20) { nodes { id date title { en } } } } }`, map[string]any{"kind": gqlKind(t.Kind), "id": t.ID})
			},
			peer: func(c *http.Client, url string, i int) error {
				t := term(i)
				return post(c, url, fmt.Sprintf(`query Topic($id: ID!) { cases(where: {%s: {some: {id: {eq: $id}}}}, sort: [{date: DESC}], limit: 20) { id date title_en } }`, peerField[t.Kind]), map[string]any{"id": t.ID})
			},
			floor: func(ctx context.Context, db store, i int) error {
				t := term(i)
				return rows(ctx, db, "topic_page:"+string(t.Kind), map[string]any{"id": t.ID})
			}},
		{name: "shared_any_factor",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query Shared($id: ID!) { sharedWith(caseId: $id, kind: CONTRIBUTING, first: 20) { nodes { id date } } }`, map[string]any{"id": a.id(i)})
			},
			peer: func(c *http.Client, url string, i int) error {
				return post(c, url, `query Shared($id: ID!) { cases(where: {factors: {some: {cases: {some: {id: {eq: $id}}}}}, NOT: {id: {eq: $id}}}, sort: [{date: DESC}], limit: 20) { id date } }`, map[string]any{"id": a.id(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				return rows(ctx, db, "shared_any_factor", map[string]any{"id": a.id(i)})
			}},
		{name: "page_100_all_tags",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query Page100($to: String) { cases(filter: {dateTo: $to}, first: 100) { nodes { id date organization { id en } rootCause { id en } components { id en } symptoms { id en } contributing { id en } domains { id en } } } }`, map[string]any{"to": day(i)})
			},
			peer: func(c *http.Client, url string, i int) error {
				return post(c, url, `query Page100($to: Date) { cases(where: {date: {lte: $to}}, sort: [{date: DESC}], limit: 100) { id date organization { id name } rootCause { id en } components { id en } symptoms { id en } factors { id en } domains { id en } } }`, map[string]any{"to": day(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				return rows(ctx, db, "page_100_all_tags", map[string]any{"to": day(i)})
			}},
		// Dashboards: the peer cannot express these aggregates. Every third
		// request is unfiltered, every third sliced by one year, every third
		// by one term; the floor is the graph package's Cypher for the same
		// aggregate (what ilgraph answered with before the read model).
		{name: "dash_facets",
			graphql: func(c *http.Client, base string, i int) error {
				vars, _ := filterVars(i)
				return api(c, base, `query Facets($filter: CaseFilter) { cases(filter: $filter, first: 0) { totalCount facets { rootCauses { term { id } count } components { term { id } count } symptoms { term { id } count } contributing { term { id } count } domains { term { id } count } orgs { term { id } count } years { year count } } } }`, vars)
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, f := filterVars(i)
				_, err := db.Facets(ctx, f)
				return err
			}},
		{name: "dash_cooccurrence",
			graphql: func(c *http.Client, base string, i int) error {
				vars, _ := filterVars(i)
				return api(c, base, `query Cooc($filter: CaseFilter) { cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: $filter) { nodes { key label count } edges { source target count lift } } }`, vars)
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, f := filterVars(i)
				_, err := db.Cooccurrence(ctx, ilgraph.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, Filter: f, MinCount: 1})
				return err
			}},
		{name: "dash_stats",
			graphql: func(c *http.Client, base string, i int) error {
				vars, _ := filterVars(i)
				return api(c, base, `query Stats($filter: CaseFilter) { stats(filter: $filter) { cases organizations perYear { year count } perRootCause { term { id } count } perOrganization(first: 25) { term { id } count } topCauseComponentPairs { a { id } b { id } count } timeToResolve { median p90 } timeToResolveByRootCause { term { id } distribution { median } } timeToResolveByFactor { term { id } distribution { median } } } }`, vars)
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, f := filterVars(i)
				_, err := db.Stats(ctx, f)
				return err
			}},
		{name: "dash_breakdown",
			graphql: func(c *http.Client, base string, i int) error {
				vars, _ := filterVars(i)
				return api(c, base, `query Breakdown($filter: CaseFilter) { breakdown(rows: ROOT_CAUSE, columns: YEAR, filter: $filter) { total rows { key count } columns { key count } cells { row column count } } }`, vars)
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, f := filterVars(i)
				_, err := db.Breakdown(ctx, ilgraph.Axis(ilgraph.KindRootCause), ilgraph.AxisYear, f)
				return err
			}},
		{name: "dash_same_root_cause",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query Same($id: ID!) { sameRootCause(caseId: $id, first: 20) { totalCount nodes { case { id date title { en } } reason sharedCount } } }`, map[string]any{"id": a.id(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, _, err := db.SameRootCause(ctx, a.id(i), 0, 20)
				return err
			}},
		{name: "similarity_top10",
			graphql: func(c *http.Client, base string, i int) error {
				return api(c, base, `query Similar($id: ID!) { similarCases(caseId: $id, k: 10) { case { id } score shared { kind term { id } contribution } } }`, map[string]any{"id": a.id(i)})
			},
			floor: func(ctx context.Context, db store, i int) error {
				_, err := db.SimilarByCypher(ctx, a.id(i), ilgraph.DefaultWeights(), 10)
				return err
			}},
	}
}

var gqlFilterField = map[ilgraph.Kind]string{ilgraph.KindComponent: "components", ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domains"}

// budget bounds the time one query spends at one concurrency: slow
// aggregate queries on a large corpus stop early (after at least 3 requests
// per worker), so a full run takes minutes, not hours.
var budget = time.Duration(envInt("BENCH_BUDGET_S", 15)) * time.Second

// untilCorpusCurrent waits, at most limit, until the server's in-memory
// corpus is at the graph's corpus version (its ilgraph_corpus_version
// metric).
func untilCorpusCurrent(ctx context.Context, client *http.Client, base string, db *graph.DB, limit time.Duration) error {
	want, err := db.CorpusVersion(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	for {
		got, err := corpusVersionMetric(client, base)
		if err != nil {
			return err
		}
		if got == want {
			return nil
		}
		if time.Since(start) > limit {
			return fmt.Errorf("the server's in-memory corpus is at version %d after %s, the graph at %d", got, limit, want)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// corpusVersionMetric reads the server's ilgraph_corpus_version from
// /metrics (-1 before its first build).
func corpusVersionMetric(client *http.Client, base string) (int64, error) {
	v, err := serverMetric(client, base, "ilgraph_corpus_version")
	return int64(v), err
}

// serverMetric reads one unlabelled metric from the server's /metrics.
func serverMetric(client *http.Client, base, name string) (float64, error) {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("GET /metrics: no %s", name)
}

// untilAnswered asks q's GraphQL request i until it answers: while the
// server's read model builds (since warm), a request may answer TIMEOUT,
// and is asked again after pause, for at most limit.
func untilAnswered(q query, client *http.Client, base string, i int, warm time.Time, limit, pause time.Duration) error {
	for {
		err := q.graphql(client, base, i)
		if err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), `"TIMEOUT"`) || time.Since(warm) > limit {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		fmt.Fprintf(os.Stderr, "warming up: %s timed out after %.0fs, asking again\n", q.name, time.Since(warm).Seconds())
		time.Sleep(pause)
	}
}

// leftoverAge is how long a transaction must have run, after a row whose
// peer requests failed, to be taken for one its client gave up on (the
// client's timeout is 120 s) and ended.
const leftoverAge = time.Minute

// noFloor (BENCH_NO_FLOOR=1) leaves out the hand-written Cypher floor: at
// a million cases its unindexed aggregates take minutes a request, and the
// 1M run records ilgraph's own latencies.
var noFloor = os.Getenv("BENCH_NO_FLOOR") == "1"

// hammer sends up to total requests with c workers, within the time budget,
// and returns the latencies in milliseconds, the errors and the requests
// per second.
func hammer(total, c int, do func(i int) error) ([]float64, int, float64) {
	var lat []float64
	var errs int
	var mu sync.Mutex
	next := make(chan int)
	start := time.Now()
	go func() {
		for i := 0; i < total; i++ {
			if time.Since(start) > budget && i >= 3*c {
				break
			}
			next <- i
		}
		close(next)
	}()
	var wg sync.WaitGroup
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				err := do(i)
				ms := float64(time.Since(t).Microseconds()) / 1000
				mu.Lock()
				lat = append(lat, ms)
				if err != nil {
					if errs == 0 {
						fmt.Fprintln(os.Stderr, "  first error:", err)
					}
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return lat, errs, float64(len(lat)) / time.Since(start).Seconds()
}

// paired asks question i and then the floor, one client, total times (or
// until the budget is spent), and returns both latencies in ms; errors
// end it (the sweep has counted them already).
func paired(total int, question func(i int) error, floor func() error) (qs, fs []float64) {
	start := time.Now()
	for i := 0; i < total && (time.Since(start) <= budget || i < 3); i++ {
		t := time.Now()
		if question(i) != nil {
			break
		}
		qs = append(qs, float64(time.Since(t).Microseconds())/1000)
		t = time.Now()
		if floor() != nil {
			break
		}
		fs = append(fs, float64(time.Since(t).Microseconds())/1000)
	}
	return qs, fs
}

func pct(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// runMeasured runs a command and returns its peak resident memory in MB.
func runMeasured(bin string, args ...string) (float64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, nil
	}
	return float64(ru.Maxrss) / 1024, nil // Linux reports KiB
}

// peakRSS reads a live process's high-water resident memory in MB.
func peakRSS(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(rest)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}

func naiveCases(path string, n int) ([]*ilgraph.Case, error) {
	var out []*ilgraph.Case
	probs := loader.ParseFile(path, func(p loader.Parsed) error {
		if len(out) < n {
			c := p.Case
			c.ID = strings.Replace(c.ID, gen.IDPrefix, "NAIVE-", 1)
			c.Related = nil
			out = append(out, c)
		}
		return nil
	})
	if probs != nil {
		return nil, probs
	}
	return out, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitReady(base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the server at %s did not become ready", base)
}

func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func printTable(w io.Writer, r *Result) {
	fmt.Fprintf(w, "ilgraph benchmark — %d generated cases — %s\n\n", r.Cases, r.Machine)
	if r.Loader.Seconds > 0 {
		fmt.Fprintf(w, "load: %.0f cases/s, %.0f relationships/s (%.1fs); naive one-transaction-per-case: %.1f cases/s → %.1f× ; loader peak RSS %.0f MB\n",
			r.Loader.CasesPerS, r.Loader.RelsPerS, r.Loader.Seconds, r.Loader.NaiveCasesPerS, r.Loader.RatioVsNaive, r.Loader.PeakRSSMB)
		if r.Loader.SimilarKSeconds > 0 {
			how := "every case recomputed: the default options depend on the whole corpus"
			if r.Loader.IncrementalUsed {
				how = "incremental"
			}
			fmt.Fprintf(w, "similarity write-back %.1fs; a load changing 100 cases: %.1fs; then the similarity write-back: %.1fs (%d cases recomputed; %s)\n\n",
				r.Loader.SimilarKSeconds, r.Loader.ChangeLoadSeconds, r.Loader.IncrementalSeconds, r.Loader.IncrementalRecomputed, how)
		} else {
			fmt.Fprintf(w, "similarity write-back: not run (BENCH_NO_WRITEBACK=1)\n\n")
		}
	}
	fmt.Fprintf(w, "peer: %s\n\n", or(r.Peer.Version, "not run"))
	fmt.Fprintf(w, "%-22s %4s %5s %8s %8s %8s %4s | %9s %8s %7s | %9s %8s %7s\n", "query", "conc", "reqs", "p50 ms", "p99 ms", "req/s", "err", "peer p50", "peer r/s", "×peer", "floor p50", "floor r/s", "×floor")
	for _, q := range r.Queries {
		peer := fmt.Sprintf("%9s %8s %7s", "—", "—", "—")
		if q.PeerRPS > 0 {
			peer = fmt.Sprintf("%9.2f %8.1f %6.2f×", q.PeerP50Ms, q.PeerRPS, q.RPSRatioVsPeer)
		}
		floor := fmt.Sprintf("%9s %8s %7s", "—", "—", "—")
		if q.CypherRPS > 0 {
			floor = fmt.Sprintf("%9.2f %8.1f %6.2f×", q.CypherP50Ms, q.CypherRPS, q.RPSRatioVsCypher)
		}
		fmt.Fprintf(w, "%-22s %4d %5d %8.2f %8.2f %8.1f %4d | %s | %s\n", q.Name, q.Concurrency, q.Requests, q.P50Ms, q.P99Ms, q.RPS, q.Errors, peer, floor)
	}
	fmt.Fprintf(w, "\nat concurrency 1, asked in turn with { __typename } (the server's own per-request floor):\n")
	for _, q := range r.Queries {
		if q.TypenameP50Ms > 0 {
			fmt.Fprintf(w, "%-22s p50 %8.2f ms, { __typename } %6.2f ms: %6.1f×\n", q.Name, q.PairedP50Ms, q.TypenameP50Ms, q.P50RatioVsTypename)
		}
	}
	fmt.Fprintf(w, "\nserver peak RSS: %.0f MB", r.Server.PeakRSSMB)
	if r.Peer.PeakRSSMB > 0 {
		fmt.Fprintf(w, "; peer peak RSS: %.0f MB", r.Peer.PeakRSSMB)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "×peer and ×floor are ilgraph's requests per second over the peer's and the hand-written Cypher's, in the same run.\n")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
