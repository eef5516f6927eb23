package ilgraph

import (
	"math"
	"sort"
)

// The result types below are what the application's questions answer with.
// The store (graph/) fills them; the application core (explore/) and every
// front door pass them on.

// TermKey names one term: a kind and an id.
type TermKey struct {
	Kind Kind
	ID   string
}

// TermInfo is a term with the number of cases that have it.
type TermInfo struct {
	Term
	Cases int
}

// CaseSort orders a case list.
type CaseSort string

// The orders a case list can have. Ties always break by id ascending.
const (
	SortDateDesc  CaseSort = "DATE_DESC"
	SortDateAsc   CaseSort = "DATE_ASC"
	SortIDAsc     CaseSort = "ID_ASC"
	SortIDDesc    CaseSort = "ID_DESC"
	SortRelevance CaseSort = "RELEVANCE" // full-text score, then date descending; needs a text query
)

// Valid reports whether s is one of the known orders.
func (s CaseSort) Valid() bool {
	switch s {
	case SortDateDesc, SortDateAsc, SortIDAsc, SortIDDesc, SortRelevance:
		return true
	}
	return false
}

// CasePage is one page of a case list and the size of the whole selection.
type CasePage struct {
	Cases []*Case
	Total int
}

// TermCount is a term with a number of cases.
type TermCount struct {
	Kind  Kind
	ID    string
	Count int
}

// SortTermCounts orders counts by count descending, then id.
func SortTermCounts(ts []TermCount) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Count != ts[j].Count {
			return ts[i].Count > ts[j].Count
		}
		return ts[i].ID < ts[j].ID
	})
}

// YearCount is a year with a number of cases.
type YearCount struct {
	Year  int
	Count int
}

// Facets counts, among the cases a filter selects, how many have each term
// of each kind and how many fall in each year.
type Facets struct {
	Terms map[Kind][]TermCount // by count descending, then id
	Years []YearCount          // by year ascending
}

// CrossRef is a case listed beside another because it has the same root
// cause, with what else the two share.
type CrossRef struct {
	Case   *Case
	Shared map[Kind][]string // shared terms per kind other than the root cause
}

// SharedCount is how many features besides the root cause the two share.
func (x CrossRef) SharedCount() int {
	n := 0
	for _, ts := range x.Shared {
		n += len(ts)
	}
	return n
}

// Distribution summarises time-to-resolve in minutes over a group of cases.
// Quantiles use the nearest-rank method on the sorted values.
type Distribution struct {
	Cases                           int // cases in the group
	Measured                        int // of them, with a resolved_after
	Min, P25, Median, P75, P90, Max int
	Mean                            float64
}

// Distribute computes a Distribution of minutes over a group of total cases.
func Distribute(total int, minutes []int) Distribution {
	d := Distribution{Cases: total, Measured: len(minutes)}
	if len(minutes) == 0 {
		return d
	}
	s := append([]int(nil), minutes...)
	sort.Ints(s)
	return DistributeSorted(total, s)
}

// DistributeSorted is Distribute of minutes already in ascending order,
// which it neither copies nor sorts.
func DistributeSorted(total int, s []int) Distribution {
	d := Distribution{Cases: total, Measured: len(s)}
	if len(s) == 0 {
		return d
	}
	rank := func(q float64) int {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(i, 0)]
	}
	d.Min, d.Max = s[0], s[len(s)-1]
	d.P25, d.Median, d.P75, d.P90 = rank(0.25), rank(0.5), rank(0.75), rank(0.9)
	sum := 0
	for _, v := range s {
		sum += v
	}
	d.Mean = float64(sum) / float64(len(s))
	return d
}

// GroupDistribution is the time-to-resolve distribution of one term's cases.
type GroupDistribution struct {
	Term TermCount
	Distribution
}

// PairCount is a pair of terms and the number of cases with both.
type PairCount struct {
	A, B  TermCount
	Count int
}

// Stats are corpus statistics over the cases a filter selects.
type Stats struct {
	Cases         int
	Organizations int
	// Bilingual and Reviewed count the selected cases that give every text
	// in Korean too (Case.Bilingual) and that a second reader has checked
	// (Case.Reviewed).
	Bilingual, Reviewed int
	Relationships       int
	PerYear             []YearCount
	PerRootCause        []TermCount
	PerOrg              []TermCount
	PerDomain           []TermCount
	TopPairs            []PairCount // most frequent root cause–component pairs
	ResolveAll          Distribution
	ResolveByCause      []GroupDistribution // by median descending
	ResolveByFactor     []GroupDistribution // by median descending
}

// Axis is one dimension of a breakdown: a time unit (AxisYear, AxisMonth)
// or a feature kind (a Kind value: "root_cause", "component", …).
type Axis string

// The time axes. A case's value on AxisYear is its year ("2019"), on
// AxisMonth its year and month ("2019-03"); on a kind axis, each of its
// terms of that kind.
const (
	AxisYear  Axis = "year"
	AxisMonth Axis = "month"
)

// BreakdownCounts are the cases a filter selects, counted along two axes.
// A case with several terms of a kind counts once under each of them.
type BreakdownCounts struct {
	Total               int
	FirstDate, LastDate string            // of the selected cases (YYYY-MM-DD); empty when none
	Rows, Columns       map[string]int    // cases per value of each axis
	Cells               map[[2]string]int // cases per (row value, column value); absent: 0
}

// NodeKindCase is the kind of a drawn node that is a case; other drawn nodes
// have a feature kind.
const NodeKindCase = "case"

