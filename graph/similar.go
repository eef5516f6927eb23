package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

// CorpusVersion returns the corpus version (0 before the first load).
func (db *DB) CorpusVersion(ctx context.Context) (int64, error) {
	recs, err := readOnce(ctx, db, "reading the corpus version", "MATCH (m:IlgraphMeta {id: 'corpus'}) RETURN m.version AS v", nil)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	return integer(recs[0], "v"), nil
}

// CorpusID returns the graph's corpus id, made the first time it is asked
// and kept on the corpus's meta node: an in-memory corpus written to a file
// records it, so that the file is read back only over this database (an
// emptied database makes a new meta node, and a new id). Reading it the
// first time is a write; a retry finds the id the first attempt set.
func (db *DB) CorpusID(ctx context.Context) (string, error) {
	id, err := retryToken()
	if err != nil {
		return "", err
	}
	return write(ctx, db, "reading the corpus id", func(tx neo4j.ManagedTransaction) (string, error) {
		recs, err := collect(ctx, tx, `MERGE (m:IlgraphMeta {id: 'corpus'})
SET m.corpus_id = coalesce(m.corpus_id, $id)
RETURN m.corpus_id AS id`, map[string]any{"id": id})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		v, _ := recs[0].Get("id")
		s, _ := v.(string)
		return s, nil
	})
}

// BumpCorpusVersion records that the cases changed. The driver retries a
// transaction whose commit it could not confirm, so the bump carries a
// token made once per call: a retry of a bump that did commit finds its
// token and leaves the version as it is.
func (db *DB) BumpCorpusVersion(ctx context.Context) (Counters, error) {
	token, err := retryToken()
	if err != nil {
		return Counters{}, err
	}
	return write(ctx, db, "bumping the corpus version", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, `MERGE (m:IlgraphMeta {id: 'corpus'})
SET m.version = CASE WHEN m.bump_token = $token THEN m.version ELSE coalesce(m.version, 0) + 1 END,
    m.bump_token = $token`, map[string]any{"token": token})
	})
}

// retryToken makes the token a write carries so that the driver's retry of
// a transaction whose commit it could not confirm can tell that it did
// commit (WriteCase, BumpCorpusVersion, PublishLoad).
func retryToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", ilgraph.WrapError(ilgraph.EINTERNAL, err, "making a write token")
	}
	return hex.EncodeToString(b[:]), nil
}

// SimilarityRows reads every case's features, calling fn for each, ordered
// by id. It reads pages of similarityPage cases, each in a read transaction
// of its own, and calls fn between them (see EachCase): building an index
// from a million cases takes minutes, longer than a transaction may last.
func (db *DB) SimilarityRows(ctx context.Context, fn func(ilgraph.CaseFeatures)) error {
	return byIDPages(similarityPage, func(r ilgraph.CaseFeatures) string { return r.ID },
		func(r ilgraph.CaseFeatures) error { fn(r); return nil },
		func(after string) ([]ilgraph.CaseFeatures, error) { return db.similarityQuery(ctx, nil, after) })
}

// similarityPage is how many cases SimilarityRows reads in one transaction.
var similarityPage = 10000

// SimilarityRowsOf is SimilarityRows for the cases named (an unknown id is
// left out).
func (db *DB) SimilarityRowsOf(ctx context.Context, ids []string, fn func(ilgraph.CaseFeatures)) error {
	if len(ids) == 0 {
		return nil
	}
	return db.similarityRows(ctx, ids, fn)
}

func (db *DB) similarityRows(ctx context.Context, ids []string, fn func(ilgraph.CaseFeatures)) error {
	rows, err := db.similarityQuery(ctx, ids, "")
	for _, r := range rows {
		fn(r)
	}
	return err
}

