package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/ilgraph/ilgraph/graph"
)

// replicaWrites is --replicas: how many cases the replicas benchmark writes
// (0: not run).
var replicaWrites int

// ReplicaResult is the JSON of --replicas: two ilgraph serve processes over
// the corpus already loaded, writes through the first, each timed until the
// second answers it from memory.
type ReplicaResult struct {
	When    string `json:"when"`
	Machine string `json:"machine"`
	Cases   int    `json:"cases"`
	// SnapshotDir says whether the replicas read their corpus from a
	// snapshot file (BENCH_SNAPSHOT_DIR) rather than building it.
	SnapshotFile bool `json:"snapshot_file"`
	// ReadyS is how long each replica took from start to its in-memory
	// corpus at the graph's version.
	ReadyS [2]float64 `json:"ready_s"`
	// LagMs is, per write, from the first replica's 201 to the second's
	// answer with the case from its in-memory corpus (its
	// ilgraph_corpus_version at the write's version or past it), asked
	// again every 10 ms.
	LagMs    []float64 `json:"lag_ms"`
	LagP50Ms float64   `json:"lag_p50_ms"`
	LagMaxMs float64   `json:"lag_max_ms"`
	// The second replica's counters over the writes: builds from the graph
	// (0 when every write came through the change feed), catch-ups from
	// the feed and changes applied.
	Builds         float64    `json:"builds"`
	Follows        float64    `json:"follows"`
	ChangesApplied float64    `json:"changes_applied"`
	PeakRSSMB      [2]float64 `json:"peak_rss_mb"`
}

