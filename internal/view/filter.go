package view

import "github.com/ilgraph/ilgraph"

// Filter selects cases the way the JSON API's query parameters and the MCP
// tools' arguments do: terms of each kind (root cause and organization: any
// of those given; the other kinds: all of them), a date range, severities
// and free text.
type Filter struct {
	RootCause    []string
	Components   []string
	Symptoms     []string
	Contributing []string
	Domains      []string
	Orgs         []string
	Severities   []string
	From, To     string
	Text         string
}

// CaseFilter returns the core's filter.
func (f Filter) CaseFilter() ilgraph.CaseFilter {
	out := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}, DateFrom: f.From, DateTo: f.To, Text: f.Text, Severities: f.Severities}
	if len(f.RootCause) > 0 {
		out.Tags[ilgraph.KindRootCause] = ilgraph.TermMatch{AnyOf: f.RootCause}
	}
	if len(f.Orgs) > 0 {
		out.Tags[ilgraph.KindOrg] = ilgraph.TermMatch{AnyOf: f.Orgs}
	}
	for k, ids := range map[ilgraph.Kind][]string{ilgraph.KindComponent: f.Components, ilgraph.KindSymptom: f.Symptoms,
		ilgraph.KindContributing: f.Contributing, ilgraph.KindDomain: f.Domains} {
		if len(ids) > 0 {
			out.Tags[k] = ilgraph.TermMatch{AllOf: ids}
		}
	}
	return out
}
