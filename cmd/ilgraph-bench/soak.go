package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ilgraph/ilgraph/graph"
)

// Soak is the JSON of a soak run: the server as deployed (default limits,
// admission included) under a steady mixed load for a while, window by
// window, to show what a long run does that a short one hides — memory that
// only grows, errors that only come late.
type Soak struct {
	When     string `json:"when"`
	Machine  string `json:"machine"`
	Cases    int    `json:"cases"`
	Clients  int    `json:"clients"`
	Duration string `json:"duration"`
	// WarmupS is how long the server took, after it was ready, to answer
	// every query once (the similarity index and read model build then).
	WarmupS float64      `json:"warmup_s"`
	Windows []SoakWindow `json:"windows"`
}

// SoakWindow is one stretch of a soak run.
type SoakWindow struct {
	EndS       float64 `json:"end_s"`
	Requests   int     `json:"requests"`
	Overloaded int     `json:"overloaded_503"`
	Errors     int     `json:"errors"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	RSSMB      float64 `json:"rss_mb"`
	// ByClass: per cost class (docs/operations.md), the requests, the 503s
	// and the p99 of the answered ones.
	ByClass map[string]SoakClass `json:"by_class"`
}

// SoakClass is one cost class in a window.
type SoakClass struct {
	Requests   int     `json:"requests"`
	Overloaded int     `json:"overloaded_503"`
	P99Ms      float64 `json:"p99_answered_ms"`
}

// soakClass is each benchmark query's cost class, as the server
// classifies it (admission.Classes).
var soakClass = map[string]string{
	"case_by_id":            "lookup",
	"mission_shared_factor": "list",
	"newest_50_with_tags":   "list",
	"filtered_page_ids":     "list",
	"topic_page":            "list",
	"shared_any_factor":     "list",
	"page_100_all_tags":     "list",
	"dash_same_root_cause":  "list",
	"similarity_top10":      "similarity",
	"dash_facets":           "aggregate",
	"dash_cooccurrence":     "aggregate",
	"dash_stats":            "aggregate",
}

var (
	soakFor     time.Duration
	soakClients int
	soakWindow  = 30 * time.Second
)

// soak runs `ilgraph serve` with its default limits and every benchmark
// query, round robin, from soakClients clients for soakFor. It fails when
// a request fails other than 503 OVERLOADED, or when the server's memory
// at the end is more than 1.5 times (plus 50 MB) what it was after the
// first window.
func soak(ctx context.Context, db *graph.DB, n int, bin, outDir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port))
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	if err := waitReady(base); err != nil {
		return err
	}
	a, err := sampleArgs(ctx, graph.NewBench(db), n)
	if err != nil {
		return err
	}
	qs := queries(a)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: soakClients}, Timeout: 120 * time.Second}
	// Warm up: the similarity index builds on the first similarity request
	// (the read model when the server starts); at 100,000 cases on a busy
	// machine that may take longer than the request timeout, and the
	// request answers TIMEOUT meanwhile: ask again until it answers.
	warm := time.Now()
	for _, q := range qs {
		if _, ok := soakClass[q.name]; !ok {
			return fmt.Errorf("soak: query %s has no cost class in soakClass", q.name)
		}
		if err := untilAnswered(q, client, base, 0, warm, 10*time.Minute, 0); err != nil {
			return err
		}
	}
	res := &Soak{When: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Cases: n, Clients: soakClients, Duration: soakFor.String(),
		WarmupS: time.Since(warm).Seconds()}
	fmt.Fprintf(os.Stderr, "soak: warm-up (every query answered once) took %.1fs\n", res.WarmupS)
	var mu sync.Mutex
	var lat []float64
	var overloaded, errs int
	type classLat struct {
		answered   []float64
		requests   int
		overloaded int
	}
	byClass := map[string]*classLat{}
	var firstErr error
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < soakClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; ; i += soakClients {
				select {
				case <-stop:
					return
				default:
				}
				t := time.Now()
				q := qs[i%len(qs)]
				err := q.graphql(client, base, i)
				ms := float64(time.Since(t).Microseconds()) / 1000
				mu.Lock()
				lat = append(lat, ms)
				cl := byClass[soakClass[q.name]]
				if cl == nil {
					cl = &classLat{}
					byClass[soakClass[q.name]] = cl
				}
				cl.requests++
				switch {
				case err == nil:
					cl.answered = append(cl.answered, ms)
				case strings.HasPrefix(err.Error(), "HTTP 503") && strings.Contains(err.Error(), "OVERLOADED"):
					overloaded++
					cl.overloaded++
				default:
					errs++
					if firstErr == nil {
						firstErr = err
					}
				}
				mu.Unlock()
			}
		}()
	}
	fmt.Fprintf(os.Stderr, "soak: %d clients for %v, a line every %v\n", soakClients, soakFor, soakWindow)
	for time.Since(start) < soakFor {
		time.Sleep(min(soakWindow, soakFor-time.Since(start)))
		mu.Lock()
		w := SoakWindow{EndS: time.Since(start).Seconds(), Requests: len(lat), Overloaded: overloaded, Errors: errs,
			P50Ms: pct(lat, 0.5), P99Ms: pct(lat, 0.99), RSSMB: rssMB(srv.Process.Pid), ByClass: map[string]SoakClass{}}
		var classes []string
		for _, name := range []string{"lookup", "list", "similarity", "aggregate"} {
			if c := byClass[name]; c != nil {
				w.ByClass[name] = SoakClass{Requests: c.requests, Overloaded: c.overloaded, P99Ms: pct(c.answered, 0.99)}
				classes = append(classes, fmt.Sprintf("%s %d/%d 503 p99 %.0f ms", name, c.overloaded, c.requests, pct(c.answered, 0.99)))
			}
		}
		lat, overloaded, errs = nil, 0, 0
		byClass = map[string]*classLat{}
		mu.Unlock()
		res.Windows = append(res.Windows, w)
		fmt.Fprintf(os.Stderr, "  %6.0fs  %6d requests  %5d 503  %3d errors  p50 %8.1f ms  p99 %8.1f ms  RSS %5.0f MB  [%s]\n",
			w.EndS, w.Requests, w.Overloaded, w.Errors, w.P50Ms, w.P99Ms, w.RSSMB, strings.Join(classes, "; "))
	}
	close(stop)
	wg.Wait()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s-%dcases-soak.json", time.Now().UTC().Format("20060102T150405Z"), n))
	data, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", path)
	total := 0
	for _, w := range res.Windows {
		total += w.Errors
	}
	if total > 0 {
		return fmt.Errorf("soak: %d requests failed other than 503 OVERLOADED, first: %v", total, firstErr)
	}
	if len(res.Windows) >= 2 {
		if first, last := res.Windows[0].RSSMB, res.Windows[len(res.Windows)-1].RSSMB; last > first*1.5+50 {
			return fmt.Errorf("soak: the server grew from %.0f MB after the first window to %.0f MB", first, last)
		}
	}
	return nil
}

// rssMB reads a live process's resident memory now, in MB.
func rssMB(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(rest)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
