package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/view"
)

type tools struct {
	core *explore.Service
	opt  Options
}

// Filters are the case-selecting arguments list_incidents and
// search_incidents share.
type Filters struct {
	RootCause    []string `json:"root_cause,omitempty" jsonschema:"root cause ids (see vocab): cases with any of them"`
	Components   []string `json:"components,omitempty" jsonschema:"component ids: cases with every one of them"`
	Symptoms     []string `json:"symptoms,omitempty" jsonschema:"symptom ids: cases with every one of them"`
	Contributing []string `json:"contributing,omitempty" jsonschema:"contributing factor ids: cases with every one of them"`
	Domains      []string `json:"domains,omitempty" jsonschema:"domain ids: cases with every one of them"`
	Mechanisms   []string `json:"mechanisms,omitempty" jsonschema:"mechanism ids (how the failure unfolded): cases with every one of them"`
	Orgs         []string `json:"orgs,omitempty" jsonschema:"organization slugs: cases of any of them"`
	From         string   `json:"from,omitempty" jsonschema:"incident date on or after, YYYY-MM-DD"`
	To           string   `json:"to,omitempty" jsonschema:"incident date on or before, YYYY-MM-DD"`
}

func (f Filters) view(text string) view.Filter {
	return view.Filter{Terms: f.terms(), From: f.From, To: f.To, Text: strings.TrimSpace(text)}
}

// terms are the filters' terms by kind; TestFiltersCoverEveryKind checks
// that every kind of ilgraph.Kinds has its argument.
func (f Filters) terms() map[ilgraph.Kind][]string {
	return map[ilgraph.Kind][]string{ilgraph.KindRootCause: f.RootCause, ilgraph.KindComponent: f.Components,
		ilgraph.KindSymptom: f.Symptoms, ilgraph.KindContributing: f.Contributing, ilgraph.KindDomain: f.Domains,
		ilgraph.KindMechanism: f.Mechanisms, ilgraph.KindOrg: f.Orgs}
}

// SearchArgs are search_incidents' arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"free text, English or Korean, matched against titles and summaries"`
	Filters
	Limit  *int   `json:"limit,omitempty" jsonschema:"how many cases"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// ListArgs are list_incidents' arguments.
type ListArgs struct {
	Filters
	Sort   string `json:"sort,omitempty" jsonschema:"date_desc (default), date_asc, id_asc or id_desc"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"how many cases"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// IDArgs name one case.
type IDArgs struct {
	ID string `json:"id" jsonschema:"case id, e.g. IL-0282"`
}

// Incident is get_incident's answer.
type Incident struct {
	Case map[string]any `json:"case" jsonschema:"the case in the incident library's JSON format, exactly as loaded"`
	URL  string         `json:"url" jsonschema:"the JSON API path of the case"`
}

// TopicArgs are get_topic's arguments.
type TopicArgs struct {
	Kind        string `json:"kind" jsonschema:"the term's kind"`
	ID          string `json:"id" jsonschema:"term id (for org, the organization slug)"`
	Limit       *int   `json:"limit,omitempty" jsonschema:"how many of its newest cases"`
	Cooccurring *int   `json:"cooccurring,omitempty" jsonschema:"how many co-occurring terms of each kind"`
}

// VocabArgs are vocab's arguments.
type VocabArgs struct {
	Kinds []string `json:"kinds,omitempty" jsonschema:"only these kinds (default: all)"`
}

// Ranking are the similarity settings similar_incidents and match_incident
// share.
type Ranking struct {
	K        *int               `json:"k,omitempty" jsonschema:"how many similar cases"`
	Weights  map[string]float64 `json:"weights,omitempty" jsonschema:"weight per kind and for the text channel, e.g. {\"root_cause\": 3, \"text\": 0}; kinds left out keep the server's defaults (GraphQL similarityDefaults)"`
	Rarity   *bool              `json:"rarity,omitempty" jsonschema:"weigh rare features more (the server's default when left out)"`
	MinScore float64            `json:"min_score,omitempty" jsonschema:"leave out matches scoring less"`
}

