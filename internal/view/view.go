// Package view holds the JSON shapes the JSON API and the MCP server answer
// with, and their conversion from the application core's results. Both
// front doors use it, so the same question gets the same answer through
// either; field names follow the incident library's JSON format (snake_case).
// The jsonschema tags describe fields in the MCP tools' schemas.
package view

import (
	"context"
	"net/url"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// CasePath is the JSON API path of a case.
func CasePath(id string) string { return "/cases/" + url.PathEscape(id) }

// CaseSummary is a case as lists show it: its identity, its title and
// summary, and its tags. The whole case is at URL.
type CaseSummary struct {
	ID           string       `json:"id" jsonschema:"case id, e.g. IL-0282"`
	URL          string       `json:"url" jsonschema:"the JSON API path of the whole case"`
	Org          string       `json:"org" jsonschema:"organization name"`
	OrgSlug      string       `json:"org_slug" jsonschema:"organization id"`
	Date         string       `json:"date" jsonschema:"incident date, YYYY-MM-DD"`
	Title        ilgraph.Text `json:"title" jsonschema:"title in English and Korean"`
	Summary      ilgraph.Text `json:"summary" jsonschema:"summary in English and Korean"`
	Severity     string       `json:"severity,omitempty"`
	RootCause    string       `json:"root_cause" jsonschema:"root cause term id"`
	Components   []string     `json:"components" jsonschema:"component term ids"`
	Symptoms     []string     `json:"symptoms" jsonschema:"symptom term ids"`
	Contributing []string     `json:"contributing" jsonschema:"contributing factor term ids"`
	Domain       []string     `json:"domain" jsonschema:"domain term ids"`
}

// Summary returns a case's summary.
func Summary(c *ilgraph.Case) CaseSummary {
	return CaseSummary{ID: c.ID, URL: CasePath(c.ID), Org: c.Org, OrgSlug: c.OrgSlug, Date: c.Date, Title: c.Title, Summary: c.Summary,
		Severity: c.Severity, RootCause: c.RootCause, Components: list(c.Components), Symptoms: list(c.Symptoms),
		Contributing: list(c.Contributing), Domain: list(c.Domain)}
}

func summaries(cs []*ilgraph.Case) []CaseSummary {
	out := make([]CaseSummary, len(cs))
	for i, c := range cs {
		out[i] = Summary(c)
	}
	return out
}

func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CasePage is one page of a case list.
type CasePage struct {
	Total      int           `json:"total" jsonschema:"how many cases the filter selects in all"`
	Cases      []CaseSummary `json:"cases"`
	NextCursor string        `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
	Warnings   []Warning     `json:"warnings,omitempty" jsonschema:"terms of the filter that were not ids: resolved, or matching nothing"`
	WordForms  []WordForms   `json:"word_forms,omitempty" jsonschema:"how the search's English words were matched: per word, the forms of it the cases found contain (certificate: certificate, certificates); absent without a search"`
}

// WordForms are the forms of one searched word that the cases found
// contain (explore.WordForms).
type WordForms struct {
	Word  string   `json:"word" jsonschema:"the word as searched, lower-cased"`
	Forms []string `json:"forms" jsonschema:"its forms in the cases found: the word itself first when it occurs, then the others alphabetically"`
}

// WordFormsOf converts the core's word forms; nil for none.
func WordFormsOf(ws []explore.WordForms) []WordForms {
	var out []WordForms
	for _, w := range ws {
		out = append(out, WordForms{Word: w.Word, Forms: w.Forms})
	}
	return out
}

// Page converts a case list.
func Page(l *explore.CaseList) *CasePage {
	p := &CasePage{Total: l.TotalCount, Cases: summaries(l.Cases)}
	if l.PageInfo.HasNextPage {
		p.NextCursor = l.PageInfo.EndCursor
	}
	return p
}

// Term is a vocabulary term or an organization, with how many cases have it.
type Term struct {
	Kind        ilgraph.Kind `json:"kind" jsonschema:"root_cause, component, symptom, contributing, domain, mechanism or org"`
	ID          string       `json:"id"`
	En          string       `json:"en" jsonschema:"English label"`
	Ko          string       `json:"ko,omitempty" jsonschema:"Korean label"`
	Description string       `json:"description,omitempty"`
	Cases       int          `json:"cases" jsonschema:"how many cases have the term"`
}

// TermCount is a term with a number of cases.
type TermCount struct {
	Kind  ilgraph.Kind `json:"kind"`
	ID    string       `json:"id"`
	Label string       `json:"label" jsonschema:"English label"`
	Count int          `json:"count"`
}

// Vocabulary is every term by kind.
type Vocabulary struct {
	Kinds map[ilgraph.Kind][]Term `json:"kinds" jsonschema:"terms per kind, by id"`
}

// Vocab reads the vocabulary (of the given kinds, all when none) with case
// counts.
func Vocab(ctx context.Context, core *explore.Service, kinds ...ilgraph.Kind) (*Vocabulary, error) {
	ts, err := core.Vocabulary(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	keys := make([]ilgraph.TermKey, len(ts))
	for i, t := range ts {
		keys[i] = ilgraph.TermKey{Kind: t.Kind, ID: t.ID}
	}
	counts, err := core.TermCaseCounts(ctx, keys)
	if err != nil {
		return nil, err
	}
	v := &Vocabulary{Kinds: map[ilgraph.Kind][]Term{}}
	if len(kinds) == 0 {
		kinds = ilgraph.AllKinds
	}
	for _, k := range kinds {
		v.Kinds[k] = []Term{}
	}
	for i, t := range ts {
		v.Kinds[t.Kind] = append(v.Kinds[t.Kind], Term{Kind: t.Kind, ID: t.ID, En: t.En, Ko: t.Ko, Description: t.Description, Cases: counts[i]})
	}
	return v, nil
}

// Topic is one term's page: the term, the terms its cases also have (per
// kind, by count) and its newest cases.
type Topic struct {
	Term        Term                         `json:"term"`
	Cooccurring map[ilgraph.Kind][]TermCount `json:"cooccurring" jsonschema:"per kind, the terms the term's cases also have, by count"`
	Cases       []CaseSummary                `json:"cases" jsonschema:"the term's newest cases"`
	NextCursor  string                       `json:"next_cursor,omitempty" jsonschema:"cursor of the next page of the term's cases"`
}

// TopicOf answers a topic page: the term (ENOTFOUND when unknown), the top
// cooccurring terms of every kind and a page of its cases, newest first.
// The doors' defaults are the core's: explore.DefaultTopicCases and
// explore.DefaultCooccurring.
func TopicOf(ctx context.Context, core *explore.Service, key ilgraph.TermKey, cases, cooccurring int) (*Topic, error) {
	t, err := core.Term(ctx, key)
	if err != nil {
		return nil, err
	}
	counts, err := core.TermCaseCounts(ctx, []ilgraph.TermKey{key})
	if err != nil {
		return nil, err
	}
	first := cases
	list, err := core.TermCases(ctx, key, explore.CaseQuery{Sort: ilgraph.SortDateDesc, Page: explore.Page{First: &first}})
	if err != nil {
		return nil, err
	}
	out := &Topic{Term: Term{Kind: key.Kind, ID: t.ID, En: t.En, Ko: t.Ko, Description: t.Description, Cases: counts[0]},
		Cooccurring: map[ilgraph.Kind][]TermCount{}, Cases: summaries(list.Cases)}
	if list.PageInfo.HasNextPage {
		out.NextCursor = list.PageInfo.EndCursor
	}
	var all []ilgraph.TermCount
	for _, k := range ilgraph.AllKinds {
		tcs, err := core.Cooccurring(ctx, key, k, cooccurring)
		if err != nil {
			return nil, err
		}
		all = append(all, tcs...)
	}
	labels, err := labelsOf(ctx, core, termKeys(all))
	if err != nil {
		return nil, err
	}
	for _, k := range ilgraph.AllKinds {
		out.Cooccurring[k] = []TermCount{}
	}
	for _, tc := range all {
		out.Cooccurring[tc.Kind] = append(out.Cooccurring[tc.Kind], TermCount{Kind: tc.Kind, ID: tc.ID, Label: labels[ilgraph.TermKey{Kind: tc.Kind, ID: tc.ID}], Count: tc.Count})
	}
	return out, nil
}

func termKeys(tcs []ilgraph.TermCount) []ilgraph.TermKey {
	out := make([]ilgraph.TermKey, len(tcs))
	for i, tc := range tcs {
		out[i] = ilgraph.TermKey{Kind: tc.Kind, ID: tc.ID}
	}
	return out
}

// labelsOf returns the English labels of terms in one batch.
func labelsOf(ctx context.Context, core *explore.Service, keys []ilgraph.TermKey) (map[ilgraph.TermKey]string, error) {
	out := make(map[ilgraph.TermKey]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	ts, err := core.Terms(ctx, keys)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		out[k] = ts[i].En
	}
	return out, nil
}

// Warning says that a term in the request was not an id: resolved to one
// (Resolved), or kept as given, matching nothing.
type Warning struct {
	Field       string   `json:"field" jsonschema:"where the value was: the kind of the terms it was given among (root_cause, component, …, org), or exclude_orgs"`
	Value       string   `json:"value" jsonschema:"the value as given"`
	Message     string   `json:"message"`
	Resolved    string   `json:"resolved,omitempty" jsonschema:"the id used instead; absent when the value was kept"`
	Suggestions []string `json:"suggestions,omitempty" jsonschema:"ids it may have meant, nearest first"`
}

// Warnings converts the core's warnings (nil when there are none). The JSON
// API and MCP answer with the same warnings, so a warning names its field
// the same way through both: by the kind of the terms it was among
// (root_cause, component, …, org; exclude_orgs), the name the answers give
// the kind.
func Warnings(ws []explore.Warning) []Warning {
	var out []Warning
	for _, w := range ws {
		out = append(out, Warning{Field: ilgraph.FieldName(w.Field, warningFields), Value: w.Value, Message: w.Message, Resolved: w.Resolved, Suggestions: w.Suggestions})
	}
	return out
}

// warningFields names the field keys of the core's warnings (see Warnings).
var warningFields = func() map[string]string {
	names := map[string]string{ilgraph.FieldFilterExcludeOrgs: "exclude_orgs"}
	for _, info := range ilgraph.Kinds {
		for _, m := range []string{"", ilgraph.MatchAnyOf, ilgraph.MatchAllOf} {
			names[ilgraph.FieldFilterTerms(info.Kind, m)] = string(info.Kind)
		}
		names[ilgraph.FieldProfileTerms(info.Kind)] = string(info.Kind)
	}
	return names
}()
