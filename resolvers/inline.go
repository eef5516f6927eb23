package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// plainSet names the fields of a type that resolve without waiting on
// anything; a field's own set says what its sub-selection may ask for (nil
// for a field with none).
type plainSet map[string]plainSet

// plainTermFields are the fields of Term read straight from the struct: no
// resolver, no context, nothing to wait for.
var plainTermFields = plainSet{"__typename": nil, "kind": nil, "id": nil, "en": nil, "ko": nil, "description": nil}

// plainTermCountFields are the fields of TermCount: its count, and its
// term, resolved inline (internal/gqlinline) from the core's vocabulary or
// the organizations primed for the list (Loaders.PrimeOrgs).
var plainTermCountFields = plainSet{"__typename": nil, "count": nil, "term": plainTermFields}

// plainDrawNodeFields and plainDrawEdgeFields are the fields of a drawing's
// nodes and edges, every one read from the struct or a plain method of it.
var (
	plainDrawNodeFields = plainSet{"__typename": nil, "key": nil, "kind": nil, "id": nil, "label": nil, "count": nil}
	plainDrawEdgeFields = plainSet{"__typename": nil, "source": nil, "target": nil, "type": nil, "count": nil, "support": nil, "lift": nil}
)

// marshalPlainList marshals the n elements of a list. When sel asks only
// for plain fields it does so in the calling goroutine; otherwise, or when
// sel holds anything else, it leaves the list to gqlgen's
// MarshalSliceConcurrently (one goroutine per element, so that resolvers
// waiting on dataloaders wait together). The generated executor calls it
// for the list types internal/gqlinline names.
func marshalPlainList(ctx context.Context, sel ast.SelectionSet, plain plainSet, n int, workerLimit int64,
	omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if !onlyPlain(sel, plain) {
		return graphql.MarshalSliceConcurrently(ctx, n, workerLimit, omitPanicHandler, marshal)
	}
	ret := make(graphql.Array, n)
	for i := 0; i < n; i++ {
		ret[i] = marshalElement(ctx, i, omitPanicHandler, marshal)
	}
	return ret
}

func marshalElement(ctx context.Context, i int, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) (m graphql.Marshaler) {
	child := graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
	if !omitPanicHandler {
		defer func() {
			if r := recover(); r != nil {
				graphql.AddError(child, graphql.Recover(child, r))
				m = graphql.Null
			}
		}()
	}
	return marshal(child, i)
}

// onlyPlain reports whether every field sel selects, through fragments
// too, is in plain, with a sub-selection only where plain gives the field
// a set of its own, and that sub-selection plain by that set.
func onlyPlain(sel ast.SelectionSet, plain plainSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			sub, ok := plain[s.Name]
			if !ok || len(s.SelectionSet) > 0 && (sub == nil || !onlyPlain(s.SelectionSet, sub)) {
				return false
			}
		case *ast.InlineFragment:
			if !onlyPlain(s.SelectionSet, plain) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || !onlyPlain(s.Definition.SelectionSet, plain) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// The fields that internal/gqlinline has resolved in the calling goroutine,
// and why none of them waits on a dataloader's batch. TermCount.term: a
// vocabulary term from the core's snapshot, or an organization that the
// resolver returning the list primed (Loaders.PrimeOrgs). Of Case:
//   - organization, year, dateKind, severity: read from the case itself;
//   - rootCause, components, symptoms, contributing, domains, mechanisms:
//     vocabulary terms, looked up in the core's vocabulary snapshot
//     (Resolver.term and Resolver.terms with a vocabulary kind; only
//     organizations go through a loader, and no case field lists them).