func (r Ranking) query() explore.SimilarityQuery {
	q := explore.SimilarityQuery{K: explore.DefaultSimilarK, Weights: ilgraph.Weights{}, Rarity: r.Rarity, MinScore: r.MinScore}
	if r.K != nil {
		q.K = *r.K
	}
	for k, v := range r.Weights {
		q.Weights[ilgraph.Kind(k)] = v
	}
	return q
}

// SimilarArgs are similar_incidents' arguments.
type SimilarArgs struct {
	ID string `json:"id" jsonschema:"case id, e.g. IL-0282"`
	Ranking
	IncludeHidden bool `json:"include_hidden,omitempty" jsonschema:"also list the matches an editor hid (hide_similar), marked hidden"`
}

// MatchArgs are match_incident's arguments: what is known of an incident in
// progress.
type MatchArgs struct {
	RootCause    string   `json:"root_cause,omitempty" jsonschema:"root cause id, if known"`
	Components   []string `json:"components,omitempty" jsonschema:"component ids involved"`
	Symptoms     []string `json:"symptoms,omitempty" jsonschema:"symptom ids seen"`
	Contributing []string `json:"contributing,omitempty" jsonschema:"contributing factor ids suspected"`
	Domains      []string `json:"domains,omitempty" jsonschema:"domain ids"`
	Mechanisms   []string `json:"mechanisms,omitempty" jsonschema:"mechanism ids: how the failure unfolded"`
	Org          string   `json:"org,omitempty" jsonschema:"organization slug"`
	Text         string   `json:"text,omitempty" jsonschema:"what is seen, in English or Korean (up to 10,000 characters): the terms it points to join the profile"`
	Ranking
}

// MatchResult is match_incident's answer.
type MatchResult struct {
	view.ProfileMatch
	Suggested map[ilgraph.Kind][]view.SuggestedTerm `json:"suggested,omitempty" jsonschema:"the terms read from text that joined the profile, per kind"`
	Warnings  []view.Warning                        `json:"warnings,omitempty" jsonschema:"terms given that were not ids, and the ids used"`
}

// SuggestArgs are suggest_terms' arguments.
type SuggestArgs struct {
	Text          string  `json:"text" jsonschema:"what is seen, in English or Korean (up to 10,000 characters)"`
	Lang          string  `json:"lang,omitempty" jsonschema:"en or ko; left out, detected"`
	PerKind       *int    `json:"per_kind,omitempty" jsonschema:"at most this many terms per kind"`
	MinConfidence float64 `json:"min_confidence,omitempty" jsonschema:"leave out terms less confident"`
}

// SameRootCauseArgs are same_root_cause's arguments.
type SameRootCauseArgs struct {
	ID     string `json:"id" jsonschema:"case id, e.g. IL-0282"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"how many"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// NeighbourhoodArgs are graph_neighbourhood's arguments.
type NeighbourhoodArgs struct {
	Kind  string `json:"kind" jsonschema:"case, or a term's kind"`
	ID    string `json:"id" jsonschema:"case id or term id"`
	Depth *int   `json:"depth,omitempty" jsonschema:"hops from the node"`
	Nodes *int   `json:"nodes,omitempty" jsonschema:"at most this many nodes"`
}

// JudgeArgs are judge_similar's arguments.
type JudgeArgs struct {
	ID     string `json:"id" jsonschema:"the case whose similar cases were listed, e.g. IL-0282"`
	Match  string `json:"match" jsonschema:"the similar case judged: the id of one of the case's similar_incidents matches"`
	Grade  string `json:"grade" jsonschema:"how relevant the match is to the case"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a sentence or two on one line"`
}

// PairArgs name a similar match: withdraw_judgment's, hide_similar's and
// unhide_similar's arguments.
type PairArgs struct {
	ID    string `json:"id" jsonschema:"the case whose similar cases were listed, e.g. IL-0282"`
	Match string `json:"match" jsonschema:"the similar case, as similar_incidents lists it"`
}

// Withdrawn is withdraw_judgment's answer, the JSON API's.
type Withdrawn struct {
	Withdrawn bool `json:"withdrawn" jsonschema:"whether there was a judgment of yours to withdraw (false: none, nothing changed)"`
}

