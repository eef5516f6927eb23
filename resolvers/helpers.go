package resolvers

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// Page sizes.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// page turns first/after into an offset and a limit. Cursors are opaque
// base64 strings holding the offset of the last item seen.
func page(first *int, after *string) (offset, limit int, err error) {
	limit = DefaultPageSize
	if first != nil {
		limit = *first
	}
	if limit < 0 {
		return 0, 0, ilgraph.Errorf(ilgraph.EINVALID, "first must not be negative")
	}
	if limit > MaxPageSize {
		return 0, 0, ilgraph.Errorf(ilgraph.ELIMIT, "first may be at most %d, not %d", MaxPageSize, limit)
	}
	if after != nil && *after != "" {
		n, ok := decodeCursor(*after)
		if !ok {
			return 0, 0, ilgraph.Errorf(ilgraph.EINVALID, "after: %q is not a cursor this API gave out", clip(*after))
		}
		offset = n + 1
	}
	return offset, limit, nil
}

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(offset)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), "o:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, false
	}
	return n, true
}

func pageInfo(offset, count, total int) *PageInfo {
	pi := &PageInfo{HasPreviousPage: offset > 0, HasNextPage: offset+count < total}
	if count > 0 {
		s, e := encodeCursor(offset), encodeCursor(offset+count-1)
		pi.StartCursor, pi.EndCursor = &s, &e
	}
	return pi
}

// toFilter converts the GraphQL filter input into the domain filter.
func toFilter(f *CaseFilter) ilgraph.CaseFilter {
	out := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}}
	if f == nil {
		return out
	}
	if len(f.RootCauses) > 0 {
		out.Tags[ilgraph.KindRootCause] = ilgraph.TermMatch{AnyOf: f.RootCauses}
	}
	if len(f.Orgs) > 0 {
		out.Tags[ilgraph.KindOrg] = ilgraph.TermMatch{AnyOf: f.Orgs}
	}
	for k, m := range map[ilgraph.Kind]*TermMatch{
		ilgraph.KindComponent: f.Components, ilgraph.KindSymptom: f.Symptoms,
		ilgraph.KindContributing: f.Contributing, ilgraph.KindDomain: f.Domains,
	} {
		if m != nil && (len(m.AnyOf) > 0 || len(m.AllOf) > 0) {
			out.Tags[k] = ilgraph.TermMatch{AnyOf: m.AnyOf, AllOf: m.AllOf}
		}
	}
	out.ExcludeOrgs = f.ExcludeOrgs
	out.Severities = f.Severities
	out.DateFrom = deref(f.DateFrom)
	out.DateTo = deref(f.DateTo)
	out.Text = deref(f.Text)
	return out
}

func toSort(s *CaseSort) graph.CaseSort {
	if s == nil {
		return graph.SortDateDesc
	}
	return graph.CaseSort(*s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:57] + "…"
}

// nodeKind maps the GraphQL node kind to the store's.
func nodeKind(k NodeKind) string {
	if k == NodeKindCase {
		return graph.NodeKindCase
	}
	return strings.ToLower(string(k))
}
