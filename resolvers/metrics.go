package resolvers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ilgraph/ilgraph/internal/admission"
)

// DefaultMetricOperations are the operation names /metrics labels by
// default: those of our docs (docs/api.md), of the benchmark client
// (cmd/ilgraph-bench), of the explorer (explorer/assets/app) and of the
// GraphQL IDE's schema fetch. Any other name
// is counted as "other", so that clients cannot grow the number of series.
var DefaultMetricOperations = []string{
	"CasePage", "Dashboard", // docs/api.md
	"CaseById", "Page", "Mission", "Same", "Cooc", "Similar", // cmd/ilgraph-bench
	"Cases", "Graph", "Topic", "Live", "Vocabulary", "Suggest", "CaseJSON", "Explain", // the explorer (also CasePage, Dashboard)
	"IntrospectionQuery", // the IDE
}

// Label values besides the allow-listed operation names and the schema's
// root fields.
const (
	opAnonymous = "anonymous" // an operation without a name
	opOther     = "other"     // a named operation not in the allow-list
	opNone      = "-"         // no operation ran: the request was refused before
	fieldMulti  = "multiple"  // an operation selecting several root fields
)

var buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics are the server's Prometheus metrics, in a registry of their own
// (not the global default one, so that two handlers in one process — tests
// — do not collide). Every label is bounded: operation by the allow-list,
// root_field by the schema, status by HTTP, query by the fixed names the
// graph package gives its transactions.
type metrics struct {
	allowed  map[string]bool
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	fields   *prometheus.HistogramVec
	neo4j    *prometheus.HistogramVec
	refused  *prometheus.CounterVec
	reg      *prometheus.Registry
	handler  http.Handler
}

func newMetrics(operations []string) *metrics {
	m := &metrics{
		allowed: map[string]bool{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ilgraph_graphql_requests_total",
			Help: "GraphQL HTTP requests by operation name (allow-listed, else other) and HTTP status.",
		}, []string{"operation", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ilgraph_graphql_request_duration_seconds",
			Help:    "GraphQL request latency by operation name (allow-listed, else other).",
			Buckets: buckets,
		}, []string{"operation"}),
		fields: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ilgraph_graphql_root_field_duration_seconds",
			Help:    "GraphQL request latency by the operation's root field (multiple when it selects several).",
			Buckets: buckets,
		}, []string{"root_field"}),
		neo4j: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "ilgraph_neo4j_duration_seconds",
			Help:    "Time spent in Neo4j transactions by query.",
			Buckets: buckets,
		}, []string{"query"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ilgraph_admission_refused_total",
			Help: "Requests (GraphQL, the JSON API, MCP) refused for overload (503) by cost class and reason (queue_full, wait, deadline).",
		}, []string{"class", "reason"}),
	}
	for _, op := range operations {
		m.allowed[op] = true
	}
	// Series for every allowed name start at zero, so that they are listed
	// (and rate() works) before the first request.
	for _, op := range append([]string{opAnonymous, opOther}, operations...) {
		m.requests.WithLabelValues(op, "200")
		m.latency.WithLabelValues(op)
	}
	reg := prometheus.NewRegistry()
	m.reg = reg
	reg.MustRegister(m.requests, m.latency, m.fields, m.neo4j, m.refused,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// promhttp gathers into memory, then writes without holding any lock.
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return m
}

// operationLabel bounds a client's operation name by the allow-list.
func (m *metrics) operationLabel(name string) string {
	switch {
	case name == "":
		return opNone
	case name == opAnonymous || m.allowed[name]:
		return name
	default:
		return opOther
	}
}

// observeRequest counts one /graphql request: op is the client's operation
// name ("" when none ran), field the root field label.
func (m *metrics) observeRequest(op, field string, status int, d time.Duration) {
	label := m.operationLabel(op)
	m.requests.WithLabelValues(label, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(label).Observe(d.Seconds())
	if field == "" {
		field = opNone
	}
	m.fields.WithLabelValues(field).Observe(d.Seconds())
}

// watchAdmission exports the requests running and queued per cost class.
func (m *metrics) watchAdmission(c *admission.Controller) {
	for cl := admission.Class(0); cl < admission.NumClasses; cl++ {
		m.refused.WithLabelValues(cl.String(), "queue_full")
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

// rootFields are the names (not aliases) of the fields an operation selects
// at its root, through fragments. Validation has checked them against the
// schema, so they are bounded by it.
func rootFields(op *ast.OperationDefinition, frags ast.FragmentDefinitionList) map[string]bool {
	names := map[string]bool{}
	var walk func(set ast.SelectionSet, depth int)
	walk = func(set ast.SelectionSet, depth int) {
		if depth > 100 { // fragment cycles fail validation; stay safe anyway
			return
		}
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				names[s.Name] = true
			case *ast.InlineFragment:
				walk(s.SelectionSet, depth+1)
			case *ast.FragmentSpread:
				if f := frags.ForName(s.Name); f != nil {
					walk(f.SelectionSet, depth+1)
				}
			}
		}
	}
	if op != nil {
		walk(op.SelectionSet, 0)
	}
	return names
}

// rootFieldLabel is the root field's name, or multiple.
func rootFieldLabel(names map[string]bool) string {
	if len(names) > 1 {
		return fieldMulti
	}
	for n := range names {
		return n
	}
	return opNone
}
