package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

// Bench asks the queries only the benchmark and the tests' checks ask: the
// benchmark's hand-written floors, the naive write and the Cypher similarity
// the loader and the index are measured against, and whole-graph digests.
// None of them serves a request, so they are kept off DB, whose methods are
// what the serving store needs.
type Bench struct{ db *DB }

// NewBench returns the benchmark's queries over db.
func NewBench(db *DB) *Bench { return &Bench{db: db} }

// BenchFloor runs one of the benchmark's hand-written Cypher floors
// (benchFloors) and returns how many rows it gave: the best Cypher for each
// question the benchmark asks ilgraph and its peer (ids and the fields
// shown, index-backed lookups, ORDER BY + LIMIT), so that the benchmark's
// floor is not ilgraph's own query.
func (b *Bench) BenchFloor(ctx context.Context, name string, params map[string]any) (int, error) {
	q, ok := benchFloors()[name]
	if !ok {
		return 0, ilgraph.Errorf(ilgraph.EINVALID, "no benchmark floor %q", name)
	}
	rows, err := b.rows(ctx, q, params)
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
		"list_page_50": `MATCH (n:Case) WHERE n.date >= date($from) AND n.date <= date($to) WITH n ORDER BY n.date DESC LIMIT 50
RETURN n.id AS id, n.date AS date, n.title_en AS title_en, n.title_ko AS title_ko, n.org AS org, ` + tagCols(all[:3]...),
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
func (b *Bench) BenchRows(ctx context.Context, name string, params map[string]any) ([][]string, error) {
	q, ok := benchFloors()[name]
	if !ok {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "no benchmark floor %q", name)
	}
	return b.rows(ctx, q, params)
}

// rows runs a floor as the API's per-request reads run (readOnce: one
// round trip), so that a floor is the fastest way to ask its question.
func (b *Bench) rows(ctx context.Context, q string, params map[string]any) ([][]string, error) {
	recs, err := readOnce(ctx, b.db, "running a benchmark query", q, params)
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
}

// Counts is how many nodes carry each label and how many relationships have
// each type.
type Counts struct {
	Nodes         map[string]int64
	Relationships map[string]int64
}

// TotalNodes sums the node counts.
func (c Counts) TotalNodes() int64 { return sum(c.Nodes) }

// TotalRelationships sums the relationship counts.
func (c Counts) TotalRelationships() int64 { return sum(c.Relationships) }

func sum(m map[string]int64) int64 {
	var t int64
	for _, v := range m {
		t += v
	}
	return t
}

// Count counts nodes per label and relationships per type.
func (b *Bench) Count(ctx context.Context) (Counts, error) {
	return read(ctx, b.db, "counting", func(tx neo4j.ManagedTransaction) (Counts, error) {
		c := Counts{Nodes: map[string]int64{}, Relationships: map[string]int64{}}
		recs, err := collect(ctx, tx, "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n", nil)
		if err != nil {
			return c, err
		}
		for _, r := range recs {
			c.Nodes[str(r, "label")] = integer(r, "n")
		}
		recs, err = collect(ctx, tx, "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n", nil)
		if err != nil {
			return c, err
		}
		for _, r := range recs {
			c.Relationships[str(r, "type")] = integer(r, "n")
		}
		return c, nil
	})
}

