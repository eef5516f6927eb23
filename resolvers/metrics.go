package resolvers

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
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

// metrics are the GraphQL door's Prometheus metrics, served on the shell's
// /metrics (Handler.Collectors). Every label is bounded: operation by the
// allow-list, root_field by the schema, status by HTTP.
type metrics struct {
	allowed  map[string]bool
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	fields   *prometheus.HistogramVec
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

// collectors are the metrics, for a registry.
func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.latency, m.fields}
}

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
