//go:build faults

// Fault tests stop, SIGKILL and start the Neo4j they run against, so they
// run on their own: scripts/test runs them after the main suite with
// -tags faults, against the server scripts/neo4j-test controls.
//
// To run them against another server — a private one, so that a shared
// test server is never stopped — name its control script in
// ILGRAPH_FAULTS_CTL and set the variables that script and the tests read:
//
//	ILGRAPH_FAULTS_CTL=scripts/neo4j ILGRAPH_NEO4J_DIR=/tmp/ilg-chaos \
//	ILGRAPH_NEO4J_LIB=$PWD/.neo4j/lib NEO4J_URI=bolt://127.0.0.1:7690 \
//	NEO4J_HTTP_PORT=7478 NEO4J_PASSWORD=chaos-test \
//	go test -count=1 -tags faults -run AcrossNeo4j ./cmd/ilgraph/
//
// TestWritesAcrossServerKill (faults_serve_test.go) stops ilgraph serve
// instead, not Neo4j; scripts/test runs it with them (-run
// 'AcrossNeo4j|AcrossServerKill').
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
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

// neo4jCtl runs the control script (scripts/neo4j-test by default) with a
// verb: start, stop or kill.
func neo4jCtl(t *testing.T, verb string) {
	t.Helper()
	if err := ctl(corpus.Root(t), verb); err != nil {
		t.Fatal(err)
	}
}

// faultsURI is NEO4J_URI as the process got it, before neo4jtest points an
// unset one at the test server.
var faultsURI = os.Getenv("NEO4J_URI")

func ctl(root, verb string) error {
	script := os.Getenv("ILGRAPH_FAULTS_CTL")
	if script == "" {
		if os.Getenv("NEO4J_URI") != "bolt://127.0.0.1:7688" {
			return fmt.Errorf("fault tests stop and start the server of scripts/neo4j-test (or of ILGRAPH_FAULTS_CTL); NEO4J_URI is %q", os.Getenv("NEO4J_URI"))
		}
		script = filepath.Join(root, "scripts", "neo4j-test")
	} else {
		if faultsURI == "" {
			return fmt.Errorf("ILGRAPH_FAULTS_CTL=%s: set NEO4J_URI (and what the script reads) to the server it controls", script)
		}
		if !filepath.IsAbs(script) {
			script = filepath.Join(root, script)
		}
	}
	if verb == "stop" || verb == "kill" {
		// Only the server the script started: one it reused is another's,
		// and stopping "it" would stop nothing (faultguard_test.go).
		if err := guardNeo4j(script); err != nil {
			return fmt.Errorf("before %s %s: %v", script, verb, err)
		}
	}
	cmd := exec.Command(script, verb)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", script, verb, err, out)
	}
	return nil
}

// guardNeo4j checks, before script stops or kills its server, that the
// process listening on NEO4J_URI's Bolt port is the one script recorded
// (script pid: scripts/neo4j's pidfile, a live Neo4j).
func guardNeo4j(script string) error {
	port, err := boltPort(os.Getenv("NEO4J_URI"))
	if err != nil {
		return err
	}
	started := 0
	out, err := exec.Command(script, "pid").Output()
	if err == nil {
		if started, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			return fmt.Errorf("%s pid: %q is not a process id", script, out)
		}
	}
	return checkOwnNeo4j(port, started)
}

