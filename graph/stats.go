package graph

import (
	"context"
	"fmt"
	"sort"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// Stats computes corpus statistics for the cases f selects.
func (db *DB) Stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error) {
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
	domain, _ := modelOf(ilgraph.KindDomain)
	return read(ctx, db, "computing stats", func(tx neo4j.ManagedTransaction) (*ilgraph.Stats, error) {
		st := &ilgraph.Stats{}
		recs, err := collect(ctx, tx, mc.text+`RETURN count(n) AS cases, count(DISTINCT n.org_slug) AS orgs,
  sum(COUNT { (n)-->() }) AS rels, count(CASE WHEN n.bilingual THEN 1 END) AS bilingual,
  count(CASE WHEN n.reviewed THEN 1 END) AS reviewed, collect(n.resolved_after_min) AS mins`, mc.params)
		if err != nil {
			return nil, err
		}
		st.Cases = int(integer(recs[0], "cases"))
		st.Organizations = int(integer(recs[0], "orgs"))
		st.Relationships = int(integer(recs[0], "rels"))
		st.Bilingual = int(integer(recs[0], "bilingual"))
		st.Reviewed = int(integer(recs[0], "reviewed"))
		st.ResolveAll = ilgraph.Distribute(st.Cases, ints(recs[0], "mins"))
		recs, err = collect(ctx, tx, mc.text+"RETURN n.year AS year, count(*) AS c ORDER BY year", mc.params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			st.PerYear = append(st.PerYear, ilgraph.YearCount{Year: int(integer(r, "year")), Count: int(integer(r, "c"))})
		}
		for _, g := range []struct {
			m     kindModel
			count *[]ilgraph.TermCount
			dist  *[]ilgraph.GroupDistribution
		}{{cause, &st.PerRootCause, &st.ResolveByCause}, {factor, nil, &st.ResolveByFactor}, {org, &st.PerOrg, nil}, {domain, &st.PerDomain, nil}} {
			recs, err := collect(ctx, tx, group(g.m), mc.params)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				tc := ilgraph.TermCount{Kind: g.m.Kind, ID: str(r, "id"), Count: int(integer(r, "c"))}
				if g.count != nil {
					*g.count = append(*g.count, tc)
				}
				if g.dist != nil {
					*g.dist = append(*g.dist, ilgraph.GroupDistribution{Term: tc, Distribution: ilgraph.Distribute(tc.Count, ints(r, "mins"))})
				}
			}
			if g.count != nil {
				ilgraph.SortTermCounts(*g.count)
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
			st.TopPairs = append(st.TopPairs, ilgraph.PairCount{
				A: ilgraph.TermCount{Kind: cause.Kind, ID: str(r, "a")}, B: ilgraph.TermCount{Kind: comp.Kind, ID: str(r, "b")}, Count: int(integer(r, "c")),
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

// axisValues is the Cypher list of the values case n has on an axis. Only
// fixed labels and relationship types from the model enter the text.
func axisValues(a ilgraph.Axis) (string, error) {
	switch a {
	case ilgraph.AxisYear:
		return "[toString(n.year)]", nil
	case ilgraph.AxisMonth:
		return "[substring(toString(n.date), 0, 7)]", nil
	}
	m, err := modelOf(ilgraph.Kind(a))
	if err != nil {
		return "", ilgraph.Errorf(ilgraph.EINVALID, "unknown breakdown axis %q", a)
	}
	return fmt.Sprintf("[(n)-[:%s]->(t:%s) | t.id]", m.Rel, m.Label), nil
}

// Breakdown counts the cases f selects along two axes, in one read
// transaction: per cell, per row, per column, in all, and the dates of the
// first and last of them.
func (db *DB) Breakdown(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	mc, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	rv, err := axisValues(rows)
	if err != nil {
		return nil, err
	}
	cv, err := axisValues(cols)
	if err != nil {
		return nil, err
	}
	prefix := fmt.Sprintf("%sWITH n, %s AS rs, %s AS cs\n", mc.text, rv, cv)
	return read(ctx, db, "counting a breakdown", func(tx neo4j.ManagedTransaction) (*ilgraph.BreakdownCounts, error) {
		out := &ilgraph.BreakdownCounts{Rows: map[string]int{}, Columns: map[string]int{}, Cells: map[[2]string]int{}}
		recs, err := collect(ctx, tx, mc.text+"RETURN count(n) AS total, toString(min(n.date)) AS first, toString(max(n.date)) AS last", mc.params)
		if err != nil {
			return nil, err
		}
		if len(recs) == 1 {
			out.Total, out.FirstDate, out.LastDate = int(integer(recs[0], "total")), str(recs[0], "first"), str(recs[0], "last")
		}
		for _, q := range []struct {
			text string
			into func(r *neo4j.Record, c int)
		}{
			{"UNWIND rs AS r UNWIND cs AS c RETURN r, c, count(DISTINCT n) AS count", func(r *neo4j.Record, c int) {
				out.Cells[[2]string{str(r, "r"), str(r, "c")}] = c
			}},
			{"UNWIND rs AS r RETURN r, count(DISTINCT n) AS count", func(r *neo4j.Record, c int) { out.Rows[str(r, "r")] = c }},
			{"UNWIND cs AS c RETURN c, count(DISTINCT n) AS count", func(r *neo4j.Record, c int) { out.Columns[str(r, "c")] = c }},
		} {
			recs, err := collect(ctx, tx, prefix+q.text, mc.params)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				q.into(r, int(integer(r, "count")))
			}
		}
		return out, nil
	})
}
