package similarity

import (
	"context"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/versioned"
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

// Service keeps an index in step with the graph: it is rebuilt, once,
// whenever a load has changed the cases (see package versioned).
type Service struct {
	db Store
	ix versioned.Value[*Index]
}

// BuildTimeout bounds one build of the index. A million cases take
// minutes on a small shared machine (docs/benchmarks.md); the general
// bound of versioned.RebuildTimeout (5 minutes) would cut such a build
// short every time, and each request would start it again.
const BuildTimeout = 30 * time.Minute

// NewService returns a service over db. The first request builds the index.
func NewService(db Store) *Service {
	s := &Service{db: db}
	s.ix = versioned.Value[*Index]{
		Version: db.CorpusVersion,
		Build: func(ctx context.Context) (*Index, int64, error) {
			ix, err := Load(ctx, db)
			if err != nil {
				return nil, 0, err
			}
			return ix, ix.Version, nil
		},
		What:    "the similarity index",
		Timeout: BuildTimeout,
	}
	return s
}

// Load reads the whole corpus from the graph into a new index. With a
// store that lists the cases' organizations first (graph.DB), it builds
// the index as the cases stream in, analysing their texts meanwhile, and
// holds no row and no text longer than that takes.
func Load(ctx context.Context, db Store) (*Index, error) {
	version, err := db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	var ix *Index
	if ol, ok := db.(caseOrgLister); ok {
		orgs, err := ol.CaseOrganizations(ctx)
		if err != nil {
			return nil, err
		}
		var extra orgNamesInOrder
		for _, o := range orgs {
			extra.add(o)
		}
		b := newBuilder(version, nil, extra.names)
		err = db.SimilarityRows(ctx, b.add)
		built, ferr := b.finish() // always: it stops the analysis
		if err != nil {
			return nil, err
		}
		if ix = built; ferr != nil {
			return nil, ferr
		}
	} else {
		var rows []ilgraph.CaseFeatures
		err = db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { rows = append(rows, r) })
		if err != nil {
			return nil, err
		}
		ix = Build(rows, version)
	}
	if on, ok := db.(organizationNamer); ok {
		ix.orgTerms = map[string]string{}
		if err := on.OrganizationNames(ctx, func(id, name string) { ix.orgTerms[id] = name }); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// caseOrgLister is a store that can list the distinct organization names
// its cases give (graph.DB): the text analysis must know them before the
// first text.
type caseOrgLister interface {
	CaseOrganizations(ctx context.Context) ([]string, error)
}

// organizationNamer is a store that can list organizations with their names
// (graph.DB): the read model then answers organization terms too.
type organizationNamer interface {
	OrganizationNames(ctx context.Context, fn func(id, name string)) error
}

// Index returns an index as current as the graph.
func (s *Service) Index(ctx context.Context) (*Index, error) { return s.ix.Get(ctx) }

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

// Weighting returns the features and text vector of each case named (nil
// for an unknown one) and the weight function opt defines, all from the
// index the ranking uses, so that an explanation computed from them with
// ilgraph.ScoreText gives exactly the scores the ranking gives.
func (s *Service) Weighting(ctx context.Context, ids []string, opt ilgraph.SimilarityOptions) ([][]ilgraph.Feature, []ilgraph.TextVector, func(ilgraph.Feature) float64, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	out := make([][]ilgraph.Feature, len(ids))
	text := make([]ilgraph.TextVector, len(ids))
	for i, id := range ids {
		out[i], text[i] = ix.Features(id), ix.TextVector(id)
	}
	return out, text, ix.Weight(opt), nil
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
	ix, _, err := s.ix.Current(ctx)
	return ix, err
}
