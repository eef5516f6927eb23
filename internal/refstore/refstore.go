// Package refstore is the reference store, for tests: every question the
// application core asks a store, answered by brute force over cases held in
// memory. Which cases a filter selects is ilgraph.CaseFilter.Match, the one
// meaning of a filter; orders and counts are written straight from their
// definitions (a sort of the selection, a count per term), with no index
// and no shortcut, so that they are easy to read and check.
//
// The core's unit tests run on it (it implements explore.Store), and the
// conformance suite (internal/storetest) takes its answers as the ones
// every real store — Neo4j's Cypher in graph/, the read model in
// similarity/ — must give. It holds no filter logic of its own, so it
// cannot drift from the reference matcher.
//
// Full-text search is not its business: a filter with text is an error
// (what Text selects is the full-text index's meaning; see Match).
package refstore

import (
	"context"
	"sort"
	"strconv"

	"github.com/ilgraph/ilgraph"
)

// Store is the reference store over a fixed set of cases. It is not safe
// for concurrent use (Calls is a plain map).
type Store struct {
	cases []*ilgraph.Case
	byID  map[string]*ilgraph.Case
	vocab *ilgraph.Vocabulary
	// Calls counts the calls of ListCases, CasesByID, Terms, TermsByKey
	// and VocabularyCounts, for tests that check what the core asks.
	Calls map[string]int
}

// New returns the reference store over cases (each id once) tagged from
// vocabulary v.
func New(cases []*ilgraph.Case, v *ilgraph.Vocabulary) *Store {
	s := &Store{cases: cases, byID: map[string]*ilgraph.Case{}, vocab: v, Calls: map[string]int{}}
	for _, c := range cases {
		s.byID[c.ID] = c
	}
	return s
}

// Cases returns the store's cases, in the order given to New.
func (s *Store) Cases() []*ilgraph.Case { return s.cases }

