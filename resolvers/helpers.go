package resolvers

import (
	"context"
	"strings"
	"unicode/utf16"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// toFilter converts the GraphQL filter input into the domain filter.
func toFilter(f *CaseFilter) ilgraph.CaseFilter {
	out := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}}
	if f == nil {
		return out
	}
	if len(f.RootCauses) > 0 {
		out.Tags[ilgraph.KindRootCause] = ilgraph.TermMatch{AnyOf: f.RootCauses}
	}
	if len(f.Orgs) > 0 {
		out.Tags[ilgraph.KindOrg] = ilgraph.TermMatch{AnyOf: f.Orgs}
	}
	for k, m := range map[ilgraph.Kind]*TermMatch{
		ilgraph.KindComponent: f.Components, ilgraph.KindSymptom: f.Symptoms,
		ilgraph.KindContributing: f.Contributing, ilgraph.KindDomain: f.Domains, ilgraph.KindMechanism: f.Mechanisms,
	} {
		if m != nil && (len(m.AnyOf) > 0 || len(m.AllOf) > 0) {
			out.Tags[k] = ilgraph.TermMatch{AnyOf: m.AnyOf, AllOf: m.AllOf}
		}
	}
	out.ExcludeOrgs = f.ExcludeOrgs
	out.Severities = f.Severities
	out.ReviewedOnly = f.ReviewedOnly != nil && *f.ReviewedOnly
	out.DateFrom = deref(f.DateFrom)
	out.DateTo = deref(f.DateTo)
	out.Text = deref(f.Text)
	if f.TextMode != nil {
		out.TextMode = *f.TextMode
	}
	if f.TextFields != nil {
		out.TextFields = *f.TextFields
	}
	return out
}

func caseQuery(filter *CaseFilter, sort *ilgraph.CaseSort, first *int, after *string) explore.CaseQuery {
	q := explore.CaseQuery{Filter: toFilter(filter), Page: explore.Page{First: first, After: deref(after)}}
	if sort != nil {
		q.Sort = *sort
	}
	return q
}

// similarityQuery turns GraphQL ranking arguments into the core's query.
func similarityQuery(k *int, weights *WeightsInput, rarity *bool, filter *CaseFilter, minScore *float64) explore.SimilarityQuery {
	q := explore.SimilarityQuery{K: intOr(k, explore.DefaultSimilarK), Filter: toFilter(filter), Weights: ilgraph.Weights{}}
	if weights != nil {
		for k, v := range map[ilgraph.Kind]*float64{
			ilgraph.KindRootCause: weights.RootCause, ilgraph.KindComponent: weights.Component, ilgraph.KindSymptom: weights.Symptom,
			ilgraph.KindContributing: weights.Contributing, ilgraph.KindDomain: weights.Domain, ilgraph.KindOrg: weights.Org,
			ilgraph.KindMechanism: weights.Mechanism, ilgraph.WeightText: weights.Text,
		} {
			if v != nil {
				q.Weights[k] = *v
			}
		}
	}
	q.Rarity = rarity
	if minScore != nil {
		q.MinScore = *minScore
	}
	return q
}

func weightsOut(w ilgraph.Weights) *Weights {
	return &Weights{RootCause: w[ilgraph.KindRootCause], Component: w[ilgraph.KindComponent], Symptom: w[ilgraph.KindSymptom],
		Contributing: w[ilgraph.KindContributing], Domain: w[ilgraph.KindDomain], Org: w[ilgraph.KindOrg], Mechanism: w[ilgraph.KindMechanism], Text: w[ilgraph.WeightText]}
}

func profileOf(p ProfileInput) explore.Profile {
	return explore.Profile{RootCause: deref(p.RootCause), Components: p.Components, Symptoms: p.Symptoms,
		Contributing: p.Contributing, Domains: p.Domains, Mechanisms: p.Mechanisms, Org: deref(p.Org)}
}

