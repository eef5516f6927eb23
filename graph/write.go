package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// storageVersion is mixed into every case's content hash: bump it when the
// way a case is stored changes, so that the next load rewrites every case.
const storageVersion = "ilgraph-case-v3"

// ContentHash identifies a case's content as loaded. Equal hashes mean a
// re-load has nothing to change.
func ContentHash(c *ilgraph.Case) string {
	h := sha256.New()
	h.Write([]byte(storageVersion))
	h.Write([]byte{0})
	if len(c.Raw) > 0 {
		h.Write(c.Raw)
	} else {
		b, _ := json.Marshal(c)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteVocabulary makes the graph's terms match v: it creates or updates each
// term node (id, en, ko, description, aliases_en, aliases_ko) and deletes term nodes that v no longer
// has and no case uses. Terms load even when no case uses them.
func (db *DB) WriteVocabulary(ctx context.Context, v *ilgraph.Vocabulary) (Counters, error) {
	return write(ctx, db, "writing the vocabulary", func(tx neo4j.ManagedTransaction) (Counters, error) {
		var total Counters
		for _, k := range ilgraph.VocabKinds {
			m, _ := modelOf(k)
			rows := make([]map[string]any, 0, len(v.Kinds[k]))
			ids := make([]string, 0, len(v.Kinds[k]))
			for _, t := range v.Kinds[k] {
				rows = append(rows, map[string]any{"id": t.ID, "en": t.En, "ko": t.Ko, "description": t.Description,
					"aliases_en": nonNil(t.Aliases.En), "aliases_ko": nonNil(t.Aliases.Ko)})
				ids = append(ids, t.ID)
			}
			c, err := exec(ctx, tx, fmt.Sprintf(`
UNWIND $rows AS row
MERGE (t:%s {id: row.id})
WITH t, row
WHERE t.en IS NULL OR t.en <> row.en OR t.ko <> row.ko OR t.description <> row.description
   OR coalesce(t.aliases_en, []) <> row.aliases_en OR coalesce(t.aliases_ko, []) <> row.aliases_ko
SET t.en = row.en, t.ko = row.ko, t.description = row.description, t.aliases_en = row.aliases_en, t.aliases_ko = row.aliases_ko`, m.Label), map[string]any{"rows": rows})
			if err != nil {
				return total, err
			}
			total.Add(c)
			c, err = exec(ctx, tx, fmt.Sprintf(`
MATCH (t:%s) WHERE NOT t.id IN $ids AND NOT EXISTS { (t)<-[:%s]-(:Case) }
DELETE t`, m.Label, m.Rel), map[string]any{"ids": ids})
			if err != nil {
				return total, err
			}
			total.Add(c)
		}
		return total, nil
	})
}

// Vocabulary reads the terms in the graph.
func (db *DB) Vocabulary(ctx context.Context) (*ilgraph.Vocabulary, error) {
	return read(ctx, db, "reading the vocabulary", func(tx neo4j.ManagedTransaction) (*ilgraph.Vocabulary, error) {
		v := &ilgraph.Vocabulary{Version: 1, Kinds: map[ilgraph.Kind][]ilgraph.Term{}}
		for _, k := range ilgraph.VocabKinds {
			m, _ := modelOf(k)
			recs, err := collect(ctx, tx, fmt.Sprintf("MATCH (t:%s) RETURN t.id AS id, t.en AS en, t.ko AS ko, t.description AS description, t.aliases_en AS aliases_en, t.aliases_ko AS aliases_ko ORDER BY id", m.Label), nil)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				v.Kinds[k] = append(v.Kinds[k], ilgraph.Term{
					Kind: k, ID: str(r, "id"), En: str(r, "en"), Ko: str(r, "ko"), Description: str(r, "description"),
					Aliases: ilgraph.Aliases{En: strs(r, "aliases_en"), Ko: strs(r, "aliases_ko")},
				})
			}
		}
		return v, nil
	})
}

// CaseHashes returns the content hash stored for each of ids that exists
// (an empty hash for a case whose last write did not finish).
func (db *DB) CaseHashes(ctx context.Context, ids []string) (map[string]string, error) {
	return read(ctx, db, "reading case hashes", func(tx neo4j.ManagedTransaction) (map[string]string, error) {
		recs, err := collect(ctx, tx, "UNWIND $ids AS id MATCH (n:Case {id: id}) RETURN n.id AS id, coalesce(n.content_hash, '') AS hash", map[string]any{"ids": ids})
		if err != nil {
			return nil, err
		}
		out := make(map[string]string, len(recs))
		for _, r := range recs {
			out[str(r, "id")] = str(r, "hash")
		}
		return out, nil
	})
}

// WriteCases is the first phase of a load: it creates or replaces each case
// node with all its properties, its organization and its tags (old tags the
// case no longer lists are removed). It leaves each case without a content
// hash; LinkCases sets it once the case's links are written, so that a load
// cut short in between is completed by the next one.
func (db *DB) WriteCases(ctx context.Context, cases []*ilgraph.Case) (Counters, error) {
	if len(cases) == 0 {
		return Counters{}, nil
	}
	rows := caseRows(cases)
	return write(ctx, db, "writing cases", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return writeCasesTx(ctx, tx, rows)
	})
}