// Select returns the cases f selects, in the order given to New: f must be
// valid (EINVALID otherwise, as in every store) and have no text.
func (s *Store) Select(f ilgraph.CaseFilter) ([]*ilgraph.Case, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if f.HasText() {
		return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "the reference store does not search text (filter.text is the full-text index's; see CaseFilter.Match)")
	}
	var out []*ilgraph.Case
	for _, c := range s.cases {
		if f.Match(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// SortCases orders cases as s says (ilgraph.CaseSort: ties by id
// ascending); RELEVANCE needs a text score and is EINVALID here.
func SortCases(cs []*ilgraph.Case, s ilgraph.CaseSort) error {
	var less func(a, b *ilgraph.Case) bool
	switch s {
	case "", ilgraph.SortDateDesc:
		less = func(a, b *ilgraph.Case) bool {
			if a.Date != b.Date {
				return a.Date > b.Date
			}
			return a.ID < b.ID
		}
	case ilgraph.SortDateAsc:
		less = func(a, b *ilgraph.Case) bool {
			if a.Date != b.Date {
				return a.Date < b.Date
			}
			return a.ID < b.ID
		}
	case ilgraph.SortIDAsc:
		less = func(a, b *ilgraph.Case) bool { return a.ID < b.ID }
	case ilgraph.SortIDDesc:
		less = func(a, b *ilgraph.Case) bool { return a.ID > b.ID }
	case ilgraph.SortRelevance:
		return ilgraph.Errorf(ilgraph.EINVALID, "sort RELEVANCE needs filter.text, which the reference store does not search")
	default:
		return ilgraph.Errorf(ilgraph.EINVALID, "unknown sort %q", s)
	}
	sort.SliceStable(cs, func(i, j int) bool { return less(cs[i], cs[j]) })
	return nil
}

// CasesByID returns the cases in the order asked, nil for an unknown id.
func (s *Store) CasesByID(_ context.Context, ids []string) ([]*ilgraph.Case, error) {
	s.Calls["CasesByID"]++
	out := make([]*ilgraph.Case, len(ids))
	for i, id := range ids {
		out[i] = s.byID[id]
	}
	return out, nil
}

// RecurrencesOf returns, per id, the ids of the cases that recur it.
func (s *Store) RecurrencesOf(_ context.Context, ids []string) ([][]string, error) {
	out := make([][]string, len(ids))
	for i, id := range ids {
		for _, c := range s.cases {
			if c.RecurrenceOf == id {
				out[i] = append(out[i], c.ID)
			}
		}
	}
	return out, nil
}

// RawJSON returns, per id, the case's JSON as read ("" for an unknown id).
func (s *Store) RawJSON(_ context.Context, ids []string) ([]string, error) {
	out := make([]string, len(ids))
	for i, id := range ids {
		if c := s.byID[id]; c != nil {
			out[i] = string(c.Raw)
		}
	}
	return out, nil
}

// ListCases returns the page [offset, offset+limit) of the cases f selects
// in order o, and how many f selects.
func (s *Store) ListCases(_ context.Context, f ilgraph.CaseFilter, o ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	s.Calls["ListCases"]++
	sel, err := s.Select(f)
	if err != nil {
		return nil, err
	}
	if err := SortCases(sel, o); err != nil {
		return nil, err
	}
	p := &ilgraph.CasePage{Total: len(sel)}
	if offset < len(sel) && limit > 0 {
		p.Cases = sel[offset:min(offset+limit, len(sel))]
	}
	return p, nil
}

// CaseIDsMatching returns the ids of the cases f selects, in id order.
func (s *Store) CaseIDsMatching(_ context.Context, f ilgraph.CaseFilter) ([]string, error) {
	sel, err := s.Select(f)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(sel))
	for i, c := range sel {
		out[i] = c.ID
	}
	sort.Strings(out)
	return out, nil
}

// Facets counts, over the cases f selects, the cases with each term (the
// kinds no selected case has are absent) and the cases per year.
func (s *Store) Facets(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	sel, err := s.Select(f)
	if err != nil {
		return nil, err
	}
	counts := map[ilgraph.TermKey]int{}
	years := map[int]int{}
	for _, c := range sel {
		for _, ft := range c.Features() {
			counts[ilgraph.TermKey(ft)]++
		}
		years[c.Year()]++
	}
	out := &ilgraph.Facets{Terms: map[ilgraph.Kind][]ilgraph.TermCount{}}
	for k, n := range counts {
		out.Terms[k.Kind] = append(out.Terms[k.Kind], ilgraph.TermCount{Kind: k.Kind, ID: k.ID, Count: n})
	}
	for _, ts := range out.Terms {
		ilgraph.SortTermCounts(ts)
	}
	out.Years = yearCounts(years)
	return out, nil
}

func yearCounts(years map[int]int) []ilgraph.YearCount {
	var out []ilgraph.YearCount
	for y, n := range years {
		out = append(out, ilgraph.YearCount{Year: y, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Year < out[j].Year })
	return out
}

// relationships is how many relationships a stored case has going out:
// one per tag (the organization included), per related case and to the
// case it recurs.
func relationships(c *ilgraph.Case) int {
	n := len(c.Features()) + len(c.Related)
	if c.RecurrenceOf != "" {
		n++
	}
	return n
}

// CaseRelationships counts the relationships from the cases f selects (no
// SIMILAR_TO: the reference store holds none).
func (s *Store) CaseRelationships(_ context.Context, f ilgraph.CaseFilter) (int, error) {
	sel, err := s.Select(f)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range sel {
		n += relationships(c)
	}
	return n, nil
}

// Stats computes the corpus statistics of the cases f selects, as
// ilgraph.Stats defines them.
func (s *Store) Stats(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	sel, err := s.Select(f)
	if err != nil {
		return nil, err
	}
	st := &ilgraph.Stats{Cases: len(sel)}
	type group struct {
		cases int
		mins  []int
	}
	groups := map[ilgraph.TermKey]*group{}
	years := map[int]int{}
	pairs := map[[2]string]int{}
	var all []int
	for _, c := range sel {
		years[c.Year()]++
		if c.Bilingual() {
			st.Bilingual++
		}
		if c.Reviewed() {
			st.Reviewed++
		}
		st.Relationships += relationships(c)
		m, err := ilgraph.ParseDuration(c.Timeline.ResolvedAfter)
		measured := err == nil
		if measured {
			all = append(all, m)
		}
		for _, k := range []ilgraph.Kind{ilgraph.KindRootCause, ilgraph.KindContributing, ilgraph.KindOrg, ilgraph.KindDomain} {
			for _, id := range c.Tags(k) {
				key := ilgraph.TermKey{Kind: k, ID: id}
				g := groups[key]
				if g == nil {
					g = &group{}
					groups[key] = g
				}
				g.cases++
				if measured {
					g.mins = append(g.mins, m)
				}
			}
		}
		for _, a := range c.Tags(ilgraph.KindRootCause) {
			for _, b := range c.Tags(ilgraph.KindComponent) {
				pairs[[2]string{a, b}]++
			}
		}
	}
	st.ResolveAll = ilgraph.Distribute(st.Cases, all)
	st.PerYear = yearCounts(years)
	for key, g := range groups {
		tc := ilgraph.TermCount{Kind: key.Kind, ID: key.ID, Count: g.cases}
		switch key.Kind {
		case ilgraph.KindRootCause:
			st.PerRootCause = append(st.PerRootCause, tc)
			st.ResolveByCause = append(st.ResolveByCause, ilgraph.GroupDistribution{Term: tc, Distribution: ilgraph.Distribute(g.cases, g.mins)})
		case ilgraph.KindContributing:
			st.ResolveByFactor = append(st.ResolveByFactor, ilgraph.GroupDistribution{Term: tc, Distribution: ilgraph.Distribute(g.cases, g.mins)})
		case ilgraph.KindOrg:
			st.Organizations++
			st.PerOrg = append(st.PerOrg, tc)
		case ilgraph.KindDomain:
			st.PerDomain = append(st.PerDomain, tc)
		}
	}
	ilgraph.SortTermCounts(st.PerRootCause)
	ilgraph.SortTermCounts(st.PerOrg)
	ilgraph.SortTermCounts(st.PerDomain)
	for _, ds := range [][]ilgraph.GroupDistribution{st.ResolveByCause, st.ResolveByFactor} {
		sort.Slice(ds, func(i, j int) bool {
			if ds[i].Median != ds[j].Median {
				return ds[i].Median > ds[j].Median
			}
			return ds[i].Term.ID < ds[j].Term.ID
		})
	}
	for p, n := range pairs {
		st.TopPairs = append(st.TopPairs, ilgraph.PairCount{
			A: ilgraph.TermCount{Kind: ilgraph.KindRootCause, ID: p[0]}, B: ilgraph.TermCount{Kind: ilgraph.KindComponent, ID: p[1]}, Count: n,
		})
	}
	sort.Slice(st.TopPairs, func(i, j int) bool {
		x, y := st.TopPairs[i], st.TopPairs[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		if x.A.ID != y.A.ID {
			return x.A.ID < y.A.ID
		}
		return x.B.ID < y.B.ID
	})
	st.TopPairs = st.TopPairs[:min(20, len(st.TopPairs))]
	return st, nil
}

// axisValues returns a case's values on a breakdown axis.
func axisValues(c *ilgraph.Case, a ilgraph.Axis) ([]string, error) {
	switch a {
	case ilgraph.AxisYear:
		return []string{strconv.Itoa(c.Year())}, nil
	case ilgraph.AxisMonth:
		return []string{c.Date[:min(7, len(c.Date))]}, nil
	}
	if !ilgraph.Kind(a).Valid() {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "unknown breakdown axis %q", a)
	}
	return c.Tags(ilgraph.Kind(a)), nil
}

// Breakdown counts the cases f selects along two axes.
func (s *Store) Breakdown(_ context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	sel, err := s.Select(f)
	if err != nil {
		return nil, err
	}
	out := &ilgraph.BreakdownCounts{Total: len(sel), Rows: map[string]int{}, Columns: map[string]int{}, Cells: map[[2]string]int{}}
	for _, c := range sel {
		rs, err := axisValues(c, rows)
		if err != nil {
			return nil, err
		}
		cs, err := axisValues(c, cols)
		if err != nil {
			return nil, err
		}
		if out.FirstDate == "" || c.Date < out.FirstDate {
			out.FirstDate = c.Date
		}
		if c.Date > out.LastDate {
			out.LastDate = c.Date
		}
		for _, r := range rs {
			out.Rows[r]++
			for _, col := range cs {
				out.Cells[[2]string{r, col}]++
			}
		}
		for _, col := range cs {
			out.Columns[col]++
		}
	}
	return out, nil
}

// CooccurrenceCounts counts, over the cases f selects, the cases with each
// term of kinds from and to (singles), and with each pair a (of from), b
// (of to) together (pairs; a.ID < b.ID when the kinds are the same), and
// how many cases f selects (total).
func (s *Store) CooccurrenceCounts(_ context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (total int, singles map[ilgraph.Feature]int, pairs map[[2]ilgraph.Feature]int, err error) {
	for _, k := range []ilgraph.Kind{from, to} {
		if !k.Valid() {
			return 0, nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "unknown kind %q", k)
		}
	}
	sel, err := s.Select(f)
	if err != nil {
		return 0, nil, nil, err
	}
	kinds := []ilgraph.Kind{from}
	if to != from {
		kinds = append(kinds, to)
	}
	singles, pairs = map[ilgraph.Feature]int{}, map[[2]ilgraph.Feature]int{}
	for _, c := range sel {
		for _, k := range kinds {
			for _, id := range c.Tags(k) {
				singles[ilgraph.Feature{Kind: k, ID: id}]++
			}
		}
		for _, a := range c.Tags(from) {
			for _, b := range c.Tags(to) {
				if from == to && a >= b {
					continue
				}
				pairs[[2]ilgraph.Feature{{Kind: from, ID: a}, {Kind: to, ID: b}}]++
			}
		}
	}
	return len(sel), singles, pairs, nil
}

// Cooccurrence draws the co-occurrence graph of q as ilgraph.CooccurrenceQuery
// defines it: an edge for each pair at least q.MinCount selected cases have
// together, whose support (cases with both among those lift is measured
// over: q.Base, else the selection) is at least q.MinSupport and 1, with
// lift = support · N / (n(a) · n(b)) over that base; a node for each term
// an edge joins, counting the selected cases with it, labelled with its
// English label (an organization: its name).
func (s *Store) Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	total, singles, pairs, err := s.CooccurrenceCounts(ctx, q.From, q.To, q.Filter)
	if err != nil {
		return nil, err
	}
	bTotal, bSingles, bPairs := total, singles, pairs
	if q.Base != nil {
		if bTotal, bSingles, bPairs, err = s.CooccurrenceCounts(ctx, q.From, q.To, *q.Base); err != nil {
			return nil, err
		}
	}
	key := func(f ilgraph.Feature) string { return string(f.Kind) + ":" + f.ID }
	d := &ilgraph.Drawing{}
	used := map[ilgraph.Feature]bool{}
	for p, c := range pairs {
		support := bPairs[p]
		if c < q.MinCount || support < max(q.MinSupport, 1) {
			continue
		}
		lift := float64(support) * float64(bTotal) / (float64(bSingles[p[0]]) * float64(bSingles[p[1]]))
		d.Edges = append(d.Edges, ilgraph.Edge{Source: key(p[0]), Target: key(p[1]), Type: ilgraph.EdgeCooccurs, Count: c, Support: support, Lift: lift})
		used[p[0]], used[p[1]] = true, true
	}
	for f := range used {
		d.Nodes = append(d.Nodes, ilgraph.Node{Key: key(f), Kind: string(f.Kind), ID: f.ID, Label: s.label(f), Count: singles[f]})
	}
	if len(d.Nodes) > ilgraph.MaxDrawingNodes {
		return nil, ilgraph.Errorf(ilgraph.ELIMIT, "the co-occurrence graph has %d nodes, more than %d: narrow the filter or raise minCount", len(d.Nodes), ilgraph.MaxDrawingNodes)
	}
	d.Sort()
	return d, nil
}

// label is a term's English label, an organization's name.
func (s *Store) label(f ilgraph.Feature) string {
	if f.Kind == ilgraph.KindOrg {
		for _, c := range s.cases {
			if c.OrgSlug == f.ID {
				return c.Org
			}
		}
		return ""
	}
	for _, t := range s.vocab.Terms() {
		if t.Kind == f.Kind && t.ID == f.ID {
			return t.En
		}
	}
	return ""
}

// SameRootCause returns the other cases with id's root cause, ordered by
// how many other features they share with it, then date descending, then
// id, with the shared terms by kind (sorted).
func (s *Store) SameRootCause(_ context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, error) {
	a := s.byID[id]
	if a == nil {
		return nil, 0, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	var refs []ilgraph.CrossRef
	for _, c := range s.cases {
		if c.ID == a.ID || c.RootCause != a.RootCause {
			continue
		}
		x := ilgraph.CrossRef{Case: c, Shared: map[ilgraph.Kind][]string{}}
		for _, k := range ilgraph.AllKinds {
			if k == ilgraph.KindRootCause {
				continue
			}
			for _, t := range a.Tags(k) {
				for _, u := range c.Tags(k) {
					if t == u {
						x.Shared[k] = append(x.Shared[k], t)
					}
				}
			}
			sort.Strings(x.Shared[k])
		}
		refs = append(refs, x)
	}
	sort.SliceStable(refs, func(i, j int) bool {
		a, b := refs[i], refs[j]
		if a.SharedCount() != b.SharedCount() {
			return a.SharedCount() > b.SharedCount()
		}
		if a.Case.Date != b.Case.Date {
			return a.Case.Date > b.Case.Date
		}
		return a.Case.ID < b.Case.ID
	})
	total := len(refs)
	if offset >= total {
		return nil, total, nil
	}
	return refs[offset:min(offset+limit, total)], total, nil
}

// Terms returns the vocabulary's terms of kind k, in the vocabulary's
// order; for KindOrg, the cases' organizations by id.
func (s *Store) Terms(_ context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	s.Calls["Terms"]++
	var out []ilgraph.Term
	if k == ilgraph.KindOrg { // organizations are the cases' own, as in the graph
		seen := map[string]bool{}
		for _, c := range s.cases {
			if !seen[c.OrgSlug] {
				seen[c.OrgSlug] = true
				out = append(out, ilgraph.Term{Kind: k, ID: c.OrgSlug, En: c.Org})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out, nil
	}
	for _, t := range s.vocab.Terms() {
		if t.Kind == k {
			out = append(out, t)
		}
	}
	return out, nil
}

// TermsByKey returns the organizations asked for, in order; any other key
// gives a Term with an empty ID (the core's unit tests read vocabulary
// terms from VocabularyCounts).
func (s *Store) TermsByKey(_ context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	s.Calls["TermsByKey"]++
	out := make([]ilgraph.Term, len(keys))
	for i, k := range keys {
		for _, c := range s.cases {
			if k.Kind == ilgraph.KindOrg && c.OrgSlug == k.ID {
				out[i] = ilgraph.Term{Kind: k.Kind, ID: k.ID, En: c.Org}
			}
		}
	}
	return out, nil
}

// TermCaseCounts returns how many cases have each term, in order.
func (s *Store) TermCaseCounts(_ context.Context, keys []ilgraph.TermKey) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		sel, err := s.Select(ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{k.Kind: {AllOf: []string{k.ID}}}})
		if err != nil {
			return nil, err
		}
		out[i] = len(sel)
	}
	return out, nil
}

// VocabularyCounts returns every vocabulary term with its number of cases.
func (s *Store) VocabularyCounts(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	s.Calls["VocabularyCounts"]++
	out := map[ilgraph.TermKey]ilgraph.TermInfo{}
	for _, t := range s.vocab.Terms() {
		k := ilgraph.TermKey{Kind: t.Kind, ID: t.ID}
		n, err := s.TermCaseCounts(ctx, []ilgraph.TermKey{k})
		if err != nil {
			return nil, err
		}
		out[k] = ilgraph.TermInfo{Term: t, Cases: n[0]}
	}
	return out, nil
}

// Cooccurring is not answered: the core's tests of it run against Neo4j.
func (s *Store) Cooccurring(context.Context, ilgraph.Kind, string, ilgraph.Kind, int) ([]ilgraph.TermCount, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "the reference store does not count co-occurring terms (tested against Neo4j)")
}

// Neighbourhood is not answered: it is a graph walk, tested against Neo4j.
func (s *Store) Neighbourhood(context.Context, string, string, int, int) (*ilgraph.Drawing, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "the reference store does not draw neighbourhoods (tested against Neo4j)")
}

// Connections is not answered: it is a graph walk, tested against Neo4j.
func (s *Store) Connections(context.Context, string, string, int, int) ([]ilgraph.Path, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "the reference store does not find connections (tested against Neo4j)")
}
