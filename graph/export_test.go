package graph

import (
	"context"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// SetPages sets the page sizes of SimilarityRows and EachCase for a test
// and returns the function that restores them.
func SetPages(similarity, each int) func() {
	s, e := similarityPage, eachCasePage
	similarityPage, eachCasePage = similarity, each
	return func() { similarityPage, eachCasePage = s, e }
}

// SlowCount runs a read transaction that counts the multiples of 7 up to n:
// work that takes a while on a healthy Neo4j.
func SlowCount(ctx context.Context, db *DB, n int) (int64, error) {
	return read(ctx, db, "slow count", func(tx neo4j.ManagedTransaction) (int64, error) {
		res, err := tx.Run(ctx, `UNWIND range(1, $n) AS x WITH x WHERE x % 7 = 0 RETURN count(*) AS c`, map[string]any{"n": n})
		if err != nil {
			return 0, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return 0, err
		}
		c, _, err := neo4j.GetRecordValue[int64](rec, "c")
		return c, err
	})
}

// PropertiesOf returns the properties of every node with the label.
func PropertiesOf(ctx context.Context, db *DB, label string) ([]map[string]any, error) {
	return read(ctx, db, "properties", func(tx neo4j.ManagedTransaction) ([]map[string]any, error) {
		recs, err := collect(ctx, tx, "MATCH (n) WHERE $label IN labels(n) RETURN properties(n) AS p", map[string]any{"label": label})
		if err != nil {
			return nil, err
		}
		var out []map[string]any
		for _, r := range recs {
			p, _ := r.Get("p")
			out = append(out, p.(map[string]any))
		}
		return out, nil
	})
}

// WriteForTest runs one write statement: tests use it to set up a state
// the API cannot make (a revision in the way of the next write).
func WriteForTest(ctx context.Context, db *DB, q string, params map[string]any) error {
	_, err := write(ctx, db, "test write", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, q, params)
	})
	return err
}

// ForgetWordForms removes the stemmed search fields from every case, as a
// graph written before word forms has them.
func ForgetWordForms(ctx context.Context, db *DB) error {
	_, err := write(ctx, db, "forgetting word forms", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, "MATCH (n:Case) REMOVE n.title_en_forms, n.title_ko_forms, n.summary_en_forms, n.summary_ko_forms, n.word_forms_version", nil)
	})
	return err
}
