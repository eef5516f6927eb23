package view

import (
	"context"
	"slices"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// Feature is a term of a case, with its label.
type Feature struct {
	Kind  ilgraph.Kind `json:"kind"`
	ID    string       `json:"id"`
	Label string       `json:"label" jsonschema:"English label"`
}

// SharedFeature is one part of a match's score: a feature both sides have
// (Kind one of ilgraph.AllKinds), or the text channel's part (Kind
// ilgraph.WeightText, "text": no term, the texts' cosine and shared words
// instead). A match's parts add up to its score.
type SharedFeature struct {
	Kind         ilgraph.Kind `json:"kind" jsonschema:"the feature's kind, or text: the part of the two cases' texts"`
	ID           string       `json:"id,omitempty" jsonschema:"term id (absent for text)"`
	Label        string       `json:"label,omitempty" jsonschema:"English label (absent for text)"`
	Weight       float64      `json:"weight" jsonschema:"the feature's weight (kind weight, times rarity when on); for text, the text weight"`
	Contribution float64      `json:"contribution" jsonschema:"its share of the score; the shares add up to the score"`
	Confidence   *float64     `json:"confidence,omitempty" jsonschema:"only for a term a text suggested: the suggestion's confidence; the term counts with weight × confidence (absent: in full)"`
	Cosine       *float64     `json:"cosine,omitempty" jsonschema:"text only: cosine similarity of the two texts, from 0 to 1"`
	Words        *[]string    `json:"words,omitempty" jsonschema:"text only: the distinctive words both texts share, most telling first (stemmed)"`
}

// DifferingFeature is a feature only one side has.
type DifferingFeature struct {
	Feature
	Weight float64 `json:"weight"`
	Side   string  `json:"side" jsonschema:"query: the queried case or profile has it and the match does not; match: the other way round"`
}

// Match is one similar case, its score and why, with what reviewers and
// editors said of it.
type Match struct {
	Case      CaseSummary        `json:"case"`
	Score     float64            `json:"score" jsonschema:"from 0 to 1: weighted Jaccard similarity of the tags, with the text channel as one more, partly shared, feature"`
	Shared    []SharedFeature    `json:"shared" jsonschema:"every shared feature and the text channel's part (kind text, when the channel is on), by contribution; they add up to the score"`
	Differing []DifferingFeature `json:"differing" jsonschema:"the strongest features only one side has (at most 5)"`
	Judgments []Judgment         `json:"judgments" jsonschema:"reviewers' judgments of this match, by judge (none for a live incident's matches); they change no score"`
	Hidden    bool               `json:"hidden" jsonschema:"whether an editor hid this match from the case's list (listed only when hidden ones are asked for)"`
	Hiding    *Hiding            `json:"hiding,omitempty" jsonschema:"who hid it and when (absent when it is not hidden)"`
	Notes     []string           `json:"notes" jsonschema:"the judgments and the hiding as sentences: marked not relevant by alice: …, hidden by bob"`
}

// Judgment is a reviewer's judgment of a similar match.
type Judgment struct {
	CaseID string `json:"case_id" jsonschema:"the case whose similar cases were listed"`
	Match  string `json:"match" jsonschema:"the similar case judged"`
	Judge  string `json:"judge" jsonschema:"the name of the judge's token"`
	Grade  string `json:"grade" jsonschema:"not_relevant (0), relevant (1) or strongly_relevant (2)"`
	Value  int    `json:"grade_value" jsonschema:"the grade as a number: 0, 1 or 2 (testdata/relevance's scale)"`
	Reason string `json:"reason,omitempty" jsonschema:"why (absent when none was given)"`
	At     string `json:"at" jsonschema:"when, RFC 3339 in UTC"`
	Note   string `json:"note" jsonschema:"the judgment as a sentence: marked not relevant by alice: …"`
}

// Hiding is an editor's hiding of a similar match.
type Hiding struct {
	CaseID string `json:"case_id"`
	Match  string `json:"match"`
	By     string `json:"by" jsonschema:"the name of the editor's token"`
	At     string `json:"at" jsonschema:"when, RFC 3339 in UTC"`
}

// JudgmentOf converts a judgment.
func JudgmentOf(j ilgraph.Judgment) Judgment {
	return Judgment{CaseID: j.Query, Match: j.Match, Judge: j.Judge, Grade: j.Grade.Key(), Value: int(j.Grade), Reason: j.Reason,
		At: ilgraph.Timestamp(j.At), Note: j.Note()}
}

// HidingOf converts a hiding.
func HidingOf(h ilgraph.Hiding) Hiding {
	return Hiding{CaseID: h.Query, Match: h.Match, By: h.By, At: ilgraph.Timestamp(h.At)}
}

// Feedback is what was said of a case's similar matches.
type Feedback struct {
	CaseID    string     `json:"case_id"`
	Judgments []Judgment `json:"judgments" jsonschema:"by match, then judge"`
	Hidden    []Hiding   `json:"hidden" jsonschema:"the hidden matches, by match"`
}

// FeedbackOf converts a case's judgments and hidden matches.
func FeedbackOf(fb *explore.Feedback) Feedback {
	out := Feedback{CaseID: fb.Query, Judgments: make([]Judgment, len(fb.Judgments)), Hidden: make([]Hiding, len(fb.Hidden))}
	for i, j := range fb.Judgments {
		out.Judgments[i] = JudgmentOf(j)
	}
	for i, h := range fb.Hidden {
		out.Hidden[i] = HidingOf(h)
	}
	return out
}

// SimilarList is the answer to "which cases are most like this one".
type SimilarList struct {
	CaseID  string  `json:"case_id"`
	Matches []Match `json:"matches" jsonschema:"by score, then id"`
}

// Similar converts ranked matches of a case.
func Similar(ctx context.Context, core *explore.Service, caseID string, scs []explore.SimilarCase) (*SimilarList, error) {
	ms, err := matches(ctx, core, scs)
	if err != nil {
		return nil, err
	}
	return &SimilarList{CaseID: caseID, Matches: ms}, nil
}

func matches(ctx context.Context, core *explore.Service, scs []explore.SimilarCase) ([]Match, error) {
	var keys []ilgraph.TermKey
	for _, sc := range scs {
		for _, c := range sc.Shared {
			keys = append(keys, ilgraph.TermKey{Kind: c.Kind, ID: c.ID})
		}
		for _, d := range sc.Differing {
			keys = append(keys, ilgraph.TermKey{Kind: d.Kind, ID: d.ID})
		}
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(scs))
	for i, sc := range scs {
		out[i] = Match{Case: Summary(sc.Case), Score: sc.Score, Shared: shared(sc.Shared, sc.Text, labels), Differing: differing(sc.Differing, labels),
			Judgments: make([]Judgment, len(sc.Judgments)), Hidden: sc.Hidden != nil, Notes: sc.Notes()}
		for j, x := range sc.Judgments {
			out[i].Judgments[j] = JudgmentOf(x)
		}
		if sc.Hidden != nil {
			h := HidingOf(*sc.Hidden)
			out[i].Hiding = &h
		}
	}
	return out, nil
}

// shared converts a score's shared features and its text part (nil when
// the channel was off), labelled.
func shared(cs []ilgraph.Contribution, text *ilgraph.TextPart, labels map[ilgraph.TermKey]string) []SharedFeature {
	out := []SharedFeature{}
	for _, c := range cs {
		sf := SharedFeature{Kind: c.Kind, ID: c.ID, Label: labels[ilgraph.TermKey(c.Feature)], Weight: c.Weight, Contribution: c.Contribution}
		if c.Confidence > 0 {
			conf := c.Confidence
			sf.Confidence = &conf
		}
		out = append(out, sf)
	}
	if text != nil {
		out = withText(out, text)
	}
	return out
}

// differing converts the features only one side has, labelled.
func differing(ds []ilgraph.Difference, labels map[ilgraph.TermKey]string) []DifferingFeature {
	out := []DifferingFeature{}
	for _, d := range ds {
		side := "match"
		if d.InQuery {
			side = "query"
		}
		out = append(out, DifferingFeature{Feature: Feature{Kind: d.Kind, ID: d.ID, Label: labels[ilgraph.TermKey(d.Feature)]}, Weight: d.Weight, Side: side})
	}
	return out
}

// Explanation is why case B scores what it does against case A: every
// shared feature and the text part (adding up to the score) and every
// feature only one of them has, under the weights given.
type Explanation struct {
	A         string             `json:"a" jsonschema:"the case explained against (the query)"`
	B         string             `json:"b" jsonschema:"the case whose score is explained (the match)"`
	Score     float64            `json:"score"`
	Weights   map[string]float64 `json:"weights" jsonschema:"the weight of every kind and of text, defaults filled in"`
	Rarity    bool               `json:"rarity"`
	Shared    []SharedFeature    `json:"shared" jsonschema:"every shared feature and the text part, by contribution; they add up to the score"`
	Differing []DifferingFeature `json:"differing" jsonschema:"every feature only one side has (query: A, match: B), by weight"`
}

// Explain converts an explanation of a pair.
func Explain(ctx context.Context, core *explore.Service, e *explore.Explanation) (*Explanation, error) {
	var keys []ilgraph.TermKey
	for _, c := range e.Shared {
		keys = append(keys, ilgraph.TermKey(c.Feature))
	}
	for _, d := range e.Differing {
		keys = append(keys, ilgraph.TermKey(d.Feature))
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	out := &Explanation{A: e.A.ID, B: e.B.ID, Score: e.Score, Weights: map[string]float64{}, Rarity: e.Rarity,
		Shared: shared(e.Shared, e.Text, labels), Differing: differing(e.Differing, labels)}
	for k, v := range e.Weights {
		out.Weights[string(k)] = v
	}
	return out, nil
}

// withText inserts the text channel's part into shares sorted by
// contribution descending, after the features that contribute as much.
func withText(shares []SharedFeature, t *ilgraph.TextPart) []SharedFeature {
	cos, words := t.Cosine, append([]string{}, t.Words...)
	text := SharedFeature{Kind: ilgraph.WeightText, Weight: t.Weight, Contribution: t.Contribution, Cosine: &cos, Words: &words}
	i := 0
	for i < len(shares) && shares[i].Contribution >= text.Contribution {
		i++
	}
	return slices.Insert(shares, i, text)
}

// WeightedTerm is a term the matches of a profile suggest.
type WeightedTerm struct {
	Feature
	Weight  float64 `json:"weight" jsonschema:"summed scores of the matches with the term"`
	Matches int     `json:"matches" jsonschema:"how many matches have it"`
}

// Remedy is what resolved one matching case.
type Remedy struct {
	CaseID      string         `json:"case_id"`
	Title       ilgraph.Text   `json:"title"`
	Score       float64        `json:"score"`
	Remediation []ilgraph.Text `json:"remediation"`
	ActionItems []ilgraph.Text `json:"action_items"`
}

// ProfileMatch is the answer for an incident in progress.
type ProfileMatch struct {
	Matches      []Match        `json:"matches"`
	RootCauses   []WeightedTerm `json:"root_causes" jsonschema:"root causes to check next, heaviest first"`
	Contributing []WeightedTerm `json:"contributing" jsonschema:"contributing factors to check next, heaviest first"`
	Remedies     []Remedy       `json:"remedies" jsonschema:"what resolved the matches, best match first"`
}

// Profile converts a profile match.
func Profile(ctx context.Context, core *explore.Service, pm *explore.ProfileMatch) (*ProfileMatch, error) {
	ms, err := matches(ctx, core, pm.Matches)
	if err != nil {
		return nil, err
	}
	var keys []ilgraph.TermKey
	for _, w := range append(append([]explore.WeightedTerm{}, pm.RootCauses...), pm.Contributing...) {
		keys = append(keys, w.Key)
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	weighted := func(ws []explore.WeightedTerm) []WeightedTerm {
		out := make([]WeightedTerm, len(ws))
		for i, w := range ws {
			out[i] = WeightedTerm{Feature: Feature{Kind: w.Key.Kind, ID: w.Key.ID, Label: labels[w.Key]}, Weight: w.Weight, Matches: w.Matches}
		}
		return out
	}
	out := &ProfileMatch{Matches: ms, RootCauses: weighted(pm.RootCauses), Contributing: weighted(pm.Contributing), Remedies: []Remedy{}}
	for _, r := range pm.Remedies {
		out.Remedies = append(out.Remedies, Remedy{CaseID: r.Case.ID, Title: r.Case.Title, Score: r.Score,
			Remediation: texts(r.Remediation), ActionItems: texts(r.ActionItems)})
	}
	return out, nil
}

func texts(ts []ilgraph.Text) []ilgraph.Text {
	if ts == nil {
		return []ilgraph.Text{}
	}
	return ts
}

// CrossReference is a case with the same root cause as another.
type CrossReference struct {
	Case        CaseSummary `json:"case"`
	Shared      []Feature   `json:"shared" jsonschema:"what else the two share"`
	SharedCount int         `json:"shared_count"`
	Reason      string      `json:"reason" jsonschema:"the library's label, e.g. same root cause · shared database"`
}

// CrossReferences is a page of same-root-cause cross references.
type CrossReferences struct {
	CaseID     string           `json:"case_id"`
	RootCause  Feature          `json:"root_cause"`
	Total      int              `json:"total"`
	Cases      []CrossReference `json:"cases" jsonschema:"by how much else they share, then newest first"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// SameRootCause converts a page of cross references of a case.
func SameRootCause(ctx context.Context, core *explore.Service, c *ilgraph.Case, l *explore.CrossReferenceList) (*CrossReferences, error) {
	keys := []ilgraph.TermKey{{Kind: ilgraph.KindRootCause, ID: c.RootCause}}
	for _, x := range l.Refs {
		for _, f := range x.Shared {
			keys = append(keys, ilgraph.TermKey(f))
		}
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	out := &CrossReferences{CaseID: c.ID, RootCause: Feature{Kind: ilgraph.KindRootCause, ID: c.RootCause, Label: labels[keys[0]]},
		Total: l.TotalCount, Cases: []CrossReference{}}
	if l.PageInfo.HasNextPage {
		out.NextCursor = l.PageInfo.EndCursor
	}
	for _, x := range l.Refs {
		cr := CrossReference{Case: Summary(x.Case), Shared: []Feature{}, SharedCount: x.SharedCount, Reason: x.Reason}
		for _, f := range x.Shared {
			cr.Shared = append(cr.Shared, Feature{Kind: f.Kind, ID: f.ID, Label: labels[ilgraph.TermKey(f)]})
		}
		out.Cases = append(out.Cases, cr)
	}
	return out, nil
}

// Node is a drawn node.
type Node struct {
	Key   string `json:"key" jsonschema:"unique in the drawing: kind:id, e.g. case:IL-0384"`
	Kind  string `json:"kind" jsonschema:"case, or a feature kind"`
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Edge is a drawn relationship.
type Edge struct {
	Source string `json:"source" jsonschema:"node key"`
	Target string `json:"target" jsonschema:"node key"`
	Type   string `json:"type" jsonschema:"relationship type, e.g. HAS_ROOT_CAUSE"`
}

// Drawing is a part of the graph.
type Drawing struct {
	Nodes     []Node `json:"nodes"`
	Edges     []Edge `json:"edges"`
	Truncated bool   `json:"truncated" jsonschema:"true when the node limit cut the drawing short"`
}

// Draw converts a drawing.
func Draw(d *ilgraph.Drawing) *Drawing {
	out := &Drawing{Nodes: make([]Node, len(d.Nodes)), Edges: make([]Edge, len(d.Edges)), Truncated: d.Truncated}
	for i, n := range d.Nodes {
		out.Nodes[i] = Node{Key: n.Key, Kind: n.Kind, ID: n.ID, Label: n.Label}
	}
	for i, e := range d.Edges {
		out.Edges[i] = Edge{Source: e.Source, Target: e.Target, Type: e.Type}
	}
	return out
}

// ParseKind reads a feature kind as the API and tools write it
// (root_cause; also ROOT_CAUSE and root-cause).
func ParseKind(s string) (ilgraph.Kind, bool) {
	k := ilgraph.Kind(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	return k, k.Valid()
}
