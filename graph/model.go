package graph

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// The graph model. See docs/graph-model.md.
//
//	(:Case)-[:HAS_ROOT_CAUSE {rank}]->(:Cause)
//	(:Case)-[:HAS_COMPONENT {rank}]->(:Component)
//	(:Case)-[:HAS_SYMPTOM {rank}]->(:Symptom)
//	(:Case)-[:HAS_FACTOR {rank}]->(:Factor)
//	(:Case)-[:IN_DOMAIN {rank}]->(:Domain)
//	(:Case)-[:AT_ORG]->(:Organization)
//	(:Case)-[:RELATED_TO {rank}]->(:Case)
//	(:Case)-[:RECURRENCE_OF]->(:Case)
//	(:CaseRevision {case_id, version, …})   a case's history (casewrite.go)
//	(:SimilarJudgment {query_id, match_id, judge, …}), (:SimilarHidden {query_id, match_id, …})
//	                                         judgments of similar matches (judgment.go)
//
// rank keeps the order the case lists its tags in.
const (
	LabelCase     = "Case"
	RelRelated    = "RELATED_TO"
	RelRecurrence = "RECURRENCE_OF"
)

// kindModel is how one feature kind is stored.
type kindModel struct {
	Kind  ilgraph.Kind
	Label string // node label of its terms
	Rel   string // relationship type from a case to a term
}

// kinds lists every feature kind's label and relationship type. These fixed
// strings are the only identifiers ever placed in query text.
var kinds = []kindModel{
	{ilgraph.KindRootCause, "Cause", "HAS_ROOT_CAUSE"},
	{ilgraph.KindComponent, "Component", "HAS_COMPONENT"},
	{ilgraph.KindSymptom, "Symptom", "HAS_SYMPTOM"},
	{ilgraph.KindContributing, "Factor", "HAS_FACTOR"},
	{ilgraph.KindDomain, "Domain", "IN_DOMAIN"},
	{ilgraph.KindMechanism, "Mechanism", "HAS_MECHANISM"},
	{ilgraph.KindOrg, "Organization", "AT_ORG"},
}

func modelOf(k ilgraph.Kind) (kindModel, error) {
	for _, m := range kinds {
		if m.Kind == k {
			return m, nil
		}
	}
	return kindModel{}, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldKind, "%q is not a kind of term", ilgraph.Clip(string(k), 40))
}