// Unhidden is unhide_similar's answer, the JSON API's.
type Unhidden struct {
	Unhidden bool `json:"unhidden" jsonschema:"whether the match was hidden (false: it was not, nothing changed)"`
}

func (t *tools) register(s *mcp.Server) {
	addTool(t, s, "search_incidents", "Search incidents",
		"Full-text search of incident post-mortems (titles and summaries, English and Korean), best match first, optionally narrowed by terms and dates. Returns a page of case summaries, the total and a cursor for more.",
		t.search, defaults{"limit": searchPageSize})
	addTool(t, s, "get_incident", "Get an incident",
		"One incident post-mortem by id (e.g. IL-0282), in the incident library's JSON format: summary, trigger, detection, symptoms, remediation, action items, lessons, timeline, tags, sources.",
		t.getIncident, nil)
	addTool(t, s, "list_incidents", "List incidents",
		"Incident post-mortems selected by vocabulary terms (root cause, components, symptoms, contributing factors, domains, organizations) and dates, newest first by default. Returns a page of case summaries, the total and a cursor for more.",
		t.list, defaults{"limit": explore.DefaultPageSize})
	addTool(t, s, "get_topic", "Get a topic",
		"One vocabulary term or organization: its label and description, how many cases have it, the terms of each kind its cases also have, and its newest cases.",
		t.topic, defaults{"limit": explore.DefaultTopicCases, "cooccurring": explore.DefaultCooccurring})
	addTool(t, s, "vocab", "Vocabulary",
		"The controlled vocabulary by kind ("+kindNames(ilgraph.VocabKinds, "and")+") and the organizations (org), each term with its id, labels and case count. Use the ids in the other tools.",
		t.vocab, nil)
	addTool(t, s, "similar_incidents", "Similar incidents",
		"The incidents most like a given one (weighted Jaccard similarity over the terms of each kind, "+kindNames(ilgraph.AllKinds, "and")+", and the likeness of their texts), each with its score and the features that explain it.",
		t.similar, defaults{"k": explore.DefaultSimilarK})
	addTool(t, s, "match_incident", "Match an incident in progress",
		"Describe an incident that is not in the library (one in progress) by what is seen (text, English or Korean) and/or the term ids known so far; returns the most similar past incidents, the root causes and contributing factors to check next (weighted by match scores), what resolved those incidents, and the terms read from the text.",
		t.match, defaults{"k": explore.DefaultSimilarK})
	addTool(t, s, "suggest_terms", "Suggest vocabulary terms",
		"The vocabulary terms a free text points to (English or Korean), per kind, each with a confidence and its evidence: the words that matched a label or alias, and the similar cases that carry the term. Use it to turn a description into term ids for the other tools.",
		t.suggestTerms, defaults{"per_kind": explore.DefaultSuggestPerKind})
	addTool(t, s, "same_root_cause", "Same root cause",
		"The other incidents with a case's root cause, ordered by how much else they share with it, each with the library's label such as \"same root cause · shared database\".",
		t.sameRootCause, defaults{"limit": explore.DefaultSameRootCause})
	addTool(t, s, "graph_neighbourhood", "Graph neighbourhood",
		"The nodes within a few hops of a case or a term in the incident graph (cases, and terms of each kind: "+kindNames(ilgraph.AllKinds, "and")+") and the relationships among them.",
		t.neighbourhood, defaults{"depth": explore.DefaultNeighbourhoodDepth, "nodes": explore.DefaultNeighbourhoodLimit})

	// Judgments of similar matches: they change no score (docs/similarity.md).
	addWriteTool(t, s, "judge_similar", "Judge a similar incident",
		"Record how relevant a similar incident (a match similar_incidents listed for a case) is to that case: "+gradeNames("or")+", with an optional reason. Judging the same pair again replaces your judgment. Needs a token with the reviewer role or above. Judgments are shown beside the match and change no score.",
		false,
		t.judge)
	addWriteTool(t, s, "withdraw_judgment", "Withdraw a judgment",
		"Withdraw your own judgment of a similar incident (judge_similar); answers whether there was one. A match hidden only on the strength of it is shown again. Needs a token with the reviewer role or above.",
		true,
		t.withdraw)
	addWriteTool(t, s, "hide_similar", "Hide a similar incident",
		"Hide a similar incident from a case's similar_incidents list (it stays listed with include_hidden, marked hidden, and its score and everybody's ranking are unchanged). Only a match some judgment marks not_relevant may be hidden. Needs a token with the editor role or above.",
		false,
		t.hide)
	addWriteTool(t, s, "unhide_similar", "Show a hidden similar incident",
		"Show a match hide_similar hid in its case's similar_incidents list again; answers whether it was hidden. Needs a token with the editor role or above.",
		true,
		t.unhide)
}

