//go:build faults

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
)

// parseCases reads the cases of a generated file, as the loader parses them.
func parseCases(t *testing.T, path string) []*ilgraph.Case {
	t.Helper()
	var cases []*ilgraph.Case
	if probs := loader.ParseFile(path, func(p loader.Parsed) error { cases = append(cases, p.Case); return nil }); probs != nil {
		t.Fatal(probs)
	}
	return cases
}

// assertExactly checks that the graph holds exactly cases (and the
// vocabulary): node and relationship counts as the JSON says, and every
// case whole with the content hash of its JSON.
func assertExactly(t *testing.T, db *graph.DB, cases []*ilgraph.Case, vocab string) {
	t.Helper()
	ctx := context.Background()
	wantNodes, wantRels := corpus.Counts(cases, corpus.Vocab(t, vocab))
	counts, err := graph.NewBench(db).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(counts.Nodes, wantNodes) || !reflect.DeepEqual(counts.Relationships, wantRels) {
		t.Errorf("the graph:\n got %v %v\nwant %v %v", counts.Nodes, counts.Relationships, wantNodes, wantRels)
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = c.ID
	}
	hashes, err := db.CaseHashes(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(hashes) != len(cases) {
		t.Errorf("%d of %d cases in the graph", len(hashes), len(cases))
	}
	bad := 0
	for _, c := range cases {
		if want := graph.ContentHash(c); hashes[c.ID] != want {
			if bad++; bad <= 3 {
				t.Errorf("%s: content hash %q, want %q (its JSON's)", c.ID, hashes[c.ID], want)
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d cases in all with a hash that is not their JSON's", bad)
	}
}

// TestChangingLoadAcrossNeo4jKill SIGKILLs Neo4j in the middle of a load
// that changes existing cases (a corpus with the same ids and other
// content): the load fails UNAVAILABLE; after a restart (Neo4j recovers
// from its transaction log), the same load completes, and the graph holds
// exactly the new corpus, every case with its JSON's content hash.
func TestChangingLoadAcrossNeo4jKill(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	vocab := filepath.Join(seeds, "vocab.json")
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.jsonl"), filepath.Join(dir, "after.jsonl")
	const n = 4000
	if err := gen.WriteFile(before, seeds, n, 3); err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteFile(after, seeds, n, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Load(ctx, db, []string{vocab, before}, loader.Options{BatchSize: 100}); err != nil {
		t.Fatal(err)
	}
	oldCases, newCases := parseCases(t, before), parseCases(t, after)
	changed := 0
	for i := range newCases {
		if oldCases[i].ID != newCases[i].ID {
			t.Fatalf("case %d: %s then %s; the two corpora must share ids", i, oldCases[i].ID, newCases[i].ID)
		}
		if graph.ContentHash(oldCases[i]) != graph.ContentHash(newCases[i]) {
			changed++
		}
	}
	if changed < n/2 {
		t.Fatalf("only %d of %d cases change; the load would not change existing cases", changed, n)
	}

	var writes atomic.Int64
	killed := make(chan error, 1)
	root := corpus.Root(t)
	db.SetQueryHook(func(what string, _ time.Duration) {
		if what == "writing cases" && writes.Add(1) == 3 {
			go func() { killed <- ctl(root, "kill") }()
		}
	})
	_, err := loader.Load(ctx, db, []string{vocab, after}, loader.Options{BatchSize: 100})
	if kerr := <-killed; kerr != nil {
		t.Fatal(kerr)
	}
	db.SetQueryHook(nil)
	if err == nil {
		t.Fatal("the load succeeded although Neo4j was killed under it")
	}
	if code := ilgraph.ErrorCode(err); code != ilgraph.EUNAVAILABLE {
		t.Errorf("error code %q (%v), want %q", code, err, ilgraph.EUNAVAILABLE)
	}
	t.Logf("killed after %d case batches: %v", writes.Load(), err)

	neo4jCtl(t, "start")
	db2, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	rep, err := loader.Load(ctx, db2, []string{vocab, after}, loader.Options{BatchSize: 100})
	if err != nil {
		t.Fatalf("the load after the restart: %v", err)
	}
	t.Logf("the load after the restart: %d new, %d changed, %d unchanged", rep.New, rep.Changed, rep.Unchanged)
	if rep.New != 0 || rep.Changed+rep.Unchanged != n || rep.Changed == 0 {
		t.Errorf("the second load: %d new, %d changed, %d unchanged; want every case there and the cut ones changed", rep.New, rep.Changed, rep.Unchanged)
	}
	assertExactly(t, db2, newCases, vocab)
	// And once more: nothing left to do.
	rep, err = loader.Load(ctx, db2, []string{vocab, after}, loader.Options{BatchSize: 100})
	if err != nil || rep.Unchanged != n {
		t.Errorf("a third load: %v, %d unchanged of %d", err, rep.Unchanged, n)
	}
}

// TestServingAcrossNeo4jKill SIGKILLs Neo4j while clients use the API:
// requests made while it is down (and starting again) answer UNAVAILABLE,
// quickly, never OVERLOADED although each would hold its slot for the
// retry time without FailFast; once it is
// started again the same server answers again, without a restart, and
// answers exactly what the JSON says.
func TestServingAcrossNeo4jKill(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	if _, err := loader.Load(ctx, mustDB(t), []string{seeds}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	var cases []*ilgraph.Case
	files, _ := filepath.Glob(filepath.Join(seeds, "cases", "*.json"))
	for _, f := range files {
		cases = append(cases, parseCases(t, f)...)
	}
	capacity := 0
	for _, c := range cases {
		if c.RootCause == "capacity" {
			capacity++
		}
	}
	cfg := graph.ConfigFromEnv()
	cfg.RetryTime = 2 * time.Second      // as ilgraph serve
	cfg.FailFast = time.Second           // as ilgraph serve
	cfg.ConnectTimeout = 2 * time.Second // as ilgraph serve
	cfg.AcquireTimeout = 3 * time.Second // as ilgraph serve
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := apitest.New(newCore(db), apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}, Shell: httpapi.Options{Ready: db.Ping, StoreDown: db.Down}})
	db.SetQueryHook(h.ObserveQuery)
	srv := httptest.NewServer(h)
	defer srv.Close()

	type answer struct {
		start, end time.Time
		status     int
		code       string
		data       map[string]json.RawMessage
	}
	ask := func(query string) answer {
		a := answer{start: time.Now()}
		body, _ := json.Marshal(map[string]string{"query": query})
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			a.code = "HTTP: " + err.Error()
			a.end = time.Now()
			return a
		}
		var out struct {
			Data   map[string]json.RawMessage
			Errors []struct{ Extensions map[string]any }
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		a.end, a.data, a.status = time.Now(), out.Data, resp.StatusCode
		if len(out.Errors) > 0 {
			a.code = fmt.Sprint(out.Errors[0].Extensions["code"])
		}
		return a
	}
	queries := []string{
		`{ cases(filter: {rootCauses: ["capacity"]}) { totalCount } }`,
		`{ case(id: "IL-0384") { id rootCause { id } } }`,
		`{ stats { cases } }`,
		`{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { edges { count } } }`,
	}
	// exact checks the answers of a healthy server against the JSON.
	exact := func(phase string) {
		t.Helper()
		var got struct{ TotalCount int }
		a := ask(queries[0])
		if a.code != "" || json.Unmarshal(a.data["cases"], &got) != nil || got.TotalCount != capacity {
			t.Errorf("%s: capacity cases %+v (code %q), want %d", phase, got, a.code, capacity)
		}
		var st struct{ Cases int }
		a = ask(queries[2])
		if a.code != "" || json.Unmarshal(a.data["stats"], &st) != nil || st.Cases != len(cases) {
			t.Errorf("%s: stats.cases %+v (code %q), want %d", phase, st, a.code, len(cases))
		}
	}
	exact("before")

	var mu sync.Mutex
	var answers []answer
	stop := make(chan struct{})
	var clients sync.WaitGroup
	for c := 0; c < 8; c++ {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				a := ask(queries[i%len(queries)])
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Second)
	killing := time.Now()
	neo4jCtl(t, "kill")
	down := time.Now()
	time.Sleep(4 * time.Second) // the clients go on asking
	restarting := time.Now()
	neo4jCtl(t, "start")
	deadline := time.Now().Add(60 * time.Second)
	var recovered time.Time
	for {
		r, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if a := ask(queries[0]); a.code == "" && r.StatusCode == 200 {
			recovered = time.Now()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API did not recover within 60 s of the restart")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
	close(stop)
	clients.Wait()

	// Requests made while Neo4j is down answer UNAVAILABLE within the retry
	// time. While it starts again it accepts connections and transactions
	// before its database is online, so the probe transaction (one at a
	// time, FailFast) may wait for it up to the request timeout, and answer
	// TIMEOUT; the others answer UNAVAILABLE at once, or their data, or
	// (waiting behind slots held by requests that were under way) 503
	// OVERLOADED.
	at := func(a answer) string {
		return fmt.Sprintf("made %v after the kill, took %v", a.start.Sub(down).Round(time.Millisecond), a.end.Sub(a.start).Round(time.Millisecond))
	}
	var during, restartingN, shed, timedOut int
	var slowestDown, slowestStart time.Duration
	for _, a := range answers {
		took := a.end.Sub(a.start)
		switch {
		case a.start.After(down) && a.end.Before(restarting):
			during++
			slowestDown = max(slowestDown, took)
			if a.code != "UNAVAILABLE" || took > cfg.RetryTime+time.Second {
				t.Errorf("a request made while Neo4j was down answered HTTP %d code %q (%s), want UNAVAILABLE within the retry time + 1 s", a.status, a.code, at(a))
			}
		case a.start.After(down) && a.end.Before(recovered):
			restartingN++
			slowestStart = max(slowestStart, took)
			if a.code == "OVERLOADED" && a.status == 503 {
				shed++
			} else if a.code == "TIMEOUT" {
				timedOut++
			}
			if a.code != "" && a.code != "UNAVAILABLE" && a.code != "TIMEOUT" && a.code != "OVERLOADED" || took > httpapi.DefaultRequestTimeout+time.Second {
				t.Errorf("a request made while Neo4j started answered HTTP %d code %q (%s)", a.status, a.code, at(a))
			}
		case a.end.Before(killing) || a.start.After(recovered):
			if a.code != "" {
				t.Errorf("a request answered HTTP %d code %q (%s) although Neo4j was up", a.status, a.code, at(a))
			}
		default: // under way as Neo4j was killed, or as it came back
			if a.code == "OVERLOADED" && a.status == 503 {
				shed++
			} else if a.code != "" && a.code != "UNAVAILABLE" {
				t.Errorf("a request answered HTTP %d code %q (%s) as Neo4j went down or came back", a.status, a.code, at(a))
			}
		}
	}
	if during == 0 {
		t.Fatal("no request was made while Neo4j was down")
	}
	t.Logf("%d requests in all; %d while Neo4j was down, all UNAVAILABLE, the slowest in %v; %d while it started again, the slowest in %v, %d of them TIMEOUT, %d refused OVERLOADED; recovered %v after the restart began",
		len(answers), during, slowestDown.Round(time.Millisecond), restartingN, slowestStart.Round(time.Millisecond), timedOut, shed, recovered.Sub(restarting).Round(time.Millisecond))
	exact("after the restart")
	assertExactly(t, mustDB(t), cases, filepath.Join(seeds, "vocab.json"))
}
