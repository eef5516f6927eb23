package resolvers

import (
	"context"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// written turns a write's answer into the mutation's: the revision, and
// the case as it is now (none after a delete).
func (r *mutationResolver) written(ctx context.Context) func(*ilgraph.Revision, error) (*CaseWriteResult, error) {
	return func(rev *ilgraph.Revision, err error) (*CaseWriteResult, error) {
		if err != nil {
			return nil, err
		}
		out := &CaseWriteResult{Revision: rev}
		if rev.Action != ilgraph.ActionDelete {
			if out.Case, err = r.Core.Case(ctx, rev.CaseID); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// caseVersion is a case's version, read again for a case that came from
// the read model (which does not hold it).
func caseVersion(ctx context.Context, core *explore.Service, c *ilgraph.Case) (int, error) {
	if c.Version > 0 {
		return int(c.Version), nil
	}
	full, err := core.Case(ctx, c.ID)
	if err != nil {
		return 0, err
	}
	return int(full.Version), nil
}

// problemsJSON is extensions.problems of an invalid case: each problem's
// field ("" for the whole case, left out), tagging rule (left out when
// none) and message.
func problemsJSON(ps []ilgraph.InputProblem) []map[string]string {
	out := make([]map[string]string, len(ps))
	for i, p := range ps {
		m := map[string]string{"message": p.Message}
		if p.Field != "" {
			m["field"] = p.Field
		}
		if p.Rule != "" {
			m["rule"] = p.Rule
		}
		out[i] = m
	}
	return out
}

// reviewInput is reviewCase's arguments as the core's review: each
// decision's enum as the core spells it (accept, reject, replace).
func reviewInput(decisions []TagDecisionInput, add []TagInput) explore.ReviewInput {
	in := explore.ReviewInput{Decisions: make([]explore.TagDecision, len(decisions)), Add: make([]ilgraph.Feature, len(add))}
	for i, d := range decisions {
		in.Decisions[i] = explore.TagDecision{Kind: d.Kind, Term: d.Term, Decision: strings.ToLower(string(d.Decision)), With: deref(d.With)}
	}
	for i, a := range add {
		in.Add[i] = ilgraph.Feature{Kind: a.Kind, ID: a.Term}
	}
	return in
}
