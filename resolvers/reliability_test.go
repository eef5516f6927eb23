package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/resolvers"
)

func TestCORS(t *testing.T) {
	a := mustAPI(t)
	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger()}, httpapi.Options{CORSOrigins: []string{"https://dash.example"}}))
	defer srv.Close()
	for _, tt := range []struct {
		origin, want string
	}{{"https://dash.example", "https://dash.example"}, {"https://evil.example", ""}} {
		req, _ := http.NewRequest("OPTIONS", srv.URL+"/graphql", nil)
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.want {
			t.Errorf("origin %s: allowed %q, want %q", tt.origin, got, tt.want)
		}
	}
	// No origins configured: no CORS headers at all.
	req, _ := http.NewRequest("POST", a.url+"/graphql", bytes.NewReader([]byte(`{"query":"{ cases { totalCount } }"}`)))
	req.Header.Set("Origin", "https://dash.example")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("default server allows origin %q", got)
	}
}

func TestRequestTimeoutAndDrawingCap(t *testing.T) {
	a := mustAPI(t)
	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger()}, httpapi.Options{RequestTimeout: time.Millisecond}))
	defer srv.Close()
	slow := &api{t: t, url: srv.URL, client: srv.Client()}
	errs := slow.do(`{ cooccurrence(from: COMPONENT, to: SYMPTOM) { edges { count } } stats { cases } }`, nil, nil)
	if len(errs) == 0 || errs[0].Extensions["code"] != "TIMEOUT" {
		t.Errorf("1 ms budget: got %+v, want TIMEOUT", errs)
	}
	errs = a.do(`{ neighbourhood(node: {kind: CASE, id: "IL-0384"}, limit: 5000) { truncated } }`, nil, nil)
	if len(errs) == 0 || errs[0].Extensions["code"] != "LIMIT" {
		t.Errorf("drawing of 5000 nodes: got %+v, want LIMIT", errs)
	}
}

// TestBoundedLoad sends a fixed number of mixed requests at concurrency 64
// over loopback, in rounds: no request may fail, and the server's heap after
// the last round must not have grown beyond the first round's.
//
// Admission control would refuse some of these (a third are aggregates):
// this test is about memory, so every class may queue all 64 clients for
// as long as the request timeout. TestFloodOfAggregates covers refusals.
func TestBoundedLoad(t *testing.T) {
	a := mustAPI(t)
	var adm admission.Config
	for cl := range adm.Limits {
		adm.Limits[cl].Queue = 64
	}
	adm.Wait = httpapi.DefaultRequestTimeout
	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger(), Admission: adm}))
	defer srv.Close()
	a.url = srv.URL
	queries := []string{
		`{ case(id: "IL-0384") { id title { en } rootCause { id en } components { id } related { id } } }`,
		`{ cases(filter: {domains: {anyOf: ["database"]}}, first: 20) { totalCount nodes { id } facets { rootCauses { term { id } count } } } }`,
		`{ sharedWith(caseId: "IL-0384", kind: CONTRIBUTING, term: "circular-dependency") { totalCount } }`,
		`{ sameRootCause(caseId: "IL-0282", first: 10) { nodes { reason } } }`,
		`{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { edges { lift } } }`,
		`{ similarCases(caseId: "IL-0384", k: 10) { score } }`,
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}
	const rounds, perRound, workers = 3, 384, 64
	var heaps []uint64
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		next := make(chan int, perRound)
		for i := 0; i < perRound; i++ {
			next <- i
		}
		close(next)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					body, _ := json.Marshal(map[string]string{"query": queries[i%len(queries)]})
					resp, err := client.Post(a.url+"/graphql", "application/json", bytes.NewReader(body))
					var out struct{ Errors []any }
					if err == nil {
						err = json.NewDecoder(resp.Body).Decode(&out)
						resp.Body.Close()
						if err == nil && (resp.StatusCode != 200 || len(out.Errors) > 0) {
							err = fmt.Errorf("HTTP %d %v", resp.StatusCode, out.Errors)
						}
					}
					if err != nil {
						mu.Lock()
						failures = append(failures, err.Error())
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Fatalf("round %d: %d of %d requests failed, first: %s", round, len(failures), perRound, failures[0])
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heaps = append(heaps, ms.HeapInuse)
	}
	if last, first := heaps[len(heaps)-1], heaps[0]; float64(last) > float64(first)*1.5+8<<20 {
		t.Errorf("heap grew across rounds: %v bytes", heaps)
	}
}
