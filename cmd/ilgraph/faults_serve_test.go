//go:build faults

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/token"
)

// TestWritesAcrossServerKill stops ilgraph serve itself — the binary, as
// an operator runs it — in the middle of writes, once with SIGKILL (a
// crash, the OOM killer) and once with SIGTERM (a deploy), and starts it
// again on the same address. 12 writers change cases of their own through
// the JSON API with If-Match, each write sent with a token of its own (an
// editor's, named after the write, so that the history's `by` names the
// write that made each revision). Afterwards, from Neo4j with the test's
// own Cypher (checkWrites): every acknowledged write is in its case's
// history at its version, no refused one is, a write whose answer was
// lost is whole or absent, each history runs 1..n and each case holds its
// last revision, and the corpus version moved once per revision. The
// restarted server answers every written case, its history and the case
// lists as Neo4j holds them (checkServed), and its in-memory store answers
// the case lists, the facets and the stats byte for byte as a fresh
// server built from Neo4j now does, with the totals Neo4j's cases give.
// After SIGTERM the server must also exit cleanly, having answered what it
// had in flight. Three readers (the case list, GraphQL's stats, MCP's
// get_incident) run all along: no read is ever answered but 200, and every
// read sent once the restarted server is ready is answered.
func TestWritesAcrossServerKill(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{{"SIGKILL", syscall.SIGKILL}, {"SIGTERM", syscall.SIGTERM}} {
		t.Run(c.name, func(t *testing.T) { writesAcrossServerSignal(t, bin, c.sig, strings.ToLower(c.name)) })
	}
}

