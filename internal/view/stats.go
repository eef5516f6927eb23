package view

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// YearCount is a year with a number of cases.
type YearCount struct {
	Year  int `json:"year"`
	Count int `json:"count"`
}

// CauseComponent is a root cause–component pair with how many cases have
// both.
type CauseComponent struct {
	RootCause string `json:"root_cause" jsonschema:"root cause term id"`
	Component string `json:"component" jsonschema:"component term id"`
	Count     int    `json:"count"`
}

// Distribution is a time-to-resolve distribution in minutes: the cases in
// the group, how many of them give a resolution time (measured), and
// nearest-rank quantiles over those (null when none does).
type Distribution struct {
	Cases    int      `json:"cases"`
	Measured int      `json:"measured" jsonschema:"cases whose source gives a resolution time"`
	Min      *int     `json:"min_minutes"`
	P25      *int     `json:"p25_minutes"`
	Median   *int     `json:"median_minutes"`
	P75      *int     `json:"p75_minutes"`
	P90      *int     `json:"p90_minutes"`
	Max      *int     `json:"max_minutes"`
	Mean     *float64 `json:"mean_minutes"`
}

// TermDistribution is the time to resolve of the cases with one term.
type TermDistribution struct {
	Feature
	Distribution
}

// Stats are corpus statistics over the cases a filter selects.
type Stats struct {
	Cases                    int                `json:"cases"`
	Organizations            int                `json:"organizations"`
	Bilingual                int                `json:"bilingual" jsonschema:"cases that give every text in Korean too"`
	Reviewed                 int                `json:"reviewed" jsonschema:"cases a second reader has checked against their source"`
	PerYear                  []YearCount        `json:"per_year"`
	PerRootCause             []TermCount        `json:"per_root_cause"`
	PerOrganization          []TermCount        `json:"per_organization"`
	PerDomain                []TermCount        `json:"per_domain"`
	TopCauseComponentPairs   []CauseComponent   `json:"top_cause_component_pairs"`
	TimeToResolve            Distribution       `json:"time_to_resolve"`
	TimeToResolveByRootCause []TermDistribution `json:"time_to_resolve_by_root_cause" jsonschema:"by median, longest first"`
	TimeToResolveByFactor    []TermDistribution `json:"time_to_resolve_by_factor" jsonschema:"by median, longest first"`
}

// StatsOf converts corpus statistics, with the terms' labels.
func StatsOf(ctx context.Context, core *explore.Service, st *ilgraph.Stats) (*Stats, error) {
	var keys []ilgraph.TermKey
	for _, tcs := range [][]ilgraph.TermCount{st.PerRootCause, st.PerOrg, st.PerDomain} {
		keys = append(keys, termKeys(tcs)...)
	}
	for _, gs := range [][]ilgraph.GroupDistribution{st.ResolveByCause, st.ResolveByFactor} {
		for _, g := range gs {
			keys = append(keys, ilgraph.TermKey{Kind: g.Term.Kind, ID: g.Term.ID})
		}
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	counts := func(tcs []ilgraph.TermCount) []TermCount {
		out := []TermCount{}
		for _, tc := range tcs {
			out = append(out, TermCount{Kind: tc.Kind, ID: tc.ID, Label: labels[ilgraph.TermKey{Kind: tc.Kind, ID: tc.ID}], Count: tc.Count})
		}
		return out
	}
	groups := func(gs []ilgraph.GroupDistribution) []TermDistribution {
		out := []TermDistribution{}
		for _, g := range gs {
			k := ilgraph.TermKey{Kind: g.Term.Kind, ID: g.Term.ID}
			out = append(out, TermDistribution{Feature: Feature{Kind: k.Kind, ID: k.ID, Label: labels[k]}, Distribution: distributionOf(g.Distribution)})
		}
		return out
	}
	out := &Stats{Cases: st.Cases, Organizations: st.Organizations, Bilingual: st.Bilingual, Reviewed: st.Reviewed,
		PerYear: []YearCount{}, PerRootCause: counts(st.PerRootCause), PerOrganization: counts(st.PerOrg), PerDomain: counts(st.PerDomain),
		TopCauseComponentPairs: []CauseComponent{}, TimeToResolve: distributionOf(st.ResolveAll),
		TimeToResolveByRootCause: groups(st.ResolveByCause), TimeToResolveByFactor: groups(st.ResolveByFactor)}
	for _, y := range st.PerYear {
		out.PerYear = append(out.PerYear, YearCount{Year: y.Year, Count: y.Count})
	}
	for _, p := range st.TopPairs {
		out.TopCauseComponentPairs = append(out.TopCauseComponentPairs, CauseComponent{RootCause: p.A.ID, Component: p.B.ID, Count: p.Count})
	}
	return out, nil
}

func distributionOf(d ilgraph.Distribution) Distribution {
	out := Distribution{Cases: d.Cases, Measured: d.Measured}
	if d.Measured > 0 {
		out.Min, out.P25, out.Median, out.P75, out.P90, out.Max = &d.Min, &d.P25, &d.Median, &d.P75, &d.P90, &d.Max
		out.Mean = &d.Mean
	}
	return out
}
