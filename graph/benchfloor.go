package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// BenchFloor runs one of the benchmark's hand-written Cypher floors
// (benchFloors) and returns how many rows it gave: the best Cypher for each
// question the benchmark asks ilgraph and its peer (ids and the fields
// shown, index-backed lookups, ORDER BY + LIMIT), so that the benchmark's
// floor is not ilgraph's own query. Not for serving.
func (db *DB) BenchFloor(ctx context.Context, name string, params map[string]any) (int, error) {
	q, ok := benchFloors()[name]
	if !ok {
		return 0, ilgraph.Errorf(ilgraph.EINVALID, "no benchmark floor %q", name)
	}
	rows, err := db.benchRows(ctx, q, params)
	return len(rows), err
}

func benchFloors() map[string]string {
	tagCols := func(ks ...ilgraph.Kind) string {
		var cols []string
		for _, k := range ks {
			m, _ := modelOf(k)
			cols = append(cols, fmt.Sprintf("[(n)-[:%s]->(t:%s) | t {.id, .en}] AS %s", m.Rel, m.Label, k))
		}
		return strings.Join(cols, ", ")
	}
	all := []ilgraph.Kind{ilgraph.KindRootCause, ilgraph.KindComponent, ilgraph.KindSymptom, ilgraph.KindContributing, ilgraph.KindDomain}
	fs := map[string]string{
		"mission_shared_factor": `MATCH (:Factor {id: $f})<-[:HAS_FACTOR]-(n:Case)-[:HAS_ROOT_CAUSE]->(:Cause {id: 'capacity'}) WHERE n.id <> $id
RETURN n.id AS id, n.date AS date, n.title_en AS title ORDER BY n.date DESC LIMIT 20`,
		"newest_50_with_tags": `MATCH (n:Case) WHERE n.date <= date($to) WITH n ORDER BY n.date DESC LIMIT 50
RETURN n.id AS id, n.date AS date, ` + tagCols(all[:3]...),
		"filtered_page_ids": `MATCH (:Cause {id: $rc})<-[:HAS_ROOT_CAUSE]-(n:Case)-[:HAS_COMPONENT]->(:Component {id: $comp}) WHERE n.date >= date($from)
RETURN n.id AS id, n.date AS date ORDER BY n.date DESC LIMIT 20`,
		"shared_any_factor": `MATCH (a:Case {id: $id})-[:HAS_FACTOR]->(:Factor)<-[:HAS_FACTOR]-(n:Case) WHERE n <> a
WITH DISTINCT n RETURN n.id AS id, n.date AS date ORDER BY n.date DESC LIMIT 20`,
		"page_100_all_tags": `MATCH (n:Case) WHERE n.date <= date($to) WITH n ORDER BY n.date DESC LIMIT 100
RETURN n.id AS id, n.date AS date, [(n)-[:AT_ORG]->(t) | t {.id, .name}] AS org, ` + tagCols(all...),
		"factors_of": `UNWIND $ids AS id MATCH (n:Case {id: id})-[:HAS_FACTOR]->(f:Factor) RETURN n.id AS a, f.id AS b`,
	}
	for _, m := range kinds {
		fs["topic_page:"+string(m.Kind)] = fmt.Sprintf(`MATCH (:%s {id: $id})<-[:%s]-(n:Case)
RETURN n.id AS id, n.date AS date, n.title_en AS title ORDER BY n.date DESC LIMIT 20`, m.Label, m.Rel)
		fs["top_terms:"+string(m.Kind)] = fmt.Sprintf(`MATCH (t:%s) WITH t, COUNT { (t)<-[:%s]-() } AS c
RETURN t.id AS id, c ORDER BY c DESC, id LIMIT $k`, m.Label, m.Rel)
	}
	return fs
}

// BenchRows runs a benchmark floor and returns its rows, every value as a
// string.
func (db *DB) BenchRows(ctx context.Context, name string, params map[string]any) ([][]string, error) {
	q, ok := benchFloors()[name]
	if !ok {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "no benchmark floor %q", name)
	}
	return db.benchRows(ctx, q, params)
}

func (db *DB) benchRows(ctx context.Context, q string, params map[string]any) ([][]string, error) {
	return read(ctx, db, "running a benchmark query", func(tx neo4j.ManagedTransaction) ([][]string, error) {
		recs, err := collect(ctx, tx, q, params)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(recs))
		for i, r := range recs {
			row := make([]string, len(r.Values))
			for j, v := range r.Values {
				row[j] = fmt.Sprint(v)
			}
			out[i] = row
		}
		return out, nil
	})
}