// Node is a node ready to draw. Key is unique in a drawing: "case:IL-0384",
// "component:message-broker".
type Node struct {
	Key   string
	Kind  string // "case" or a feature kind
	ID    string
	Label string // English title or label
	Count int    // for co-occurrence graphs: cases with this term
}

// CooccurrenceCount is Count for the GraphQL API: nil when the drawing
// counts nothing (every drawing but a co-occurrence graph). A plain method,
// so that the executor reads it inline rather than in a goroutine.
func (n Node) CooccurrenceCount() *int {
	if n.Count == 0 {
		return nil
	}
	return &n.Count
}

// Edge is a relationship ready to draw.
type Edge struct {
	Source, Target string // node keys
	Type           string // relationship type, or EdgeCooccurs
	Count          int    // co-occurrence: selected cases with both terms
	// Support is, in co-occurrence graphs, the number of cases with both
	// terms among those lift is measured over: the cases the lift rests on.
	Support int
	Lift    float64
}

// EdgeCooccurs is the Type of a co-occurrence graph's edges.
const EdgeCooccurs = "COOCCURS"

// CooccurrenceCount, CooccurrenceSupport and CooccurrenceLift are the
// edge's figures for the GraphQL API: nil unless it is a co-occurrence
// edge. Plain methods, so that the executor reads them inline rather than
// in a goroutine each.
func (e Edge) CooccurrenceCount() *int {
	if e.Type != EdgeCooccurs {
		return nil
	}
	return &e.Count
}

// CooccurrenceSupport: see CooccurrenceCount.
func (e Edge) CooccurrenceSupport() *int {
	if e.Type != EdgeCooccurs {
		return nil
	}
	return &e.Support
}

// CooccurrenceLift: see CooccurrenceCount.
func (e Edge) CooccurrenceLift() *float64 {
	if e.Type != EdgeCooccurs {
		return nil
	}
	return &e.Lift
}

// CooccurrenceQuery asks for the co-occurrence graph between the terms of
// two kinds. Filter selects the cases whose pairs are drawn and counted;
// lift is measured over Base (nil: over the selection itself):
//
//	lift(a, b) = support(a, b) · N / (n(a) · n(b))
//
// where, among the cases of the base, N is their number, n(x) how many
// have x and support(a, b) how many have both. Over the selection, a
// filter on one of the kinds makes every lift 1; a wider base (the whole
// corpus, or the same filter without the focus) says how much more often
// than chance the pair occurs.
type CooccurrenceQuery struct {
	From, To   Kind
	Filter     CaseFilter
	Base       *CaseFilter
	MinCount   int // leave out pairs fewer selected cases have
	MinSupport int // leave out pairs whose lift rests on fewer cases
}

// Drawing is a set of nodes and edges. Truncated says a size cap cut it.
type Drawing struct {
	Nodes     []Node
	Edges     []Edge
	Truncated bool
}

// Sort puts a drawing in its stable order: nodes by key, edges by source,
// target and type.
func (d *Drawing) Sort() {
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].Key < d.Nodes[j].Key })
	sort.Slice(d.Edges, func(i, j int) bool {
		a, b := d.Edges[i], d.Edges[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Type < b.Type
	})
}

// MaxDrawingNodes caps how many nodes one exploration returns.
const MaxDrawingNodes = 2000

// Path is one connection between two cases: nodes and the relationships
// between consecutive ones.
type Path struct {
	Nodes []Node
	Edges []Edge
}

// CaseFeatures is one case's features, the unit a similarity index is built
// from.
type CaseFeatures struct {
	ID       string
	Date     string // YYYY-MM-DD
	Severity string
	Org      string // the organization's name as the case gives it
	// Title is the case's title: lists show it, so the read model holds it.
	Title Text
	// MachineTagged is Case.MachineTagged (filters with ReviewedOnly).
	MachineTagged bool
	// Bilingual and Reviewed are Case.Bilingual and Case.Reviewed (counted
	// by Stats).
	Bilingual, Reviewed bool
	Features            []Feature // kinds in AllKinds order, each kind's in the case's order
	// ResolvedMin is the minutes from start to resolution, when Resolved
	// (the case's timeline says).
	ResolvedMin int
	Resolved    bool
	// Text is what the text channel reads (see SimilarityText); the
	// organization's name (Org) is left out of it.
	Text string
}

// SimilarityText is the text of a case the text channel of similarity
// reads: the English trigger and lessons, which say how the failure came
// about and what it taught. The summary, title, symptoms and detection were
// tried and left out: they tell the story with its dates, products and
// surface symptoms, and made the channel worse on the judged set (see
// docs/similarity.md).
func SimilarityText(trigger, lessons string) string {
	return trigger + "\n\n" + lessons
}

// SimilarityRow is a case as a similarity index reads it.
func SimilarityRow(c *Case) CaseFeatures {
	row := CaseFeatures{
		ID: c.ID, Date: c.Date, Severity: c.Severity, MachineTagged: c.MachineTagged(), Features: c.Features(), Org: c.Org, Title: c.Title,
		Bilingual: c.Bilingual(), Reviewed: c.Reviewed(), Text: SimilarityText(c.Trigger.En, c.Lessons.En),
	}
	if m, err := ParseDuration(c.Timeline.ResolvedAfter); err == nil && c.Timeline.ResolvedAfter != "" {
		row.ResolvedMin, row.Resolved = m, true
	}
	return row
}

// SimilarLink is one stored similarity: From's rank-th most similar case.
type SimilarLink struct {
	From, To string
	Score    float64
	Rank     int
}
