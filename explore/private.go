package explore

import (
	"context"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/suggest"
)

// WithPrivate makes every read need a principal with the viewer role: a
// private corpus (ilgraph serve --private). The check is made in one
// place, where the core reads data — the store, the similarity ranker, the
// read model, the suggester and the shared vocabulary and organization
// snapshots are each wrapped in a guard — so no question can answer from
// data without it, whichever method asks and whether or not the front door
// checked first. An anonymous caller gets EUNAUTHORIZED before any lookup,
// so an answer never tells it whether a case exists.
//
// The guards hold their interface as a named field rather than embedding
// it, so that a method added to one of the interfaces does not compile
// until its guard checks it too.
func WithPrivate() Option { return func(s *Service) { s.private = true } }

// Private reports whether every read needs a viewer (WithPrivate).
func (s *Service) Private() bool { return s.private }

// mayRead is the one check of a private core's reads.
func (s *Service) mayRead(ctx context.Context) error {
	if !s.private {
		return nil
	}
	return ilgraph.Require(ctx, ilgraph.RoleViewer)
}

// guard wraps the core's data sources when it is private; New calls it
// after the options.
func (s *Service) guard() {
	if !s.private {
		return
	}
	s.store = guardedStore{s.store}
	if s.sim != nil {
		s.sim = guardedSimilarity{s.sim}
	}
	if s.rm != nil {
		s.rm = guardedReadModel{s.rm}
	}
	if s.suggester != nil {
		s.suggester = guardedSuggester{s.suggester}
	}
	if s.writer != nil {
		s.writer = guardedWriter{s.writer}
	}
	if s.judgments != nil {
		s.judgments = guardedJudgments{s.judgments}
	}
}

// guardedJudgments checks a viewer where judgments are read, and the
// role each change needs where it is made (the core checks it first too).
type guardedJudgments struct{ j JudgmentStore }

func (g guardedJudgments) PutJudgment(ctx context.Context, j ilgraph.Judgment) error {
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		return err
	}
	return g.j.PutJudgment(ctx, j)
}

func (g guardedJudgments) DeleteJudgment(ctx context.Context, query, match, judge string) (bool, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		return false, err
	}
	return g.j.DeleteJudgment(ctx, query, match, judge)
}

func (g guardedJudgments) HideSimilar(ctx context.Context, h ilgraph.Hiding) error {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return err
	}
	return g.j.HideSimilar(ctx, h)
}

func (g guardedJudgments) UnhideSimilar(ctx context.Context, query, match string) (bool, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return false, err
	}
	return g.j.UnhideSimilar(ctx, query, match)
}

func (g guardedJudgments) SimilarFeedback(ctx context.Context, query string) ([]ilgraph.Judgment, []ilgraph.Hiding, error) {
	if err := viewer(ctx); err != nil {
		return nil, nil, err
	}
	return g.j.SimilarFeedback(ctx, query)
}

// guardedWriter checks a viewer where the writer reads (its writes are
// behind the check of every write: the editor, or for a review the
// reviewer).
type guardedWriter struct{ w CaseWriter }

func (g guardedWriter) WriteCase(ctx context.Context, ch ilgraph.CaseChange) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ch.Role()); err != nil {
		return nil, err
	}
	return g.w.WriteCase(ctx, ch)
}

func (g guardedWriter) CaseHistory(ctx context.Context, id string) ([]ilgraph.Revision, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.w.CaseHistory(ctx, id)
}

func (g guardedWriter) CaseVersionJSON(ctx context.Context, id string, v int64) (string, error) {
	if err := viewer(ctx); err != nil {
		return "", err
	}
	return g.w.CaseVersionJSON(ctx, id, v)
}

func (g guardedWriter) CaseJSON(ctx context.Context, id string) (string, int64, error) {
	if err := viewer(ctx); err != nil {
		return "", 0, err
	}
	return g.w.CaseJSON(ctx, id)
}

func (g guardedWriter) MachineTaggedCases(ctx context.Context, offset, limit int) ([]string, int, error) {
	if err := viewer(ctx); err != nil {
		return nil, 0, err
	}
	return g.w.MachineTaggedCases(ctx, offset, limit)
}

func viewer(ctx context.Context) error { return ilgraph.Require(ctx, ilgraph.RoleViewer) }

type guardedStore struct{ s Store }

func (g guardedStore) CasesByID(ctx context.Context, ids []string) ([]*ilgraph.Case, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.CasesByID(ctx, ids)
}

func (g guardedStore) RecurrencesOf(ctx context.Context, ids []string) ([][]string, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.RecurrencesOf(ctx, ids)
}

func (g guardedStore) RawJSON(ctx context.Context, ids []string) ([]string, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.RawJSON(ctx, ids)
}

func (g guardedStore) ListCases(ctx context.Context, f ilgraph.CaseFilter, so ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.ListCases(ctx, f, so, offset, limit)
}

func (g guardedStore) Facets(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Facets(ctx, f)
}