// gradeNames are the grades' keys, from the grade table (ilgraph.Grades):
// "not_relevant, relevant or strongly_relevant".
func gradeNames(conj string) string {
	names := make([]string, len(ilgraph.Grades))
	for i, g := range ilgraph.Grades {
		names[i] = g.Key()
	}
	return joinList(names, conj)
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// resolved turns the core's warnings about term values into what a model
// can act on: a value that names no term fails the call (it would match
// nothing), naming the ids it may have meant; resolved values are kept as
// warnings for the answer.
func resolved(w *explore.Warnings) ([]view.Warning, error) {
	ws := view.Warnings(w.List())
	for _, x := range ws {
		if x.Resolved == "" {
			msg := x.Field + ": " + x.Message
			if len(x.Suggestions) == 0 {
				msg += " (the vocab tool lists the ids)"
			}
			return nil, errorf(ilgraph.ENOTFOUND, "%s", msg)
		}
	}
	return ws, nil
}

// searchPageSize is how many cases search_incidents answers when the call
// names no limit: the best matches a model reads first, fewer than a list's
// page (explore.DefaultPageSize).
const searchPageSize = 10

// page answers a page of cases; a nil limit takes the core's page size.
func (t *tools) page(ctx context.Context, f Filters, text string, sort ilgraph.CaseSort, limit *int, cursor string) (*view.CasePage, string, error) {
	ctx, warnings := explore.WithWarnings(ctx)
	l, err := t.core.Cases(ctx, explore.CaseQuery{Filter: f.view(text).CaseFilter(), Sort: sort, Page: explore.Page{First: limit, After: cursor}})
	if err != nil {
		return nil, "", err
	}
	p := view.Page(l)
	if p.Warnings, err = resolved(warnings); err != nil {
		return nil, "", err
	}
	forms, err := t.core.WordForms(ctx, l.Filter)
	if err != nil {
		return nil, "", err
	}
	p.WordForms = view.WordFormsOf(forms)
	return p, renderWarnings(p.Warnings) + renderPage(p), nil
}

func (t *tools) search(ctx context.Context, a SearchArgs) (*view.CasePage, string, error) {
	limit := a.Limit
	if limit == nil {
		n := searchPageSize
		limit = &n
	}
	return t.page(ctx, a.Filters, a.Query, ilgraph.SortRelevance, limit, a.Cursor)
}

func (t *tools) list(ctx context.Context, a ListArgs) (*view.CasePage, string, error) {
	sort := ilgraph.SortDateDesc
	if a.Sort != "" {
		sort = ilgraph.CaseSort(strings.ToUpper(a.Sort))
		if !sort.Valid() || sort == ilgraph.SortRelevance {
			return nil, "", errorf(ilgraph.EINVALID, "sort: %q is not one of date_desc, date_asc, id_asc, id_desc (search_incidents ranks by relevance)", ilgraph.Clip(a.Sort, 40))
		}
	}
	return t.page(ctx, a.Filters, "", sort, a.Limit, a.Cursor)
}

func (t *tools) getIncident(ctx context.Context, a IDArgs) (*Incident, string, error) {
	raws, err := t.core.RawJSON(ctx, []string{a.ID})
	if err != nil {
		return nil, "", err
	}
	if len(raws) == 0 || raws[0] == "" {
		return nil, "", errorf(ilgraph.ENOTFOUND, "no case with id %q (search_incidents or list_incidents find ids)", ilgraph.Clip(a.ID, 60))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raws[0]), &m); err != nil {
		return nil, "", ilgraph.WrapError(ilgraph.EINTERNAL, err, "stored case %s is not a JSON object", a.ID)
	}
	var c ilgraph.Case
	json.Unmarshal([]byte(raws[0]), &c)
	return &Incident{Case: m, URL: view.CasePath(a.ID)}, renderCase(&c), nil
}

