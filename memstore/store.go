package memstore

import (
	"context"

	"github.com/ilgraph/ilgraph"
)

// Store is the in-memory store as the core's read model
// (explore.ReadModel): each question is answered from the source's snapshot
// when it is as current as the graph (ok), and otherwise returns ok false
// at once and starts a rebuild, so that the caller asks the graph (see
// Source.Current).
type Store struct{ src *Source }

// NewStore returns the store over a source's snapshots.
func NewStore(src *Source) *Store { return &Store{src: src} }

// Pin pins the snapshot in hand for a piece of work (a GraphQL operation)
// while the graph's version is read: see Source.Pin.
func (st *Store) Pin(ctx context.Context) (context.Context, func(context.Context) (bool, error)) {
	return st.src.Pin(ctx)
}

// Unpin undoes Pin for ctx.
func (st *Store) Unpin(ctx context.Context) context.Context { return st.src.Unpin(ctx) }

// current returns the snapshot when it is current, nil otherwise.
func (st *Store) current(ctx context.Context) (*Snapshot, error) {
	c, err := st.src.Current(ctx)
	if c == nil || err != nil {
		return nil, err
	}
	return c.Snapshot, nil
}

// answer runs fn on the snapshot when it is current, and reports whether
// it ran (ok false: the caller asks the graph, as with current). The work
// runs on the snapshot in hand while the graph's version is read
// (Source.Optimistic), so the version's round trip costs no time of its
// own when the snapshot is current, the usual case; when it is not, fn
// runs again as current decides, and its first result is dropped.
func (st *Store) answer(ctx context.Context, fn func(s *Snapshot)) (bool, error) {
	return st.answerOr(ctx, st.src.Current, fn)
}

// answerOr is answer with current (Source.Current, or CurrentOrFollow) for
// the corpus when the one in hand is not current.
func (st *Store) answerOr(ctx context.Context, current func(context.Context) (*Corpus, error), fn func(s *Snapshot)) (bool, error) {
	ok, err := st.src.Optimistic(ctx, func(c *Corpus) { fn(c.Snapshot) })
	if ok || err != nil {
		return ok, err
	}
	c, err := current(ctx)
	if c == nil || err != nil {
		return false, err
	}
	fn(c.Snapshot)
	return true, nil
}

// ListCases pages through the cases a filter without text selects; the
// cases hold what the read model holds (ReadModelFields).
func (st *Store) ListCases(ctx context.Context, f ilgraph.CaseFilter, order ilgraph.CaseSort, offset, limit int) (cases []*ilgraph.Case, total int, ok bool, err error) {
	ok, err = st.answer(ctx, func(s *Snapshot) { cases, total = s.ListCases(f, order, offset, limit) })
	if !ok || err != nil {
		return nil, 0, false, err
	}
	return cases, total, true, nil
}

// CasesTags returns cases as the read model holds them, in order (nil for
// an unknown case).
func (st *Store) CasesTags(ctx context.Context, ids []string) (cs []*ilgraph.Case, ok bool, err error) {
	s, err := st.current(ctx)
	if s == nil || err != nil {
		return nil, false, err
	}
	cs = make([]*ilgraph.Case, len(ids))
	for i, id := range ids {
		cs[i], _ = s.CaseTags(id)
	}
	return cs, true, nil
}

// aggregate is answer for a question over many cases, which the graph
// answers slowly: when the snapshot is behind by changes the feed holds,
// it waits a little for the catch-up rather than let the caller ask the
// graph (Source.CurrentOrFollow).
func (st *Store) aggregate(ctx context.Context, fn func(s *Snapshot)) (bool, error) {
	return st.answerOr(ctx, st.src.CurrentOrFollow, fn)
}

// FacetCounts counts the facets of the cases a filter without text selects.
func (st *Store) FacetCounts(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, bool, error) {
	var out *ilgraph.Facets
	ok, err := st.aggregate(ctx, func(s *Snapshot) { out = s.Facets(f) })
	if !ok || err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// CaseStats computes the statistics of the cases a filter without text
// selects, all but Relationships.
func (st *Store) CaseStats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, bool, error) {
	var out *ilgraph.Stats
	ok, err := st.aggregate(ctx, func(s *Snapshot) { out = s.Stats(f) })
	if !ok || err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// CooccurrenceCounts counts co-occurrences between two kinds over the cases
// a filter without text selects.
func (st *Store) CooccurrenceCounts(ctx context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (total int, singles map[ilgraph.Feature]int, pairs map[[2]ilgraph.Feature]int, ok bool, err error) {
	var c *Cooccurrence
	ok, err = st.aggregate(ctx, func(s *Snapshot) { c = s.Cooccurrence(from, to, f) })
	if !ok || err != nil {
		return 0, nil, nil, false, err
	}
	return c.Total, c.Singles, c.Pairs, true, nil
}

// SameRootCauseRefs pages through the cases with a case's root cause (see
// Snapshot.SameRootCause); ENOTFOUND for an unknown case.
func (st *Store) SameRootCauseRefs(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, bool, error) {
	var refs []ilgraph.CrossRef
	var total int
	found := false
	ok, err := st.answer(ctx, func(s *Snapshot) { refs, total, found = s.SameRootCause(id, offset, limit) })
	if !ok || err != nil {
		return nil, 0, false, err
	}
	if !found {
		return nil, 0, true, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	return refs, total, true, nil
}

// OrgNames returns the names of organizations ("" for one the store does
// not know).
func (st *Store) OrgNames(ctx context.Context, ids []string) ([]string, bool, error) {
	s, err := st.current(ctx)
	if s == nil || err != nil || s.orgTerms == nil {
		return nil, false, err
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.orgTerms[id]
	}
	return out, true, nil
}

// OrgNameMap returns every organization's name by id, as the snapshot read
// them (nil, false when it is not current). The map is shared: read it,
// never change it.
func (st *Store) OrgNameMap(ctx context.Context) (map[string]string, bool, error) {
	s, err := st.current(ctx)
	if s == nil || err != nil || s.orgTerms == nil {
		return nil, false, err
	}
	return s.orgTerms, true, nil
}

// Hold says that a write through the core is under way (Source.Hold).
func (st *Store) Hold() (release func()) { return st.src.Hold() }

// Follow applies a write through the core to the corpus (Source.Apply):
// the case id as written, nil for a delete, which made the corpus version
// version.
func (st *Store) Follow(ctx context.Context, version int64, id string, c *ilgraph.Case) bool {
	return st.src.Apply(ctx, version, Change{ID: id, Case: c})
}

// BreakdownCounts counts the cases a filter without text selects along two
// axes (see Snapshot.Breakdown).
func (st *Store) BreakdownCounts(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, bool, error) {
	var out *ilgraph.BreakdownCounts
	var berr error
	ok, err := st.aggregate(ctx, func(s *Snapshot) { out, berr = s.Breakdown(rows, cols, f) })
	if !ok || err != nil {
		return nil, false, err
	}
	return out, true, berr
}
