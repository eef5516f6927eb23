package importer

import "github.com/ilgraph/ilgraph"

// Output is an imported case as written: the fields an importer fills, in
// the format's order, without the empty ones.
type Output struct {
	ID            string                 `json:"id"`
	Org           string                 `json:"org"`
	OrgSlug       string                 `json:"org_slug"`
	Date          string                 `json:"date"`
	DateKind      string                 `json:"date_kind,omitempty"`
	Title         ilgraph.Text           `json:"title"`
	Summary       ilgraph.Text           `json:"summary"`
	Remediation   []ilgraph.Item         `json:"remediation,omitempty"`
	Timeline      *ilgraph.Timeline      `json:"timeline,omitempty"`
	RootCause     string                 `json:"root_cause"`
	Components    []string               `json:"components"`
	Symptoms      []string               `json:"symptoms"`
	Contributing  []string               `json:"contributing"`
	Domain        []string               `json:"domain"`
	Sources       []ilgraph.Source       `json:"sources,omitempty"`
	Review        ilgraph.Review         `json:"review"`
	URL           string                 `json:"url,omitempty"`
	TagConfidence *ilgraph.TagConfidence `json:"tag_confidence"`
}

// Compact returns the case as an importer writes it.
func Compact(c *ilgraph.Case) Output {
	list := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	o := Output{
		ID: c.ID, Org: c.Org, OrgSlug: c.OrgSlug, Date: c.Date, DateKind: c.DateKind, Title: c.Title, Summary: c.Summary,
		RootCause: c.RootCause, Components: list(c.Components), Symptoms: list(c.Symptoms), Contributing: list(c.Contributing),
		Domain: list(c.Domain), Sources: c.Sources, Review: c.Review, URL: c.URL, TagConfidence: c.TagConfidence,
		Remediation: c.Remediation,
	}
	if c.Timeline != (ilgraph.Timeline{}) {
		t := c.Timeline
		o.Timeline = &t
	}
	return o
}
