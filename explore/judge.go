package explore

import (
	"context"
	"time"

	"github.com/ilgraph/ilgraph"
)

// JudgmentStore keeps the judgments of similar matches and the matches
// hidden from their query case's list (graph.DB implements it). Each
// write is one transaction, safe to retry.
type JudgmentStore interface {
	// PutJudgment stores j, replacing its judge's judgment of the same
	// pair; ENOTFOUND names a case that does not exist. A hiding goes
	// when no judgment marks its match not relevant any more.
	PutJudgment(ctx context.Context, j ilgraph.Judgment) error
	// DeleteJudgment removes judge's judgment of the pair, reporting
	// whether there was one (and, as PutJudgment, a hiding left without a
	// not-relevant judgment).
	DeleteJudgment(ctx context.Context, query, match, judge string) (bool, error)
	// HideSimilar hides a match (a match hidden already keeps its first
	// hiding): ECONFLICT when no judgment marks it not relevant, ENOTFOUND
	// for an unknown case.
	HideSimilar(ctx context.Context, h ilgraph.Hiding) error
	// UnhideSimilar shows a match again, reporting whether it was hidden.
	UnhideSimilar(ctx context.Context, query, match string) (bool, error)
	// SimilarFeedback returns the judgments of a query case's matches, by
	// match then judge, and its hidden matches, by match.
	SimilarFeedback(ctx context.Context, query string) ([]ilgraph.Judgment, []ilgraph.Hiding, error)
}

// WithJudgments lets the core keep reviewers' judgments of similar
// matches and editors' hidings (js stores them). Without it the similar
// cases carry none, and judging or hiding answers EUNAVAILABLE (after the
// authorization check).
func WithJudgments(js JudgmentStore) Option { return func(s *Service) { s.judgments = js } }

var errNoJudgments = ilgraph.Errorf(ilgraph.EUNAVAILABLE, "this server does not keep judgments of similar cases")

// Feedback is what reviewers and editors said of a query case's similar
// matches: every judgment, by match then judge, and the hidden matches,
// by match.
type Feedback struct {
	Query     string
	Judgments []ilgraph.Judgment
	Hidden    []ilgraph.Hiding
}

// JudgeSimilar records the caller's judgment of match as a similar case of
// query — grade and an optional reason (at most ilgraph.MaxJudgmentReason
// characters, one line) — replacing the caller's earlier one of the pair.
// It needs the reviewer role. Judgments attach to case-to-case matches: a
// live incident's profile has no query case to judge against. The ranking
// is not changed by it (docs/similarity.md).
func (s *Service) JudgeSimilar(ctx context.Context, query, match string, g ilgraph.Grade, reason string) (*ilgraph.Judgment, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		return nil, err
	}
	if err := ilgraph.CheckJudgment(query, match, g, reason); err != nil {
		return nil, err
	}
	if s.judgments == nil {
		return nil, errNoJudgments
	}
	j := ilgraph.Judgment{Query: query, Match: match, Judge: ilgraph.PrincipalFrom(ctx).Name, Grade: g, Reason: reason, At: time.Now().UTC()}
	if err := s.judgments.PutJudgment(ctx, j); err != nil {
		return nil, err
	}
	return &j, nil
}

// WithdrawJudgment removes the caller's own judgment of the pair (the
// reviewer role), reporting whether there was one: withdrawing twice is
// not an error. A match hidden on the strength of that judgment alone is
// shown again.
func (s *Service) WithdrawJudgment(ctx context.Context, query, match string) (bool, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		return false, err
	}
	if err := ilgraph.CheckPair(query, match); err != nil {
		return false, err
	}
	if s.judgments == nil {
		return false, errNoJudgments
	}
	return s.judgments.DeleteJudgment(ctx, query, match, ilgraph.PrincipalFrom(ctx).Name)
}

