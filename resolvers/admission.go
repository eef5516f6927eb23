package resolvers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ilgraph/ilgraph/internal/admission"
)

// fieldClass is a field's cost class from the one table of every front
// door's classes (admission.Classes), by parent type and field name; a
// field not in it is a lookup: a field of a result already fetched.
func fieldClass(parent, name string) admission.Class {
	return admission.Classes[parent+"."+name] // zero: Lookup
}

// classify is an operation's cost class: that of its most expensive field,
// its root fields first (what it asks the store for), then the fields of
// their results that ask again. It runs after validation, which has
// resolved every field's definition and rejected fragment cycles.
func classify(op *ast.OperationDefinition, frags ast.FragmentDefinitionList) admission.Class {
	class := admission.Lookup
	seen := map[string]bool{}
	var walk func(set ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				parent := ""
				if s.ObjectDefinition != nil {
					parent = s.ObjectDefinition.Name
				}
				if c := fieldClass(parent, s.Name); c > class {
					class = c
				}
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if !seen[s.Name] {
					seen[s.Name] = true
					if f := frags.ForName(s.Name); f != nil {
						walk(f.SelectionSet)
					}
				}
			}
		}
	}
	if op != nil {
		walk(op.SelectionSet)
	}
	return class
}

// admit takes a slot for the operation's class. When the request is
// refused it has answered it (503, Retry-After, code OVERLOADED) and
// returns false.
func (t graphQLHTTP) admit(ctx context.Context, w http.ResponseWriter, out responder, class admission.Class) (func(), bool) {
	release, refused := t.admission.Admit(ctx, class)
	if refused == nil {
		return release, true
	}
	w.Header().Set("Retry-After", strconv.Itoa(refused.RetryAfter))
	gerr := gqlerror.Errorf("%s", refused.Message())
	gerr.Extensions = map[string]any{"code": "OVERLOADED"}
	out.send(http.StatusServiceUnavailable, struct {
		Errors gqlerror.List `json:"errors"`
	}{gqlerror.List{gerr}})
	return nil, false
}
