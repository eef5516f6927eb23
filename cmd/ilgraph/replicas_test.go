package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// replicaQueries are the questions the read load asks both replicas, and
// whose answers must be the same from both once the writes are done: the
// dashboards, a list page, similarity and same root cause.
var replicaQueries = []struct{ name, query string }{
	{"facets", `{ cases(first: 0) { totalCount facets { rootCauses { term { id } count } components { term { id } count } symptoms { term { id } count } contributing { term { id } count } domains { term { id } count } orgs { term { id } count } years { year count } } } }`},
	{"stats", `{ stats { cases organizations perYear { year count } perRootCause { term { id } count } topCauseComponentPairs { a { id } b { id } count } timeToResolve { median p90 } timeToResolveByRootCause { term { id } distribution { median } } } }`},
	{"cooccurrence", `{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { nodes { key count } edges { source target count lift } } }`},
	{"breakdown", `{ breakdown(rows: ROOT_CAUSE, columns: YEAR) { total rows { key count } columns { key count } cells { row column count } } }`},
	{"list", `{ cases(first: 50) { totalCount nodes { id date title { en ko } rootCause { id } components { id } symptoms { id } } } }`},
}

// TestTwoReplicasOverOneNeo4j runs two ilgraph serve processes over one
// Neo4j, as two replicas behind a load balancer, under a read load on
// both: cases created through the first (the JSON API, an editor's token)
// are answered by the second at once — the case, and its copy's source as
// its most similar case — and, once the writes are done, every dashboard
// question gets the same answer from both, counting the new cases. The
// second follows through the change feed: its metrics show at least one
// catch-up from the feed, and every write reached its corpus through the
// feed or a build. (Under a heavy read load a write has been seen to reach
// it by a build instead, cause not yet found: docs/scaling.md; the builds
// are logged.) How long each write took to reach the second's in-memory
// corpus is logged (context, not a bound).
func TestTwoReplicasOverOneNeo4j(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	var errb bytes.Buffer
	tok := seedsAndEditor(t, "replica-writer")
	bin := buildBinary(t)
	// No rate limit (the load is one client), no settling build (it would
	// be a second build to tell apart from a fallback to one).
	args := []string{"--rate-limit", "0", "--settle-after", "0"}
	a, b := serveBinary(t, bin, neo4jEnv(), args...), serveBinary(t, bin, neo4jEnv(), args...)
	client := &http.Client{Timeout: time.Minute}
	for _, base := range []string{a, b} {
		waitMetric(t, client, base, "ilgraph_corpus_version", func(v float64) bool { return v >= 0 })
	}
	seedCount := len(corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")))

	// The read load: four clients, each asking both replicas every
	// question in turn until the writes are done.
	var stop atomic.Bool
	var asked atomic.Int64
	var wg sync.WaitGroup
	failures := make(chan string, 100)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; !stop.Load() || i < w+2*len(replicaQueries); i++ {
				q := replicaQueries[i%len(replicaQueries)]
				for _, base := range []string{a, b} {
					if _, err := graphQL(client, base, q.query, nil); err != nil {
						select {
						case failures <- fmt.Sprintf("%s on %s: %v", q.name, base, err):
						default:
						}
					}
					asked.Add(1)
				}
			}
		}(w)
	}

	// The writes, through the first replica; each read back at once from
	// the second.
	sources := []string{"IL-0064", "IL-0110", "IL-0206", "IL-0064"}
	var lags []time.Duration
	for i, src := range sources {
		// Each write lands among reads: at least 40 questions since the last.
		for n := asked.Load(); asked.Load() < n+40; {
			time.Sleep(5 * time.Millisecond)
		}
		id := fmt.Sprintf("IL-97%02d", i)
		createCopy(t, client, a, tok, src, id)
		acked := time.Now()
		version := metric(t, client, a, "ilgraph_corpus_version")
		got, err := graphQL(client, b, `query($id: ID!) { case(id: $id) { id } similarCases(caseId: $id, k: 1) { case { id } } }`, map[string]any{"id": id})
		if err != nil {
			t.Fatalf("the second replica, right after %s was written: %v", id, err)
		}
		var c struct {
			Case         struct{ ID string }
			SimilarCases []struct{ Case struct{ ID string } }
		}
		json.Unmarshal(got, &c)
		if c.Case.ID != id || len(c.SimilarCases) == 0 || c.SimilarCases[0].Case.ID != src {
			t.Errorf("the second replica, right after %s (a copy of %s) was written: %s", id, src, got)
		}
		waitMetric(t, client, b, "ilgraph_corpus_version", func(v float64) bool { return v >= version })
		lags = append(lags, time.Since(acked))
	}
	stop.Store(true)
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("under the read load: %s", f)
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	t.Logf("%d questions asked under %d writes; a write reached the second replica's in-memory corpus in %v (median) to %v (slowest), both asking it as they went",
		asked.Load(), len(sources), lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))

	// The same answers from both, counting the new cases.
	for _, q := range replicaQueries {
		fromA, errA := graphQL(client, a, q.query, nil)
		fromB, errB := graphQL(client, b, q.query, nil)
		if errA != nil || errB != nil {
			t.Errorf("%s: %v, %v", q.name, errA, errB)
			continue
		}
		if !bytes.Equal(fromA, fromB) {
			t.Errorf("%s: the replicas answer differently:\nfirst  %.300s\nsecond %.300s", q.name, fromA, fromB)
		}
	}
	total, _ := graphQL(client, b, `{ cases(first: 0) { totalCount } }`, nil)
	if want := fmt.Sprintf(`{"cases":{"totalCount":%d}}`, seedCount+len(sources)); string(total) != want {
		t.Errorf("the second replica counts %s, want %s", total, want)
	}

	// A load by another process (ilgraph load, here in the test's own):
	// a new case and a changed one reach both replicas through the feed,
	// with no build.
	buildsBefore := []float64{metric(t, client, a, "ilgraph_corpus_builds_total"), metric(t, client, b, "ilgraph_corpus_builds_total")}
	dir := t.TempDir()
	added := corpus.SeedJSON(t, "IL-0206")
	added["id"] = "IL-9800"
	changed := corpus.SeedJSON(t, "IL-0110")
	changed["severity"] = "sev0"
	if changed["severity"] == corpus.SeedJSON(t, "IL-0110")["severity"] {
		changed["severity"] = "sev1"
	}
	for name, c := range map[string]map[string]any{"added.json": added, "changed.json": changed} {
		data, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code := run(ctx, []string{"load", "--quiet", filepath.Join(corpus.Seeds(t), "vocab.json"), dir}, &bytes.Buffer{}, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	loaded := time.Now()
	for i, base := range []string{a, b} {
		got, err := graphQL(client, base, `{ case(id: "IL-9800") { id } similarCases(caseId: "IL-9800", k: 1) { case { id } } c: case(id: "IL-0110") { severity } }`, nil)
		if err != nil {
			t.Fatalf("replica %d after the load: %v", i+1, err)
		}
		want := fmt.Sprintf(`{"case":{"id":"IL-9800"},"similarCases":[{"case":{"id":"IL-0206"}}],"c":{"severity":%q}}`, changed["severity"])
		if string(got) != want {
			t.Errorf("replica %d after the load: %s, want %s", i+1, got, want)
		}
		if n := metric(t, client, base, "ilgraph_corpus_builds_total"); n != buildsBefore[i] {
			t.Errorf("replica %d built its corpus %v times for the load, want none (the change feed)", i+1, n-buildsBefore[i])
		}
	}
	t.Logf("a load of two cases reached both replicas' in-memory corpora, asked in turn, in %v", time.Since(loaded).Round(time.Millisecond))
	for _, q := range replicaQueries {
		fromA, errA := graphQL(client, a, q.query, nil)
		fromB, errB := graphQL(client, b, q.query, nil)
		if errA != nil || errB != nil || !bytes.Equal(fromA, fromB) {
			t.Errorf("%s after the load: the replicas answer differently (%v, %v)", q.name, errA, errB)
		}
	}
	// The second followed the feed: one build, every write applied.
	vA, vB := metric(t, client, a, "ilgraph_corpus_version"), metric(t, client, b, "ilgraph_corpus_version")
	if vA != vB {
		t.Errorf("corpus versions %v and %v", vA, vB)
	}
	if n := metric(t, client, a, "ilgraph_corpus_changes_applied_total"); n < float64(len(sources)) {
		t.Errorf("the first replica applied %v of its own %d writes", n, len(sources))
	}
	builds, applied := metric(t, client, b, "ilgraph_corpus_builds_total"), metric(t, client, b, "ilgraph_corpus_changes_applied_total")
	t.Logf("the second replica: %v builds, %v changes applied from the feed", builds, applied)
	if builds < 1 || applied+builds-1 < float64(len(sources)) {
		t.Errorf("the second replica: %v builds and %v changes applied for %d writes: some write reached it neither way", builds, applied, len(sources))
	}
	if n := metric(t, client, b, "ilgraph_corpus_follows_total"); n < 1 {
		t.Errorf("the second replica read the change feed %v times", n)
	} else if took := metric(t, client, b, "ilgraph_corpus_last_follow_seconds"); took <= 0 {
		t.Errorf("the second replica followed the feed, and says its last catch-up took %v s", took)
	}
}

// seedCase returns a seed case's file as a JSON object.

// graphQL posts a query to base's /graphql and returns its data; an error
// for a status other than 200 or any GraphQL error.
func graphQL(c *http.Client, base, query string, vars map[string]any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := c.Post(base+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage
		Errors []json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, out.Errors)
	}
	return out.Data, nil
}

// metric reads one unlabelled metric from base's /metrics.
func metric(t *testing.T, c *http.Client, base, name string) float64 {
	t.Helper()
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %q", name, sc.Text())
			}
			return f
		}
	}
	t.Fatalf("%s/metrics has no %s (status %d)", base, name, resp.StatusCode)
	return 0
}

// waitMetric waits until base's metric satisfies ok (a minute at most:
// past that the replica is not following at all).
func waitMetric(t *testing.T, c *http.Client, base, name string, ok func(float64) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v := metric(t, c, base, name)
		if ok(v) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on %s is still %v after a minute", name, base, v)
		}
		// Ask it something: a replica catches up when asked.
		graphQL(c, base, `{ cases(first: 0) { totalCount } }`, nil) //nolint:errcheck // only to prompt it
		time.Sleep(20 * time.Millisecond)
	}
}
