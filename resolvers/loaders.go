package resolvers

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// Loaders batch the lookups that field resolvers make, per request, so that
// a page of cases with their tags, related cases and term counts costs a
// fixed number of round trips to Neo4j whatever the page size:
//
//   - vocabulary terms (labels and case counts) come from the core's shared
//     snapshot of the whole vocabulary, read at most once per
//     explore.VocabularyTTL;
//   - organizations, cases and recurrences are batched by dataloaders.
type Loaders struct {
	core *explore.Service

	Org         *dataloadgen.Loader[ilgraph.TermKey, ilgraph.Term]
	OrgCount    *dataloadgen.Loader[ilgraph.TermKey, int]
	Case        *dataloadgen.Loader[string, *ilgraph.Case]
	Recurrences *dataloadgen.Loader[string, []string]
	RawJSON     *dataloadgen.Loader[string, string]

	// orgNames are the organizations' names from the core's read model,
	// fetched once per request on the first organization asked for (nil
	// when the read model is not current: the Org loader batches then).
	orgOnce  sync.Once
	orgNames map[string]string

	// sure holds, per suggestions object of the request, which of its
	// terms are shown as sure (explore.Service.Sure, once per object).
	sureMu sync.Mutex
	sure   map[*suggest.Result]map[ilgraph.Feature]bool
}

// Sure says which terms of res are shown as sure, computed once per
// suggestions object of the request (SuggestedTerm.sure asks per term).
func (l *Loaders) Sure(res *suggest.Result) map[ilgraph.Feature]bool {
	l.sureMu.Lock()
	defer l.sureMu.Unlock()
	if m, ok := l.sure[res]; ok {
		return m
	}
	if l.sure == nil {
		l.sure = map[*suggest.Result]map[ilgraph.Feature]bool{}
	}
	m := l.core.Sure(res)
	l.sure[res] = m
	return m
}

type loadersKey struct{}

// batchWait is how long a dataloader gathers keys before it sends a batch.
// Resolvers of one list level run concurrently and ask within far less.
const batchWait = 5 * time.Millisecond

// NewLoaders returns fresh loaders over the core.
func NewLoaders(core *explore.Service) *Loaders {
	wait := dataloadgen.WithWait(batchWait)
	return &Loaders{
		core:        core,
		Org:         dataloadgen.NewLoader(batch(core.Terms), wait),
		OrgCount:    dataloadgen.NewLoader(batch(core.TermCaseCounts), wait),
		Case:        dataloadgen.NewLoader(batch(core.CasesByID), wait),
		Recurrences: dataloadgen.NewLoader(batch(core.RecurrencesOf), wait),
		RawJSON:     dataloadgen.NewLoader(batch(core.RawJSON), wait),
	}
}

// batch adapts a core batch lookup to a dataloader's fetch function: every
// key of a failed batch gets the batch's error.
func batch[K, V any](fetch func(context.Context, []K) ([]V, error)) func(context.Context, []K) ([]V, []error) {
	return func(ctx context.Context, keys []K) ([]V, []error) {
		vs, err := fetch(ctx, keys)
		if err == nil {
			return vs, nil
		}
		// The loader wants a value and an error per key; a failed fetch
		// returns none, and the loader would report that instead of err
		// ("bug in fetch function: 0 values returned"), as a 1M-case run
		// showed when Neo4j timed out.
		errs := make([]error, len(keys))
		for i := range errs {
			errs[i] = err
		}
		return make([]V, len(keys)), errs
	}
}

// Term returns one term. Vocabulary terms come from the core's snapshot;
// organizations from a batch. A term the graph lacks comes back with its id
// as its label.
func (l *Loaders) Term(ctx context.Context, k ilgraph.TermKey) (ilgraph.Term, error) {
	if k.Kind == ilgraph.KindOrg {
		l.orgOnce.Do(func() { l.orgNames, _ = l.core.OrgNameMap(ctx) })
		if name, ok := l.orgNames[k.ID]; ok && name != "" {
			return ilgraph.Term{Kind: k.Kind, ID: k.ID, En: name}, nil
		}
		return l.Org.Load(ctx, k)
	}
	ts, err := l.core.Terms(ctx, []ilgraph.TermKey{k})
	if err != nil {
		return ilgraph.Term{}, err
	}
	return ts[0], nil
}

// PrimeOrgs makes sure the organizations among counts resolve (Term)
// without waiting: those the read model does not name are loaded now, in
// one batch, into the loader's cache. A list of counts whose terms
// resolve inline (internal/gqlinline) is primed first, so that no element
// waits on a batch by itself.
func (l *Loaders) PrimeOrgs(ctx context.Context, counts ...[]ilgraph.TermCount) error {
	l.orgOnce.Do(func() { l.orgNames, _ = l.core.OrgNameMap(ctx) })
	var missing []ilgraph.TermKey
	for _, cs := range counts {
		for _, c := range cs {
			if c.Kind == ilgraph.KindOrg && l.orgNames[c.ID] == "" {
				missing = append(missing, ilgraph.TermKey{Kind: c.Kind, ID: c.ID})
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err := l.Org.LoadAll(ctx, missing)
	return err
}

// CaseCount returns how many cases have a term.
func (l *Loaders) CaseCount(ctx context.Context, k ilgraph.TermKey) (int, error) {
	if k.Kind == ilgraph.KindOrg {
		return l.OrgCount.Load(ctx, k)
	}
	cs, err := l.core.TermCaseCounts(ctx, []ilgraph.TermKey{k})
	if err != nil {
		return 0, err
	}
	return cs[0], nil
}

// WithLoaders puts fresh loaders into each request's context.
func WithLoaders(core *explore.Service, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), loadersKey{}, NewLoaders(core))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// loaders returns the request's loaders (fresh ones if the request has
// none, e.g. in tests that call resolvers directly).
func (r *Resolver) loaders(ctx context.Context) *Loaders {
	if l, ok := ctx.Value(loadersKey{}).(*Loaders); ok {
		return l
	}
	return NewLoaders(r.Core)
}
