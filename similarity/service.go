package similarity

import (
	"context"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Store is what the similarity service reads from the graph. graph.DB
// implements it.
type Store interface {
	// CorpusVersion changes whenever a load changes the cases.
	CorpusVersion(ctx context.Context) (int64, error)
	// SimilarityRows calls fn with every case's features.
	SimilarityRows(ctx context.Context, fn func(ilgraph.CaseFeatures)) error
	// CaseIDsMatching resolves a filter the index cannot evaluate (full text).
	CaseIDsMatching(ctx context.Context, f ilgraph.CaseFilter) ([]string, error)
}

// RebuildTimeout bounds one rebuild of the index. A rebuild is detached from
// the request that started it (others may wait for it too), so it needs a
// deadline of its own: a stuck database must not leave it running forever.
const RebuildTimeout = 5 * time.Minute

// Service keeps an index in step with the graph. Before answering it reads
// the corpus version (one small query); when a load has changed the cases
// since the index was built, it rebuilds the index once, however many
// requests are waiting, and swaps it in.
type Service struct {
	db Store

	mu      sync.Mutex
	current *Index
	build   *rebuild // the rebuild under way, if any
}

type rebuild struct {
	done chan struct{}
	ix   *Index
	err  error
}

// NewService returns a service over db. The first request builds the index.
func NewService(db Store) *Service { return &Service{db: db} }

// Load reads the whole corpus from the graph into a new index.
func Load(ctx context.Context, db Store) (*Index, error) {
	version, err := db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	var rows []ilgraph.CaseFeatures
	err = db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { rows = append(rows, r) })
	if err != nil {
		return nil, err
	}
	ix := Build(rows, version)
	if on, ok := db.(organizationNamer); ok {
		ix.orgTerms = map[string]string{}
		if err := on.OrganizationNames(ctx, func(id, name string) { ix.orgTerms[id] = name }); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// organizationNamer is a store that can list organizations with their names
// (graph.DB): the read model then answers organization terms too.
type organizationNamer interface {
	OrganizationNames(ctx context.Context, fn func(id, name string)) error
}

// Index returns an index as current as the graph.
func (s *Service) Index(ctx context.Context) (*Index, error) {
	version, err := s.db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.current != nil && s.current.Version == version {
		ix := s.current
		s.mu.Unlock()
		return ix, nil
	}
	b := s.build
	if b == nil {
		b = s.startRebuild(ctx)
	}
	s.mu.Unlock()
	select {
	case <-b.done:
		return b.ix, b.err
	case <-ctx.Done():
		return nil, ilgraph.WrapError(ilgraph.ETIMEOUT, ctx.Err(), "building the similarity index")
	}
}

// startRebuild starts loading a new index; s.mu is held.
func (s *Service) startRebuild(ctx context.Context) *rebuild {
	b := &rebuild{done: make(chan struct{})}
	s.build = b
	go func() {
		// Detached from the request: other requests may be waiting too.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RebuildTimeout)
		defer cancel()
		ix, err := Load(ctx, s.db)
		s.mu.Lock()
		b.ix, b.err = ix, err
		if err == nil && (s.current == nil || ix.Version >= s.current.Version) {
			s.current = ix
		}
		s.build = nil
		s.mu.Unlock()
		close(b.done)
	}()
	return b
}

// Similar ranks the cases most like the case id. It resolves a text filter
// through the graph's full-text index.
func (s *Service) Similar(ctx context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	if !ix.Has(id) {
		return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	if err := s.resolveText(ctx, &opt); err != nil {
		return nil, err
	}
	return ix.Similar(ix.Features(id), id, opt), nil
}

// SimilarToProfile ranks the cases most like an ad-hoc set of features.
func (s *Service) SimilarToProfile(ctx context.Context, profile []ilgraph.Feature, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.resolveText(ctx, &opt); err != nil {
		return nil, err
	}
	return ix.Similar(profile, "", opt), nil
}

func (s *Service) resolveText(ctx context.Context, opt *ilgraph.SimilarityOptions) error {
	if !opt.Filter.HasText() {
		return nil
	}
	ids, err := s.db.CaseIDsMatching(ctx, opt.Filter)
	if err != nil {
		return err
	}
	opt.Filter.IDs = ids
	if opt.Filter.IDs == nil {
		opt.Filter.IDs = []string{}
	}
	opt.Filter.Text = ""
	return nil
}

// Current returns the index when it is as current as the graph, without
// waiting: when a load has changed the cases since it was built (or it was
// never built), it starts a rebuild in the background and returns nil, and
// the caller answers from the graph meanwhile. Case lists and dashboards
// use it (the index is their read model); one small query per call.
func (s *Service) Current(ctx context.Context) (*Index, error) {
	version, err := s.db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil && s.current.Version == version {
		return s.current, nil
	}
	if s.build == nil {
		s.startRebuild(ctx)
	}
	return nil, nil
}
