package explore

import (
	"context"

	"github.com/ilgraph/ilgraph"
)

// CrossReference is a case listed beside another because it has the same
// root cause, with everything else the two share and the reason to show.
type CrossReference struct {
	Case        *ilgraph.Case
	RootCause   ilgraph.TermKey
	Shared      []ilgraph.Feature // by kind (in ilgraph.AllKinds order), then id
	SharedCount int
	// Reason is the library's label: "same root cause", then each shared
	// domain ("· shared <domain>"), then how many features of every other
	// kind the two also share (see ilgraph.CrossReferenceReason).
	Reason string
}

// CrossReferenceList is a page of cross references.
type CrossReferenceList struct {
	Refs       []CrossReference
	TotalCount int
	Offset     int
	PageInfo   PageInfo
}

// Cursor is the cursor of the i-th reference of the page.
func (l *CrossReferenceList) Cursor(i int) string { return EncodeCursor(l.Offset + i) }

// DefaultSameRootCause is the size of a page of same-root-cause cases that
// names none: what a case page lists beside the case.
const DefaultSameRootCause = 10

// SameRootCause lists the other cases with a case's root cause, ordered by
// how much else they share with it, then newest first, DefaultSameRootCause
// of them when the page names no size. ENOTFOUND for an unknown case.
func (s *Service) SameRootCause(ctx context.Context, caseID string, p Page) (*CrossReferenceList, error) {
	return s.sameRootCauseList(ctx, caseID, p, false)
}

// SameRootCauseTags is SameRootCause for a caller that reads only the
// cases' TagsOnly fields (CaseQuery.TagsOnly): when the read model is
// current, its cases are not read from the graph, and hold only those
// fields.
func (s *Service) SameRootCauseTags(ctx context.Context, caseID string, p Page) (*CrossReferenceList, error) {
	return s.sameRootCauseList(ctx, caseID, p, true)
}

func (s *Service) sameRootCauseList(ctx context.Context, caseID string, p Page, tagsOnly bool) (*CrossReferenceList, error) {
	offset, limit, err := p.bounds(DefaultSameRootCause)
	if err != nil {
		return nil, err
	}
	refs, total, err := s.sameRootCause(ctx, caseID, offset, limit, tagsOnly)
	if err != nil {
		return nil, err
	}
	if err := pastTheEnd(offset, total); err != nil {
		return nil, err
	}
	vocab, err := s.VocabularySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := &CrossReferenceList{Refs: make([]CrossReference, len(refs)), TotalCount: total, Offset: offset, PageInfo: pageInfo(offset, len(refs), total)}
	for i, x := range refs {
		cr := CrossReference{Case: x.Case, RootCause: ilgraph.TermKey{Kind: ilgraph.KindRootCause, ID: x.Case.RootCause}, Shared: []ilgraph.Feature{}, SharedCount: x.SharedCount()}
		var domains []string
		others := map[ilgraph.Kind]int{}
		for _, k := range ilgraph.AllKinds {
			others[k] = len(x.Shared[k])
			for _, id := range x.Shared[k] {
				cr.Shared = append(cr.Shared, ilgraph.Feature{Kind: k, ID: id})
				if k == ilgraph.KindDomain {
					label := vocab[ilgraph.TermKey{Kind: k, ID: id}].En
					if label == "" {
						label = id
					}
					domains = append(domains, label)
				}
			}
		}
		cr.Reason = ilgraph.CrossReferenceReason(domains, others)
		out.Refs[i] = cr
	}
	return out, nil
}

func (s *Service) sameRootCause(ctx context.Context, caseID string, offset, limit int, tagsOnly bool) ([]ilgraph.CrossRef, int, error) {
	if s.rm != nil {
		refs, total, ok, err := s.rm.SameRootCauseRefs(ctx, caseID, offset, limit)
		if err != nil {
			return nil, 0, err
		}
		if ok && tagsOnly {
			return refs, total, nil
		}
		if ok {
			stubs := make([]*ilgraph.Case, len(refs))
			for i, x := range refs {
				stubs[i] = x.Case
			}
			cs, err := s.store.CasesByID(ctx, caseIDs(stubs))
			if err != nil {
				return nil, 0, err
			}
			out := refs[:0]
			for i, x := range refs {
				if cs[i] != nil { // nil: deleted since the read model was built
					x.Case = cs[i]
					out = append(out, x)
				}
			}
			return out, total, nil
		}
	}
	return s.store.SameRootCause(ctx, caseID, offset, limit)
}