func (g guardedStore) SameRootCause(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, error) {
	if err := viewer(ctx); err != nil {
		return nil, 0, err
	}
	return g.s.SameRootCause(ctx, id, offset, limit)
}

func (g guardedStore) Stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Stats(ctx, f)
}

func (g guardedStore) Breakdown(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Breakdown(ctx, rows, cols, f)
}

func (g guardedStore) Terms(ctx context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Terms(ctx, k)
}

func (g guardedStore) TermsByKey(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.TermsByKey(ctx, keys)
}

func (g guardedStore) TermCaseCounts(ctx context.Context, keys []ilgraph.TermKey) ([]int, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.TermCaseCounts(ctx, keys)
}

func (g guardedStore) VocabularyCounts(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.VocabularyCounts(ctx)
}

func (g guardedStore) Cooccurring(ctx context.Context, k ilgraph.Kind, id string, other ilgraph.Kind, limit int) ([]ilgraph.TermCount, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Cooccurring(ctx, k, id, other, limit)
}

func (g guardedStore) Neighbourhood(ctx context.Context, kind, id string, depth, limit int) (*ilgraph.Drawing, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Neighbourhood(ctx, kind, id, depth, limit)
}

func (g guardedStore) Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Cooccurrence(ctx, q)
}

func (g guardedStore) Connections(ctx context.Context, from, to string, maxHops, limit int) ([]ilgraph.Path, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Connections(ctx, from, to, maxHops, limit)
}

func (g guardedStore) CaseRelationships(ctx context.Context, f ilgraph.CaseFilter) (int, error) {
	if err := viewer(ctx); err != nil {
		return 0, err
	}
	return g.s.CaseRelationships(ctx, f)
}

type guardedSimilarity struct{ s Similarity }

func (g guardedSimilarity) Similar(ctx context.Context, id string, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Similar(ctx, id, opt)
}

func (g guardedSimilarity) SimilarToProfile(ctx context.Context, profile []ilgraph.Feature, member func(ilgraph.Feature) float64, opt ilgraph.SimilarityOptions) ([]ilgraph.Match, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.SimilarToProfile(ctx, profile, member, opt)
}

func (g guardedSimilarity) Weighting(ctx context.Context, ids []string, opt ilgraph.SimilarityOptions) ([][]ilgraph.Feature, []ilgraph.TextVector, func(ilgraph.Feature) float64, error) {
	if err := viewer(ctx); err != nil {
		return nil, nil, nil, err
	}
	return g.s.Weighting(ctx, ids, opt)
}

type guardedReadModel struct{ m ReadModel }

func (g guardedReadModel) ListCases(ctx context.Context, f ilgraph.CaseFilter, so ilgraph.CaseSort, offset, limit int) ([]*ilgraph.Case, int, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, 0, false, err
	}
	return g.m.ListCases(ctx, f, so, offset, limit)
}

func (g guardedReadModel) CasesTags(ctx context.Context, ids []string) ([]*ilgraph.Case, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.CasesTags(ctx, ids)
}

func (g guardedReadModel) OrgNames(ctx context.Context, ids []string) ([]string, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.OrgNames(ctx, ids)
}

func (g guardedReadModel) OrgNameMap(ctx context.Context) (map[string]string, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.OrgNameMap(ctx)
}

func (g guardedReadModel) FacetCounts(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.FacetCounts(ctx, f)
}

func (g guardedReadModel) CaseStats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.CaseStats(ctx, f)
}

func (g guardedReadModel) CooccurrenceCounts(ctx context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (int, map[ilgraph.Feature]int, map[[2]ilgraph.Feature]int, bool, error) {
	if err := viewer(ctx); err != nil {
		return 0, nil, nil, false, err
	}
	return g.m.CooccurrenceCounts(ctx, from, to, f)
}

func (g guardedReadModel) BreakdownCounts(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, false, err
	}
	return g.m.BreakdownCounts(ctx, rows, cols, f)
}

func (g guardedReadModel) SameRootCauseRefs(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, bool, error) {
	if err := viewer(ctx); err != nil {
		return nil, 0, false, err
	}
	return g.m.SameRootCauseRefs(ctx, id, offset, limit)
}

type guardedSuggester struct{ s Suggester }

func (g guardedSuggester) Suggest(ctx context.Context, text, lang string) (*suggest.Result, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.Suggest(ctx, text, lang)
}

func (g guardedSuggester) TextMatches(ctx context.Context, text, lang string, n int, also []string) (string, []suggest.TextMatch, error) {
	if err := viewer(ctx); err != nil {
		return "", nil, err
	}
	return g.s.TextMatches(ctx, text, lang, n, also)
}

func (g guardedSuggester) SuggestExcluding(ctx context.Context, text, lang, caseID string) (*suggest.Result, error) {
	if err := viewer(ctx); err != nil {
		return nil, err
	}
	return g.s.SuggestExcluding(ctx, text, lang, caseID)
}
