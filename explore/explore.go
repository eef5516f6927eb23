// Package explore is ilgraph's application core: every question the
// product answers — case lists and filters, one case, shared features, same
// root cause, terms and topics, neighbourhoods, co-occurrence, connections,
// statistics, similar cases and live-incident profiles — with its limits and
// defaults, independent of any front door.
//
// The GraphQL resolvers, the JSON API, the MCP server and the explorer are
// translations between their protocol and this package. Term values that
// are not ids come back resolved or not, with Warnings, through the
// collector a front door puts in the request's context (WithWarnings). It speaks no Cypher:
// the store (graph.DB) sits behind the small interfaces declared here, so the
// core can be tested with an in-memory fake as well as against Neo4j.
package explore

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/suggest"
)

// CaseStore reads cases.
type CaseStore interface {
	// CasesByID returns the cases in the order asked, nil for an unknown id.
	CasesByID(ctx context.Context, ids []string) ([]*ilgraph.Case, error)
	// RecurrencesOf returns, per id, the ids of the cases that recur it.
	RecurrencesOf(ctx context.Context, ids []string) ([][]string, error)
	// RawJSON returns, per id, the case's JSON exactly as loaded.
	RawJSON(ctx context.Context, ids []string) ([]string, error)
	ListCases(ctx context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error)
	Facets(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error)
	SameRootCause(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, error)
	Stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error)
	// Breakdown counts the cases f selects along two different axes.
	Breakdown(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error)
	RelationshipCounter
}

// TermStore reads the vocabulary and organizations.
type TermStore interface {
	Terms(ctx context.Context, k ilgraph.Kind) ([]ilgraph.Term, error)
	// TermsByKey returns the terms in the order asked; an unknown key gives
	// a Term with an empty ID.
	TermsByKey(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error)
	TermCaseCounts(ctx context.Context, keys []ilgraph.TermKey) ([]int, error)
	// VocabularyCounts returns every vocabulary term (not organizations)
	// with its number of cases.
	VocabularyCounts(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error)
	Cooccurring(ctx context.Context, k ilgraph.Kind, id string, other ilgraph.Kind, limit int) ([]ilgraph.TermCount, error)
}

// GraphStore draws parts of the graph.
type GraphStore interface {
	Neighbourhood(ctx context.Context, kind, id string, depth, limit int) (*ilgraph.Drawing, error)
	Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error)
	Connections(ctx context.Context, from, to string, maxHops, limit int) ([]ilgraph.Path, error)
}

// Store is everything the core reads. graph.DB implements it.
type Store interface {
	CaseStore
	TermStore
	GraphStore
}

// Similarity ranks cases (the similarity package's Service implements it).
type Similarity interface {
	Similar(ctx context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error)
	// SimilarToProfile ranks the cases most like a profile whose features
	// are held with the confidence member gives (nil: all in full; see
	// ilgraph.ScoreProfile).
	SimilarToProfile(ctx context.Context, profile []ilgraph.Feature, member func(ilgraph.Feature) float64, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error)
	// Weighting returns the features and the text vector of each case
	// named (nil for a case it does not know) and the weight of any feature
	// under opt (the kind's weight, times the feature's rarity factor when
	// opt.Rarity is set), all as the ranking uses them.
	Weighting(ctx context.Context, ids []string, opt ilgraph.SimilarityOptions) ([][]ilgraph.Feature, []ilgraph.TextVector, func(ilgraph.Feature) float64, error)
}

// Suggester suggests vocabulary terms for free text (the suggest package's
// Service implements it).
type Suggester interface {
	Suggest(ctx context.Context, text, lang string) (*suggest.Result, error)
	// SuggestExcluding is Suggest with the case caseID left out of every
	// statistic: the evidence for a stored case's tags without its own
	// vote.
	SuggestExcluding(ctx context.Context, text, lang, caseID string) (*suggest.Result, error)
	// TextMatches returns the language and up to n cases whose text is
	// most like text, best first, then the cases of also not among them
	// with their scores (suggest.Engine.TextMatches).
	TextMatches(ctx context.Context, text, lang string, n int, also []string) (string, []suggest.TextMatch, error)
}

