package resolvers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ilgraph/ilgraph/internal/admission"
)

// fieldClasses are the fields whose cost puts an operation above a lookup,
// by parent type and field name. Any other field is a lookup: one case, one
// term, the vocabulary, or a field of a result already fetched.
var fieldClasses = map[string]admission.Class{
	"Query.cases":         admission.List,
	"Query.sharedWith":    admission.List,
	"Query.sameRootCause": admission.List,
	"Query.neighbourhood": admission.List,
	"Case.sameRootCause":  admission.List,
	"Case.related":        admission.List,
	"Case.recurrences":    admission.List,
	"Term.cases":          admission.List,

	"Query.similarCases":     admission.Similarity,
	"Query.similarToProfile": admission.Similarity,
	"Case.similar":           admission.Similarity,

	"Query.cooccurrence":    admission.Aggregate,
	"Query.connections":     admission.Aggregate,
	"Query.stats":           admission.Aggregate,
	"CaseConnection.facets": admission.Aggregate, // counts over every case the filter selects
	"Term.cooccurring":      admission.Aggregate,
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
				if c, ok := fieldClasses[parent+"."+s.Name]; ok && c > class {
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
	if t.admission == nil || t.storeDown != nil && t.storeDown() {
		return func() {}, true
	}
	setClass(ctx, class.String())
	release, err := t.admission.Acquire(ctx, class)
	if err == nil {
		return release, true
	}
	if t.storeDown != nil && t.storeDown() {
		// It waited behind requests that were finding out that the store
		// is down: let it find out at once too.
		return func() {}, true
	}
	retry := t.admission.Config().Wait
	var ref *admission.Refusal
	reason := "deadline"
	if errors.As(err, &ref) {
		retry = ref.RetryAfter
		reason = "wait"
		if ref.QueueFull {
			reason = "queue_full"
		}
	}
	if t.metrics != nil {
		t.metrics.refused.WithLabelValues(class.String(), reason).Inc()
	}
	secs := int((max(retry, time.Second) + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	gerr := gqlerror.Errorf("the server is busy with %s requests; retry in %d s", class, secs)
	gerr.Extensions = map[string]any{"code": "OVERLOADED"}
	out.send(http.StatusServiceUnavailable, struct {
		Errors gqlerror.List `json:"errors"`
	}{gqlerror.List{gerr}})
	return nil, false
}
