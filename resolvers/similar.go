package resolvers

import (
	"context"
	"sort"

	"github.com/ilgraph/ilgraph"
)

// MaxSimilarK bounds how many similar cases one request may ask for.
const MaxSimilarK = 100

// similarityOptions turns GraphQL arguments into ranking options.
func similarityOptions(k *int, weights *WeightsInput, rarity *bool, filter *CaseFilter, minScore *float64) (ilgraph.SimilarityOptions, error) {
	opt := ilgraph.SimilarityOptions{K: intOr(k, 10), Filter: toFilter(filter)}
	if opt.K < 1 || opt.K > MaxSimilarK {
		return opt, ilgraph.Errorf(ilgraph.ELIMIT, "k must be 1 to %d, not %d", MaxSimilarK, opt.K)
	}
	if err := opt.Filter.Validate(); err != nil {
		return opt, err
	}
	w := ilgraph.Weights{}
	if weights != nil {
		for k, v := range map[ilgraph.Kind]*float64{
			ilgraph.KindRootCause: weights.RootCause, ilgraph.KindComponent: weights.Component, ilgraph.KindSymptom: weights.Symptom,
			ilgraph.KindContributing: weights.Contributing, ilgraph.KindDomain: weights.Domain, ilgraph.KindOrg: weights.Org,
		} {
			if v != nil {
				w[k] = *v
			}
		}
	}
	var err error
	if opt.Weights, err = w.WithDefaults(); err != nil {
		return opt, err
	}
	if rarity != nil {
		opt.Rarity = *rarity
	}
	if minScore != nil {
		if *minScore < 0 || *minScore > 1 {
			return opt, ilgraph.Errorf(ilgraph.EINVALID, "minScore must be from 0 to 1")
		}
		opt.MinScore = *minScore
	}
	return opt, nil
}

func weightsOut(w ilgraph.Weights) *Weights {
	return &Weights{RootCause: w[ilgraph.KindRootCause], Component: w[ilgraph.KindComponent], Symptom: w[ilgraph.KindSymptom],
		Contributing: w[ilgraph.KindContributing], Domain: w[ilgraph.KindDomain], Org: w[ilgraph.KindOrg]}
}

// profileFeatures turns a profile into features.
func profileFeatures(p ProfileInput) []ilgraph.Feature {
	var fs []ilgraph.Feature
	add := func(k ilgraph.Kind, ids ...string) {
		for _, id := range ids {
			if id != "" {
				fs = append(fs, ilgraph.Feature{Kind: k, ID: id})
			}
		}
	}
	add(ilgraph.KindRootCause, deref(p.RootCause))
	add(ilgraph.KindComponent, p.Components...)
	add(ilgraph.KindSymptom, p.Symptoms...)
	add(ilgraph.KindContributing, p.Contributing...)
	add(ilgraph.KindDomain, p.Domains...)
	add(ilgraph.KindOrg, deref(p.Org))
	return fs
}

// maxDiffering bounds the differing features listed per match.
const maxDiffering = 5

// similarCases turns matches into GraphQL results, loading the cases in one batch.
func (r *Resolver) similarCases(ctx context.Context, ms []ilgraph.Match) ([]SimilarCase, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	cs, err := r.loaders(ctx).Case.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]SimilarCase, 0, len(ms))
	for i, m := range ms {
		if cs[i] == nil { // deleted since the index was built
			continue
		}
		sc := SimilarCase{Case: cs[i], Score: m.Score, Shared: []FeatureContribution{}, Differing: []DifferingFeature{}}
		for _, s := range m.Shared {
			t, err := r.term(ctx, s.Kind, s.ID)
			if err != nil {
				return nil, err
			}
			sc.Shared = append(sc.Shared, FeatureContribution{Kind: s.Kind, Term: t, Weight: s.Weight, Contribution: ilgraph.RoundScore(s.Contribution)})
		}
		for j, d := range m.Different {
			if j == maxDiffering {
				break
			}
			t, err := r.term(ctx, d.Kind, d.ID)
			if err != nil {
				return nil, err
			}
			side := SideMatch
			if d.InQuery {
				side = SideQuery
			}
			sc.Differing = append(sc.Differing, DifferingFeature{Kind: d.Kind, Term: t, Weight: d.Weight, Side: side})
		}
		out = append(out, sc)
	}
	return out, nil
}

// profileMatch adds to the matches what they suggest.
func (r *Resolver) profileMatch(ctx context.Context, matches []SimilarCase) (*ProfileMatch, error) {
	pm := &ProfileMatch{Matches: matches, RootCauses: []WeightedTerm{}, Contributing: []WeightedTerm{}, Remedies: []Remedy{}}
	type acc struct {
		weight float64
		n      int
	}
	causes, factors := map[string]*acc{}, map[string]*acc{}
	bump := func(m map[string]*acc, id string, score float64) {
		if m[id] == nil {
			m[id] = &acc{}
		}
		m[id].weight += score
		m[id].n++
	}
	for _, sc := range matches {
		bump(causes, sc.Case.RootCause, sc.Score)
		for _, f := range sc.Case.Contributing {
			bump(factors, f, sc.Score)
		}
		pm.Remedies = append(pm.Remedies, Remedy{Case: sc.Case, Score: sc.Score, Remediation: itemTexts(sc.Case.Remediation), ActionItems: itemTexts(sc.Case.ActionItems)})
	}
	weighted := func(k ilgraph.Kind, m map[string]*acc) ([]WeightedTerm, error) {
		out := []WeightedTerm{}
		for id, a := range m {
			t, err := r.term(ctx, k, id)
			if err != nil {
				return nil, err
			}
			out = append(out, WeightedTerm{Term: t, Weight: ilgraph.RoundScore(a.weight), Matches: a.n})
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Weight != out[j].Weight {
				return out[i].Weight > out[j].Weight
			}
			return out[i].Term.ID < out[j].Term.ID
		})
		return out, nil
	}
	var err error
	if pm.RootCauses, err = weighted(ilgraph.KindRootCause, causes); err != nil {
		return nil, err
	}
	if pm.Contributing, err = weighted(ilgraph.KindContributing, factors); err != nil {
		return nil, err
	}
	return pm, nil
}
