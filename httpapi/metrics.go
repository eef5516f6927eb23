package httpapi

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ilgraph/ilgraph/internal/admission"
)

var buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics are the shell's Prometheus metrics — the store's timings, the
// admission controller's, the Go runtime's and the process's — and the
// doors' own, in a registry of their own (not the global default one, so
// that two handlers in one process — tests — do not collide). Every label
// is bounded: query by the fixed names the graph package gives its
// transactions, class and reason by the admission package, door by the
// names of the doors the server mounts.
type metrics struct {
	neo4j   *prometheus.HistogramVec
	refused *prometheus.CounterVec
	// authFailures counts refused authentications by reason:
	// invalid_token (a credential that did not authenticate),
	// missing_token (none, where one is needed), rate_limited (a client
	// blocked after too many failures).
	authFailures *prometheus.CounterVec
	reg          *prometheus.Registry
	handler      http.Handler
}

func newMetrics(doors []prometheus.Collector) *metrics {
	m := &metrics{
		neo4j: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ilgraph_neo4j_duration_seconds",
			Help:    "Time spent in Neo4j transactions by query.",
			Buckets: buckets,
		}, []string{"query"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ilgraph_admission_refused_total",
			Help: "Requests refused for overload (503 OVERLOADED) by cost class, front door (graphql, jsonapi, mcp) and reason (queue_full, wait, deadline).",
		}, []string{"class", "door", "reason"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ilgraph_auth_failures_total",
			Help: "Requests refused for authentication (401, or 429 for a client with too many failures) by reason: invalid_token, missing_token, rate_limited.",
		}, []string{"reason"}),
	}
	for _, reason := range []string{"invalid_token", "missing_token", "rate_limited"} {
		m.authFailures.WithLabelValues(reason)
	}
	reg := prometheus.NewRegistry()
	m.reg = reg
	reg.MustRegister(m.neo4j, m.refused, m.authFailures,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(doors...)
	// promhttp gathers into memory, then writes without holding any lock.
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return m
}

// watchAdmission exports the requests running and queued per cost class,
// and starts every class's refusals at every door at zero (so that a rate
// over them is defined before the first refusal).
func (m *metrics) watchAdmission(c *admission.Controller, doors []string) {
	for cl := admission.Class(0); cl < admission.NumClasses; cl++ {
		for _, door := range doors {
			for _, reason := range []string{"queue_full", "wait", "deadline"} {
				m.refused.WithLabelValues(cl.String(), door, reason)
			}
		}
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "ilgraph_admission_running", Help: "Requests running (every front door), by cost class.",
				ConstLabels: prometheus.Labels{"class": cl.String()},
			}, func() float64 { return float64(c.Running(cl)) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "ilgraph_admission_queued", Help: "Requests waiting for a slot (every front door), by cost class.",
				ConstLabels: prometheus.Labels{"class": cl.String()},
			}, func() float64 { return float64(c.Queued(cl)) }))
	}
}

func (m *metrics) observeNeo4j(what string, d time.Duration) {
	m.neo4j.WithLabelValues(what).Observe(d.Seconds())
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }
