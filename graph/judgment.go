package graph

import (
	"context"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// Judgments of similar matches and the matches hidden from their query
// case's list (docs/graph-model.md#judgments):
//
//	(:SimilarJudgment {query_id, match_id, judge, grade, reason, at})
//	(:SimilarHidden {query_id, match_id, by, at})
//
// one judgment per (query, match, judge) and one hiding per (query, match),
// each unique by a constraint (model.go). Like a case's history they are
// keyed by the cases' ids rather than linked to the case nodes: a case
// updated, deleted or loaded again keeps the judgments made of it, which
// are what the judged benchmark grows from.
const (
	LabelJudgment = "SimilarJudgment"
	LabelHidden   = "SimilarHidden"
)

// lockPair is the first statement of every judgment write: it finds both
// cases and takes a write lock on the query case's node (setting and
// removing a property, which leaves the node as it was), so that writes
// about the same query case run one after another — a hiding and the
// withdrawal of the judgment it rests on cannot both commit. ENOTFOUND
// names a case that does not exist.
func lockPair(ctx context.Context, tx neo4j.ManagedTransaction, query, match string) error {
	recs, err := collect(ctx, tx, `
OPTIONAL MATCH (q:Case {id: $query})
OPTIONAL MATCH (m:Case {id: $match})
FOREACH (x IN CASE WHEN q IS NULL THEN [] ELSE [1] END | SET q._judgment_lock = true REMOVE q._judgment_lock)
RETURN q IS NOT NULL AS query, m IS NOT NULL AS match`, map[string]any{"query": query, "match": match})
	if err != nil {
		return err
	}
	for _, side := range []struct{ col, id string }{{"query", query}, {"match", match}} {
		if ok, _, _ := neo4j.GetRecordValue[bool](recs[0], side.col); !ok {
			return ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", ilgraph.Clip(side.id, 60))
		}
	}
	return nil
}

// unhideUnjudged is the last statement of a judgment's change: a hiding
// rests on a judgment marking the match not relevant, and goes with the
// last one.
const unhideUnjudged = `
MATCH (h:SimilarHidden {query_id: $query, match_id: $match})
WHERE NOT EXISTS { MATCH (j:SimilarJudgment {query_id: $query, match_id: $match}) WHERE j.grade = 0 }
DELETE h`

// PutJudgment stores j, replacing the judgment its judge made of the same
// pair, in one write transaction (safe to retry: it sets what j says).
// ENOTFOUND names a case that does not exist. A match hidden on the
// strength of a not-relevant judgment is shown again when no judgment
// marks it not relevant any more.
func (db *DB) PutJudgment(ctx context.Context, j ilgraph.Judgment) error {
	params := map[string]any{"query": j.Query, "match": j.Match, "judge": j.Judge, "grade": int64(j.Grade), "reason": j.Reason, "at": j.At.UTC()}
	_, err := write(ctx, db, "storing a judgment", func(tx neo4j.ManagedTransaction) (Counters, error) {
		if err := lockPair(ctx, tx, j.Query, j.Match); err != nil {
			return Counters{}, err
		}
		if _, err := exec(ctx, tx, `MERGE (j:SimilarJudgment {query_id: $query, match_id: $match, judge: $judge})
SET j.grade = $grade, j.reason = $reason, j.at = $at`, params); err != nil {
			return Counters{}, err
		}
		return exec(ctx, tx, unhideUnjudged, params)
	})
	return err
}

// DeleteJudgment removes the judgment judge made of the pair, reporting
// whether there was one; the cases need not exist any more. Safe to retry
// (a retry of a delete that committed finds none).
func (db *DB) DeleteJudgment(ctx context.Context, query, match, judge string) (bool, error) {
	params := map[string]any{"query": query, "match": match, "judge": judge}
	c, err := write(ctx, db, "withdrawing a judgment", func(tx neo4j.ManagedTransaction) (Counters, error) {
		if _, err := exec(ctx, tx, "MATCH (q:Case {id: $query}) SET q._judgment_lock = true REMOVE q._judgment_lock", params); err != nil {
			return Counters{}, err
		}
		c, err := exec(ctx, tx, "MATCH (j:SimilarJudgment {query_id: $query, match_id: $match, judge: $judge}) DELETE j", params)
		if err != nil {
			return Counters{}, err
		}
		_, err = exec(ctx, tx, unhideUnjudged, params)
		return c, err
	})
	return c.NodesDeleted > 0, err
}

// HideSimilar hides the match from its query case's list, recording who
// and when (a match hidden already keeps its first hiding). ECONFLICT when
// no judgment marks the match not relevant; ENOTFOUND names a case that
// does not exist. Safe to retry.
func (db *DB) HideSimilar(ctx context.Context, h ilgraph.Hiding) error {
	params := map[string]any{"query": h.Query, "match": h.Match, "by": h.By, "at": h.At.UTC()}
	_, err := write(ctx, db, "hiding a similar case", func(tx neo4j.ManagedTransaction) (Counters, error) {
		if err := lockPair(ctx, tx, h.Query, h.Match); err != nil {
			return Counters{}, err
		}
		recs, err := collect(ctx, tx, `MATCH (j:SimilarJudgment {query_id: $query, match_id: $match}) WHERE j.grade = 0 RETURN count(j) AS n`, params)
		if err != nil {
			return Counters{}, err
		}
		if integer(recs[0], "n") == 0 {
			return Counters{}, ilgraph.Errorf(ilgraph.ECONFLICT, "no judgment marks %s not relevant to %s: judge it not relevant first, then hide it",
				ilgraph.Clip(h.Match, 60), ilgraph.Clip(h.Query, 60))
		}
		return exec(ctx, tx, `MERGE (h:SimilarHidden {query_id: $query, match_id: $match})
ON CREATE SET h.by = $by, h.at = $at`, params)
	})
	return err
}

// UnhideSimilar shows a hidden match again, reporting whether it was
// hidden. Safe to retry.
func (db *DB) UnhideSimilar(ctx context.Context, query, match string) (bool, error) {
	c, err := write(ctx, db, "showing a hidden similar case", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, "MATCH (h:SimilarHidden {query_id: $query, match_id: $match}) DELETE h", map[string]any{"query": query, "match": match})
	})
	return c.NodesDeleted > 0, err
}

