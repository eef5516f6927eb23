package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// tagsOnly reports whether the case list being resolved (a CaseConnection)
// is asked only for case fields the core's read model holds (ids, dates,
// severity, organization, tags): then the core need not read the cases from
// the graph (explore.CaseQuery.TagsOnly). It reads the fields the query
// selects, with fragments resolved; the terms' own fields resolve from the
// term ids as always.
func tagsOnly(ctx context.Context) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	slim := func(sel []graphql.CollectedField) bool {
		for _, f := range sel {
			switch f.Name {
			case "id", "date", "year", "severity", "organization", "rootCause", "components", "symptoms", "contributing", "domains", "__typename":
			default:
				return false
			}
		}
		return true
	}
	for _, f := range graphql.CollectFields(op, fc.Field.Selections, []string{"CaseConnection"}) {
		switch f.Name {
		case "nodes":
			if !slim(graphql.CollectFields(op, f.Selections, []string{"Case"})) {
				return false
			}
		case "edges":
			for _, e := range graphql.CollectFields(op, f.Selections, []string{"CaseEdge"}) {
				if e.Name == "node" && !slim(graphql.CollectFields(op, e.Selections, []string{"Case"})) {
					return false
				}
			}
		}
	}
	return true
}
