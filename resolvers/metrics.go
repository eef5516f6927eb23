package resolvers

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"
)

// metrics keeps request counts and latency histograms per GraphQL operation
// and time spent in Neo4j per query kind, and serves them in the Prometheus
// text format.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]uint64 // operation, status
	latency  map[string]*histogram
	neo4j    map[string]*histogram
}

var buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type histogram struct {
	counts []uint64 // per bucket, cumulative at output
	sum    float64
	n      uint64
}

func (h *histogram) observe(v float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(buckets))
	}
	for i, b := range buckets {
		if v <= b {
			h.counts[i]++
			break
		}
	}
	h.sum += v
	h.n++
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, latency: map[string]*histogram{}, neo4j: map[string]*histogram{}}
}

func (m *metrics) observeRequest(op string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{op, strconv.Itoa(status)}]++
	h := m.latency[op]
	if h == nil {
		h = &histogram{}
		m.latency[op] = h
	}
	h.observe(d.Seconds())
}

func (m *metrics) observeNeo4j(what string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.neo4j[what]
	if h == nil {
		h = &histogram{}
		m.neo4j[what] = h
	}
	h.observe(d.Seconds())
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintln(w, "# HELP ilgraph_graphql_requests_total GraphQL HTTP requests by operation and status.")
	fmt.Fprintln(w, "# TYPE ilgraph_graphql_requests_total counter")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		fmt.Fprintf(w, "ilgraph_graphql_requests_total{operation=%q,status=%q} %d\n", k[0], k[1], m.requests[k])
	}
	writeHistograms(w, "ilgraph_graphql_request_duration_seconds", "GraphQL request latency by operation.", "operation", m.latency)
	writeHistograms(w, "ilgraph_neo4j_duration_seconds", "Time spent in Neo4j transactions by query.", "query", m.neo4j)
}

func writeHistograms(w http.ResponseWriter, name, help, label string, hs map[string]*histogram) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	names := make([]string, 0, len(hs))
	for k := range hs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		h := hs[k]
		var cum uint64
		for i, b := range buckets {
			cum += h.counts[i]
			fmt.Fprintf(w, "%s_bucket{%s=%q,le=%q} %d\n", name, label, k, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "%s_bucket{%s=%q,le=\"+Inf\"} %d\n", name, label, k, h.n)
		fmt.Fprintf(w, "%s_sum{%s=%q} %g\n%s_count{%s=%q} %d\n", name, label, k, h.sum, name, label, k, h.n)
	}
}