// Checksum is a digest of every node (labels and properties) and every
// relationship (type, endpoints' labels and ids, properties), independent of
// internal ids and order: equal checksums mean the graph holds the same data.
// It reads the whole graph, so it is for tests and checks, not serving.
func (b *Bench) Checksum(ctx context.Context) (string, error) {
	return read(ctx, b.db, "checksumming", func(tx neo4j.ManagedTransaction) (string, error) {
		var lines []string
		recs, err := collect(ctx, tx, "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props", nil)
		if err != nil {
			return "", err
		}
		for _, r := range recs {
			l, _ := r.Get("labels")
			p, _ := r.Get("props")
			lines = append(lines, canonical("N", l, p))
		}
		recs, err = collect(ctx, tx, "MATCH (a)-[r]->(b) RETURN type(r) AS type, labels(a) AS al, a.id AS a, labels(b) AS bl, b.id AS b, properties(r) AS props", nil)
		if err != nil {
			return "", err
		}
		for _, r := range recs {
			var parts []any
			for _, k := range []string{"type", "al", "a", "bl", "b", "props"} {
				v, _ := r.Get(k)
				parts = append(parts, v)
			}
			lines = append(lines, canonical("R", parts...))
		}
		sort.Strings(lines)
		h := sha256.New()
		for _, l := range lines {
			h.Write([]byte(l))
			h.Write([]byte{'\n'})
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	})
}

// canonical writes values as JSON with map keys sorted (encoding/json sorts
// them); Neo4j temporal values are written through their String method.
func canonical(tag string, vs ...any) string {
	for i, v := range vs {
		vs[i] = plain(v)
	}
	b, _ := json.Marshal(vs)
	return tag + string(b)
}

func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plain(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case dbtype.Date:
		return "date:" + x.String()
	case fmt.Stringer:
		return fmt.Sprintf("%T:%s", x, x.String())
	}
	return v
}

// CaseWithTerms reads a case with the labels of its terms in one query: the
// floor the benchmark compares the API's case page with.
func (b *Bench) CaseWithTerms(ctx context.Context, id string) (map[string]any, error) {
	var cols []string
	for _, m := range kinds {
		cols = append(cols, fmt.Sprintf("[(n)-[:%s]->(t:%s) | t {.id, .en}] AS %s", m.Rel, m.Label, m.Kind))
	}
	q := "MATCH (n:Case {id: $id}) RETURN n {.id, .date, .title_en, .org} AS n, " + strings.Join(cols, ", ")
	recs, err := readOnce(ctx, b.db, "reading a case page", q, map[string]any{"id": id})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	return recs[0].AsMap(), nil
}

// SimilarByCypher computes the top k cases most similar to a case with
// plain Cypher, scanning every case that shares a feature with it: the
// weighted Jaccard index without rarity weighting. It is the baseline the
// similarity index is measured against, not what the API serves.
func (b *Bench) SimilarByCypher(ctx context.Context, id string, w ilgraph.Weights, k int) ([]ilgraph.Match, error) {
	weights := map[string]any{}
	var rels []string
	for _, m := range kinds {
		weights[m.Rel] = w[m.Kind]
		rels = append(rels, m.Rel)
	}
	rel := strings.Join(rels, "|")
	q := fmt.Sprintf(`MATCH (a:Case {id: $id})
CALL (a) { MATCH (a)-[r:%[1]s]->() RETURN sum($w[type(r)]) AS wa }
MATCH (a)-[r1:%[1]s]->(f)<-[r2:%[1]s]-(b:Case)
WHERE b <> a AND type(r1) = type(r2)
WITH a, wa, b, sum($w[type(r1)]) AS shared
CALL (b) { MATCH (b)-[r:%[1]s]->() RETURN sum($w[type(r)]) AS wb }
WITH b, round(shared / (wa + wb - shared), 9) AS score
WHERE score > 0
RETURN b.id AS id, score ORDER BY score DESC, id ASC LIMIT $k`, rel)
	recs, err := readOnce(ctx, b.db, "similarity by Cypher", q, map[string]any{"id": id, "w": weights, "k": int64(k)})
	if err != nil {
		return nil, err
	}
	out := make([]ilgraph.Match, len(recs))
	for i, r := range recs {
		s, _, _ := neo4j.GetRecordValue[float64](r, "score")
		out[i] = ilgraph.Match{ID: str(r, "id"), Score: ilgraph.RoundScore(s)}
	}
	return out, nil
}

