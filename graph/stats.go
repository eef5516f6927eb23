package graph

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// Distribution summarises time-to-resolve in minutes over a group of cases.
// Quantiles use the nearest-rank method on the sorted values.
type Distribution struct {
	Cases                           int // cases in the group
	Measured                        int // of them, with a resolved_after
	Min, P25, Median, P75, P90, Max int
	Mean                            float64
}

// Distribute computes a Distribution of minutes over a group of total cases.
func Distribute(total int, minutes []int) Distribution {
	d := Distribution{Cases: total, Measured: len(minutes)}
	if len(minutes) == 0 {
		return d
	}
	s := append([]int(nil), minutes...)
	sort.Ints(s)
	rank := func(q float64) int {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[max(i, 0)]
	}
	d.Min, d.Max = s[0], s[len(s)-1]
	d.P25, d.Median, d.P75, d.P90 = rank(0.25), rank(0.5), rank(0.75), rank(0.9)
	sum := 0
	for _, v := range s {
		sum += v
	}
	d.Mean = float64(sum) / float64(len(s))
	return d
}

// GroupDistribution is the time-to-resolve distribution of one term's cases.
type GroupDistribution struct {
	Term TermCount
	Distribution
}

// Stats are corpus statistics over the cases a filter selects.
type Stats struct {
	Cases           int
	Organizations   int
	Relationships   int
	PerYear         []YearCount
	PerRootCause    []TermCount
	PerOrg          []TermCount
	TopPairs        []PairCount // most frequent root cause–component pairs
	ResolveAll      Distribution
	ResolveByCause  []GroupDistribution // by median descending
	ResolveByFactor []GroupDistribution // by median descending
}

// PairCount is a pair of terms and the number of cases with both.
type PairCount struct {
	A, B  TermCount
	Count int
}

// Stats computes corpus statistics for the cases f selects.
func (db *DB) Stats(ctx context.Context, f ilgraph.CaseFilter) (*Stats, error) {
	mc, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	group := func(m kindModel) string {
		return fmt.Sprintf("%sMATCH (n)-[:%s]->(t:%s)\nRETURN t.id AS id, count(DISTINCT n) AS c, collect(n.resolved_after_min) AS mins", mc.text, m.Rel, m.Label)
	}
	cause, _ := modelOf(ilgraph.KindRootCause)
	factor, _ := modelOf(ilgraph.KindContributing)
	org, _ := modelOf(ilgraph.KindOrg)
	comp, _ := modelOf(ilgraph.KindComponent)
	return read(ctx, db, "computing stats", func(tx neo4j.ManagedTransaction) (*Stats, error) {
		st := &Stats{}
		recs, err := collect(ctx, tx, mc.text+`RETURN count(n) AS cases, count(DISTINCT n.org_slug) AS orgs,
  sum(COUNT { (n)-->() }) AS rels, collect(n.resolved_after_min) AS mins`, mc.params)
		if err != nil {
			return nil, err
		}
		st.Cases = int(integer(recs[0], "cases"))
		st.Organizations = int(integer(recs[0], "orgs"))
		st.Relationships = int(integer(recs[0], "rels"))
		st.ResolveAll = Distribute(st.Cases, ints(recs[0], "mins"))
		recs, err = collect(ctx, tx, mc.text+"RETURN n.year AS year, count(*) AS c ORDER BY year", mc.params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			st.PerYear = append(st.PerYear, YearCount{Year: int(integer(r, "year")), Count: int(integer(r, "c"))})
		}
		for _, g := range []struct {
			m     kindModel
			count *[]TermCount
			dist  *[]GroupDistribution
		}{{cause, &st.PerRootCause, &st.ResolveByCause}, {factor, nil, &st.ResolveByFactor}, {org, &st.PerOrg, nil}} {
			recs, err := collect(ctx, tx, group(g.m), mc.params)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				tc := TermCount{Kind: g.m.Kind, ID: str(r, "id"), Count: int(integer(r, "c"))}
				if g.count != nil {
					*g.count = append(*g.count, tc)
				}
				if g.dist != nil {
					*g.dist = append(*g.dist, GroupDistribution{Term: tc, Distribution: Distribute(tc.Count, ints(r, "mins"))})
				}
			}
			if g.count != nil {
				sortTermCounts(*g.count)
			}
			if g.dist != nil {
				ds := *g.dist
				sort.Slice(ds, func(i, j int) bool {
					if ds[i].Median != ds[j].Median {
						return ds[i].Median > ds[j].Median
					}
					return ds[i].Term.ID < ds[j].Term.ID
				})
			}
		}
		recs, err = collect(ctx, tx, fmt.Sprintf(`%sMATCH (a:%s)<-[:%s]-(n)-[:%s]->(b:%s)
RETURN a.id AS a, b.id AS b, count(DISTINCT n) AS c ORDER BY c DESC, a, b LIMIT 20`, mc.text, cause.Label, cause.Rel, comp.Rel, comp.Label), mc.params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			st.TopPairs = append(st.TopPairs, PairCount{
				A: TermCount{Kind: cause.Kind, ID: str(r, "a")}, B: TermCount{Kind: comp.Kind, ID: str(r, "b")}, Count: int(integer(r, "c")),
			})
		}
		return st, nil
	})
}

func ints(r *neo4j.Record, key string) []int {
	raw, _ := r.Get(key)
	list, _ := raw.([]any)
	out := make([]int, 0, len(list))
	for _, x := range list {
		if v, ok := x.(int64); ok {
			out = append(out, int(v))
		}
	}
	return out
}
