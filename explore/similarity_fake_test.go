package explore_test

import (
	"context"
	"sort"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/similarity"
)

// memStore is an in-memory store over a slice of cases: the core's unit
// tests run against it, and the same questions run against Neo4j in the
// resolvers' and graph's tests. It evaluates the filters the core's logic
// depends on (tags, ids, dates); full text is not its business.
type memStore struct {
	cases []*ilgraph.Case
	byID  map[string]*ilgraph.Case
	vocab *ilgraph.Vocabulary
	calls map[string]int
}

func newMemStore(cases []*ilgraph.Case, v *ilgraph.Vocabulary) *memStore {
	m := &memStore{cases: cases, byID: map[string]*ilgraph.Case{}, vocab: v, calls: map[string]int{}}
	for _, c := range cases {
		m.byID[c.ID] = c
	}
	return m
}

func (m *memStore) match(c *ilgraph.Case, f ilgraph.CaseFilter) bool {
	has := func(k ilgraph.Kind, id string) bool {
		for _, t := range c.Tags(k) {
			if t == id {
				return true
			}
		}
		return false
	}
	for k, tm := range f.Tags {
		if len(tm.AnyOf) > 0 {
			any := false
			for _, id := range tm.AnyOf {
				any = any || has(k, id)
			}
			if !any {
				return false
			}
		}
		for _, id := range tm.AllOf {
			if !has(k, id) {
				return false
			}
		}
	}
	for _, id := range f.ExcludeIDs {
		if c.ID == id {
			return false
		}
	}
	if f.IDs != nil {
		in := false
		for _, id := range f.IDs {
			in = in || c.ID == id
		}
		if !in {
			return false
		}
	}
	if f.ReviewedOnly && c.MachineTagged() {
		return false
	}
	return (f.DateFrom == "" || c.Date >= f.DateFrom) && (f.DateTo == "" || c.Date <= f.DateTo)
}

func (m *memStore) selection(f ilgraph.CaseFilter) []*ilgraph.Case {
	var out []*ilgraph.Case
	for _, c := range m.cases {
		if m.match(c, f) {
			out = append(out, c)
		}
	}
	return out
}

func (m *memStore) CasesByID(_ context.Context, ids []string) ([]*ilgraph.Case, error) {
	m.calls["CasesByID"]++
	out := make([]*ilgraph.Case, len(ids))
	for i, id := range ids {
		out[i] = m.byID[id]
	}
	return out, nil
}

func (m *memStore) RecurrencesOf(_ context.Context, ids []string) ([][]string, error) {
	out := make([][]string, len(ids))
	for i, id := range ids {
		for _, c := range m.cases {
			if c.RecurrenceOf == id {
				out[i] = append(out[i], c.ID)
			}
		}
	}
	return out, nil
}

func (m *memStore) RawJSON(_ context.Context, ids []string) ([]string, error) {
	out := make([]string, len(ids))
	for i, id := range ids {
		if c := m.byID[id]; c != nil {
			out[i] = string(c.Raw)
		}
	}
	return out, nil
}

func (m *memStore) ListCases(_ context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	m.calls["ListCases"]++
	sel := m.selection(f)
	sort.Slice(sel, func(i, j int) bool {
		a, b := sel[i], sel[j]
		switch s {
		case ilgraph.SortDateAsc:
			if a.Date != b.Date {
				return a.Date < b.Date
			}
		case ilgraph.SortIDDesc:
			return a.ID > b.ID
		case ilgraph.SortIDAsc:
		default:
			if a.Date != b.Date {
				return a.Date > b.Date
			}
		}
		return a.ID < b.ID
	})
	p := &ilgraph.CasePage{Total: len(sel)}
	if offset < len(sel) {
		p.Cases = sel[offset:min(offset+limit, len(sel))]
	}
	return p, nil
}

