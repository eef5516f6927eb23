package explore

import (
	"context"
	"sort"

	"github.com/ilgraph/ilgraph"
)

// CaseQuery asks for a page of the cases a filter selects.
type CaseQuery struct {
	Filter ilgraph.CaseFilter
	Sort   ilgraph.CaseSort // DATE_DESC when empty
	Page   Page
	// TagsOnly says the caller reads only the case fields the read model
	// holds — ID, Date, Severity, Title, Org, OrgSlug and the tags (RootCause,
	// Components, Symptoms, Contributing, Domain) — as a front door knows
	// from the fields it was asked for: the cases are then not read from
	// the graph when the read model has the page.
	TagsOnly bool
}

// CaseList is a page of cases, with where it sits in the whole selection.
type CaseList struct {
	Cases      []*ilgraph.Case
	TotalCount int
	Offset     int
	PageInfo   PageInfo
	// Filter is the selection the page was drawn from (facets count it).
	Filter ilgraph.CaseFilter
}

// Cursor is the cursor of the i-th case of the page.
func (l *CaseList) Cursor(i int) string { return EncodeCursor(l.Offset + i) }

// Snippets returns where the list's text filter matched the i-th case of
// the page (see Snippets); none without a text filter.
func (l *CaseList) Snippets(i int) []Snippet { return Snippets(l.Cases[i], l.Filter) }

// Case returns one case, or ENOTFOUND.
func (s *Service) Case(ctx context.Context, id string) (*ilgraph.Case, error) {
	cs, err := s.store.CasesByID(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 || cs[0] == nil {
		return nil, noCase(id)
	}
	return cs[0], nil
}

// noCase is the error for a case id that names no case.
func noCase(id string) error {
	return ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", ilgraph.Clip(id, 60))
}

// CaseTags is Case for a caller that reads only the TagsOnly fields
// (CaseQuery.TagsOnly): the case holding only those, from the read model
// when it is current, with no graph read; the store's whole case when it
// is not.
func (s *Service) CaseTags(ctx context.Context, id string) (*ilgraph.Case, error) {
	if s.rm != nil {
		cs, ok, err := s.rm.CasesTags(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		if ok {
			if len(cs) == 0 || cs[0] == nil {
				return nil, noCase(id)
			}
			return cs[0], nil
		}
	}
	return s.Case(ctx, id)
}

// CasesByID returns the cases in the order asked, nil for an unknown id.
func (s *Service) CasesByID(ctx context.Context, ids []string) ([]*ilgraph.Case, error) {
	return s.store.CasesByID(ctx, ids)
}

// RecurrencesOf returns, per case id, the ids of the cases that recur it.
func (s *Service) RecurrencesOf(ctx context.Context, ids []string) ([][]string, error) {
	return s.store.RecurrencesOf(ctx, ids)
}

// RawJSON returns, per case id, the case's JSON exactly as it was loaded.
func (s *Service) RawJSON(ctx context.Context, ids []string) ([]string, error) {
	return s.store.RawJSON(ctx, ids)
}

// Cases lists the cases a filter selects, sorted and paginated.
func (s *Service) Cases(ctx context.Context, q CaseQuery) (*CaseList, error) {
	offset, limit, err := q.Page.bounds(DefaultPageSize)
	if err != nil {
		return nil, err
	}
	if q.Sort == "" {
		q.Sort = ilgraph.SortDateDesc
	}
	if !q.Sort.Valid() {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSort, "%q is not a case order", ilgraph.Clip(string(q.Sort), 40))
	}
	if q.Sort == ilgraph.SortRelevance && !q.Filter.HasText() {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldText, "is needed to rank by relevance: give some words to search for")
	}
	if err := q.Filter.Validate(); err != nil {
		return nil, err
	}
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return nil, err
	}
	if rm := s.readModel(q.Filter); rm != nil && q.Sort != ilgraph.SortRelevance {
		cs, total, ok, err := rm.ListCases(ctx, q.Filter, q.Sort, offset, limit)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := pastTheEnd(offset, total); err != nil {
				return nil, err
			}
			if !q.TagsOnly {
				if cs, err = s.wholeCases(ctx, cs); err != nil {
					return nil, err
				}
			}
			return &CaseList{Cases: cs, TotalCount: total, Offset: offset, Filter: q.Filter,
				PageInfo: pageInfo(offset, len(cs), total)}, nil
		}
	}
	p, err := s.store.ListCases(ctx, q.Filter, q.Sort, offset, limit)
	if err != nil {
		return nil, err
	}
	if err := pastTheEnd(offset, p.Total); err != nil {
		return nil, err
	}
	return &CaseList{Cases: p.Cases, TotalCount: p.Total, Offset: offset, Filter: q.Filter,
		PageInfo: pageInfo(offset, len(p.Cases), p.Total)}, nil
}

