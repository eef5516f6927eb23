package resolvers

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// Loaders batch the lookups that field resolvers make, per request, so that
// a page of cases with their tags, related cases and term counts costs a
// fixed number of round trips to Neo4j whatever the page size:
//
//   - the controlled vocabulary (terms with labels and case counts) is small
//     and bounded, so it is read whole, once, the first time a request needs
//     a term;
//   - organizations, cases and recurrences are batched by dataloaders.
type Loaders struct {
	db    *graph.DB
	cache *vocabCache // shared by the server's requests; nil: no sharing

	vocabOnce sync.Once
	vocab     map[graph.TermKey]graph.TermInfo
	vocabErr  error

	Org         *dataloadgen.Loader[graph.TermKey, ilgraph.Term]
	OrgCount    *dataloadgen.Loader[graph.TermKey, int]
	Case        *dataloadgen.Loader[string, *ilgraph.Case]
	Recurrences *dataloadgen.Loader[string, []string]
	RawJSON     *dataloadgen.Loader[string, string]
}

type loadersKey struct{}

// batchWait is how long a dataloader gathers keys before it sends a batch.
// Resolvers of one list level run concurrently and ask within far less.
const batchWait = 5 * time.Millisecond

// NewLoaders returns fresh loaders over db, sharing cache (which may be nil).
func NewLoaders(db *graph.DB, cache *vocabCache) *Loaders {
	wait := dataloadgen.WithWait(batchWait)
	return &Loaders{
		db: db, cache: cache,
		Org: dataloadgen.NewLoader(func(ctx context.Context, keys []graph.TermKey) ([]ilgraph.Term, []error) {
			ts, err := db.TermsByKey(ctx, keys)
			return ts, fill(len(keys), err)
		}, wait),
		OrgCount: dataloadgen.NewLoader(func(ctx context.Context, keys []graph.TermKey) ([]int, []error) {
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
		RawJSON: dataloadgen.NewLoader(func(ctx context.Context, ids []string) ([]string, []error) {
			rs, err := db.RawJSON(ctx, ids)
			return rs, fill(len(ids), err)
		}, wait),
	}
}

// Term returns one term. Vocabulary terms come from the request's snapshot;
// organizations from a batch. A term the graph lacks comes back with only
// its id (ID empty means: not found).
func (l *Loaders) Term(ctx context.Context, k graph.TermKey) (ilgraph.Term, error) {
	if k.Kind == ilgraph.KindOrg {
		return l.Org.Load(ctx, k)
	}
	v, err := l.vocabulary(ctx)
	if err != nil {
		return ilgraph.Term{}, err
	}
	return v[k].Term, nil
}

// CaseCount returns how many cases have a term.
func (l *Loaders) CaseCount(ctx context.Context, k graph.TermKey) (int, error) {
	if k.Kind == ilgraph.KindOrg {
		return l.OrgCount.Load(ctx, k)
	}
	v, err := l.vocabulary(ctx)
	if err != nil {
		return 0, err
	}
	return v[k].Cases, nil
}

func (l *Loaders) vocabulary(ctx context.Context) (map[graph.TermKey]graph.TermInfo, error) {
	l.vocabOnce.Do(func() { l.vocab, l.vocabErr = l.cache.get(ctx, l.db) })
	return l.vocab, l.vocabErr
}

// VocabularyTTL is how long the process reuses the vocabulary it read (term
// labels and case counts): they change only when a load runs, and reading
// them is a round trip that a case page would otherwise pay every time. A
// load shows in term counts at most this much later.
const VocabularyTTL = 2 * time.Second

// vocabCache shares the vocabulary between the requests of one server.
type vocabCache struct {
	mu      sync.Mutex
	data    map[graph.TermKey]graph.TermInfo
	fetched time.Time
}

func (c *vocabCache) get(ctx context.Context, db *graph.DB) (map[graph.TermKey]graph.TermInfo, error) {
	if c == nil {
		return db.VocabularyCounts(ctx)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil && time.Since(c.fetched) < VocabularyTTL {
		return c.data, nil
	}
	data, err := db.VocabularyCounts(ctx)
	if err != nil {
		return nil, err
	}
	c.data, c.fetched = data, time.Now()
	return data, nil
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
	cache := &vocabCache{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), loadersKey{}, NewLoaders(db, cache))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// loaders returns the request's loaders (fresh ones if the request has
// none, e.g. in tests that call resolvers directly).
func (r *Resolver) loaders(ctx context.Context) *Loaders {
	if l, ok := ctx.Value(loadersKey{}).(*Loaders); ok {
		return l
	}
	return NewLoaders(r.DB, nil)
}
