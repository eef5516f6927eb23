package similarity

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/parallel"
	"github.com/ilgraph/ilgraph/memstore"
)

// TextSearcher resolves a filter the index cannot evaluate (full text)
// into the ids of the cases it selects. graph.DB implements it.
type TextSearcher interface {
	CaseIDsMatching(ctx context.Context, f ilgraph.CaseFilter) ([]string, error)
}

// Service ranks over the corpus a memstore.Source keeps in step with the
// graph: its index is built over each snapshot the source reads, in the
// same read (the cases' texts analysed as they stream in), once per corpus
// version.
type Service struct {
	db  TextSearcher
	src *memstore.Source
	k   *consumer
}

// NewService returns a service ranking over src's corpora, registering its
// index with src (before src is first asked); db resolves text filters.
func NewService(db TextSearcher, src *memstore.Source) *Service {
	s := &Service{db: db, src: src, k: &consumer{}}
	src.Register(s.k)
	return s
}

// consumer builds an index with each corpus a source reads.
type consumer struct{}

// Start begins the text analysis, which leaves out the name parts of the
// organizations orgs.
func (*consumer) Start(ctx context.Context, orgs []string) (memstore.Consuming, error) {
	extra := namePartsOf(orgs)
	return &consuming{extra: extra, text: newTextAnalyserIn(textAnalyzer(extra), parallel.ShareOf(ctx))}, nil
}

type consuming struct {
	extra []string
	text  *textAnalyser
}

// Add analyses the case's text (ilgraph.SimilarityText), at once.
func (b *consuming) Add(c *ilgraph.Case) {
	b.text.add(ilgraph.SimilarityText(c.Trigger.En, c.Lessons.En))
}

// Finish builds the index over the snapshot.
func (b *consuming) Finish(s *memstore.Snapshot) (any, error) {
	a := b.text.finish() // always: it stops the analysis
	if s == nil {
		return nil, nil
	}
	return newIndex(s, a, nil, namePartsOf(s.OrgNamesGiven())), nil
}

// RowSource is what Load reads the corpus from. graph.DB implements it.
type RowSource interface {
	// CorpusVersion changes whenever a load changes the cases.
	CorpusVersion(ctx context.Context) (int64, error)
	// CaseOrganizations lists the distinct organization names the cases
	// give: the text analysis must know them before the first text.
	CaseOrganizations(ctx context.Context) ([]string, error)
	// SimilarityRows calls fn with every case's features.
	SimilarityRows(ctx context.Context, fn func(ilgraph.CaseFeatures)) error
}

// Load reads the whole corpus from the graph into a new index of its own,
// for ranking only (the write-back, benchmarks): it builds the index as the
// cases stream in, analysing their texts meanwhile, and holds no row and
// no text longer than that takes. A server ranks with a Service, over the
// snapshot the in-memory store shares.
func Load(ctx context.Context, db RowSource) (*Index, error) {
	version, err := db.CorpusVersion(ctx)
	if err != nil {
		return nil, err
	}
	orgs, err := db.CaseOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	b := newBuilder(version, nil, namePartsOf(orgs))
	err = db.SimilarityRows(ctx, b.add)
	ix, ferr := b.finish() // always: it stops the analysis
	if err != nil {
		return nil, err
	}
	return ix, ferr
}

// Index returns an index as current as the graph.
func (s *Service) Index(ctx context.Context) (*Index, error) {
	c, err := s.src.Get(ctx)
	if err != nil {
		return nil, err
	}
	return c.Value(s.k).(*Index), nil
}

// Similar ranks the cases most like the case id. It resolves a text filter
// through the graph's full-text index.
func (s *Service) Similar(ctx context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	if !opt.Filter.HasText() {
		// Ranked on the index in hand while the graph's version is read;
		// kept if that index is current (the usual case), else ranked
		// again below.
		var ms []ilgraph.Match
		found := false
		ok, err := s.src.Optimistic(ctx, func(c *memstore.Corpus) {
			ix := c.Value(s.k).(*Index)
			if found = ix.Has(id); found {
				ms = ix.SimilarTo(id, opt)
			}
		})
		if err != nil {
			return nil, err
		}
		if ok && !found {
			return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
		}
		if ok {
			return ms, nil
		}
	}
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
	return ix.SimilarTo(id, opt), nil
}

// SimilarToProfile ranks the cases most like an ad-hoc set of features,
// each held with the confidence member gives (nil: all in full).
func (s *Service) SimilarToProfile(ctx context.Context, profile []ilgraph.Feature, member func(ilgraph.Feature) float64, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.resolveText(ctx, &opt); err != nil {
		return nil, err
	}
	return ix.SimilarToProfile(profile, member, opt), nil
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
// never built), it starts a rebuild in the background and returns nil (see
// memstore.Source.Current).
func (s *Service) Current(ctx context.Context) (*Index, error) {
	c, err := s.src.Current(ctx)
	if c == nil || err != nil {
		return nil, err
	}
	return c.Value(s.k).(*Index), nil
}
