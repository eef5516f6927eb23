package resolvers

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// CaseConnection is a page of cases. Facets are computed only when asked
// for, over the filter the page was drawn with.
type CaseConnection struct {
	Edges      []CaseEdge
	Nodes      []ilgraph.Case
	PageInfo   *PageInfo
	TotalCount int
	filter     ilgraph.CaseFilter
}

// listCases runs a filtered, sorted, paginated case list.
func (r *Resolver) listCases(ctx context.Context, f ilgraph.CaseFilter, sort *CaseSort, first *int, after *string) (*CaseConnection, error) {
	offset, limit, err := page(first, after)
	if err != nil {
		return nil, err
	}
	s := toSort(sort)
	if s == graph.SortRelevance && !f.HasText() {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "sort RELEVANCE needs filter.text")
	}
	p, err := r.DB.ListCases(ctx, f, s, offset, limit)
	if err != nil {
		return nil, err
	}
	conn := &CaseConnection{TotalCount: p.Total, filter: f, PageInfo: pageInfo(offset, len(p.Cases), p.Total)}
	loaders := r.loaders(ctx)
	for i, c := range p.Cases {
		loaders.Case.Prime(c.ID, c)
		conn.Edges = append(conn.Edges, CaseEdge{Cursor: encodeCursor(offset + i), Node: c})
		conn.Nodes = append(conn.Nodes, *c)
	}
	return conn, nil
}

// terms resolves term ids of one kind through the request's loader.
func (r *Resolver) terms(ctx context.Context, k ilgraph.Kind, ids []string) ([]ilgraph.Term, error) {
	l := r.loaders(ctx)
	ts := make([]ilgraph.Term, len(ids))
	for i, id := range ids {
		t, err := l.Term(ctx, graph.TermKey{Kind: k, ID: id})
		if err != nil {
			return nil, err
		}
		if t.ID == "" { // a term the graph lacks: show its id
			t = ilgraph.Term{Kind: k, ID: id, En: id}
		}
		ts[i] = t
	}
	return ts, nil
}

func (r *Resolver) term(ctx context.Context, k ilgraph.Kind, id string) (*ilgraph.Term, error) {
	ts, err := r.terms(ctx, k, []string{id})
	if err != nil {
		return nil, err
	}
	return &ts[0], nil
}

// cases resolves case ids through the request's loader, dropping unknown ids.
func (r *Resolver) cases(ctx context.Context, ids []string) ([]ilgraph.Case, error) {
	if len(ids) == 0 {
		return []ilgraph.Case{}, nil
	}
	cs, err := r.loaders(ctx).Case.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ilgraph.Case, 0, len(cs))
	for _, c := range cs {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}

// crossRefs builds the GraphQL cross references for a case.
func (r *Resolver) crossRefs(ctx context.Context, id string, offset, limit int) ([]CrossReference, int, error) {
	refs, total, err := r.DB.SameRootCause(ctx, id, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]CrossReference, len(refs))
	for i, x := range refs {
		r.loaders(ctx).Case.Prime(x.Case.ID, x.Case)
		rc, err := r.term(ctx, ilgraph.KindRootCause, x.Case.RootCause)
		if err != nil {
			return nil, 0, err
		}
		cr := CrossReference{Case: x.Case, RootCause: rc, SharedCount: x.SharedCount(), Shared: []SharedFeature{}}
		var domains []string
		for _, k := range ilgraph.AllKinds {
			ids := x.Shared[k]
			if len(ids) == 0 {
				continue
			}
			ts, err := r.terms(ctx, k, ids)
			if err != nil {
				return nil, 0, err
			}
			for j := range ts {
				cr.Shared = append(cr.Shared, SharedFeature{Kind: k, Term: &ts[j]})
				if k == ilgraph.KindDomain {
					domains = append(domains, ts[j].En)
				}
			}
		}
		cr.Reason = ilgraph.CrossReferenceReason(domains)
		out[i] = cr
	}
	return out, total, nil
}
