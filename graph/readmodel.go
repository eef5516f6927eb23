package graph

import (
	"context"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// CaseRelationships counts the relationships from the cases f selects,
// every type (SIMILAR_TO included): the one statistic the in-memory read
// model does not hold. Without a filter it is read from Neo4j's count store.
func (db *DB) CaseRelationships(ctx context.Context, f ilgraph.CaseFilter) (int, error) {
	q, params := "MATCH (:Case)-[r]->() RETURN count(r) AS c", map[string]any(nil)
	if !f.IsZero() {
		mc, err := compileFilter(f)
		if err != nil {
			return 0, err
		}
		q, params = mc.text+"RETURN sum(COUNT { (n)-->() }) AS c", mc.params
	}
	return read(ctx, db, "counting relationships", func(tx neo4j.ManagedTransaction) (int, error) {
		recs, err := collect(ctx, tx, q, params)
		if err != nil || len(recs) == 0 {
			return 0, err
		}
		return int(integer(recs[0], "c")), nil
	})
}
