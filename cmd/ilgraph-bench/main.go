// Command ilgraph-bench measures ilgraph end to end on a generated corpus and
// prints one table, also written as JSON under bench/results/: the loader
// beside a naive one-transaction-per-case load, each GraphQL query at several
// concurrencies beside the same question asked of the store directly (raw
// Cypher through the driver, no HTTP or GraphQL: the floor), and the peak
// memory of the loader and the server. Run it with `make bench`.
//
// Every ratio compares two things measured in the same run on the same
// machine; absolute numbers are context only.
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
	Loader  struct {
		Seconds         float64 `json:"seconds"`
		CasesPerS       float64 `json:"cases_per_s"`
		RelsPerS        float64 `json:"relationships_per_s"`
		NaiveCases      int     `json:"naive_cases"`
		NaiveCasesPerS  float64 `json:"naive_cases_per_s"`
		RatioVsNaive    float64 `json:"ratio_vs_naive"`
		PeakRSSMB       float64 `json:"peak_rss_mb"`
		SimilarKSeconds float64 `json:"similar_writeback_seconds"`
		Relationships   int64   `json:"relationships"`
	} `json:"loader"`
	Queries []Query `json:"queries"`
	Server  struct {
		PeakRSSMB float64 `json:"peak_rss_mb"`
	} `json:"server"`
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
}

func main() {
	n := flag.Int("cases", envInt("BENCH_CASES", 10_000), "generated cases (BENCH_CASES)")
	reqs := flag.Int("requests", envInt("BENCH_REQUESTS", 300), "requests per query and concurrency")
	naiveN := flag.Int("naive", 300, "cases in the naive load")
	bin := flag.String("bin", "bin/ilgraph", "the ilgraph binary")
	out := flag.String("out", "bench/results", "folder for the JSON result")
	flag.BoolVar(&queriesOnly, "queries-only", false, "skip generating and loading: measure the queries over the corpus already loaded (of --cases cases)")
	only := flag.String("only", "", "comma-separated query names to run (default: all)")
	flag.DurationVar(&soakFor, "soak", 0, "instead of the concurrency sweep, run every query round robin for this long against the server as deployed (default limits), a line per 30 s: memory, latency, 503s, errors")
	flag.IntVar(&soakClients, "soak-clients", 32, "clients of --soak")
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
	res := &Result{When: time.Now().UTC().Format(time.RFC3339), Cases: n, Machine: machine()}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	if queriesOnly && soakFor > 0 {
		return soak(n, bin, outDir)
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
	counts, err := db.Count(ctx)
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
		if err := db.WriteCaseNaive(ctx, c); err != nil {
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

	// Similarity write-back, timed on its own.
	start = time.Now()
	if _, err := similarity.WriteBack(ctx, db, 5, false, 2000); err != nil {
		return err
	}
	res.Loader.SimilarKSeconds = time.Since(start).Seconds()
	if soakFor > 0 {
		return soak(n, bin, outDir)
	}
	return measureQueries(ctx, db, res, n, reqs, bin, outDir)
}

// measureQueries runs the server and the query set, then writes the result.
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
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--timeout", "60s",
		"--queue-wait", "60s", "--queue-list", "64", "--queue-similarity", "64", "--queue-aggregate", "64")
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	if err := waitReady(base); err != nil {
		return err
	}
	var qs []query
	for _, q := range queries(n) {
		if len(onlyQueries) == 0 || onlyQueries[q.name] {
			qs = append(qs, q)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 120 * time.Second}
	// Warm up: the similarity index builds on its first request; caches fill.
	for _, q := range qs {
		for i := 0; i < 5; i++ {
			if err := q.graphql(client, base, i); err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			if err := q.floor(ctx, db, i); err != nil {
				return fmt.Errorf("%s (floor): %w", q.name, err)
			}
		}
	}
	for _, q := range qs {
		for _, c := range []int{1, 8, 32} {
			fmt.Fprintf(os.Stderr, "%s at concurrency %d\n", q.name, c)
			r := Query{Name: q.name, Concurrency: c}
			lat, errs, rps := hammer(reqs, c, func(i int) error { return q.graphql(client, base, i) })
			r.Requests = len(lat)
			r.P50Ms, r.P99Ms, r.RPS, r.Errors = pct(lat, 0.5), pct(lat, 0.99), rps, errs
			lat, _, rps = hammer(reqs, c, func(i int) error { return q.floor(ctx, db, i) })
			r.CypherP50Ms, r.CypherP99Ms, r.CypherRPS = pct(lat, 0.5), pct(lat, 0.99), rps
			r.P50RatioVsCypher = r.P50Ms / r.CypherP50Ms
			res.Queries = append(res.Queries, r)
		}
	}
	res.Server.PeakRSSMB = peakRSS(srv.Process.Pid)

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

// query is one benchmarked question, asked through GraphQL and of the store.
type query struct {
	name    string
	graphql func(c *http.Client, base string, i int) error
	floor   func(ctx context.Context, db *graph.DB, i int) error
}

func queries(n int) []query {
	id := func(i int) string { return gen.ID(1 + (i*7919)%n) }
	post := func(c *http.Client, base, q string, vars map[string]any) error {
		body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
		resp, err := c.Post(base+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != 200 || bytes.Contains(data, []byte(`"errors"`)) {
			return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, data)
		}
		return nil
	}
	filter := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindRootCause: {AnyOf: []string{"capacity", "config-change"}}}, DateFrom: "2018-01-01"}
	return []query{
		{"case_by_id", func(c *http.Client, base string, i int) error {
			return post(c, base, `query CaseById($id: ID!) { case(id: $id) { id date title { en } organization { en } rootCause { id en } components { id en } symptoms { id en } contributing { id en } domains { id en } } }`, map[string]any{"id": id(i)})
		}, func(ctx context.Context, db *graph.DB, i int) error {
			_, err := db.CaseWithTerms(ctx, id(i))
			return err
		}},
		{"filtered_faceted_page_50", func(c *http.Client, base string, i int) error {
			return post(c, base, `query Page($after: String) { cases(filter: {rootCauses: ["capacity", "config-change"], dateFrom: "2018-01-01"}, first: 50, after: $after) {
				totalCount nodes { id date title { en } rootCause { id } components { id } }
				facets { rootCauses { term { id } count } components { term { id } count } symptoms { term { id } count } contributing { term { id } count } orgs { term { id } count } years { year count } } } }`, map[string]any{"after": nil})
		}, func(ctx context.Context, db *graph.DB, i int) error {
			if _, err := db.ListCases(ctx, filter, ilgraph.SortDateDesc, 0, 50); err != nil {
				return err
			}
			_, err := db.Facets(ctx, filter)
			return err
		}},
		{"mission_shared_factor", func(c *http.Client, base string, i int) error {
			return post(c, base, `query Mission($id: ID!) { sharedWith(caseId: $id, kind: ROOT_CAUSE, filter: {rootCauses: ["capacity"]}, first: 20) { totalCount nodes { id title { en } } } }`, map[string]any{"id": id(i)})
		}, func(ctx context.Context, db *graph.DB, i int) error {
			c, err := db.Case(ctx, id(i))
			if err != nil {
				return err
			}
			f, err := ilgraph.SharedFilter(c, ilgraph.KindRootCause, "", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindRootCause: {AnyOf: []string{"capacity"}}}})
			if err != nil {
				return err
			}
			_, err = db.ListCases(ctx, f, ilgraph.SortDateDesc, 0, 20)
			return err
		}},
		{"same_root_cause", func(c *http.Client, base string, i int) error {
			return post(c, base, `query Same($id: ID!) { sameRootCause(caseId: $id, first: 20) { totalCount nodes { case { id } reason sharedCount } } }`, map[string]any{"id": id(i)})
		}, func(ctx context.Context, db *graph.DB, i int) error {
			_, _, err := db.SameRootCause(ctx, id(i), 0, 20)
			return err
		}},
		{"cause_component_cooccurrence", func(c *http.Client, base string, i int) error {
			return post(c, base, `query Cooc { cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: {dateFrom: "2018-01-01"}) { nodes { key count } edges { source target count lift } } }`, nil)
		}, func(ctx context.Context, db *graph.DB, i int) error {
			_, err := db.Cooccurrence(ctx, ilgraph.CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, Filter: ilgraph.CaseFilter{DateFrom: "2018-01-01"}, MinCount: 1})
			return err
		}},
		{"similarity_top10", func(c *http.Client, base string, i int) error {
			return post(c, base, `query Similar($id: ID!) { similarCases(caseId: $id, k: 10) { case { id } score shared { kind term { id } contribution } } }`, map[string]any{"id": id(i)})
		}, func(ctx context.Context, db *graph.DB, i int) error {
			_, err := db.SimilarByCypher(ctx, id(i), ilgraph.DefaultWeights(), 10)
			return err
		}},
	}
}

