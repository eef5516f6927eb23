package simindex

import (
	"context"
	"sync"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// Service keeps an index in step with the graph. Before answering it reads
// the corpus version (one small query); when a load has changed the cases
// since the index was built, it rebuilds the index once, however many
// requests are waiting, and swaps it in.
type Service struct {
	db *graph.DB

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
func NewService(db *graph.DB) *Service { return &Service{db: db} }

// Load reads the whole corpus from the graph into a new index.
func Load(ctx context.Context, db *graph.DB) (*Index, error) {
	version, err := db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	var rows []Row
	err = db.SimilarityRows(ctx, func(r graph.SimilarityRow) {
		rows = append(rows, Row{ID: r.ID, Date: r.Date, Severity: r.Severity, Features: r.Features})
	})
	if err != nil {
		return nil, err
	}
	return Build(rows, version), nil
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
		b = &rebuild{done: make(chan struct{})}
		s.build = b
		go func() {
			// Detached from the request: other requests may be waiting too.
			ix, err := Load(context.WithoutCancel(ctx), s.db)
			s.mu.Lock()
			b.ix, b.err = ix, err
			if err == nil && (s.current == nil || ix.Version >= s.current.Version) {
				s.current = ix
			}
			s.build = nil
			s.mu.Unlock()
			close(b.done)
		}()
	}
	s.mu.Unlock()
	select {
	case <-b.done:
		return b.ix, b.err
	case <-ctx.Done():
		return nil, ilgraph.WrapError(ilgraph.ETIMEOUT, ctx.Err(), "building the similarity index")
	}
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
