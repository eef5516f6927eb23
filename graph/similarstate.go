package graph

import (
	"context"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// Incremental similarity write-back. When a case's links are written, the
// case records the content hash they were computed from (similar_hash) and
// how many links it got (similar_n). A load that changes a case gives it a
// new content hash; a new case has none recorded; a deleted case takes its
// links with it, leaving the cases that pointed to it short of similar_n.
// SimilarState reads those facts back, so that a write-back can recompute
// only the cases whose top k can have changed.

// SimilarState is what the stored similarity links say about the corpus.
type SimilarState struct {
	// Changed are the cases whose links were computed from another version
	// of them, or never.
	Changed []string
	// Stale are the unchanged cases whose links point to a changed case or
	// lost one to a deleted case.
	Stale []string
	// Kth is, per case with a full list of k links, its k-th link: a case
	// scoring at least that much against it may enter its top k. Cases
	// with fewer than k links are not in it.
	Kth map[string]ilgraph.SimilarLink
}

// ReadSimilarState reads the state of the stored links of k per case.
func (db *DB) ReadSimilarState(ctx context.Context, k int) (*SimilarState, error) {
	return read(ctx, db, "reading the similarity links' state", func(tx neo4j.ManagedTransaction) (*SimilarState, error) {
		st := &SimilarState{Kth: map[string]ilgraph.SimilarLink{}}
		recs, err := collect(ctx, tx, "MATCH (n:Case) WHERE n.similar_hash IS NULL OR n.similar_hash <> coalesce(n.content_hash, '') RETURN n.id AS id", nil)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			st.Changed = append(st.Changed, str(r, "id"))
		}
		recs, err = collect(ctx, tx, `MATCH (x:Case)-[:SIMILAR_TO]->(c:Case) WHERE c.id IN $changed RETURN DISTINCT x.id AS id
UNION
MATCH (x:Case) WHERE x.similar_n IS NOT NULL AND COUNT { (x)-[:SIMILAR_TO]->() } < x.similar_n RETURN x.id AS id`, map[string]any{"changed": st.Changed})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			st.Stale = append(st.Stale, str(r, "id"))
		}
		res, err := tx.Run(ctx, "MATCH (x:Case)-[r:SIMILAR_TO {rank: $k}]->(y:Case) RETURN x.id AS x, y.id AS y, r.score AS s", map[string]any{"k": int64(k)})
		if err != nil {
			return nil, err
		}
		for res.Next(ctx) {
			r := res.Record()
			s, _, _ := neo4j.GetRecordValue[float64](r, "s")
			st.Kth[str(r, "x")] = ilgraph.SimilarLink{From: str(r, "x"), To: str(r, "y"), Score: s, Rank: k}
		}
		return st, res.Err()
	})
}

// ReplaceSimilarOf replaces the stored links of the cases from with links
// (all of them from those cases), in batches, and records on each case the
// content hash and link count they were computed from.
func (db *DB) ReplaceSimilarOf(ctx context.Context, from []string, links []ilgraph.SimilarLink, batch int) (Counters, error) {
	var total Counters
	n := map[string]int64{}
	for _, l := range links {
		n[l.From]++
	}
	for i := 0; i < len(from); i += batch {
		part := from[i:min(i+batch, len(from))]
		rows := make([]map[string]any, len(part))
		for j, id := range part {
			rows[j] = map[string]any{"id": id, "n": n[id]}
		}
		c, err := write(ctx, db, "clearing similarity links", func(tx neo4j.ManagedTransaction) (Counters, error) {
			return exec(ctx, tx, `UNWIND $rows AS row
MATCH (a:Case {id: row.id})
SET a.similar_hash = coalesce(a.content_hash, ''), a.similar_n = row.n
WITH a
MATCH (a)-[r:SIMILAR_TO]->()
DELETE r`, map[string]any{"rows": rows})
		})
		if err != nil {
			return total, err
		}
		total.Add(c)
	}
	c, err := db.ReplaceSimilar(ctx, links, false, batch)
	total.Add(c)
	return total, err
}

// SimilarLinks returns every stored similarity link, for checks.
func (db *DB) SimilarLinks(ctx context.Context) ([]ilgraph.SimilarLink, error) {
	return read(ctx, db, "reading similarity links", func(tx neo4j.ManagedTransaction) ([]ilgraph.SimilarLink, error) {
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

// MarkSimilarCurrent records on every case the content hash and link count
// its stored links were computed from, after a full write-back.
func (db *DB) MarkSimilarCurrent(ctx context.Context) (Counters, error) {
	var total Counters
	s := db.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.Background())
	res, err := s.Run(ctx, `MATCH (n:Case) CALL (n) {
  SET n.similar_hash = coalesce(n.content_hash, ''), n.similar_n = COUNT { (n)-[:SIMILAR_TO]->() }
} IN TRANSACTIONS OF 10000 ROWS`, nil)
	if err == nil {
		var sum neo4j.ResultSummary
		if sum, err = res.Consume(ctx); err == nil {
			total.PropertiesSet += sum.Counters().PropertiesSet()
		}
	}
	if err != nil {
		return total, db.wrap(err, "recording the similarity links' state")
	}
	return total, nil
}
