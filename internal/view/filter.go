package view

import "github.com/ilgraph/ilgraph"

// Filter selects cases the way the JSON API's query parameters and the MCP
// tools' arguments do: terms of each kind (of a kind a case has one of — root
// cause, organization — any of those given; of the other kinds all of them),
// a date range, severities and free text.
type Filter struct {
	Terms      map[ilgraph.Kind][]string // by kind, every kind of ilgraph.Kinds
	Severities []string
	From, To   string
	Text       string
}

// CaseFilter returns the core's filter.
func (f Filter) CaseFilter() ilgraph.CaseFilter {
	out := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}, DateFrom: f.From, DateTo: f.To, Text: f.Text, Severities: f.Severities}
	for _, info := range ilgraph.Kinds {
		ids := f.Terms[info.Kind]
		switch {
		case len(ids) == 0:
		case info.One:
			out.Tags[info.Kind] = ilgraph.TermMatch{AnyOf: ids}
		default:
			out.Tags[info.Kind] = ilgraph.TermMatch{AllOf: ids}
		}
	}
	return out
}
