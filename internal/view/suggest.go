package view

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// Evidence is why a term is suggested.
type Evidence struct {
	Kind   string  `json:"kind" jsonschema:"phrase: words of the text matched a label or alias; neighbour: a case whose text is like it has the term"`
	Text   string  `json:"text,omitempty" jsonschema:"the words of the text that matched"`
	Phrase string  `json:"phrase,omitempty" jsonschema:"the label or alias they matched"`
	Source string  `json:"source,omitempty" jsonschema:"label, id or alias"`
	Start  int     `json:"start" jsonschema:"byte offset of the words in the text"`
	End    int     `json:"end"`
	CaseID string  `json:"case_id,omitempty" jsonschema:"the neighbouring case"`
	Weight float64 `json:"weight" jsonschema:"the phrase's reliability, or the case's share of the vote"`
}

// SuggestedTerm is a vocabulary term a text points to.
type SuggestedTerm struct {
	Feature
	Confidence float64 `json:"confidence" jsonschema:"how often a suggestion like this one was right, from 0 to 1: the score calibrated per kind and language in leave-one-out tests (0.6: right about 60% of the time)"`
	Score      float64 `json:"score" jsonschema:"the signals' score, from 0 to 1, which orders the terms of a kind and which a profile weighs them by"`
	// Sure: the kind's suggestions at this confidence were right at least
	// 80% of the time in leave-one-out (explore.Service.SuggestCutoffs).
	Sure     bool       `json:"sure" jsonschema:"whether the term is shown as sure: this kind's suggestions at this confidence were right at least 80% of the time when tested (docs/suggest.md); the others are worth checking, not asserting"`
	Evidence []Evidence `json:"evidence"`
}

// Neighbour is a case whose text is like the input.
type Neighbour struct {
	CaseID string  `json:"case_id"`
	Score  float64 `json:"score"`
}

// Suggestions are the vocabulary terms a free text points to.
type Suggestions struct {
	Lang       string                           `json:"lang" jsonschema:"the language the text was read as: en or ko"`
	Terms      map[ilgraph.Kind][]SuggestedTerm `json:"terms" jsonschema:"per vocabulary kind, the suggested terms by confidence"`
	Neighbours []Neighbour                      `json:"neighbours" jsonschema:"the cases whose text is most like the input"`
}

// Suggest answers the terms a text points to: at most limit per kind, with
// a confidence of at least min.
func Suggest(ctx context.Context, core *explore.Service, text, lang string, limit int, min float64) (*Suggestions, error) {
	res, err := core.Suggest(ctx, text, lang)
	if err != nil {
		return nil, err
	}
	out := &Suggestions{Lang: res.Lang, Terms: map[ilgraph.Kind][]SuggestedTerm{}, Neighbours: []Neighbour{}}
	var keys []ilgraph.TermKey
	for _, k := range ilgraph.VocabKinds {
		for _, s := range res.Top(k, limit, min) {
			keys = append(keys, ilgraph.TermKey{Kind: k, ID: s.ID})
		}
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	sure := core.Sure(res)
	for _, k := range ilgraph.VocabKinds {
		out.Terms[k] = []SuggestedTerm{}
		for _, s := range res.Top(k, limit, min) {
			t := suggested(s, labels[ilgraph.TermKey{Kind: k, ID: s.ID}])
			t.Sure = sure[ilgraph.Feature{Kind: k, ID: s.ID}]
			out.Terms[k] = append(out.Terms[k], t)
		}
	}
	for _, n := range res.Neighbours {
		out.Neighbours = append(out.Neighbours, Neighbour{CaseID: n.CaseID, Score: n.Score})
	}
	return out, nil
}

func suggested(s suggest.Suggestion, label string) SuggestedTerm {
	return SuggestedTerm{Feature: Feature{Kind: s.Kind, ID: s.ID, Label: label}, Confidence: s.Confidence, Score: s.Score, Evidence: evidence(s.Evidence)}
}

// evidence converts the engine's evidence for a term.
func evidence(es []suggest.Evidence) []Evidence {
	out := []Evidence{}
	for _, e := range es {
		ev := Evidence{Kind: "phrase", Text: e.Text, Phrase: e.Phrase, Source: e.Source, Start: e.Start, End: e.End, Weight: e.Weight}
		if e.CaseID != "" {
			ev = Evidence{Kind: "neighbour", CaseID: e.CaseID, Weight: e.Weight}
		}
		out = append(out, ev)
	}
	return out
}

// Predicted returns the terms a text's suggestions put in an incident
// profile, with the core's rule (explore.Service.ProfileFromSuggestions:
// the suggestions above the core's cut-offs, one root cause at most), with
// their labels and confidences, per kind.
func Predicted(ctx context.Context, core *explore.Service, res *suggest.Result) (map[ilgraph.Kind][]SuggestedTerm, error) {
	p := core.ProfileFromSuggestions(res)
	var keys []ilgraph.TermKey
	for _, f := range p.Features() {
		keys = append(keys, ilgraph.TermKey(f))
	}
	labels, err := labelsOf(ctx, core, keys)
	if err != nil {
		return nil, err
	}
	out := map[ilgraph.Kind][]SuggestedTerm{}
	sure := core.Sure(res)
	for _, k := range ilgraph.VocabKinds {
		for _, id := range p.Terms(k) {
			t := SuggestedTerm{Feature: Feature{Kind: k, ID: id, Label: labels[ilgraph.TermKey{Kind: k, ID: id}]}, Sure: sure[ilgraph.Feature{Kind: k, ID: id}], Evidence: []Evidence{}}
			for _, s := range res.ByKind[k] {
				if s.ID == id {
					t.Confidence, t.Score = s.Confidence, s.Score
				}
			}
			out[k] = append(out[k], t)
		}
	}
	return out, nil
}