func (m *memStore) Facets(_ context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	counts := map[ilgraph.TermKey]int{}
	years := map[int]int{}
	for _, c := range m.selection(f) {
		for _, ft := range c.Features() {
			counts[ilgraph.TermKey{Kind: ft.Kind, ID: ft.ID}]++
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
	for y, n := range years {
		out.Years = append(out.Years, ilgraph.YearCount{Year: y, Count: n})
	}
	sort.Slice(out.Years, func(i, j int) bool { return out.Years[i].Year < out.Years[j].Year })
	return out, nil
}

func (m *memStore) SameRootCause(_ context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, error) {
	a := m.byID[id]
	if a == nil {
		return nil, 0, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	var refs []ilgraph.CrossRef
	for _, c := range m.cases {
		if c.ID == a.ID || c.RootCause != a.RootCause {
			continue
		}
		x := ilgraph.CrossRef{Case: c, Shared: map[ilgraph.Kind][]string{}}
		for _, k := range ilgraph.AllKinds[1:] {
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

func (m *memStore) Stats(context.Context, ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	return &ilgraph.Stats{Cases: len(m.cases)}, nil
}

func (m *memStore) Terms(_ context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	m.calls["Terms"]++
	var out []ilgraph.Term
	if k == ilgraph.KindOrg { // organizations are the cases' own, as in the graph
		seen := map[string]bool{}
		for _, c := range m.cases {
			if !seen[c.OrgSlug] {
				seen[c.OrgSlug] = true
				out = append(out, ilgraph.Term{Kind: k, ID: c.OrgSlug, En: c.Org})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out, nil
	}
	for _, t := range m.vocab.Terms() {
		if t.Kind == k {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *memStore) TermsByKey(_ context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	m.calls["TermsByKey"]++
	out := make([]ilgraph.Term, len(keys))
	for i, k := range keys {
		for _, c := range m.cases {
			if k.Kind == ilgraph.KindOrg && c.OrgSlug == k.ID {
				out[i] = ilgraph.Term{Kind: k.Kind, ID: k.ID, En: c.Org}
			}
		}
	}
	return out, nil
}

func (m *memStore) TermCaseCounts(_ context.Context, keys []ilgraph.TermKey) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		out[i] = len(m.selection(ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{k.Kind: {AllOf: []string{k.ID}}}}))
	}
	return out, nil
}

func (m *memStore) VocabularyCounts(context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	m.calls["VocabularyCounts"]++
	out := map[ilgraph.TermKey]ilgraph.TermInfo{}
	for _, t := range m.vocab.Terms() {
		k := ilgraph.TermKey{Kind: t.Kind, ID: t.ID}
		n := len(m.selection(ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{t.Kind: {AllOf: []string{t.ID}}}}))
		out[k] = ilgraph.TermInfo{Term: t, Cases: n}
	}
	return out, nil
}

func (m *memStore) Cooccurring(context.Context, ilgraph.Kind, string, ilgraph.Kind, int) ([]ilgraph.TermCount, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "memStore does not count co-occurring terms (tested against Neo4j)")
}

func (m *memStore) Neighbourhood(context.Context, string, string, int, int) (*ilgraph.Drawing, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "memStore does not draw neighbourhoods (tested against Neo4j)")
}

func (m *memStore) Cooccurrence(context.Context, ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "memStore does not draw co-occurrence graphs (tested against Neo4j)")
}

func (m *memStore) Breakdown(context.Context, ilgraph.Axis, ilgraph.Axis, ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "memStore does not break down (see internal_test.go's fakeStore, and Neo4j)")
}

func (m *memStore) Connections(context.Context, string, string, int, int) ([]ilgraph.Path, error) {
	return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "memStore does not find connections (tested against Neo4j)")
}

// memSimilarity ranks with the real similarity index built in memory.
type memSimilarity struct{ ix *similarity.Index }

func newMemSimilarity(cases []*ilgraph.Case) memSimilarity {
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i, c := range cases {
		rows[i] = ilgraph.SimilarityRow(c)
	}
	return memSimilarity{ix: similarity.Build(rows, 1)}
}

func (s memSimilarity) Similar(_ context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	if !s.ix.Has(id) {
		return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	return s.ix.Similar(s.ix.Features(id), id, opt), nil
}

func (s memSimilarity) SimilarToProfile(_ context.Context, p []ilgraph.Feature, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	return s.ix.Similar(p, "", opt), nil
}

func (s memSimilarity) Weighting(_ context.Context, ids []string, opt ilgraph.SimilarityOptions) ([][]ilgraph.Feature, []ilgraph.TextVector, func(ilgraph.Feature) float64, error) {
	out := make([][]ilgraph.Feature, len(ids))
	text := make([]ilgraph.TextVector, len(ids))
	for i, id := range ids {
		if s.ix.Has(id) {
			out[i], text[i] = s.ix.Features(id), s.ix.TextVector(id)
		}
	}
	return out, text, s.ix.Weight(opt), nil
}
