package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// itemSelections returns what the items of the list being resolved are
// asked for, with fragments resolved: for a connection (type conn), its
// nodes' and its edges' node's selections (edge: the edge type); for a
// plain list of item, the field's own. ok is false outside a field.
func itemSelections(ctx context.Context, conn, edge, item string) (sels [][]graphql.CollectedField, ok bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil, false
	}
	op := graphql.GetOperationContext(ctx)
	if d := fc.Field.Definition; d != nil && d.Type.Name() == item {
		return [][]graphql.CollectedField{graphql.CollectFields(op, fc.Field.Selections, []string{item})}, true
	}
	for _, f := range graphql.CollectFields(op, fc.Field.Selections, []string{conn}) {
		switch f.Name {
		case "nodes":
			sels = append(sels, graphql.CollectFields(op, f.Selections, []string{item}))
		case "edges":
			for _, e := range graphql.CollectFields(op, f.Selections, []string{edge}) {
				if e.Name == "node" {
					sels = append(sels, graphql.CollectFields(op, e.Selections, []string{item}))
				}
			}
		}
	}
	return sels, true
}

// tagsOnly reports whether the case list being resolved (a CaseConnection),
// or the case (a Case field), is asked only for case fields the core's read
// model holds (ids, dates, severity, title, organization, tags): then the
// core need not read the cases from the graph (explore.CaseQuery.TagsOnly).
// The terms' own fields resolve from the term ids as always.
func tagsOnly(ctx context.Context) bool {
	sels, ok := itemSelections(ctx, "CaseConnection", "CaseEdge", "Case")
	if !ok {
		return false
	}
	for _, sel := range sels {
		if !slimCase(sel) {
			return false
		}
	}
	return true
}

// slimCase reports whether a Case selection asks only for fields the core's
// read model holds (explore.CaseQuery.TagsOnly).
func slimCase(sel []graphql.CollectedField) bool {
	for _, f := range sel {
		switch f.Name {
		case "id", "date", "year", "severity", "title", "organization", "rootCause", "components", "symptoms", "contributing", "domains", "mechanisms", "__typename":
		default:
			return false
		}
	}
	return true
}

// crossRefTagsOnly is tagsOnly for a list of cross-references being
// resolved (a CrossReferenceConnection, or a list of CrossReference): true
// when their cases are asked only for the read model's fields.
func crossRefTagsOnly(ctx context.Context) bool {
	return itemCasesTagsOnly(ctx, "CrossReferenceConnection", "CrossReferenceEdge", "CrossReference")
}

// similarTagsOnly is tagsOnly for a list of SimilarCase being resolved.
func similarTagsOnly(ctx context.Context) bool {
	return itemCasesTagsOnly(ctx, "", "", "SimilarCase")
}

// itemCasesTagsOnly reports whether the items of the list being resolved
// (of type item, in a connection conn with edges edge, or a plain list)
// ask their case field only for the read model's fields.
func itemCasesTagsOnly(ctx context.Context, conn, edge, item string) bool {
	sels, ok := itemSelections(ctx, conn, edge, item)
	if !ok {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	for _, sel := range sels {
		for _, f := range sel {
			if f.Name == "case" && !slimCase(graphql.CollectFields(op, f.Selections, []string{"Case"})) {
				return false
			}
		}
	}
	return true
}

// sameRootCause lists a case's same-root-cause cases for the field being
// resolved: from the read model alone when the field asks its cases only
// for the fields the read model holds; otherwise whole cases, which then
// prime the case loader.
func (r *Resolver) sameRootCause(ctx context.Context, caseID string, p explore.Page) (*explore.CrossReferenceList, error) {
	if crossRefTagsOnly(ctx) {
		return r.Core.SameRootCauseTags(ctx, caseID, p)
	}
	list, err := r.Core.SameRootCause(ctx, caseID, p)
	if err != nil {
		return nil, err
	}
	for _, x := range list.Refs {
		r.primeCases(ctx, []*ilgraph.Case{x.Case})
	}
	return list, nil
}

// selectsCaseField reports whether the case list being resolved asks its
// cases (nodes, or edges' node) for the field name.
func selectsCaseField(ctx context.Context, name string) bool {
	sels, _ := itemSelections(ctx, "CaseConnection", "CaseEdge", "Case")
	for _, sel := range sels {
		for _, f := range sel {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

// prefetchRelated loads, in one batch each, the related cases and the
// recurrences of a page whose cases are asked for them: left to each case's
// resolver, the loads of a large page can straddle two dataloader windows on
// a busy machine (one more round trip).
func (r *Resolver) prefetchRelated(ctx context.Context, cs []*ilgraph.Case) error {
	if selectsCaseField(ctx, "recurrences") && len(cs) > 0 {
		if _, err := r.loaders(ctx).Recurrences.LoadAll(ctx, caseIDs(cs)); err != nil {
			return err
		}
	}
	if !selectsCaseField(ctx, "related") {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.ID] = true
	}
	for _, c := range cs {
		for _, id := range c.Related {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := r.loaders(ctx).Case.LoadAll(ctx, ids)
	return err
}

func caseIDs(cs []*ilgraph.Case) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// enclosingSuggestions returns the suggestions (a Suggestions object: Query.suggest,
// TextMatch.suggestions) the field being resolved sits in: whether a term
// is sure depends on the others of its kind (explore.Service.Sure).
func enclosingSuggestions(ctx context.Context) *suggest.Result {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if res, ok := fc.Result.(*suggest.Result); ok {
			return res
		}
	}
	return nil
}
