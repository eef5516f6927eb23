package resolvers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/resolvers"
)

// scrape reads /metrics and parses it.
func scrape(t *testing.T, client *http.Client, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: HTTP %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// labelValues are the values one label takes across a family's series.
func labelValues(f *dto.MetricFamily, label string) []string {
	var out []string
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && !slices.Contains(out, l.GetValue()) {
				out = append(out, l.GetValue())
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestMetricsCardinality sends 10,000 requests, each with an operation name
// of its own, and checks that the number of series stays bounded: only
// allow-listed names become label values.
func TestMetricsCardinality(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	srv := httptest.NewServer(newHandler(db, resolvers.Options{Logger: quietLogger(),
		MetricOperations: []string{"CasePage", "Dashboard"}}))
	t.Cleanup(srv.Close)
	client := srv.Client()
	post := func(accept, body string) {
		req, _ := http.NewRequest("POST", srv.URL+"/graphql", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
	}

	const n = 10000
	var wg sync.WaitGroup
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				switch i % 4 {
				case 0, 1: // runs
					post("application/json", fmt.Sprintf(`{"query":"query Op%05d { __typename }"}`, i))
				case 2: // fails validation: 400 with graphql-response+json
					post("application/graphql-response+json", fmt.Sprintf(`{"query":"query Op%05d { nope%d }"}`, i, i))
				case 3: // runs, with several root fields, under a name meant to look like an allowed one
					post("application/json", fmt.Sprintf(`{"query":"query CasePage%d { __typename vocabularyVersion: __typename }"}`, i))
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	post("application/json", `{"query":"query CasePage { cases(first: 1) { totalCount } }"}`)
	post("application/json", `{"query":"query Dashboard { stats { cases } cases(first: 1) { totalCount } }"}`)
	post("application/json", `{"query":"{ __typename }"}`)

	families := scrape(t, client, srv.URL)
	// The bound of each of our families: the operation label takes at most
	// the allow-list plus anonymous, other and "-"; status a few HTTP codes;
	// root_field the schema's few dozen root fields plus multiple and "-".
	bounds := map[string]int{
		"ilgraph_graphql_requests_total":              5 * 4,
		"ilgraph_graphql_request_duration_seconds":    5,
		"ilgraph_graphql_root_field_duration_seconds": 40,
		"ilgraph_neo4j_duration_seconds":              40,
	}
	for name, bound := range bounds {
		f := families[name]
		if f == nil {
			t.Errorf("/metrics has no %s", name)
			continue
		}
		t.Logf("%s: %d series after %d requests with distinct operation names", name, len(f.GetMetric()), n)
		if len(f.GetMetric()) > bound {
			t.Errorf("%s: %d series, want at most %d", name, len(f.GetMetric()), bound)
		}
	}
	resp, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	samples := 0
	for line := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(line, "#") {
			samples++
		}
	}
	t.Logf("/metrics: %d families, %d sample lines, %d bytes", len(families), samples, len(raw))
	if samples > 1000 {
		t.Errorf("/metrics has %d sample lines, want at most 1000", samples)
	}

	if got, want := labelValues(families["ilgraph_graphql_requests_total"], "operation"), []string{"-", "CasePage", "Dashboard", "anonymous", "other"}; !slices.Equal(got, want) {
		t.Errorf("operation label values %v, want %v", got, want)
	}
	if got, want := labelValues(families["ilgraph_graphql_requests_total"], "status"), []string{"200", "400"}; !slices.Equal(got, want) {
		t.Errorf("status label values %v, want %v", got, want)
	}
	if got, want := labelValues(families["ilgraph_graphql_root_field_duration_seconds"], "root_field"), []string{"-", "__typename", "cases", "multiple"}; !slices.Equal(got, want) {
		t.Errorf("root_field label values %v, want %v", got, want)
	}
	for _, f := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes"} {
		if families[f] == nil {
			t.Errorf("/metrics has no %s (the Go and process collectors)", f)
		}
	}
	var other float64
	for _, m := range families["ilgraph_graphql_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "operation" && l.GetValue() == "other" {
				other += m.GetCounter().GetValue()
			}
		}
	}
	if other != n*3/4 {
		t.Errorf("%v requests counted as other, want %d", other, n*3/4)
	}
}