// caseRowsOf are the parameters of writeCasesTx.
type caseRowsOf struct {
	props, orgs []map[string]any
	tags        map[ilgraph.Kind][]map[string]any
}

func caseRows(cases []*ilgraph.Case) caseRowsOf {
	r := caseRowsOf{props: make([]map[string]any, len(cases)), orgs: make([]map[string]any, len(cases)), tags: map[ilgraph.Kind][]map[string]any{}}
	for i, c := range cases {
		r.props[i] = caseProps(c)
		r.orgs[i] = map[string]any{"case": c.ID, "id": c.OrgSlug, "name": c.Org}
		for _, k := range ilgraph.VocabKinds {
			r.tags[k] = append(r.tags[k], map[string]any{"case": c.ID, "terms": nonNil(c.Tags(k))})
		}
	}
	return r
}

// writeCasesTx is WriteCases inside a transaction. Each case's version
// becomes its stored one plus one (a new case continues after the last
// version its history recorded, if it was deleted), unless its properties
// name the version (a write through the core, which checked it).
func writeCasesTx(ctx context.Context, tx neo4j.ManagedTransaction, rows caseRowsOf) (Counters, error) {
	var total Counters
	c, err := exec(ctx, tx, `
UNWIND $props AS p
MERGE (n:Case {id: p.id})
WITH n, p, n.raw IS NULL AS fresh, coalesce(n.version, 1) AS stored
CALL (p) {
  OPTIONAL MATCH (r:CaseRevision {case_id: p.id})
  RETURN coalesce(max(r.version), 0) AS last
}
SET n = p
SET n.version = coalesce(p.version, CASE WHEN fresh THEN last ELSE stored END + 1)`, map[string]any{"props": rows.props})
	if err != nil {
		return total, err
	}
	total.Add(c)
	c, err = exec(ctx, tx, `
UNWIND $orgs AS row
MERGE (o:Organization {id: row.id})
WITH o, row
CALL (o, row) {
  WITH o, row WHERE o.name IS NULL OR o.name <> row.name
  SET o.name = row.name
}
WITH o, row
MATCH (n:Case {id: row.case})
OPTIONAL MATCH (n)-[r:AT_ORG]->(old:Organization) WHERE old.id <> row.id
DELETE r
WITH DISTINCT n, o
MERGE (n)-[:AT_ORG]->(o)`, map[string]any{"orgs": rows.orgs})
	if err != nil {
		return total, err
	}
	total.Add(c)
	for _, k := range ilgraph.VocabKinds {
		m, _ := modelOf(k)
		c, err := exec(ctx, tx, replaceLinksQuery(m.Rel, m.Label), map[string]any{"rows": rows.tags[k]})
		if err != nil {
			return total, err
		}
		total.Add(c)
	}
	return total, nil
}