// terms resolves term ids of one kind through the request's loaders.
func (r *Resolver) terms(ctx context.Context, k ilgraph.Kind, ids []string) ([]ilgraph.Term, error) {
	l := r.loaders(ctx)
	if k != ilgraph.KindOrg {
		// Vocabulary terms: one lookup in the core's snapshot for the list.
		keys := make([]ilgraph.TermKey, len(ids))
		for i, id := range ids {
			keys[i] = ilgraph.TermKey{Kind: k, ID: id}
		}
		return r.Core.Terms(ctx, keys)
	}
	ts := make([]ilgraph.Term, len(ids))
	for i, id := range ids {
		t, err := l.Term(ctx, ilgraph.TermKey{Kind: k, ID: id})
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	return ts, nil
}

func (r *Resolver) term(ctx context.Context, k ilgraph.Kind, id string) (*ilgraph.Term, error) {
	t, err := r.loaders(ctx).Term(ctx, ilgraph.TermKey{Kind: k, ID: id})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// cases resolves case ids through the request's loader, dropping unknown ids.
func (r *Resolver) cases(ctx context.Context, ids []string) ([]ilgraph.Case, error) {
	if len(ids) == 0 {
		return []ilgraph.Case{}, nil
	}
	cs, err := r.loaders(ctx).Case.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ilgraph.Case, 0, len(cs))
	for _, c := range cs {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}

// primeCases lets field resolvers of a page's cases find them without a
// round trip.
func (r *Resolver) primeCases(ctx context.Context, cs []*ilgraph.Case) {
	l := r.loaders(ctx)
	for _, c := range cs {
		l.Case.Prime(c.ID, c)
	}
}

// notFoundIsNull turns the core's ENOTFOUND into GraphQL's null for
// nullable lookups (case, term).
func notFoundIsNull[T any](v *T, err error) (*T, error) {
	if ilgraph.ErrorCode(err) == ilgraph.ENOTFOUND {
		return nil, nil
	}
	return v, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isTrue is an optional Boolean argument, false when left out.
func isTrue(b *bool) bool { return b != nil && *b }

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// measured hides a quantile of a distribution with no measured case.
func measured(d *ilgraph.Distribution, v int) *int {
	if d.Measured == 0 {
		return nil
	}
	return &v
}

func minutes(s string) *int {
	if s == "" {
		return nil
	}
	m, err := ilgraph.ParseDuration(s)
	if err != nil {
		return nil
	}
	return &m
}

// nodeKind maps the GraphQL node kind to the core's.
func nodeKind(k NodeKind) string {
	if k == NodeKindCase {
		return ilgraph.NodeKindCase
	}
	return strings.ToLower(string(k))
}

// suggestionsOf lists a result's suggestions of one kind, never null.
func suggestionsOf(r *suggest.Result, k ilgraph.Kind) []suggest.Suggestion {
	return append([]suggest.Suggestion{}, r.ByKind[k]...)
}

// CaseEdge is one case of a case list with its place in the list, from
// which its cursor and snippets come.
type CaseEdge struct {
	Cursor string
	Node   *ilgraph.Case
	list   *explore.CaseList
	index  int
}

// utf16Offsets turns byte ranges of text into UTF-16 code unit ranges, the
// string indexes of JavaScript.
func utf16Offsets(text string, spans []explore.Span) []Highlight {
	out := make([]Highlight, 0, len(spans))
	units, at := 0, 0 // UTF-16 units before byte offset at
	advance := func(to int) {
		for _, r := range text[at:to] {
			units += utf16.RuneLen(r)
		}
		at = to
	}
	for _, s := range spans {
		if s.Start < at || s.End < s.Start || s.End > len(text) {
			continue // not in order: never produced by the core
		}
		advance(s.Start)
		start := units
		advance(s.End)
		out = append(out, Highlight{Start: start, End: units})
	}
	return out
}