// SharedWith lists the cases that share a feature of kind k with a case:
// with term, the cases that have that term (the case must have it too);
// without, those with at least one of the case's terms of kind k. The case
// itself is left out.
func (s *Service) SharedWith(ctx context.Context, caseID string, k ilgraph.Kind, term string, q CaseQuery) (*CaseList, error) {
	c, err := s.caseTags(ctx, caseID)
	if err != nil {
		return nil, err
	}
	q.Filter, err = ilgraph.SharedFilter(c, k, term, q.Filter)
	if err != nil {
		return nil, err
	}
	return s.Cases(ctx, q)
}

// caseTags returns a case with at least its id and tags: from the read
// model when it is current, else the whole case from the store.
func (s *Service) caseTags(ctx context.Context, id string) (*ilgraph.Case, error) {
	if s.rm != nil {
		cs, ok, err := s.rm.CasesTags(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		if ok {
			c := cs[0]
			if c == nil {
				return nil, noCase(id)
			}
			return c, nil
		}
	}
	return s.Case(ctx, id)
}

// wholeCases reads from the store the cases the read model named, in
// order, leaving out any deleted since.
func (s *Service) wholeCases(ctx context.Context, refs []*ilgraph.Case) ([]*ilgraph.Case, error) {
	if len(refs) == 0 {
		return refs, nil
	}
	cs, err := s.store.CasesByID(ctx, caseIDs(refs))
	if err != nil {
		return nil, err
	}
	out := cs[:0]
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// DefaultTopicCases is the size of a page of a term's cases (a topic page)
// that names none, whichever door asks.
const DefaultTopicCases = 10

// TermCases lists the cases tagged with a term (a topic page), within q's
// filter: DefaultTopicCases of them unless q's page says.
func (s *Service) TermCases(ctx context.Context, key ilgraph.TermKey, q CaseQuery) (*CaseList, error) {
	if !key.Kind.Valid() {
		return nil, unknownKind(key.Kind)
	}
	if q.Page.First == nil {
		n := DefaultTopicCases
		q.Page.First = &n
	}
	f := q.Filter
	f.Tags = make(map[ilgraph.Kind]ilgraph.TermMatch, len(q.Filter.Tags)+1)
	for k, m := range q.Filter.Tags {
		f.Tags[k] = m
	}
	m := f.Tags[key.Kind]
	m.AllOf = append(append([]string(nil), m.AllOf...), key.ID)
	f.Tags[key.Kind] = m
	q.Filter = f
	return s.Cases(ctx, q)
}

// Facet bounds: how many terms of each kind a facet list may hold.
const (
	DefaultFacetTop = 50
	MaxFacetTop     = 1000
)

// Facets counts, over the cases a filter selects, the top terms of each kind
// (by count, then id) and the cases per year.
func (s *Service) Facets(ctx context.Context, f ilgraph.CaseFilter, top int) (*ilgraph.Facets, error) {
	if top < 1 || top > MaxFacetTop {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldFacetTop, "must be from 1 to %d, not %d", MaxFacetTop, top)
	}
	fs, err := s.facetCounts(ctx, f)
	if err != nil {
		return nil, err
	}
	out := &ilgraph.Facets{Terms: make(map[ilgraph.Kind][]ilgraph.TermCount, len(ilgraph.AllKinds)), Years: append([]ilgraph.YearCount{}, fs.Years...)}
	for _, k := range ilgraph.AllKinds {
		ts := fs.Terms[k]
		out.Terms[k] = append([]ilgraph.TermCount{}, ts[:min(top, len(ts))]...)
	}
	return out, nil
}

func (s *Service) facetCounts(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	if rm := s.readModel(f); rm != nil {
		if err := f.Validate(); err != nil {
			return nil, err
		}
		fs, ok, err := rm.FacetCounts(ctx, f)
		if err != nil || ok {
			return fs, err
		}
	}
	return s.store.Facets(ctx, f)
}

// Stats computes corpus statistics over the cases a filter selects.
func (s *Service) Stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	st, f, fromReadModel, err := s.stats(ctx, f)
	if err != nil || !fromReadModel {
		return st, err
	}
	if st.Relationships, err = s.store.CaseRelationships(ctx, f); err != nil {
		return nil, err
	}
	return st, nil
}

