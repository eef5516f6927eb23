package main

import (
	"bufio"
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
)

// Soak is the JSON of a soak run: the server as deployed (default limits,
// admission included) under a steady mixed load for a while, window by
// window, to show what a long run does that a short one hides — memory that
// only grows, errors that only come late.
type Soak struct {
	When     string       `json:"when"`
	Machine  string       `json:"machine"`
	Cases    int          `json:"cases"`
	Clients  int          `json:"clients"`
	Duration string       `json:"duration"`
	Windows  []SoakWindow `json:"windows"`
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
func soak(n int, bin, outDir string) error {
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
	qs := queries(n)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: soakClients}, Timeout: 120 * time.Second}
	for _, q := range qs { // warm up: the similarity index builds on its first request
		if err := q.graphql(client, base, 0); err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
	}
	res := &Soak{When: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Cases: n, Clients: soakClients, Duration: soakFor.String()}
	var mu sync.Mutex
	var lat []float64
	var overloaded, errs int
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
				err := qs[i%len(qs)].graphql(client, base, i)
				ms := float64(time.Since(t).Microseconds()) / 1000
				mu.Lock()
				lat = append(lat, ms)
				switch {
				case err == nil:
				case strings.HasPrefix(err.Error(), "HTTP 503") && strings.Contains(err.Error(), "OVERLOADED"):
					overloaded++
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
			P50Ms: pct(lat, 0.5), P99Ms: pct(lat, 0.99), RSSMB: rssMB(srv.Process.Pid)}
		lat, overloaded, errs = nil, 0, 0
		mu.Unlock()
		res.Windows = append(res.Windows, w)
		fmt.Fprintf(os.Stderr, "  %6.0fs  %6d requests  %5d 503  %3d errors  p50 %8.1f ms  p99 %8.1f ms  RSS %5.0f MB\n",
			w.EndS, w.Requests, w.Overloaded, w.Errors, w.P50Ms, w.P99Ms, w.RSSMB)
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
