package resolvers

import (
	"context"
	"net/http"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// Loaders batch the lookups that field resolvers make, per request, so that
// a page of cases with their tags, related cases and term counts costs a
// fixed number of round trips to Neo4j whatever the page size.
type Loaders struct {
	Term        *dataloadgen.Loader[graph.TermKey, ilgraph.Term]
	CaseCount   *dataloadgen.Loader[graph.TermKey, int]
	Case        *dataloadgen.Loader[string, *ilgraph.Case]
	Recurrences *dataloadgen.Loader[string, []string]
}

type loadersKey struct{}

// NewLoaders returns fresh loaders over db.
func NewLoaders(db *graph.DB) *Loaders {
	wait := dataloadgen.WithWait(time.Millisecond)
	return &Loaders{
		Term: dataloadgen.NewLoader(func(ctx context.Context, keys []graph.TermKey) ([]ilgraph.Term, []error) {
			ts, err := db.TermsByKey(ctx, keys)
			return ts, fill(len(keys), err)
		}, wait),
		CaseCount: dataloadgen.NewLoader(func(ctx context.Context, keys []graph.TermKey) ([]int, []error) {
			cs, err := db.TermCaseCounts(ctx, keys)
			return cs, fill(len(keys), err)
		}, wait),
		Case: dataloadgen.NewLoader(func(ctx context.Context, ids []string) ([]*ilgraph.Case, []error) {
			cs, err := db.CasesByID(ctx, ids)
			return cs, fill(len(ids), err)
		}, wait),
		Recurrences: dataloadgen.NewLoader(func(ctx context.Context, ids []string) ([][]string, []error) {
			rs, err := db.RecurrencesOf(ctx, ids)
			return rs, fill(len(ids), err)
		}, wait),
	}
}

// fill gives every key of a failed batch the batch's error.
func fill(n int, err error) []error {
	if err == nil {
		return nil
	}
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// WithLoaders puts fresh loaders into each request's context.
func WithLoaders(db *graph.DB, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), loadersKey{}, NewLoaders(db))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// loadersFrom returns the request's loaders (fresh ones if the request has
// none, e.g. in tests that call resolvers directly).
func (r *Resolver) loaders(ctx context.Context) *Loaders {
	if l, ok := ctx.Value(loadersKey{}).(*Loaders); ok {
		return l
	}
	return NewLoaders(r.DB)
}