// similarityQuery reads the rows of the cases named by ids, or, when ids
// is nil, the page of similarityPage cases after the id after, in one
// transaction (collected there, so that a retried transaction starts over).
func (db *DB) similarityQuery(ctx context.Context, ids []string, after string) ([]ilgraph.CaseFeatures, error) {
	var cols []string
	for _, m := range kinds {
		// In rank order, as the case lists them (the read model shows them).
		cols = append(cols, fmt.Sprintf("[(n)-[r:%s]->(t:%s) | [coalesce(r.rank, 0), t.id]] AS %s", m.Rel, m.Label, m.Kind))
	}
	q := "MATCH (n:Case) WHERE n.id > $after WITH n ORDER BY n.id LIMIT $page"
	params := map[string]any{"after": after, "page": int64(similarityPage)}
	if ids != nil {
		q, params = "UNWIND $ids AS id MATCH (n:Case {id: id})", map[string]any{"ids": ids}
	}
	q += " RETURN n.id AS id, n.date AS date, n.severity AS severity, n.org AS org_name, n.resolved_after_min AS resolved, coalesce(n.machine_tagged, false) AS machine_tagged, coalesce(n.bilingual, false) AS bilingual, coalesce(n.reviewed, false) AS reviewed, " +
		"n.trigger_en AS trigger, n.lessons_en AS lessons, n.title_en AS title_en, n.title_ko AS title_ko, " + strings.Join(cols, ", ")
	return read(ctx, db, "reading case features", func(tx neo4j.ManagedTransaction) ([]ilgraph.CaseFeatures, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		var out []ilgraph.CaseFeatures
		for res.Next(ctx) {
			r := res.Record()
			machine, _, _ := neo4j.GetRecordValue[bool](r, "machine_tagged")
			bilingual, _, _ := neo4j.GetRecordValue[bool](r, "bilingual")
			reviewed, _, _ := neo4j.GetRecordValue[bool](r, "reviewed")
			row := ilgraph.CaseFeatures{
				ID: str(r, "id"), Severity: str(r, "severity"), Org: str(r, "org_name"), MachineTagged: machine,
				Bilingual: bilingual, Reviewed: reviewed, Title: ilgraph.Text{En: str(r, "title_en"), Ko: str(r, "title_ko")},
				Text: ilgraph.SimilarityText(str(r, "trigger"), str(r, "lessons")),
			}
			if m, isNil, err := neo4j.GetRecordValue[int64](r, "resolved"); err == nil && !isNil {
				row.ResolvedMin, row.Resolved = int(m), true
			}
			if d, ok := r.AsMap()["date"].(dbtype.Date); ok {
				row.Date = d.Time().Format(ilgraph.DateLayout)
			}
			for _, m := range kinds {
				for _, id := range ranked(r, string(m.Kind)) {
					row.Features = append(row.Features, ilgraph.Feature{Kind: m.Kind, ID: id})
				}
			}
			out = append(out, row)
		}
		return out, res.Err()
	})
}

// CaseOrganizations returns the distinct organization names (Case.org)
// the cases give, in no particular order.
func (db *DB) CaseOrganizations(ctx context.Context) ([]string, error) {
	return read(ctx, db, "reading the cases' organizations", func(tx neo4j.ManagedTransaction) ([]string, error) {
		recs, err := collect(ctx, tx, "MATCH (n:Case) RETURN DISTINCT n.org AS org", nil)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(recs))
		for i, r := range recs {
			out[i] = str(r, "org")
		}
		return out, nil
	})
}

// OrganizationNames calls fn with every organization's id and name.
func (db *DB) OrganizationNames(ctx context.Context, fn func(id, name string)) error {
	_, err := read(ctx, db, "reading organizations", func(tx neo4j.ManagedTransaction) (struct{}, error) {
		res, err := tx.Run(ctx, "MATCH (o:Organization) RETURN o.id AS id, coalesce(o.en, o.name) AS name", nil)
		if err != nil {
			return struct{}{}, err
		}
		for res.Next(ctx) {
			fn(str(res.Record(), "id"), str(res.Record(), "name"))
		}
		return struct{}{}, res.Err()
	})
	return err
}

// ReplaceSimilar replaces every case's stored SIMILAR_TO relationships with
// links (given for some cases; cases not named keep theirs), in batches.
func (db *DB) ReplaceSimilar(ctx context.Context, links []ilgraph.SimilarLink, clearAll bool, batch int) (Counters, error) {
	var total Counters
	if clearAll {
		s := db.session(ctx, neo4j.AccessModeWrite)
		res, err := s.Run(ctx, "MATCH ()-[r:SIMILAR_TO]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS", nil)
		if err == nil {
			var sum neo4j.ResultSummary
			sum, err = res.Consume(ctx)
			if err == nil {
				total.RelationshipsDeleted += sum.Counters().RelationshipsDeleted()
			}
		}
		s.Close(context.Background())
		if err != nil {
			return total, db.wrap(err, "clearing similarity links")
		}
	}
	for i := 0; i < len(links); i += batch {
		part := links[i:min(i+batch, len(links))]
		rows := make([]map[string]any, len(part))
		for j, l := range part {
			rows[j] = map[string]any{"from": l.From, "to": l.To, "score": l.Score, "rank": int64(l.Rank)}
		}
		c, err := write(ctx, db, "writing similarity links", func(tx neo4j.ManagedTransaction) (Counters, error) {
			return exec(ctx, tx, `UNWIND $rows AS row
MATCH (a:Case {id: row.from}), (b:Case {id: row.to})
MERGE (a)-[r:SIMILAR_TO]->(b)
SET r.score = row.score, r.rank = row.rank`, map[string]any{"rows": rows})
		})
		if err != nil {
			return total, err
		}
		total.Add(c)
	}
	return total, nil
}
