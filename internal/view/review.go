package view

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// ReviewTag is one machine-suggested tag of a case in the review queue.
type ReviewTag struct {
	Feature
	Confidence *float64   `json:"confidence" jsonschema:"the machine's confidence when it tagged the case; null when it recorded none"`
	Evidence   []Evidence `json:"evidence" jsonschema:"what the suggestion engine says for the term given the case's text, the case left out"`
}

// ReviewItem is one case of the review queue.
type ReviewItem struct {
	Case    CaseSummary `json:"case"`
	Version int64       `json:"version" jsonschema:"the case's version: the If-Match of its review"`
	// Suggested holds every kind a machine tags, each with the case's
	// tags of the kind in its order (none: an empty list).
	Suggested    map[ilgraph.Kind][]ReviewTag `json:"suggested" jsonschema:"per kind a machine tags, the case's tags: each needs a decision"`
	EvidenceText string                       `json:"evidence_text" jsonschema:"the text the evidence was read in: title.en, a blank line, summary.en; start and end are byte offsets into it"`
}

// ReviewQueue is a page of the machine-tagged cases waiting for review.
type ReviewQueue struct {
	Total      int          `json:"total"`
	Cases      []ReviewItem `json:"cases"`
	NextCursor string       `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last page"`
}

// Review converts a page of the review queue, with the terms' labels.
func Review(ctx context.Context, core *explore.Service, q *explore.ReviewQueue) (*ReviewQueue, error) {
	var keys []ilgraph.TermKey
	for _, it := range q.Items {
		for _, s := range it.Suggested {
			keys = append(keys, ilgraph.TermKey{Kind: s.Kind, ID: s.ID})
		}
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	out := &ReviewQueue{Total: q.TotalCount, Cases: []ReviewItem{}}
	if q.PageInfo.HasNextPage {
		out.NextCursor = q.PageInfo.EndCursor
	}
	for _, it := range q.Items {
		item := ReviewItem{Case: Summary(it.Case), Version: it.Case.Version, Suggested: map[ilgraph.Kind][]ReviewTag{}, EvidenceText: it.EvidenceText}
		for _, k := range ilgraph.MachineKinds {
			item.Suggested[k] = []ReviewTag{}
		}
		for _, s := range it.Suggested {
			t := ReviewTag{Feature: Feature{Kind: s.Kind, ID: s.ID, Label: labels[ilgraph.TermKey{Kind: s.Kind, ID: s.ID}]}, Confidence: s.Confidence, Evidence: evidence(s.Evidence)}
			item.Suggested[s.Kind] = append(item.Suggested[s.Kind], t)
		}
		out.Cases = append(out.Cases, item)
	}
	return out, nil
}
