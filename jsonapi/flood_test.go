package jsonapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/resolvers"
)

// floodAnswer is what a flood client reads of an answer.
type floodAnswer struct {
	path   string
	status int
	code   string // the error body's code; "" for none
	msg    string
	retry  string
}

// TestFloodThroughJSONAPI floods the JSON API's heavy routes — similar
// cases, suggestions, topic pages — from 32 client addresses at once
// while 4 other clients look cases and the vocabulary up, through the
// per-client rate limit as ilgraph serve runs it (which does not stop a
// flood from many addresses). The similarity and aggregate classes have
// one slot each and no queue. First with those slots held (the classes
// busy): every heavy request is refused, 503 OVERLOADED with Retry-After
// and a message naming its class; then with them free: every heavy
// request is answered or refused so, at least one answered. Lookups are
// answered throughout, and /metrics counts exactly the refusals the
// clients saw, for the JSON API door, none of them lookups.
func TestFloodThroughJSONAPI(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	core := apitest.Core(db)
	var cfg admission.Config
	cfg.Limits[admission.Similarity] = admission.Limit{InFlight: 1, Queue: -1}
	cfg.Limits[admission.Aggregate] = admission.Limit{InFlight: 1, Queue: -1}
	adm := admission.New(cfg)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quiet(), Admitter: adm})
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet(), Admitter: adm},
		Shell: httpapi.Options{Routes: apitest.JSONAPI(nil, api)}})
	srv := httptest.NewServer(apitest.ManyClients().Middleware(h))
	defer srv.Close()
	ids := seedIDs(t)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	get := func(addr, path string) floodAnswer {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := client.Do(req)
		if err != nil {
			return floodAnswer{path: path, status: -1, msg: err.Error()}
		}
		defer resp.Body.Close()
		var body struct {
			Error struct{ Code, Message string }
		}
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &body)
		return floodAnswer{path, resp.StatusCode, body.Error.Code, body.Error.Message, resp.Header.Get("Retry-After")}
	}
	heavy := []struct {
		path  string
		class admission.Class
	}{
		{"/cases/%s/similar?k=10", admission.Similarity},
		{"/suggest?q=connection+pool+exhausted+after+a+deploy", admission.Similarity},
		{"/topics/component/message-broker?limit=5&cooccurring=10", admission.Aggregate},
		{"/topics/root_cause/capacity?limit=5&cooccurring=10", admission.Aggregate},
	}
	const clients, perClient = 32, 4 // under the rate limit's burst: none is 429
	flood := func() apitest.FloodAnswers[floodAnswer] {
		return apitest.Flood(clients, perClient, 4,
			func(c, i int) floodAnswer {
				p := heavy[(c+i)%len(heavy)].path
				if strings.Contains(p, "%s") {
					p = fmt.Sprintf(p, ids[(c*perClient+i)%len(ids)])
				}
				return get(apitest.ClientAddr(c), p)
			},
			func(c, i int) floodAnswer {
				addr := apitest.ClientAddr(1<<16 + c<<12 + i) // a new address each time: lookups are never rate-limited
				if i%5 == 4 {
					return get(addr, "/vocab")
				}
				return get(addr, "/cases/"+ids[(c*31+i)%len(ids)])
			})
	}
	checkLookups := func(phase string, out []floodAnswer) {
		t.Helper()
		for _, a := range out {
			if a.status != 200 {
				t.Errorf("%s: lookup %s answered HTTP %d %s %s", phase, a.path, a.status, a.code, a.msg)
			}
		}
	}
	refusal := func(a floodAnswer) bool {
		class := "similarity"
		if strings.HasPrefix(a.path, "/topics/") {
			class = "aggregate"
		}
		return a.status == 503 && a.code == "OVERLOADED" && a.retry == "2" &&
			strings.Contains(a.msg, "busy with "+class+" requests")
	}

	// The classes busy: every slot held.
	var holds []func()
	for _, cl := range []admission.Class{admission.Similarity, admission.Aggregate} {
		r, err := adm.Acquire(context.Background(), cl)
		if err != nil {
			t.Fatal(err)
		}
		holds = append(holds, r)
	}
	busy := flood()
	for _, a := range busy.Heavy {
		if !refusal(a) {
			t.Errorf("with its class busy, %s answered HTTP %d %s %q Retry-After %q; want 503 OVERLOADED naming the class, Retry-After 2", a.path, a.status, a.code, a.msg, a.retry)
		}
	}
	checkLookups("with the heavy classes busy", busy.Lookups)
	for _, r := range holds {
		r()
	}

	// The classes free: the flood competes for one slot each.
	free := flood()
	answered, refused := 0, len(busy.Heavy)
	for _, a := range free.Heavy {
		switch {
		case a.status == 200:
			answered++
		case refusal(a):
			refused++
		default:
			t.Errorf("in the flood, %s answered HTTP %d %s %q", a.path, a.status, a.code, a.msg)
		}
	}
	checkLookups("in the flood", free.Lookups)
	if answered == 0 {
		t.Errorf("no heavy request of %d answered with the classes free", len(free.Heavy))
	}
	t.Logf("%d heavy requests from %d addresses refused while their classes were busy; then %d answered and %d refused; %d lookups answered",
		len(busy.Heavy), clients, answered, refused-len(busy.Heavy), len(busy.Lookups)+len(free.Lookups))
	by := refusedMetrics(t, client, srv.URL)
	if len(by) != 2 || by["similarity jsonapi"]+by["aggregate jsonapi"] != refused {
		t.Errorf("/metrics counts refusals %v; want %d similarity and aggregate ones at the jsonapi door, none else", by, refused)
	}
	if adm.Running(admission.Similarity)+adm.Running(admission.Aggregate)+adm.Running(admission.Lookup) != 0 {
		t.Error("slots not given back after the flood")
	}
}

// seedIDs are the ids of the seed cases, read from their files.
func seedIDs(t *testing.T) []string {
	t.Helper()
	names, err := os.ReadDir(filepath.Join(corpus.Seeds(t), "cases"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range names {
		if id, ok := strings.CutSuffix(n.Name(), ".json"); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Fatal("no seed cases")
	}
	return ids
}

// refusedMetrics is ilgraph_admission_refused_total on /metrics, summed
// by "class door", the counts that are not zero.
func refusedMetrics(t *testing.T, client *http.Client, url string) map[string]int {
	t.Helper()
	resp, err := client.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	by := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, `ilgraph_admission_refused_total{class="`)
		if !ok {
			continue
		}
		class, rest, _ := strings.Cut(rest, `"`)
		_, rest, _ = strings.Cut(rest, `door="`)
		door, _, _ := strings.Cut(rest, `"`)
		var v float64
		fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
		if v != 0 {
			by[class+" "+door] += int(v)
		}
	}
	return by
}