// replicas runs the replicas benchmark: the change feed at scale
// (docs/scaling.md), where the issue asks that a write through one replica
// reach the others within 2 s.
func replicas(ctx context.Context, db *graph.DB, n int, bin, outDir string) error {
	res := &ReplicaResult{When: time.Now().UTC().Format(time.RFC3339), Cases: n, Machine: machine()}
	args := []string{"--timeout", "60s", "--rate-limit", "0", "--settle-after", "0"}
	if mb := os.Getenv("BENCH_SERVER_MEMORY_MB"); mb != "" {
		args = append(args, "--memory-limit-mb", mb)
	}
	if d := os.Getenv("BENCH_SNAPSHOT_DIR"); d != "" {
		args = append(args, "--snapshot-dir", d)
		res.SnapshotFile = true
	}
	tok, err := editorToken(bin)
	if err != nil {
		return err
	}
	// BENCH_REPLICA_PROFILE=FILE: a CPU profile of the second replica
	// while the writes reach it (where its lag goes).
	profileTo, pprofBase := os.Getenv("BENCH_REPLICA_PROFILE"), ""
	client := &http.Client{Timeout: 2 * time.Minute}
	var bases [2]string
	var pids [2]int
	for i := range bases {
		port, err := freePort()
		if err != nil {
			return err
		}
		bases[i] = "http://127.0.0.1:" + strconv.Itoa(port)
		srvArgs := append([]string{"serve", "--addr", "127.0.0.1:" + strconv.Itoa(port)}, args...)
		if i == 1 && profileTo != "" {
			pport, err := freePort()
			if err != nil {
				return err
			}
			pprofBase = "http://127.0.0.1:" + strconv.Itoa(pport)
			srvArgs = append(srvArgs, "--pprof-addr", "127.0.0.1:"+strconv.Itoa(pport))
		}
		srv := exec.Command(bin, srvArgs...)
		if err := srv.Start(); err != nil {
			return err
		}
		pids[i] = srv.Process.Pid
		defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
		start := time.Now()
		if err := waitReady(bases[i]); err != nil {
			return err
		}
		if err := untilCorpusCurrent(ctx, client, bases[i], db, 30*time.Minute); err != nil {
			return err
		}
		res.ReadyS[i] = time.Since(start).Seconds()
		fmt.Fprintf(os.Stderr, "replica %d ready in %.1f s\n", i+1, res.ReadyS[i])
		// A first replica that built its corpus writes the file in the
		// background: the second starts once it is written, to read it.
		for res.SnapshotFile && i == 0 {
			loads, _ := serverMetric(client, bases[0], "ilgraph_corpus_file_loads_total")
			saved, _ := serverMetric(client, bases[0], "ilgraph_corpus_file_save_seconds")
			if loads > 0 || saved > 0 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	a, b := bases[0], bases[1]
	before := func(name string) float64 { v, _ := serverMetric(client, b, name); return v }
	builds0, follows0, applied0 := before("ilgraph_corpus_builds_total"), before("ilgraph_corpus_follows_total"), before("ilgraph_corpus_changes_applied_total")
	sample, err := sampleArgs(ctx, graph.NewBench(db), n)
	if err != nil {
		return err
	}
	var created []string
	defer func() { // the corpus as it was: the cases written are deleted
		for _, id := range created {
			req, _ := http.NewRequest(http.MethodDelete, a+"/cases/"+url.PathEscape(id), nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}()
	profiled := make(chan error, 1)
	if pprofBase != "" {
		go func() { profiled <- saveProfile(pprofBase, profileTo, 20*time.Second) }()
	} else {
		profiled <- nil
	}
	run := time.Now().Unix() % 100000
	for w := 0; w < replicaWrites; w++ {
		id, err := replicaWrite(client, a, tok, sample, w, fmt.Sprintf("REPL-%09d", run*10000+int64(w)))
		if err != nil {
			return err
		}
		created = append(created, id)
		acked := time.Now()
		// The first applied its own write before it answered: its corpus
		// version is the write's.
		version, err := corpusVersionMetric(client, a)
		if err != nil {
			return err
		}
		for {
			// Similar cases are answered from the in-memory corpus only
			// (an unknown case is NOT_FOUND), and asking them makes a
			// replica behind the graph catch up.
			err := post(client, b+"/graphql", `query($id: ID!) { similarCases(caseId: $id, k: 1) { case { id } } }`, map[string]any{"id": id})
			if err == nil {
				if v, err := corpusVersionMetric(client, b); err == nil && v >= version {
					break
				}
			}
			if time.Since(acked) > 2*time.Minute {
				return fmt.Errorf("the second replica has not answered %s from memory 2 minutes after it was written", id)
			}
			time.Sleep(10 * time.Millisecond)
		}
		res.LagMs = append(res.LagMs, float64(time.Since(acked).Microseconds())/1000)
		time.Sleep(200 * time.Millisecond) // writes a user makes, not a flood
	}
	if err := <-profiled; err != nil {
		return err
	}
	after := func(name string, was float64) float64 { return before(name) - was }
	res.Builds = after("ilgraph_corpus_builds_total", builds0)
	res.Follows = after("ilgraph_corpus_follows_total", follows0)
	res.ChangesApplied = after("ilgraph_corpus_changes_applied_total", applied0)
	for i, pid := range pids {
		res.PeakRSSMB[i] = peakRSS(pid)
	}
	lags := slices.Clone(res.LagMs)
	slices.Sort(lags)
	if len(lags) > 0 {
		res.LagP50Ms, res.LagMaxMs = lags[len(lags)/2], lags[len(lags)-1]
	}
	fmt.Fprintf(os.Stderr, "%d writes through the first replica reached the second's in-memory corpus in %.0f ms (median), %.0f ms (slowest); its builds %v, catch-ups from the feed %v, changes applied %v\n",
		len(lags), res.LagP50Ms, res.LagMaxMs, res.Builds, res.Follows, res.ChangesApplied)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(outDir, time.Now().UTC().Format("20060102T150405Z")+fmt.Sprintf("-%dcases-replicas.json", n))
	data, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(os.Stderr, "wrote", name)
	return os.WriteFile(name, data, 0o644)
}

// replicaWrite creates a copy of a sampled case under the id id through
// base's JSON API; a generated case a write refuses (a tagging rule a
// load only warns about) is passed over for the next.
func replicaWrite(c *http.Client, base, tok string, a *args, i int, id string) (string, error) {
	for try := 0; try < 20; try++ {
		src := a.id(i*31 + try*7919)
		resp, err := c.Get(base + "/cases/" + url.PathEscape(src))
		if err != nil {
			return "", err
		}
		var doc map[string]any
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("GET /cases/%s: %d %v", src, resp.StatusCode, err)
		}
		doc["id"] = id
		delete(doc, "related")
		delete(doc, "recurrence_of")
		setTitle(doc, "Replica benchmark case, a copy of "+src)
		body, _ := json.Marshal(doc)
		req, _ := http.NewRequest(http.MethodPost, base+"/cases", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err = c.Do(req)
		if err != nil {
			return "", err
		}
		var out bytes.Buffer
		out.ReadFrom(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusCreated:
			return id, nil
		case resp.StatusCode == http.StatusBadRequest && bytes.Contains(out.Bytes(), []byte(`"code":"INVALID"`)):
			continue
		}
		return "", fmt.Errorf("POST /cases (%s): %d %.300s", id, resp.StatusCode, out.String())
	}
	return "", errors.New("20 sampled cases in a row were refused as invalid copies")
}

// saveProfile writes a CPU profile of d from the server whose profiler is
// at base to file.
func saveProfile(base, file string, d time.Duration) error {
	c := &http.Client{Timeout: d + time.Minute}
	resp, err := c.Get(base + "/debug/pprof/profile?seconds=" + strconv.Itoa(int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the second replica's CPU profile: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