func (t *tools) topic(ctx context.Context, a TopicArgs) (*view.Topic, string, error) {
	k, ok := view.ParseKind(a.Kind)
	if !ok {
		return nil, "", errorf(ilgraph.EINVALID, "kind: %q is not one of %s", ilgraph.Clip(a.Kind, 40), kindNames(ilgraph.AllKinds, "or"))
	}
	tp, err := view.TopicOf(ctx, t.core, ilgraph.TermKey{Kind: k, ID: a.ID}, intOr(a.Limit, explore.DefaultTopicCases), intOr(a.Cooccurring, explore.DefaultCooccurring))
	if err != nil {
		if ilgraph.ErrorCode(err) == ilgraph.ENOTFOUND {
			return nil, "", errorf(ilgraph.ENOTFOUND, "no %s %q: the vocab tool lists the ids", k.Label(), ilgraph.Clip(a.ID, 60))
		}
		return nil, "", err
	}
	return tp, renderTopic(tp), nil
}

func (t *tools) vocab(ctx context.Context, a VocabArgs) (*view.Vocabulary, string, error) {
	var ks []ilgraph.Kind
	for _, s := range a.Kinds {
		k, ok := view.ParseKind(s)
		if !ok {
			return nil, "", errorf(ilgraph.EINVALID, "kinds: %q is not one of %s", ilgraph.Clip(s, 40), kindNames(ilgraph.AllKinds, "or"))
		}
		ks = append(ks, k)
	}
	v, err := view.Vocab(ctx, t.core, ks...)
	if err != nil {
		return nil, "", err
	}
	return v, renderVocab(v), nil
}

func (t *tools) similar(ctx context.Context, a SimilarArgs) (*view.SimilarList, string, error) {
	q := a.Ranking.query()
	q.IncludeHidden = a.IncludeHidden
	scs, err := t.core.Similar(ctx, a.ID, q)
	if err != nil {
		return nil, "", err
	}
	l, err := view.Similar(ctx, t.core, a.ID, scs)
	if err != nil {
		return nil, "", err
	}
	return l, renderMatches(fmt.Sprintf("The %d incidents most like %s:", len(l.Matches), a.ID), l.Matches), nil
}

func (t *tools) match(ctx context.Context, a MatchArgs) (*MatchResult, string, error) {
	p := explore.Profile{RootCause: a.RootCause, Components: a.Components, Symptoms: a.Symptoms, Contributing: a.Contributing, Domains: a.Domains, Mechanisms: a.Mechanisms, Org: a.Org}
	if len(p.Features()) == 0 && strings.TrimSpace(a.Text) == "" {
		return nil, "", errorf(ilgraph.EINVALID, "give text, or at least one of root_cause, components, symptoms, contributing, domains, mechanisms, org (term ids from the vocab tool)")
	}
	ctx, warnings := explore.WithWarnings(ctx)
	var pm *explore.ProfileMatch
	var suggested map[ilgraph.Kind][]view.SuggestedTerm
	if strings.TrimSpace(a.Text) != "" {
		// The text's own words rank the cases too, beside the terms read
		// from it and those given (explore.Service.MatchText).
		tm, err := t.core.MatchText(ctx, a.Text, "", p, a.Ranking.query())
		if err != nil {
			return nil, "", err
		}
		if suggested, err = view.Predicted(ctx, t.core, tm.Suggestions); err != nil {
			return nil, "", err
		}
		pm = tm.Match
	} else {
		var err error
		if pm, err = t.core.SimilarToProfile(ctx, p, a.Ranking.query()); err != nil {
			return nil, "", err
		}
	}
	ws, err := resolved(warnings)
	if err != nil {
		return nil, "", err
	}
	v, err := view.Profile(ctx, t.core, pm)
	if err != nil {
		return nil, "", err
	}
	out := &MatchResult{ProfileMatch: *v, Suggested: suggested, Warnings: ws}
	return out, renderWarnings(ws) + renderSuggested(suggested) + renderProfile(v), nil
}

