package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// TestFloodOfAggregates floods a real server with co-occurrence and stats
// requests from 48 clients at once while 4 other clients look cases up one
// after another. Admission control keeps the aggregates to their own slots:
// every lookup is answered, and fast next to the aggregates; every
// aggregate is either answered or refused with 503 OVERLOADED and
// Retry-After, and none takes longer than the queue's wait bound plus the
// request timeout. The numbers it logs (go test -v) are in
// docs/operations.md. ILGRAPH_FLOOD_CASES and ILGRAPH_FLOOD_CLIENTS change
// the corpus (3,000 generated cases) and the aggregate clients (48).
func TestFloodOfAggregates(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	cases := envInt(t, "ILGRAPH_FLOOD_CASES", 3000)
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	if err := gen.WriteFile(path, seeds, cases, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Load(ctx, db, []string{filepath.Join(seeds, "vocab.json"), path}, loader.Options{BatchSize: 1000}); err != nil {
		t.Fatal(err)
	}
	const timeout = 15 * time.Second
	// The JSON API on the same server and the same controller, as ilgraph
	// serve mounts it: half the flood and half the lookups come in by it.
	adm := admission.New(admission.Config{})
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	core := explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithSuggester(suggest.NewService(db, src, suggest.Options{})))
	// ilgraph serve builds its read model (the similarity index, which
	// answers co-occurrence, stats and facets without text) when it starts;
	// so does this server, unless ILGRAPH_FLOOD_COLD is set: then every
	// aggregate goes to Neo4j, as they do for a while after a load.
	if os.Getenv("ILGRAPH_FLOOD_COLD") == "" {
		if _, err := sim.Index(ctx); err != nil {
			t.Fatal(err)
		}
	}
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quietLogger(), Admitter: adm})
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger(), Admitter: adm},
		Shell: httpapi.Options{RequestTimeout: timeout, Routes: apitest.JSONAPI(nil, api), Ready: db.Ping}})
	db.SetQueryHook(h.ObserveQuery)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}, Timeout: time.Minute}

	type outcome struct {
		status int
		code   string
		retry  string
		took   time.Duration
	}
	// post sends a GraphQL query, or GETs a JSON API path (one that starts
	// with a slash).
	post := func(query string) outcome {
		start := time.Now()
		var resp *http.Response
		var err error
		if strings.HasPrefix(query, "/") {
			resp, err = client.Get(srv.URL + query)
		} else {
			body, _ := json.Marshal(map[string]string{"query": query})
			resp, err = client.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		}
		if err != nil {
			return outcome{status: -1, code: err.Error(), took: time.Since(start)}
		}
		var out struct {
			Errors []struct{ Extensions map[string]any }
			Error  struct{ Code string }
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		o := outcome{status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), took: time.Since(start), code: out.Error.Code}
		if len(out.Errors) > 0 {
			o.code = fmt.Sprint(out.Errors[0].Extensions["code"])
		}
		return o
	}
	heavy := []string{
		`{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { nodes { key count } edges { source target count lift } } }`,
		`{ cooccurrence(from: COMPONENT, to: SYMPTOM, minCount: 2) { edges { count lift } } }`,
		`{ stats { cases perRootCause { term { id } count } topCauseComponentPairs { count } timeToResolveByFactor { term { id } } } }`,
		`{ cooccurrence(from: CONTRIBUTING, to: SYMPTOM) { edges { count } } stats { cases } }`,
		"/topics/component/application-database?limit=20&cooccurring=20",
		"/topics/root_cause/capacity?limit=20&cooccurring=20",
		"/topics/symptom/high-latency?limit=20&cooccurring=20",
		"/topics/contributing/insufficient-testing?limit=20&cooccurring=20",
	}
	// A server that has been up a while has its Neo4j connections open
	// (opening one under a flood means authenticating on a busy server) and
	// its vocabulary cached: warm up the same way.
	var warm sync.WaitGroup
	for i := 0; i < 16; i++ {
		warm.Add(1)
		go func() {
			defer warm.Done()
			post(fmt.Sprintf(`{ case(id: %q) { id rootCause { id } } }`, gen.ID(1+i)))
		}()
	}
	warm.Wait()
	post(heavy[0])

	heavyClients := envInt(t, "ILGRAPH_FLOOD_CLIENTS", 48)
	const perClient, lookupClients = 4, 4
	var mu sync.Mutex
	var heavyOut, lookupOut []outcome
	var flood, lookups sync.WaitGroup
	start := make(chan struct{})
	for c := 0; c < heavyClients; c++ {
		flood.Add(1)
		go func() {
			defer flood.Done()
			<-start
			for i := 0; i < perClient; i++ {
				o := post(heavy[(c*perClient+i)%len(heavy)])
				mu.Lock()
				heavyOut = append(heavyOut, o)
				mu.Unlock()
			}
		}()
	}
	done := make(chan struct{})
	for c := 0; c < lookupClients; c++ {
		lookups.Add(1)
		go func() {
			defer lookups.Done()
			<-start
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				id := gen.ID(1 + (c*997+i*31)%cases)
				q := fmt.Sprintf(`{ case(id: %q) { id title { en } rootCause { id } components { id } } }`, id)
				if c%2 == 1 {
					q = "/cases/" + id // the JSON API
				}
				o := post(q)
				mu.Lock()
				lookupOut = append(lookupOut, o)
				mu.Unlock()
			}
		}()
	}
	began := time.Now()
	close(start)
	flood.Wait()
	elapsed := time.Since(began)
	close(done)
	lookups.Wait()

	bound := admission.Default.Wait + timeout + time.Second // a second of slack for the machine
	var answered, refused []time.Duration
	for _, o := range heavyOut {
		switch {
		case o.status == 200 && o.code == "":
			answered = append(answered, o.took)
		case o.status == 503 && o.code == "OVERLOADED" && o.retry != "":
			refused = append(refused, o.took)
		default:
			t.Errorf("an aggregate answered HTTP %d code %q Retry-After %q", o.status, o.code, o.retry)
		}
		if o.took > bound {
			t.Errorf("an aggregate took %v, more than the wait bound + the request timeout (%v)", o.took, bound)
		}
	}
	var lookupTimes []time.Duration
	for _, o := range lookupOut {
		if o.status != 200 || o.code != "" {
			t.Errorf("a lookup was refused or failed: HTTP %d code %q", o.status, o.code)
		}
		lookupTimes = append(lookupTimes, o.took)
	}
	if len(answered) == 0 || len(lookupTimes) == 0 {
		t.Fatalf("%d aggregates answered, %d lookups: nothing to compare", len(answered), len(lookupTimes))
	}
	pct := func(ds []time.Duration, p float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(p*float64(len(s))))]
	}
	t.Logf("flood of %d aggregates from %d clients over %d cases, %v: %d answered (p50 %v, p99 %v, max %v), %d refused 503 (max %v); %d lookups from %d clients meanwhile (p50 %v, p99 %v, max %v)",
		len(heavyOut), heavyClients, cases, elapsed.Round(time.Millisecond),
		len(answered), pct(answered, .5), pct(answered, .99), pct(answered, 1),
		len(refused), maxOf(refused),
		len(lookupTimes), lookupClients, pct(lookupTimes, .5), pct(lookupTimes, .99), pct(lookupTimes, 1))
	// Lookups never wait for the aggregates' slots: the server counts every
	// refusal by class, and the lookup class has none while the aggregate
	// class has exactly the 503s the clients saw. (How fast each class is
	// belongs to the benchmark, not to a timed test.)
	resp, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	refusedBy := map[string]float64{}
	for _, line := range strings.Split(string(metrics), "\n") {
		rest, ok := strings.CutPrefix(line, `ilgraph_admission_refused_total{class="`)
		if !ok {
			continue
		}
		class, _, _ := strings.Cut(rest, `"`)
		var v float64
		fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
		refusedBy[class] += v
	}
	if refusedBy["lookup"] != 0 || int(refusedBy["aggregate"]) != len(refused) {
		t.Errorf("refusals by class %v, want none for lookups and %d for aggregates", refusedBy, len(refused))
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