// SimilarLinks returns every stored similarity link, for checks.
func (b *Bench) SimilarLinks(ctx context.Context) ([]ilgraph.SimilarLink, error) {
	return read(ctx, b.db, "reading similarity links", func(tx neo4j.ManagedTransaction) ([]ilgraph.SimilarLink, error) {
		recs, err := collect(ctx, tx, "MATCH (a:Case)-[r:SIMILAR_TO]->(b:Case) RETURN a.id AS a, b.id AS b, r.score AS s, r.rank AS k ORDER BY a, k", nil)
		if err != nil {
			return nil, err
		}
		out := make([]ilgraph.SimilarLink, len(recs))
		for i, r := range recs {
			s, _, _ := neo4j.GetRecordValue[float64](r, "s")
			out[i] = ilgraph.SimilarLink{From: str(r, "a"), To: str(r, "b"), Score: s, Rank: int(integer(r, "k"))}
		}
		return out, nil
	})
}

// WriteCaseNaive writes one case the naive way: its own transaction, one
// statement per node and per relationship, no batching, no change
// detection. It exists only as the baseline the loader is benchmarked
// against; the loader never uses it.
func (b *Bench) WriteCaseNaive(ctx context.Context, c *ilgraph.Case) error {
	_, err := write(ctx, b.db, "naive write", func(tx neo4j.ManagedTransaction) (struct{}, error) {
		if _, err := exec(ctx, tx, "MERGE (n:Case {id: $id}) SET n = $props", map[string]any{"id": c.ID, "props": caseProps(c)}); err != nil {
			return struct{}{}, err
		}
		if _, err := exec(ctx, tx, "MERGE (o:Organization {id: $slug}) SET o.name = $name WITH o MATCH (n:Case {id: $id}) MERGE (n)-[:AT_ORG]->(o)",
			map[string]any{"slug": c.OrgSlug, "name": c.Org, "id": c.ID}); err != nil {
			return struct{}{}, err
		}
		for _, k := range ilgraph.VocabKinds {
			m, _ := modelOf(k)
			for i, t := range c.Tags(k) {
				q := fmt.Sprintf("MATCH (n:Case {id: $id}), (t:%s {id: $t}) MERGE (n)-[r:%s]->(t) SET r.rank = $i", m.Label, m.Rel)
				if _, err := exec(ctx, tx, q, map[string]any{"id": c.ID, "t": t, "i": int64(i)}); err != nil {
					return struct{}{}, err
				}
			}
		}
		for i, r := range c.Related {
			if _, err := exec(ctx, tx, "MATCH (n:Case {id: $id}), (t:Case {id: $t}) MERGE (n)-[r:RELATED_TO]->(t) SET r.rank = $i",
				map[string]any{"id": c.ID, "t": r, "i": int64(i)}); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

// TerminateOlderThan ends the transactions that have run longer than age
// and returns how many it ended. A client that gives up on a request (the
// benchmark's HTTP timeout) does not stop the query its server sent to
// Neo4j, which goes on using the machine while the next rows are measured;
// the benchmark ends such leftovers after the peer's requests time out.
func (b *Bench) TerminateOlderThan(ctx context.Context, age time.Duration) (int, error) {
	s := b.db.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.Background())
	res, err := s.Run(ctx, `SHOW TRANSACTIONS YIELD transactionId, elapsedTime
WHERE elapsedTime.milliseconds > $ms RETURN collect(transactionId) AS ids`, map[string]any{"ms": age.Milliseconds()})
	if err != nil {
		return 0, b.db.wrapCtx(ctx, err, "listing the transactions")
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return 0, b.db.wrapCtx(ctx, err, "listing the transactions")
	}
	ids := strs(rec, "ids")
	if len(ids) == 0 {
		return 0, nil
	}
	res, err = s.Run(ctx, "TERMINATE TRANSACTIONS $ids", map[string]any{"ids": ids})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return 0, b.db.wrapCtx(ctx, err, "ending the transactions")
	}
	return len(ids), nil
}