// replaceLinksQuery makes each row's case link, in order, to exactly the
// nodes of label whose ids row.terms lists: links no longer listed are
// deleted, new ones created, and each link's rank set to its position.
func replaceLinksQuery(rel, label string) string {
	return fmt.Sprintf(`
UNWIND $rows AS row
MATCH (n:Case {id: row.case})
OPTIONAL MATCH (n)-[r:%[1]s]->(old:%[2]s) WHERE NOT old.id IN row.terms
DELETE r
WITH DISTINCT n, row
UNWIND range(0, size(row.terms) - 1) AS i
MATCH (t:%[2]s {id: row.terms[i]})
MERGE (n)-[l:%[1]s]->(t)
WITH l, i WHERE l.rank IS NULL OR l.rank <> i
SET l.rank = i`, rel, label)
}

// Links is what the second phase of a load writes for one case.
type Links struct {
	ID           string
	Related      []string
	RecurrenceOf string
	Hash         string // ContentHash of the case
}

// LinksOf returns the links and content hash of c.
func LinksOf(c *ilgraph.Case) Links {
	return Links{ID: c.ID, Related: c.Related, RecurrenceOf: c.RecurrenceOf, Hash: ContentHash(c)}
}

// LinkCases is the second phase of a load: it replaces each case's related
// and recurrence links and then records its content hash. Every case linked
// to must exist by now.
func (db *DB) LinkCases(ctx context.Context, links []Links) (Counters, error) {
	if len(links) == 0 {
		return Counters{}, nil
	}
	return write(ctx, db, "linking cases", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return linkCasesTx(ctx, tx, links)
	})
}

// linkCasesTx is LinkCases inside a transaction.
func linkCasesTx(ctx context.Context, tx neo4j.ManagedTransaction, links []Links) (Counters, error) {
	related := make([]map[string]any, len(links))
	recurrence := make([]map[string]any, len(links))
	hashes := make([]map[string]any, len(links))
	for i, l := range links {
		related[i] = map[string]any{"case": l.ID, "terms": nonNil(l.Related)}
		var rec []string
		if l.RecurrenceOf != "" {
			rec = []string{l.RecurrenceOf}
		}
		recurrence[i] = map[string]any{"case": l.ID, "terms": nonNil(rec)}
		hashes[i] = map[string]any{"id": l.ID, "hash": l.Hash}
	}
	var total Counters
	for _, q := range []struct {
		rel  string
		rows []map[string]any
	}{{RelRelated, related}, {RelRecurrence, recurrence}} {
		c, err := exec(ctx, tx, replaceLinksQuery(q.rel, LabelCase), map[string]any{"rows": q.rows})
		if err != nil {
			return total, err
		}
		total.Add(c)
	}
	c, err := exec(ctx, tx, "UNWIND $rows AS row MATCH (n:Case {id: row.id}) SET n.content_hash = row.hash", map[string]any{"rows": hashes})
	if err != nil {
		return total, err
	}
	total.Add(c)
	return total, nil
}

// DeleteOrphanOrganizations removes organizations that no case points to
// (after a case moved to another org).
func (db *DB) DeleteOrphanOrganizations(ctx context.Context) (Counters, error) {
	return write(ctx, db, "removing unused organizations", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, "MATCH (o:Organization) WHERE NOT EXISTS { (o)<-[:AT_ORG]-(:Case) } DELETE o", nil)
	})
}