func (t *tools) suggestTerms(ctx context.Context, a SuggestArgs) (*view.Suggestions, string, error) {
	v, err := view.Suggest(ctx, t.core, a.Text, a.Lang, intOr(a.PerKind, explore.DefaultSuggestPerKind), a.MinConfidence)
	if err != nil {
		return nil, "", err
	}
	return v, renderSuggestions(v), nil
}

func (t *tools) sameRootCause(ctx context.Context, a SameRootCauseArgs) (*view.CrossReferences, string, error) {
	c, err := t.core.Case(ctx, a.ID)
	if err != nil {
		return nil, "", err
	}
	l, err := t.core.SameRootCause(ctx, c.ID, explore.Page{First: a.Limit, After: a.Cursor})
	if err != nil {
		return nil, "", err
	}
	v, err := view.SameRootCause(ctx, t.core, c, l)
	if err != nil {
		return nil, "", err
	}
	return v, renderCrossRefs(v), nil
}

func (t *tools) neighbourhood(ctx context.Context, a NeighbourhoodArgs) (*view.Drawing, string, error) {
	kind := strings.ToLower(strings.TrimSpace(a.Kind))
	if kind != ilgraph.NodeKindCase {
		k, ok := view.ParseKind(kind)
		if !ok {
			return nil, "", errorf(ilgraph.EINVALID, "kind: %q is not case, %s", ilgraph.Clip(a.Kind, 40), kindNames(ilgraph.AllKinds, "or"))
		}
		kind = string(k)
	}
	d, err := t.core.Neighbourhood(ctx, kind, a.ID, intOr(a.Depth, explore.DefaultNeighbourhoodDepth), intOr(a.Nodes, explore.DefaultNeighbourhoodLimit), ilgraph.CaseFilter{})
	if err != nil {
		return nil, "", err
	}
	v := view.Draw(d)
	return v, renderDrawing(kind, a.ID, v), nil
}

// The judgments' tools translate only: the roles, the checks of the pair,
// the grade and the reason, and the conflict of an unjudged hiding are the
// core's (explore.Service.JudgeSimilar and kin).

func (t *tools) judge(ctx context.Context, a JudgeArgs) (*view.Judgment, string, error) {
	g, err := ilgraph.ParseGrade(a.Grade)
	if err != nil {
		return nil, "", err
	}
	j, err := t.core.JudgeSimilar(ctx, a.ID, a.Match, g, a.Reason)
	if err != nil {
		return nil, "", err
	}
	v := view.JudgmentOf(*j)
	return &v, fmt.Sprintf("Judged %s as a similar case of %s: %s.", j.Match, j.Query, j.Note()), nil
}

func (t *tools) withdraw(ctx context.Context, a PairArgs) (*Withdrawn, string, error) {
	ok, err := t.core.WithdrawJudgment(ctx, a.ID, a.Match)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return &Withdrawn{}, fmt.Sprintf("You had no judgment of %s as a similar case of %s: nothing changed.", a.Match, a.ID), nil
	}
	return &Withdrawn{Withdrawn: true}, fmt.Sprintf("Withdrew your judgment of %s as a similar case of %s.", a.Match, a.ID), nil
}

func (t *tools) hide(ctx context.Context, a PairArgs) (*view.Hiding, string, error) {
	h, err := t.core.HideSimilar(ctx, a.ID, a.Match)
	if err != nil {
		return nil, "", err
	}
	v := view.HidingOf(*h)
	return &v, fmt.Sprintf("%s is hidden from the similar cases of %s (%s at %s).", h.Match, h.Query, h.Note(), v.At), nil
}

func (t *tools) unhide(ctx context.Context, a PairArgs) (*Unhidden, string, error) {
	ok, err := t.core.UnhideSimilar(ctx, a.ID, a.Match)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return &Unhidden{}, fmt.Sprintf("%s was not hidden from the similar cases of %s: nothing changed.", a.Match, a.ID), nil
	}
	return &Unhidden{Unhidden: true}, fmt.Sprintf("%s is shown again among the similar cases of %s.", a.Match, a.ID), nil
}