// HideSimilar hides match from query's similar cases (the editor role):
// it leaves the default list, its score and everybody's ranking unchanged,
// and a list asked to include hidden matches shows it marked hidden. Only a
// match at least one judgment marks not relevant may be hidden: ECONFLICT
// otherwise (the state of the pair, not the request, is what is missing).
// Hiding a hidden match keeps its first hiding.
func (s *Service) HideSimilar(ctx context.Context, query, match string) (*ilgraph.Hiding, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return nil, err
	}
	if err := ilgraph.CheckPair(query, match); err != nil {
		return nil, err
	}
	if s.judgments == nil {
		return nil, errNoJudgments
	}
	h := ilgraph.Hiding{Query: query, Match: match, By: ilgraph.PrincipalFrom(ctx).Name, At: time.Now().UTC()}
	if err := s.judgments.HideSimilar(ctx, h); err != nil {
		return nil, err
	}
	fb, err := s.Judgments(ctx, query)
	if err != nil {
		return nil, err
	}
	for _, x := range fb.Hidden {
		if x.Match == match {
			return &x, nil
		}
	}
	return &h, nil
}

// UnhideSimilar shows a hidden match again (the editor role), reporting
// whether it was hidden.
func (s *Service) UnhideSimilar(ctx context.Context, query, match string) (bool, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return false, err
	}
	if err := ilgraph.CheckPair(query, match); err != nil {
		return false, err
	}
	if s.judgments == nil {
		return false, errNoJudgments
	}
	return s.judgments.UnhideSimilar(ctx, query, match)
}

// Judgments returns what was said of query's similar matches. A case with
// none that does not exist is ENOTFOUND; a deleted case keeps its
// judgments, which stay readable.
func (s *Service) Judgments(ctx context.Context, query string) (*Feedback, error) {
	if err := s.mayRead(ctx); err != nil {
		return nil, err
	}
	fb, err := s.feedback(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(fb.Judgments) == 0 && len(fb.Hidden) == 0 {
		cs, err := s.store.CasesByID(ctx, []string{query})
		if err != nil {
			return nil, err
		}
		if cs[0] == nil {
			return nil, noCase(query)
		}
	}
	return fb, nil
}

// feedback reads a query case's judgments and hidings (none without a
// judgment store).
func (s *Service) feedback(ctx context.Context, query string) (*Feedback, error) {
	fb := &Feedback{Query: query, Judgments: []ilgraph.Judgment{}, Hidden: []ilgraph.Hiding{}}
	if s.judgments == nil {
		return fb, nil
	}
	js, hs, err := s.judgments.SimilarFeedback(ctx, query)
	if err != nil {
		return nil, err
	}
	if js != nil {
		fb.Judgments = js
	}
	if hs != nil {
		fb.Hidden = hs
	}
	return fb, nil
}

// withFeedback gives each match its judgments and hiding, and leaves out
// the hidden ones unless includeHidden, keeping at most k.
func withFeedback(scs []SimilarCase, fb *Feedback, includeHidden bool, k int) []SimilarCase {
	judged := map[string][]ilgraph.Judgment{}
	for _, j := range fb.Judgments {
		judged[j.Match] = append(judged[j.Match], j)
	}
	hidden := map[string]*ilgraph.Hiding{}
	for i := range fb.Hidden {
		hidden[fb.Hidden[i].Match] = &fb.Hidden[i]
	}
	out := scs[:0]
	for _, sc := range scs {
		sc.Judgments = judged[sc.Case.ID]
		if sc.Judgments == nil {
			sc.Judgments = []ilgraph.Judgment{}
		}
		sc.Hidden = hidden[sc.Case.ID]
		if sc.Hidden != nil && !includeHidden {
			continue
		}
		out = append(out, sc)
	}
	return out[:min(k, len(out))]
}

// Notes are the match's judgments and hiding as sentences, for its
// explanation: "marked not relevant by alice: …", "hidden by bob".
func (sc SimilarCase) Notes() []string {
	out := make([]string, 0, len(sc.Judgments)+1)
	for _, j := range sc.Judgments {
		out = append(out, j.Note())
	}
	if sc.Hidden != nil {
		out = append(out, sc.Hidden.Note())
	}
	return out
}