func writesAcrossServerSignal(t *testing.T, bin string, sig syscall.Signal, prefix string) {
	const (
		writers       = 12
		casesEach     = 3
		ackedBefore   = 48 // acknowledged writes before the signal
		ackedAfterPer = 1  // each writer's acknowledged writes after the restart
	)
	began := time.Now()
	neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	cfg := graph.ConfigFromEnv()
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tokens := token.New(db, token.Options{Logger: quietLogger()})
	templates := writeTemplates(t, db)
	seedsBefore := map[string]string{}
	if err := db.EachCaseJSON(ctx, func(c graph.StoredCase) error { seedsBefore[c.ID] = c.JSON; return nil }); err != nil {
		t.Fatal(err)
	}
	corpus0, err := db.CorpusVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	url := "http://" + addr
	first := startServe(t, bin, addr)
	client := &http.Client{Timeout: 20 * time.Second}

	var (
		mu         sync.Mutex
		attempts   []*writeAttempt
		ackedN     atomic.Int64
		signalled  atomic.Bool
		restarted  atomic.Bool
		ackedAfter [writers]atomic.Int64
		stop       = make(chan struct{})
		wg         sync.WaitGroup
	)
	// Each write's own token: its principal is named after the write.
	tokenFor := func(name string) string {
		tok, _, err := tokens.CreateToken(ctx, name, ilgraph.RoleEditor, time.Now().Add(time.Hour))
		if err != nil {
			t.Errorf("creating the token of write %s: %v", name, err)
		}
		return tok
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wr := &faultWriter{t: t, w: w, url: url, client: client, templates: templates, rng: rand.New(rand.NewPCG(uint64(w), 32)), token: tokenFor}
			for k := range casesEach {
				wr.slots = append(wr.slots, &writerSlot{id: fmt.Sprintf("IL-%04d", 8000+10*w+k), known: true, restorable: map[int64]bool{}})
			}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				s := wr.slots[n%casesEach]
				if !s.known && !wr.refresh(s) {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				a := wr.write(s, fmt.Sprintf("%s-w%02d-%04d", prefix, w, n))
				a.afterKill = signalled.Load()
				mu.Lock()
				attempts = append(attempts, a)
				mu.Unlock()
				if a.outcome == acked {
					ackedN.Add(1)
					if restarted.Load() {
						ackedAfter[w].Add(1)
					}
				}
				if a.outcome == unknown {
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	// Readers through every door meanwhile — the case list, GraphQL's
	// stats, MCP's get_incident — so that the signal also lands in the
	// middle of a read load. A read sent once the restarted server is
	// ready must be answered; so must every read a server answered at
	// all, SIGTERM's included: never a 5xx.
	type read struct {
		what      string
		status    int
		err       string
		afterBack bool
	}
	var reads []read
	readOnce := func(kind int) read {
		r := read{afterBack: restarted.Load()}
		var req *http.Request
		switch kind {
		case 0:
			r.what = "GET /cases"
			req, _ = http.NewRequest("GET", url+"/cases?limit=20", nil)
		case 1:
			r.what = "GraphQL stats"
			req, _ = http.NewRequest("POST", url+"/graphql", strings.NewReader(`{"query":"{ stats { cases } }"}`))
			req.Header.Set("Content-Type", "application/json")
		case 2:
			r.what = "MCP get_incident"
			req, _ = http.NewRequest("POST", url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_incident","arguments":{"id":"IL-0282"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := client.Do(req)
		if err != nil {
			r.err = err.Error()
			return r
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r.status = resp.StatusCode
		if r.status == 200 && (bytes.Contains(b, []byte(`"errors"`)) || bytes.Contains(b, []byte(`"isError":true`))) {
			r.err = clipS(string(b))
		}
		return r
	}
	for k := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for { // one kind of read each, one at a time: never over a class's bound
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				r := readOnce(k)
				mu.Lock()
				reads = append(reads, r)
				mu.Unlock()
			}
		}()
	}
	finish := func() {
		select {
		case <-stop:
		default:
			close(stop)
			wg.Wait()
		}
	}
	defer finish()
	waitFor := func(what string, limit time.Duration, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !done() {
			if time.Now().After(deadline) {
				finish()
				t.Fatalf("%s: not within %v", what, limit)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor(fmt.Sprintf("%d acknowledged writes before the %v", ackedBefore, sig), 90*time.Second, func() bool { return ackedN.Load() >= ackedBefore })
	corpusBefore, err := db.CorpusVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ackedAtSignal := ackedN.Load()
	signalled.Store(true)
	exit := first.stop(t, sig)
	var ee *exec.ExitError
	switch {
	case sig == syscall.SIGKILL && !(errors.As(exit, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL):
		t.Errorf("ilgraph serve after SIGKILL: %v, want killed by it", exit)
	case sig == syscall.SIGTERM && exit != nil:
		t.Errorf("ilgraph serve after SIGTERM: %v, want a clean exit after the requests in flight (stderr: %s)", exit, first.tail())
	}
	time.Sleep(time.Second) // the writers find it gone
	second := startServe(t, bin, addr)
	restarted.Store(true)
	waitFor(fmt.Sprintf("each writer's %d acknowledged writes after the restart", ackedAfterPer), 90*time.Second, func() bool {
		for w := range writers {
			if ackedAfter[w].Load() < ackedAfterPer {
				return false
			}
		}
		return true
	})
	finish()

	readsBack := 0
	for _, r := range reads {
		switch {
		case r.status != 0 && r.status != 200:
			t.Errorf("a read (%s) answered HTTP %d %s: a server answers reads or is not there", r.what, r.status, r.err)
		case r.status == 200 && r.err != "":
			t.Errorf("a read (%s) answered an error: %s", r.what, r.err)
		case r.afterBack && r.status != 200:
			t.Errorf("a read (%s) sent once the restarted server was ready failed: %s", r.what, r.err)
		case r.afterBack:
			readsBack++
		}
	}
	if readsBack == 0 {
		t.Errorf("no read answered by the restarted server (%d reads)", len(reads))
	}
	t.Logf("%d reads, %d of them answered by the restarted server", len(reads), readsBack)

	st, byCase := checkWrites(t, cfg, attempts, seedsBefore, corpus0, corpusBefore, ackedAtSignal)
	var afterSignal int
	for _, a := range attempts {
		if a.afterKill {
			afterSignal++
		}
	}
	t.Logf("%s: %d writes, %d of them sent after the signal; %d acknowledged before it", sig, len(attempts), afterSignal, ackedAtSignal)
	if sig == syscall.SIGTERM {
		// A graceful stop answers every request it took: a write the
		// client got no answer to never reached it, so it is absent.
		made := map[string]bool{}
		for _, revs := range st.revisions {
			for _, r := range revs {
				made[r.by] = true
			}
		}
		for _, a := range attempts {
			if a.outcome == unknown && made[a.name] {
				t.Errorf("write %s got no answer (%s), yet it committed: SIGTERM cut a request in flight", a, a.answer)
			}
		}
	}

	// The restarted server answers as Neo4j holds, and its in-memory store
	// as a fresh one built from Neo4j now.
	checkServed(t, client, url, st, byCase)
	second.waitLog(t, "in-memory corpus built")
	compareWithFresh(t, client, url, db, st)
	t.Logf("the subtest took %v", time.Since(began).Round(time.Millisecond))
}

// compareWithFresh asks the server at url and a fresh one, built now over
// db in this process, the same questions — the whole case list, page by
// page, and the facets and stats of every case — and wants the same bytes,
// with the totals st (Neo4j) gives.
func compareWithFresh(t *testing.T, client *http.Client, url string, db *graph.DB, st *storedGraph) {
	t.Helper()
	core := coreOver(db, newInMemory(db, false))
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quietLogger()})
	fresh := httptest.NewServer(apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}, NoIDE: true,
		Shell: httpapi.Options{Routes: apitest.JSONAPI(nil, api)}}))
	defer fresh.Close()
	ask := func(base, method, path, body string) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		r, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s%s: %v", method, base, path, err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != 200 {
			t.Fatalf("%s %s%s: %d %s", method, base, path, r.StatusCode, clipS(string(b)))
		}
		return b
	}
	same := func(what, method, path, body string) []byte {
		t.Helper()
		got, want := ask(url, method, path, body), ask(fresh.URL, method, path, body)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the restarted server answers\n%s\na fresh one\n%s", what, clipS(string(got)), clipS(string(want)))
		}
		return want
	}
	for cursor := ""; ; {
		b := same("GET /cases "+cursor, "GET", "/cases?sort=id_asc&limit=100"+cursor, "")
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		json.Unmarshal(b, &page)
		if page.NextCursor == "" {
			break
		}
		cursor = "&cursor=" + page.NextCursor
	}
	const counts = `{ term { id } count }`
	q := `{ cases(first: 1) { totalCount facets(top: 1000) { rootCauses ` + counts + ` components ` + counts + ` symptoms ` + counts +
		` contributing ` + counts + ` domains ` + counts + ` mechanisms ` + counts + ` orgs ` + counts + ` years { year count } } }
  stats { cases organizations bilingual reviewed perYear { year count } perRootCause ` + counts + ` perOrganization ` + counts +
		` perDomain ` + counts + ` topCauseComponentPairs { a { id } b { id } count } } }`
	body, _ := json.Marshal(map[string]string{"query": q})
	b := same("facets and stats", "POST", "/graphql", string(body))
	var out struct {
		Data struct {
			Cases struct {
				TotalCount int
				Facets     struct {
					RootCauses []struct {
						Term  struct{ ID string }
						Count int
					}
				}
			}
			Stats struct{ Cases int }
		}
		Errors []any
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Errors) > 0 {
		t.Fatalf("facets and stats: %v %s", err, clipS(string(b)))
	}
	roots := map[string]int{}
	for _, c := range st.cases {
		var full ilgraph.Case
		json.Unmarshal([]byte(c.raw), &full)
		roots[full.RootCause]++
	}
	got := map[string]int{}
	for _, rc := range out.Data.Cases.Facets.RootCauses {
		got[rc.Term.ID] = rc.Count
	}
	if out.Data.Cases.TotalCount != len(st.cases) || out.Data.Stats.Cases != len(st.cases) || fmt.Sprint(got) != fmt.Sprint(roots) {
		t.Errorf("after the restart: %d cases, stats %d, root-cause facets %v; Neo4j has %d cases, per root cause %v",
			out.Data.Cases.TotalCount, out.Data.Stats.Cases, got, len(st.cases), roots)
	}
}

// stop sends sig and waits for the process to exit; its exit error.
func (p *servedProc) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		return p.err
	case <-time.After(60 * time.Second):
		t.Fatalf("ilgraph serve still runs 60 s after %v:\n%s", sig, p.tail())
	}
	return nil
}