// TestLoadAcrossNeo4jStop stops Neo4j in the middle of a load: the load
// fails with a clear message; once Neo4j is back, the same load completes
// and the graph holds exactly the corpus, every case whole.
func TestLoadAcrossNeo4jStop(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	if err := gen.WriteFile(path, seeds, 4000, 3); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(seeds, "vocab.json"), path}
	var writes atomic.Int64
	stopped := make(chan error, 1)
	root := corpus.Root(t)
	db.SetQueryHook(func(what string, _ time.Duration) {
		if what == "writing cases" && writes.Add(1) == 3 {
			go func() { stopped <- ctl(root, "stop") }()
		}
	})
	_, err := loader.Load(ctx, db, paths, loader.Options{BatchSize: 100})
	if cerr := <-stopped; cerr != nil {
		t.Fatal(cerr)
	}
	db.SetQueryHook(nil)
	if err == nil {
		t.Fatal("the load succeeded although Neo4j stopped under it")
	}
	if code := ilgraph.ErrorCode(err); code != ilgraph.EUNAVAILABLE {
		t.Errorf("error code %q (%v), want %q", code, err, ilgraph.EUNAVAILABLE)
	}
	if !strings.Contains(ilgraph.ErrorMessage(err), "unreachable") {
		t.Errorf("unclear message: %q", ilgraph.ErrorMessage(err))
	}
	neo4jCtl(t, "start")
	db2, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	rep, err := loader.Load(ctx, db2, paths, loader.Options{BatchSize: 100})
	if err != nil {
		t.Fatalf("the load after the restart: %v", err)
	}
	var cases []*ilgraph.Case
	loader.ParseFile(path, func(p loader.Parsed) error { cases = append(cases, p.Case); return nil })
	wantNodes, wantRels := corpus.Counts(cases, corpus.Vocab(t, paths[0]))
	counts, err := graph.NewBench(db2).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(counts.Nodes, wantNodes) || !reflect.DeepEqual(counts.Relationships, wantRels) {
		t.Errorf("after the completed load:\n got %v %v\nwant %v %v", counts.Nodes, counts.Relationships, wantNodes, wantRels)
	}
	// The cases the cut load had written are found unfinished (no content
	// hash yet) and rewritten; the rest are new.
	if rep.Changed == 0 || rep.Changed+rep.New != len(cases) {
		t.Errorf("the second load: %d changed, %d new, %d unchanged; want the cut load's cases changed and the rest new", rep.Changed, rep.New, rep.Unchanged)
	}
	// Every case is whole: a content hash means its links were written.
	hashes, err := db2.CaseHashes(ctx, []string{gen.ID(1), gen.ID(2000), gen.ID(4000)})
	if err != nil {
		t.Fatal(err)
	}
	for id, h := range hashes {
		if h == "" {
			t.Errorf("%s has no content hash after the completed load", id)
		}
	}
}

// TestAPIAcrossNeo4jRestart: while Neo4j is down the API answers fast with
// UNAVAILABLE and /readyz says not ready; when it is back, the same server
// answers again without a restart.
func TestAPIAcrossNeo4jRestart(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	if _, err := loader.Load(ctx, mustDB(t), []string{corpus.Seeds(t)}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	cfg := graph.ConfigFromEnv()
	cfg.RetryTime = 2 * time.Second // as ilgraph serve
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := apitest.New(newCore(db), apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}, Shell: httpapi.Options{Ready: db.Ping}})
	db.SetQueryHook(h.ObserveQuery)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ask := func() (code string, ready int, took time.Duration) {
		start := time.Now()
		body := []byte(`{"query":"{ cases(filter: {rootCauses: [\"capacity\"]}) { totalCount } }"}`)
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Errors []struct{ Extensions map[string]any }
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		took = time.Since(start)
		if len(out.Errors) > 0 {
			code, _ = out.Errors[0].Extensions["code"].(string)
		}
		r, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return code, r.StatusCode, took
	}
	if code, ready, _ := ask(); code != "" || ready != 200 {
		t.Fatalf("before: code %q ready %d", code, ready)
	}
	neo4jCtl(t, "stop")
	code, ready, took := ask()
	if code != "UNAVAILABLE" || ready != 503 {
		t.Errorf("during the outage: code %q, readyz %d; want UNAVAILABLE and 503", code, ready)
	}
	if took > 8*time.Second {
		t.Errorf("a request during the outage took %v; it must fail fast", took)
	}
	neo4jCtl(t, "start")
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, ready, _ = ask()
		if code == "" && ready == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API did not recover: code %q readyz %d", code, ready)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func mustDB(t *testing.T) *graph.DB {
	db, err := graph.Open(context.Background(), graph.ConfigFromEnv())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