// caseProps flattens a case into node properties. Text blocks become
// <field>_en / <field>_ko; remediation and action items become parallel
// lists; sources become parallel lists; raw keeps the JSON as read.
func caseProps(c *ilgraph.Case) map[string]any {
	p := map[string]any{
		"id":                 c.ID,
		"org":                c.Org,
		"org_slug":           c.OrgSlug,
		"severity":           c.Severity,
		"date_kind":          c.DateKind,
		"updated_at":         c.UpdatedAt,
		"url":                c.URL,
		"impact_scope":       c.Impact.Scope,
		"impact_users":       c.Impact.Users,
		"impact_region":      c.Impact.Region,
		"detected_after":     c.Timeline.DetectedAfter,
		"resolved_after":     c.Timeline.ResolvedAfter,
		"review_written_by":  c.Review.WrittenBy,
		"review_reviewed_at": c.Review.ReviewedAt,
		"review_reviewed_by": c.Review.ReviewedBy,
		"raw":                string(c.Raw),
		"machine_tagged":     c.MachineTagged(),
		"bilingual":          c.Bilingual(),
		"reviewed":           c.Reviewed(),
		"tag_confidence":     "",
	}
	if c.TagConfidence != nil {
		b, _ := json.Marshal(c.TagConfidence)
		p["tag_confidence"] = string(b)
	}
	p["review_decisions"] = ""
	if len(c.Review.Decisions) > 0 {
		b, _ := json.Marshal(c.Review.Decisions)
		p["review_decisions"] = string(b)
	}
	if d, err := time.Parse(ilgraph.DateLayout, c.Date); err == nil {
		p["date"] = neo4j.DateOf(d)
		p["year"] = int64(d.Year())
	}
	if m, err := ilgraph.ParseDuration(c.Timeline.DetectedAfter); err == nil {
		p["detected_after_min"] = int64(m)
	}
	if m, err := ilgraph.ParseDuration(c.Timeline.ResolvedAfter); err == nil {
		p["resolved_after_min"] = int64(m)
	}
	for name, t := range map[string]ilgraph.Text{
		"title": c.Title, "summary": c.Summary, "trigger": c.Trigger, "detection": c.Detection,
		"symptoms_text": c.SymptomsText, "lessons": c.Lessons,
	} {
		p[name+"_en"] = t.En
		p[name+"_ko"] = t.Ko
	}
	for k, v := range searchFormProps(c.Title, c.Summary) {
		p[k] = v
	}
	for name, items := range map[string][]ilgraph.Item{"remediation": c.Remediation, "action_items": c.ActionItems} {
		en, ko := make([]string, len(items)), make([]string, len(items))
		for i, it := range items {
			en[i], ko[i] = it.Text.En, it.Text.Ko
		}
		p[name+"_en"], p[name+"_ko"] = en, ko
	}
	urls, kinds, archived := make([]string, len(c.Sources)), make([]string, len(c.Sources)), make([]string, len(c.Sources))
	for i, s := range c.Sources {
		urls[i], kinds[i], archived[i] = s.URL, s.Kind, s.Archived
	}
	p["source_urls"], p["source_kinds"], p["source_archived"] = urls, kinds, archived
	docs := make([]string, len(c.Docs))
	for i, d := range c.Docs {
		docs[i] = string(d)
	}
	p["docs"] = docs
	return p
}

// searchFormProps are the searched fields with their English words
// replaced by their stems (ilgraph.SearchForms), which the full-text index
// case_search reads besides the fields themselves, and the version of the
// rule that made them.
func searchFormProps(title, summary ilgraph.Text) map[string]any {
	return map[string]any{
		"title_en_forms":     ilgraph.SearchForms(title.En),
		"title_ko_forms":     ilgraph.SearchForms(title.Ko),
		"summary_en_forms":   ilgraph.SearchForms(summary.En),
		"summary_ko_forms":   ilgraph.SearchForms(summary.Ko),
		"word_forms_version": int64(ilgraph.WordFormsVersion),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Reset deletes every node and relationship (the schema stays), in batches:
// relationships first, so that deleting a term with tens of thousands of
// cases never needs one large transaction. Tests and benchmarks use it to
// start from an empty graph.
func (db *DB) Reset(ctx context.Context) error {
	s := db.session(ctx, neo4j.AccessModeWrite)
	defer s.Close(context.Background())
	for _, q := range []string{
		"MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS",
		"MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS",
	} {
		res, err := s.Run(ctx, q, nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return db.wrapCtx(ctx, err, "emptying the graph")
		}
	}
	return nil
}

// DeleteCases removes cases by id (and their relationships).
func (db *DB) DeleteCases(ctx context.Context, ids []string) error {
	_, err := write(ctx, db, "deleting cases", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, "UNWIND $ids AS id MATCH (n:Case {id: id}) DETACH DELETE n", map[string]any{"ids": ids})
	})
	return err
}
