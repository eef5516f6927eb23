package graph

import (
	"context"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// MachineTaggedCases returns a page of the review queue — the ids of the
// machine-tagged cases (Case.MachineTagged, stored as machine_tagged),
// newest first as a case list sorted by date is (date descending, then
// id) — and how many there are in all.
func (db *DB) MachineTaggedCases(ctx context.Context, offset, limit int) ([]string, int, error) {
	type answer struct {
		ids   []string
		total int
	}
	a, err := read(ctx, db, "reading the review queue", func(tx neo4j.ManagedTransaction) (answer, error) {
		recs, err := collect(ctx, tx, "MATCH (n:Case) WHERE n.machine_tagged = true RETURN count(n) AS total", nil)
		if err != nil {
			return answer{}, err
		}
		a := answer{total: int(integer(recs[0], "total")), ids: []string{}}
		if limit == 0 || offset >= a.total {
			return a, nil
		}
		recs, err = collect(ctx, tx, `MATCH (n:Case) WHERE n.machine_tagged = true
RETURN n.id AS id ORDER BY n.date DESC, n.id ASC SKIP $offset LIMIT $limit`,
			map[string]any{"offset": int64(offset), "limit": int64(limit)})
		if err != nil {
			return answer{}, err
		}
		for _, r := range recs {
			a.ids = append(a.ids, str(r, "id"))
		}
		return a, nil
	})
	if err != nil {
		return nil, 0, err
	}
	return a.ids, a.total, nil
}