// budget bounds the time one query spends at one concurrency: slow
// aggregate queries on a large corpus stop early (after at least 3 requests
// per worker), so a full run takes minutes, not hours.
var budget = time.Duration(envInt("BENCH_BUDGET_S", 15)) * time.Second

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
	fmt.Fprintf(w, "load: %.0f cases/s, %.0f relationships/s (%.1fs); naive one-transaction-per-case: %.1f cases/s → %.1f× ; loader peak RSS %.0f MB; similarity write-back %.1fs\n\n",
		r.Loader.CasesPerS, r.Loader.RelsPerS, r.Loader.Seconds, r.Loader.NaiveCasesPerS, r.Loader.RatioVsNaive, r.Loader.PeakRSSMB, r.Loader.SimilarKSeconds)
	fmt.Fprintf(w, "%-30s %4s %9s %9s %9s %6s %11s %11s %11s\n", "query", "conc", "p50 ms", "p99 ms", "req/s", "errors", "floor p50", "floor p99", "p50 ratio")
	for _, q := range r.Queries {
		fmt.Fprintf(w, "%-30s %4d %9.2f %9.2f %9.0f %6d %11.2f %11.2f %10.2f×\n", q.Name, q.Concurrency, q.P50Ms, q.P99Ms, q.RPS, q.Errors, q.CypherP50Ms, q.CypherP99Ms, q.P50RatioVsCypher)
	}
	fmt.Fprintf(w, "\nserver peak RSS: %.0f MB\n", r.Server.PeakRSSMB)
}