// SimilarFeedback returns the judgments made of the query case's matches,
// by match then judge, and its hidden matches, by match.
func (db *DB) SimilarFeedback(ctx context.Context, query string) ([]ilgraph.Judgment, []ilgraph.Hiding, error) {
	type answer struct {
		js []ilgraph.Judgment
		hs []ilgraph.Hiding
	}
	a, err := read(ctx, db, "reading judgments", func(tx neo4j.ManagedTransaction) (answer, error) {
		var a answer
		recs, err := collect(ctx, tx, `MATCH (j:SimilarJudgment {query_id: $query})
RETURN j.query_id AS query, j.match_id AS match, j.judge AS judge, j.grade AS grade, j.reason AS reason, j.at AS at
ORDER BY match, judge`, map[string]any{"query": query})
		if err != nil {
			return a, err
		}
		a.js = judgmentsOf(recs)
		recs, err = collect(ctx, tx, `MATCH (h:SimilarHidden {query_id: $query})
RETURN h.query_id AS query, h.match_id AS match, h.by AS by, h.at AS at ORDER BY match`, map[string]any{"query": query})
		if err != nil {
			return a, err
		}
		a.hs = make([]ilgraph.Hiding, len(recs))
		for i, r := range recs {
			a.hs[i] = ilgraph.Hiding{Query: str(r, "query"), Match: str(r, "match"), By: str(r, "by"), At: timeOf(r, "at")}
		}
		return a, nil
	})
	return a.js, a.hs, err
}

// AllJudgments returns every judgment, by query, match and judge: what
// `ilgraph export judgments` writes and `ilgraph eval similar
// --judgments` scores against.
func (db *DB) AllJudgments(ctx context.Context) ([]ilgraph.Judgment, error) {
	return read(ctx, db, "reading every judgment", func(tx neo4j.ManagedTransaction) ([]ilgraph.Judgment, error) {
		recs, err := collect(ctx, tx, `MATCH (j:SimilarJudgment)
RETURN j.query_id AS query, j.match_id AS match, j.judge AS judge, j.grade AS grade, j.reason AS reason, j.at AS at
ORDER BY query, match, judge`, nil)
		if err != nil {
			return nil, err
		}
		return judgmentsOf(recs), nil
	})
}

func judgmentsOf(recs []*neo4j.Record) []ilgraph.Judgment {
	out := make([]ilgraph.Judgment, len(recs))
	for i, r := range recs {
		out[i] = ilgraph.Judgment{Query: str(r, "query"), Match: str(r, "match"), Judge: str(r, "judge"),
			Grade: ilgraph.Grade(integer(r, "grade")), Reason: str(r, "reason"), At: timeOf(r, "at")}
	}
	return out
}