// schema is every constraint and index the API's lookups use. All are
// idempotent (IF NOT EXISTS).
func schema() []string {
	var qs []string
	qs = append(qs, "CREATE CONSTRAINT case_id IF NOT EXISTS FOR (n:Case) REQUIRE n.id IS UNIQUE")
	// The full-text index before word forms: case_search replaces it.
	qs = append(qs, "DROP INDEX case_text IF EXISTS")
	for _, m := range kinds {
		qs = append(qs, fmt.Sprintf("CREATE CONSTRAINT %s_id IF NOT EXISTS FOR (n:%s) REQUIRE n.id IS UNIQUE", lower(m.Label), m.Label))
	}
	// API tokens (token.go): looked up by id, unique by name.
	qs = append(qs,
		"CREATE CONSTRAINT api_token_id IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.id IS UNIQUE",
		"CREATE CONSTRAINT api_token_name IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.name IS UNIQUE")
	qs = append(qs,
		"CREATE INDEX case_date IF NOT EXISTS FOR (n:Case) ON (n.date)",
		"CREATE INDEX case_year IF NOT EXISTS FOR (n:Case) ON (n.year)",
		"CREATE INDEX case_severity IF NOT EXISTS FOR (n:Case) ON (n.severity)",
		"CREATE INDEX case_org_slug IF NOT EXISTS FOR (n:Case) ON (n.org_slug)",
		"CREATE INDEX case_content_hash IF NOT EXISTS FOR (n:Case) ON (n.content_hash)",
		// The review queue (review.go): the machine-tagged cases.
		"CREATE INDEX case_machine_tagged IF NOT EXISTS FOR (n:Case) ON (n.machine_tagged)",
		// A case's history (casewrite.go): one revision per version, looked
		// up by case, and the ones no export has settled.
		"CREATE CONSTRAINT case_revision_version IF NOT EXISTS FOR (r:CaseRevision) REQUIRE (r.case_id, r.version) IS UNIQUE",
		"CREATE INDEX case_revision_case IF NOT EXISTS FOR (r:CaseRevision) ON (r.case_id)",
		"CREATE INDEX case_revision_settled IF NOT EXISTS FOR (r:CaseRevision) ON (r.settled)",
		"CREATE INDEX case_revision_corpus_version IF NOT EXISTS FOR (r:CaseRevision) ON (r.corpus_version)",
		// Judgments of similar matches and hidden matches (judgment.go):
		// one per query, match and judge, one hiding per query and match;
		// the constraints' indexes look them up by query too.
		"CREATE CONSTRAINT similar_judgment_key IF NOT EXISTS FOR (j:SimilarJudgment) REQUIRE (j.query_id, j.match_id, j.judge) IS UNIQUE",
		"CREATE CONSTRAINT similar_hidden_key IF NOT EXISTS FOR (h:SimilarHidden) REQUIRE (h.query_id, h.match_id) IS UNIQUE",
		// Titles and summaries in both languages, as written and with their
		// English words stemmed (searchFormProps): a search looks for the
		// stems of its words in the *_forms fields, and which forms of a
		// word occur in the fields as written. The CJK analyzer indexes
		// Korean as overlapping bigrams (so a word matches inside a longer
		// word with particles attached) and English as lower-cased words.
		// It replaces case_text (the fields as written only), dropped in
		// Migrate.
		"CREATE FULLTEXT INDEX case_search IF NOT EXISTS FOR (n:Case) ON EACH "+
			"[n.title_en, n.title_ko, n.summary_en, n.summary_ko, n.title_en_forms, n.title_ko_forms, n.summary_en_forms, n.summary_ko_forms] "+
			"OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk', `fulltext.eventually_consistent`: false}}",
	)
	return qs
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Migrate creates the constraints and indexes, and waits until they are online.
func (db *DB) Migrate(ctx context.Context) error {
	s := db.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.Background())
	for _, q := range schema() {
		// Schema changes cannot share a transaction with other writes; each
		// runs on its own (they are idempotent, so a retry is harmless).
		if _, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			return exec(ctx, tx, q, nil)
		}); err != nil {
			return db.wrap(err, "creating the schema")
		}
	}
	if err := db.restemCases(ctx); err != nil {
		return err
	}
	res, err := s.Run(ctx, "CALL db.awaitIndexes(300)", nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return db.wrap(err, "waiting for indexes")
	}
	return nil
}

// restemCases writes the stemmed search fields (searchFormProps) of every
// case written before them or under another version of the word-form rule
// (ilgraph.WordFormsVersion), in batches: a load skips unchanged cases, so
// without this an older graph would not find their word forms.
func (db *DB) restemCases(ctx context.Context) error {
	const batch = 2000
	for {
		n, err := write(ctx, db, "writing the stemmed search fields", func(tx neo4j.ManagedTransaction) (int, error) {
			recs, err := collect(ctx, tx, `MATCH (n:Case) WHERE n.word_forms_version IS NULL OR n.word_forms_version <> $v
WITH n LIMIT $batch
RETURN n.id AS id, coalesce(n.title_en, '') AS te, coalesce(n.title_ko, '') AS tk,
       coalesce(n.summary_en, '') AS se, coalesce(n.summary_ko, '') AS sk`, map[string]any{"v": int64(ilgraph.WordFormsVersion), "batch": int64(batch)})
			if err != nil || len(recs) == 0 {
				return 0, err
			}
			rows := make([]map[string]any, len(recs))
			for i, r := range recs {
				rows[i] = map[string]any{"id": str(r, "id"), "props": searchFormProps(
					ilgraph.Text{En: str(r, "te"), Ko: str(r, "tk")}, ilgraph.Text{En: str(r, "se"), Ko: str(r, "sk")})}
			}
			if _, err := exec(ctx, tx, "UNWIND $rows AS row MATCH (n:Case {id: row.id}) SET n += row.props", map[string]any{"rows": rows}); err != nil {
				return 0, err
			}
			return len(recs), nil
		})
		if err != nil || n < batch {
			return err
		}
	}
}