// ReadModel answers case lists and dashboard aggregates over filters
// without text from memory, when it is as current as the graph: each
// method returns ok false, at once, when it is not (being rebuilt after a
// load), and the core then asks the store. Its answers equal the store's
// (results, order, counts). The in-memory store (memstore.Store)
// implements it; a core uses one only when given it (WithReadModel).
type ReadModel interface {
	// ListCases returns a page of the selection and its size; the cases
	// hold only the TagsOnly fields.
	ListCases(ctx context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (cases []*ilgraph.Case, total int, ok bool, err error)
	// CasesTags returns cases holding only the TagsOnly fields, in order;
	// nil for an unknown case.
	CasesTags(ctx context.Context, ids []string) (cs []*ilgraph.Case, ok bool, err error)
	// OrgNames returns organizations' names ("" for an unknown one).
	OrgNames(ctx context.Context, ids []string) ([]string, bool, error)
	// OrgNameMap returns every organization's name by id (shared: read
	// only).
	OrgNameMap(ctx context.Context) (map[string]string, bool, error)
	FacetCounts(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, bool, error)
	// CaseStats is Stats without Relationships.
	CaseStats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, bool, error)
	CooccurrenceCounts(ctx context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (total int, singles map[ilgraph.Feature]int, pairs map[[2]ilgraph.Feature]int, ok bool, err error)
	// BreakdownCounts is the store's Breakdown.
	BreakdownCounts(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, bool, error)
	// SameRootCauseRefs is the store's SameRootCause with cases holding
	// only the TagsOnly fields.
	SameRootCauseRefs(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, bool, error)
}

// RelationshipCounter counts the relationships from the cases a filter
// selects: Stats adds it to a read model's statistics, which leave it out.
type RelationshipCounter interface {
	CaseRelationships(ctx context.Context, f ilgraph.CaseFilter) (int, error)
}

// Service answers every question. It is safe for concurrent use; one per
// process.
type Service struct {
	store     Store
	sim       Similarity
	rm        ReadModel // nil: every question goes to the store
	suggester Suggester
	cutoffs   map[ilgraph.Kind]suggest.Cutoff
	show      map[ilgraph.Kind]suggest.Cutoff // the suggestions shown as sure
	vocab     vocabCache
	orgs      orgCache
	private   bool          // every read needs a viewer (WithPrivate)
	tokens    TokenManager  // nil: no token management (WithTokens)
	writer    CaseWriter    // nil: no writes (see WithWrites)
	validator CaseValidator // with writer
	judgments JudgmentStore // nil: no judgments of similar cases (WithJudgments)
	// descWeight is the share of a free-text match's score its own words
	// decide (WithDescriptionWeight); -1 until set: DefaultDescriptionWeight.
	descWeight float64
}

// Option configures a Service.
type Option func(*Service)

// WithSuggester lets the core answer questions asked in free text.
func WithSuggester(sg Suggester) Option { return func(s *Service) { s.suggester = sg } }

// WithDescriptionWeight sets the share of a free-text match's score that
// the description's own words decide (0 to 1; 0: only the terms suggested
// from it). The evaluation tunes it; a server uses the default.
func WithDescriptionWeight(w float64) Option {
	return func(s *Service) { s.descWeight = min(1, max(0, w)) }
}

// WithReadModel lets the core answer case lists and aggregates over filters
// without text from memory (rm), asking the store only while rm is not
// current.
func WithReadModel(rm ReadModel) Option { return func(s *Service) { s.rm = rm } }

// WithSuggestCutoffs sets the cut-offs suggestions are read with (see
// SuggestCutoffs) instead of suggest.DefaultCutoffs; a vocabulary kind it
// leaves out keeps its default.
func WithSuggestCutoffs(c map[ilgraph.Kind]suggest.Cutoff) Option {
	return func(s *Service) {
		for k, v := range c {
			s.cutoffs[k] = v
		}
	}
}

// WithShowCutoffs sets the cut-offs above which suggestions are shown as
// sure (see SuggestCutoffs) instead of suggest.ShowCutoffs; a vocabulary
// kind it leaves out keeps its default.
func WithShowCutoffs(c map[ilgraph.Kind]suggest.Cutoff) Option {
	return func(s *Service) {
		for k, v := range c {
			s.show[k] = v
		}
	}
}

// New returns the core over a store and a similarity ranker.
func New(store Store, sim Similarity, opts ...Option) *Service {
	s := &Service{store: store, sim: sim, cutoffs: maps.Clone(suggest.DefaultCutoffs), show: maps.Clone(suggest.ShowCutoffs), descWeight: DefaultDescriptionWeight}
	for _, o := range opts {
		o(s)
	}
	s.guard()
	return s
}

// Pinner is a read model that can hold one corpus for a whole piece of
// work while the graph's version is read once (memstore.Store): see
// Service.Pin.
type Pinner interface {
	Pin(ctx context.Context) (context.Context, func(context.Context) (bool, error))
	Unpin(ctx context.Context) context.Context
}

// Pin lets a front door answer a read-only request of several questions
// (a GraphQL query) from one in-memory corpus while the graph's version is
// read beside it, instead of each question waiting for a version read of
// its own: every answer from memory in the returned context comes from the
// corpus in hand, without a round trip. Once the answer is made, check
// says whether that corpus was as current as the graph when the request
// was under way; if not (or check fails), the front door throws the answer
// away and makes it again in Unpin(ctx), where each question reads the
// version as usual — so no answer is ever older than a change committed
// before the request came. check is nil when there is nothing to pin (no
// read model, or no corpus built yet): answer in ctx as usual. Only for
// requests that write nothing: a write in the pinned context would be
// made twice when the answer is made again.
func (s *Service) Pin(ctx context.Context) (context.Context, func(context.Context) (bool, error)) {
	if p, ok := s.rm.(Pinner); ok {
		return p.Pin(ctx)
	}
	return ctx, nil
}

// Consistently runs fn, a read of several questions that writes nothing,
// pinned to one corpus (Service.Pin), and runs it again unpinned when that
// corpus turned out behind the graph: fn's answer is then as current as if
// each question had read the version itself, for one version read.
func Consistently[T any](ctx context.Context, s *Service, fn func(context.Context) (T, error)) (T, error) {
	pctx, check := s.Pin(ctx)
	if check == nil {
		return fn(ctx)
	}
	v, err := fn(pctx)
	if ok, cerr := check(ctx); ok && cerr == nil {
		return v, err
	}
	return fn(s.Unpin(pctx))
}

// Unpin undoes Pin for ctx.
func (s *Service) Unpin(ctx context.Context) context.Context {
	if p, ok := s.rm.(Pinner); ok {
		return p.Unpin(ctx)
	}
	return ctx
}

// readModel returns the read model for a filter it can evaluate (no text).
func (s *Service) readModel(f ilgraph.CaseFilter) ReadModel {
	if s.rm == nil || f.HasText() {
		return nil
	}
	return s.rm
}

// VocabularyTTL is how long the process reuses the vocabulary it read (term
// labels and case counts): they change only when a load runs, and reading
// them is a round trip that a case page would otherwise pay every time. A
// load shows in term counts at most this much later.
const VocabularyTTL = 2 * time.Second

// vocabCache shares the vocabulary between the requests of one process.
type vocabCache struct {
	mu      sync.Mutex
	data    map[ilgraph.TermKey]ilgraph.TermInfo
	fetched time.Time
}

// VocabularySnapshot returns every vocabulary term with its case count, as
// read at most VocabularyTTL ago.
func (s *Service) VocabularySnapshot(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	if err := s.mayRead(ctx); err != nil {
		return nil, err
	}
	c := &s.vocab
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil && time.Since(c.fetched) < VocabularyTTL {
		return c.data, nil
	}
	data, err := s.store.VocabularyCounts(ctx)
	if err != nil {
		return nil, err
	}
	c.data, c.fetched = data, time.Now()
	return data, nil
}

// orgCache shares the organizations (ids and names) between requests, for
// resolving the organizations filters name.
type orgCache struct {
	mu      sync.Mutex
	data    []ilgraph.Term
	fetched time.Time
}

// organizations returns every organization, as read at most VocabularyTTL
// ago.
func (s *Service) organizations(ctx context.Context) ([]ilgraph.Term, error) {
	if err := s.mayRead(ctx); err != nil {
		return nil, err
	}
	c := &s.orgs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil && time.Since(c.fetched) < VocabularyTTL {
		return c.data, nil
	}
	data, err := s.store.Terms(ctx, ilgraph.KindOrg)
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []ilgraph.Term{}
	}
	c.data, c.fetched = data, time.Now()
	return data, nil
}
