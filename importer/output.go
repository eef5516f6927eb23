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
	Trigger       *ilgraph.Text          `json:"trigger,omitempty"`
	Detection     *ilgraph.Text          `json:"detection,omitempty"`
	SymptomsText  *ilgraph.Text          `json:"symptoms_text,omitempty"`
	Lessons       *ilgraph.Text          `json:"lessons,omitempty"`
	Remediation   []ilgraph.Item         `json:"remediation,omitempty"`
	ActionItems   []ilgraph.Item         `json:"action_items,omitempty"`
	Impact        *ilgraph.Impact        `json:"impact,omitempty"`
	Timeline      *ilgraph.Timeline      `json:"timeline,omitempty"`
	Severity      string                 `json:"severity,omitempty"`
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
		Remediation: c.Remediation, ActionItems: c.ActionItems, Severity: c.Severity,
	}
	// The texts a source may give beyond the title and summary (a Markdown
	// post-mortem's sections); left out when empty.
	for _, f := range []struct {
		t   ilgraph.Text
		out **ilgraph.Text
	}{{c.Trigger, &o.Trigger}, {c.Detection, &o.Detection}, {c.SymptomsText, &o.SymptomsText}, {c.Lessons, &o.Lessons}} {
		if !f.t.IsZero() {
			t := f.t
			*f.out = &t
		}
	}
	if c.Impact != (ilgraph.Impact{}) {
		i := c.Impact
		o.Impact = &i
	}
	if c.Timeline != (ilgraph.Timeline{}) {
		t := c.Timeline
		o.Timeline = &t
	}
	return o
}