// StatsSummary is Stats without Relationships (which, from the read model,
// costs a walk over the selected cases in the graph): what dashboards show.
func (s *Service) StatsSummary(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	st, _, _, err := s.stats(ctx, f)
	return st, err
}

// stats returns the statistics, the filter with its terms resolved, and
// whether the read model answered.
func (s *Service) stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, ilgraph.CaseFilter, bool, error) {
	if err := f.Validate(); err != nil {
		return nil, f, false, err
	}
	f, err := s.resolveFilter(ctx, f)
	if err != nil {
		return nil, f, false, err
	}
	if rm := s.readModel(f); rm != nil {
		st, ok, err := rm.CaseStats(ctx, f)
		if err != nil || ok {
			return st, f, ok, err
		}
	}
	st, err := s.store.Stats(ctx, f)
	return st, f, false, err
}

func caseIDs(cs []*ilgraph.Case) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// WordForms are the forms of one word of a text search that the cases it
// found contain (ilgraph.WordStem: "certificate", "certificates").
type WordForms struct {
	Word  string   // the word as asked, lower-cased
	Forms []string // the forms found, the word itself first when found; then alphabetical
}

// WordFormFinder is a store that looks up which forms of words occur in the
// cases a text filter selects (graph.DB).
type WordFormFinder interface {
	WordFormsFound(ctx context.Context, f ilgraph.CaseFilter, forms []string) ([]string, error)
}

// MaxWordFormWords is how many words of a search WordForms reports on.
const MaxWordFormWords = 8

// WordForms says how a text filter's English words were matched: for each
// of its first MaxWordFormWords distinct English words (stop words and
// words that have no other form left out), the forms of it that occur in
// the cases the whole filter selects. Empty without text, or when the
// store cannot say.
func (s *Service) WordForms(ctx context.Context, f ilgraph.CaseFilter) ([]WordForms, error) {
	out := []WordForms{}
	ff, ok := s.store.(WordFormFinder)
	if !ok || !f.HasText() {
		return out, nil
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var words []string
	var lookups []string
	seen := map[string]bool{}
	for _, t := range ilgraph.SearchTokens(f.Text) {
		w := t.Text
		if !ilgraph.IsEnglishWord(w) || ilgraph.SearchStopWords[w] || seen[ilgraph.WordStem(w)] || len(words) == MaxWordFormWords {
			continue
		}
		seen[ilgraph.WordStem(w)] = true
		forms := ilgraph.WordFormCandidates(w)
		if len(forms) < 2 {
			continue
		}
		words = append(words, w)
		lookups = append(lookups, forms...)
	}
	if len(words) == 0 {
		return out, nil
	}
	found, err := ff.WordFormsFound(ctx, f, ilgraph.Unique(lookups))
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, w := range found {
		has[w] = true
	}
	for _, w := range words {
		wf := WordForms{Word: w, Forms: []string{}}
		var others []string
		for _, c := range ilgraph.WordFormCandidates(w) {
			switch {
			case !has[c]:
			case c == w:
				wf.Forms = append(wf.Forms, c)
			default:
				others = append(others, c)
			}
		}
		sort.Strings(others)
		wf.Forms = append(wf.Forms, others...)
		out = append(out, wf)
	}
	return out, nil
}
