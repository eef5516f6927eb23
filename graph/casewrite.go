package graph

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

// The history of cases written through the core (docs/graph-model.md):
//
//	(:CaseRevision {case_id, version, action, by, at, json, previous,
//	                restored_from, token, settled})
//
// one node per write, keyed by the case's id rather than linked to the case
// node, so that a deleted case keeps its history.
const LabelRevision = "CaseRevision"

// WriteCase makes one change in one write transaction: the case node with
// its properties, organization, tags and links (the loader's statements),
// its history entry and the corpus version change together or not at all.
// It answers ECONFLICT, changing nothing, when the case is not at
// w.Expect (or, for a create, exists), when a delete would leave other
// cases linking to nothing, or when a case linked to is gone; ENOTFOUND
// for a case that does not exist (a restore may bring back a deleted one).
//
// Every write through the core first locks the corpus version node, so
// such writes run one after another and each sees the one before it; the
// driver's retry of a transaction whose commit it could not confirm finds
// the revision it wrote (by its token) and answers it again.
func (db *DB) WriteCase(ctx context.Context, w ilgraph.CaseChange) (*ilgraph.Revision, error) {
	token, err := retryToken()
	if err != nil {
		return nil, err
	}
	at := w.At.UTC().Format(time.RFC3339Nano)
	return write(ctx, db, "writing a case", func(tx neo4j.ManagedTransaction) (*ilgraph.Revision, error) {
		if _, err := exec(ctx, tx, "MERGE (m:IlgraphMeta {id: 'corpus'}) SET m.write_token = $token", map[string]any{"token": token}); err != nil {
			return nil, err
		}
		recs, err := collect(ctx, tx, "MATCH (r:CaseRevision {case_id: $id}) WHERE r.token = $token RETURN r", map[string]any{"id": w.ID, "token": token})
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			return recordRevision(recs[0], true), nil // a retry of a write that committed
		}
		st, err := caseState(ctx, tx, w.ID)
		if err != nil {
			return nil, err
		}
		if err := st.admits(w); err != nil {
			return nil, err
		}
		rev := &ilgraph.Revision{CaseID: w.ID, Version: st.version + 1, Action: w.Action, By: w.By, At: at,
			RestoredFrom: w.RestoredFrom, Previous: st.raw}
		if w.Action == ilgraph.ActionDelete {
			if err := deleteCaseTx(ctx, tx, w.ID, st.org); err != nil {
				return nil, err
			}
		} else {
			rev.JSON = string(w.Case.Raw)
			if err := putCaseTx(ctx, tx, w.Case, rev.Version, st.org); err != nil {
				return nil, err
			}
		}
		bumped, err := collect(ctx, tx, "MATCH (m:IlgraphMeta {id: 'corpus'}) SET m.version = coalesce(m.version, 0) + 1 RETURN m.version AS v", nil)
		if err != nil {
			return nil, err
		}
		if len(bumped) > 0 {
			rev.CorpusVersion = integer(bumped[0], "v")
		}
		if _, err := exec(ctx, tx, `CREATE (:CaseRevision {case_id: $id, version: $version, action: $action, by: $by, at: $at,
  json: $json, previous: $previous, restored_from: $restored, token: $token, settled: false, corpus_version: $corpus})`, map[string]any{
			"id": rev.CaseID, "version": rev.Version, "action": rev.Action, "by": rev.By, "at": rev.At,
			"json": rev.JSON, "previous": rev.Previous, "restored": rev.RestoredFrom, "token": token, "corpus": rev.CorpusVersion}); err != nil {
			return nil, err
		}
		return rev, nil
	})
}

// storedCase is what a write needs to know of the case it changes.
type storedCase struct {
	id      string
	exists  bool
	version int64  // the case's version; for a deleted case, its delete's
	raw     string // its JSON ("" when it does not exist)
	org     string // its organization's id
}

// caseState reads the case a write changes, locking its node (when it
// exists) until the transaction ends.
func caseState(ctx context.Context, tx neo4j.ManagedTransaction, id string) (storedCase, error) {
	recs, err := collect(ctx, tx, `
OPTIONAL MATCH (n:Case {id: $id})
FOREACH (x IN CASE WHEN n IS NULL THEN [] ELSE [1] END | SET n.version = coalesce(n.version, 1))
WITH n
CALL (n) {
  OPTIONAL MATCH (r:CaseRevision {case_id: $id})
  RETURN coalesce(max(r.version), 0) AS last
}
RETURN n IS NOT NULL AS exists, coalesce(n.version, last) AS version, coalesce(n.raw, '') AS raw, coalesce(n.org_slug, '') AS org`,
		map[string]any{"id": id})
	if err != nil {
		return storedCase{}, err
	}
	r := recs[0]
	ex, _, _ := neo4j.GetRecordValue[bool](r, "exists")
	return storedCase{id: id, exists: ex, version: integer(r, "version"), raw: str(r, "raw"), org: str(r, "org")}, nil
}

// admits checks w against the stored case: ECONFLICT or ENOTFOUND when it
// may not be made.
func (st storedCase) admits(w ilgraph.CaseChange) error {
	switch {
	case w.Action == ilgraph.ActionCreate && st.exists:
		return ilgraph.Errorf(ilgraph.ECONFLICT, "case %s exists (version %d): update it instead", st.id, st.version)
	case w.Action == ilgraph.ActionCreate:
		return nil
	case !st.exists && (w.Action != ilgraph.ActionRestore || st.version == 0):
		return ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", ilgraph.Clip(st.id, 60))
	case w.Expect != st.version:
		return ilgraph.Errorf(ilgraph.ECONFLICT, "case %s is at version %d, not %d: someone changed it since it was read; read it again and redo the change", st.id, st.version, w.Expect)
	}
	return nil
}

// putCaseTx writes c (created, updated or restored) at version v with the
// loader's statements, after checking that every case it links to exists.
func putCaseTx(ctx context.Context, tx neo4j.ManagedTransaction, c *ilgraph.Case, v int64, oldOrg string) error {
	targets := append([]string{}, c.Related...)
	if c.RecurrenceOf != "" {
		targets = append(targets, c.RecurrenceOf)
	}
	recs, err := collect(ctx, tx, "UNWIND $ids AS id OPTIONAL MATCH (n:Case {id: id}) WITH id, n WHERE n IS NULL RETURN collect(id) AS missing", map[string]any{"ids": targets})
	if err != nil {
		return err
	}
	if missing := strs(recs[0], "missing"); len(missing) > 0 {
		return ilgraph.Errorf(ilgraph.ECONFLICT, "case %s links to %s, which no longer exist(s)", c.ID, strings.Join(missing, ", "))
	}
	rows := caseRows([]*ilgraph.Case{c})
	rows.props[0]["version"] = v
	if _, err := writeCasesTx(ctx, tx, rows); err != nil {
		return err
	}
	if _, err := linkCasesTx(ctx, tx, []Links{LinksOf(c)}); err != nil {
		return err
	}
	return deleteOrphanOrgTx(ctx, tx, oldOrg)
}

// deleteCaseTx deletes the case, refusing (ECONFLICT) while other cases
// link to it: their JSON names it, and would no longer load.
func deleteCaseTx(ctx context.Context, tx neo4j.ManagedTransaction, id, org string) error {
	recs, err := collect(ctx, tx, `
MATCH (o:Case)-[:RELATED_TO|RECURRENCE_OF]->(n:Case {id: $id}) WHERE o.id <> $id
WITH DISTINCT o.id AS other ORDER BY other
RETURN collect(other) AS others`, map[string]any{"id": id})
	if err != nil {
		return err
	}
	if others := strs(recs[0], "others"); len(others) > 0 {
		return ilgraph.Errorf(ilgraph.ECONFLICT, "case %s is named by %s (related or recurrence_of): change those first", id, strings.Join(others, ", "))
	}
	if _, err := exec(ctx, tx, "MATCH (n:Case {id: $id}) DETACH DELETE n", map[string]any{"id": id}); err != nil {
		return err
	}
	return deleteOrphanOrgTx(ctx, tx, org)
}

// deleteOrphanOrgTx deletes the organization id when no case belongs to it.
func deleteOrphanOrgTx(ctx context.Context, tx neo4j.ManagedTransaction, id string) error {
	if id == "" {
		return nil
	}
	_, err := exec(ctx, tx, "MATCH (o:Organization {id: $id}) WHERE NOT EXISTS { (o)<-[:AT_ORG]-(:Case) } DELETE o", map[string]any{"id": id})
	return err
}

// recordRevision reads a revision node from the column r; withJSON false
// leaves out the JSON texts.
func recordRevision(rec *neo4j.Record, withJSON bool) *ilgraph.Revision {
	v, _ := rec.Get("r")
	n, _ := v.(dbtype.Node)
	r := &ilgraph.Revision{
		CaseID: prop[string](n, "case_id"), Version: prop[int64](n, "version"), Action: prop[string](n, "action"),
		By: prop[string](n, "by"), At: prop[string](n, "at"), RestoredFrom: prop[int64](n, "restored_from"),
		CorpusVersion: prop[int64](n, "corpus_version"),
	}
	if withJSON {
		r.JSON, r.Previous = prop[string](n, "json"), prop[string](n, "previous")
	}
	return r
}

// CaseHistory returns the revisions of the case id, newest first, and
// whether the case exists now. A case that neither exists nor has a
// history answers ENOTFOUND; a case only ever loaded from files has an
// empty history.
func (db *DB) CaseHistory(ctx context.Context, id string) ([]ilgraph.Revision, bool, error) {
	type answer struct {
		revs   []ilgraph.Revision
		exists bool
	}
	a, err := read(ctx, db, "reading a case's history", func(tx neo4j.ManagedTransaction) (answer, error) {
		var a answer
		recs, err := collect(ctx, tx, "MATCH (r:CaseRevision {case_id: $id}) RETURN r ORDER BY r.version DESC", map[string]any{"id": id})
		if err != nil {
			return a, err
		}
		for _, rec := range recs {
			a.revs = append(a.revs, *recordRevision(rec, true))
		}
		recs, err = collect(ctx, tx, "RETURN EXISTS { MATCH (:Case {id: $id}) } AS exists", map[string]any{"id": id})
		if err != nil {
			return a, err
		}
		a.exists, _, _ = neo4j.GetRecordValue[bool](recs[0], "exists")
		return a, nil
	})
	if err != nil {
		return nil, false, err
	}
	if !a.exists && len(a.revs) == 0 {
		return nil, false, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", ilgraph.Clip(id, 60))
	}
	if a.revs == nil {
		a.revs = []ilgraph.Revision{}
	}
	return a.revs, a.exists, nil
}

// CaseVersionJSON returns the JSON of version v of the case id: the one
// its history recorded, or the case's own while it is at v. A version a
// load wrote is known only while the case is at it or when a later write
// through the core kept it as its previous JSON; any other answers
// ENOTFOUND, as does a version that is a delete.
func (db *DB) CaseVersionJSON(ctx context.Context, id string, v int64) (string, error) {
	js, err := read(ctx, db, "reading a case version", func(tx neo4j.ManagedTransaction) (string, error) {
		recs, err := collect(ctx, tx, `
OPTIONAL MATCH (n:Case {id: $id}) WHERE coalesce(n.version, 1) = $v
OPTIONAL MATCH (r:CaseRevision {case_id: $id}) WHERE r.version = $v
OPTIONAL MATCH (next:CaseRevision {case_id: $id}) WHERE next.version = $v + 1
RETURN coalesce(n.raw, '') AS current, coalesce(r.json, '') AS json, coalesce(next.previous, '') AS previous`,
			map[string]any{"id": id, "v": v})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		for _, k := range []string{"json", "previous", "current"} {
			if s := str(recs[0], k); s != "" {
				return s, nil
			}
		}
		return "", nil
	})
	if err != nil {
		return "", err
	}
	if js == "" {
		return "", ilgraph.Errorf(ilgraph.ENOTFOUND, "case %s has no version %d with a case to restore (a delete, or a version a load wrote and no later edit kept)", ilgraph.Clip(id, 60), v)
	}
	return js, nil
}

// PendingEdit is a case changed through the core since it was last
// exported (or settled otherwise): a file of it from before would undo the
// change.
type PendingEdit struct {
	ID      string
	Version int64  // the case's version, its latest revision's
	Action  string // that revision's
	By, At  string
	Exists  bool   // false: deleted
	Hash    string // the stored case's content hash ("" when deleted)
}

// PendingEdits returns, by case id, every case with a revision no export
// has settled (see SettleRevisions).
func (db *DB) PendingEdits(ctx context.Context) (map[string]PendingEdit, error) {
	return read(ctx, db, "reading unexported edits", func(tx neo4j.ManagedTransaction) (map[string]PendingEdit, error) {
		recs, err := collect(ctx, tx, `
MATCH (p:CaseRevision) WHERE p.settled = false
WITH DISTINCT p.case_id AS id
CALL (id) {
  MATCH (r:CaseRevision {case_id: id})
  RETURN r ORDER BY r.version DESC LIMIT 1
}
OPTIONAL MATCH (n:Case {id: id})
RETURN r, n IS NOT NULL AS exists, coalesce(n.content_hash, '') AS hash`, nil)
		if err != nil {
			return nil, err
		}
		out := make(map[string]PendingEdit, len(recs))
		for _, rec := range recs {
			r := recordRevision(rec, false)
			ex, _, _ := neo4j.GetRecordValue[bool](rec, "exists")
			out[r.CaseID] = PendingEdit{ID: r.CaseID, Version: r.Version, Action: r.Action, By: r.By, At: r.At, Exists: ex, Hash: str(rec, "hash")}
		}
		return out, nil
	})
}

// SettleRevisions marks the revisions of each case id up to its version
// in upTo as exported: a load no longer counts them as pending edits.
func (db *DB) SettleRevisions(ctx context.Context, upTo map[string]int64) (Counters, error) {
	if len(upTo) == 0 {
		return Counters{}, nil
	}
	rows := make([]map[string]any, 0, len(upTo))
	for id, v := range upTo {
		rows = append(rows, map[string]any{"id": id, "version": v})
	}
	return write(ctx, db, "settling exported revisions", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, `
UNWIND $rows AS row
MATCH (r:CaseRevision {case_id: row.id}) WHERE r.version <= row.version AND r.settled = false
SET r.settled = true`, map[string]any{"rows": rows})
	})
}

// DeletedCases returns the cases deleted through the core (and not
// written again since), each with the version of its delete.
func (db *DB) DeletedCases(ctx context.Context) (map[string]int64, error) {
	return read(ctx, db, "reading deleted cases", func(tx neo4j.ManagedTransaction) (map[string]int64, error) {
		recs, err := collect(ctx, tx, `
MATCH (r:CaseRevision) WHERE r.action = 'delete'
WITH DISTINCT r.case_id AS id
WHERE NOT EXISTS { MATCH (:Case {id: id}) }
CALL (id) {
  MATCH (r:CaseRevision {case_id: id})
  RETURN max(r.version) AS version
}
RETURN id, version`, nil)
		if err != nil {
			return nil, err
		}
		out := make(map[string]int64, len(recs))
		for _, r := range recs {
			out[str(r, "id")] = integer(r, "version")
		}
		return out, nil
	})
}

// CaseJSON returns the case's JSON as stored and its version; "" and 0 for
// an unknown case.
func (db *DB) CaseJSON(ctx context.Context, id string) (string, int64, error) {
	type answer struct {
		raw     string
		version int64
	}
	a, err := read(ctx, db, "reading a case's JSON", func(tx neo4j.ManagedTransaction) (answer, error) {
		recs, err := collect(ctx, tx, "MATCH (n:Case {id: $id}) RETURN n.raw AS raw, coalesce(n.version, 1) AS version", map[string]any{"id": id})
		if err != nil || len(recs) == 0 {
			return answer{}, err
		}
		return answer{str(recs[0], "raw"), integer(recs[0], "version")}, nil
	})
	return a.raw, a.version, err
}

// StoredCase is a case as stored: its JSON and its version.
type StoredCase struct {
	ID      string
	JSON    string
	Version int64
}

// EachCaseJSON calls fn with every case's JSON and version, ordered by id,
// reading pages in transactions of their own (see EachCase).
func (db *DB) EachCaseJSON(ctx context.Context, fn func(StoredCase) error) error {
	return byIDPages(eachCasePage, func(c StoredCase) string { return c.ID }, fn, func(after string) ([]StoredCase, error) {
		return read(ctx, db, "reading every case's JSON", func(tx neo4j.ManagedTransaction) ([]StoredCase, error) {
			recs, err := collect(ctx, tx, `MATCH (n:Case) WHERE n.id > $after WITH n ORDER BY n.id LIMIT $page
RETURN n.id AS id, n.raw AS raw, coalesce(n.version, 1) AS version`, map[string]any{"after": after, "page": int64(eachCasePage)})
			if err != nil {
				return nil, err
			}
			out := make([]StoredCase, len(recs))
			for i, r := range recs {
				out[i] = StoredCase{ID: str(r, "id"), JSON: str(r, "raw"), Version: integer(r, "version")}
			}
			return out, nil
		})
	})
}

// MaxFeed bounds the changes ChangesSince reads: more than that many
// changes behind, a reader builds the corpus afresh instead.
const MaxFeed = 2000

// PublishLoad records, after a load wrote them, that the cases ids changed
// (at most MaxFeed): the corpus version moves by one per case, and the
// change feed (ChangesSince) names each case at its version, so that the
// servers over this graph follow the load case by case instead of building
// their corpus afresh. Only the latest load is kept, on the corpus version
// node (load_from: the version before it; load_ids: its cases in order): a
// reader more than one load behind builds afresh. Like BumpCorpusVersion
// it carries a token, so a retry of a commit that went through changes
// nothing; like a write through the core it locks the version node first.
func (db *DB) PublishLoad(ctx context.Context, ids []string) (Counters, error) {
	if len(ids) == 0 || len(ids) > MaxFeed {
		return Counters{}, ilgraph.Errorf(ilgraph.EINTERNAL, "a load publishes 1 to %d changed cases, not %d", MaxFeed, len(ids))
	}
	token, err := retryToken()
	if err != nil {
		return Counters{}, err
	}
	return write(ctx, db, "publishing a load to the change feed", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, `MERGE (m:IlgraphMeta {id: 'corpus'})
WITH m, coalesce(m.bump_token = $token, false) AS retried, coalesce(m.version, 0) AS v
SET m.load_from = CASE WHEN retried THEN m.load_from ELSE v END,
    m.load_ids = CASE WHEN retried THEN m.load_ids ELSE $ids END,
    m.version = CASE WHEN retried THEN v ELSE v + size($ids) END,
    m.bump_token = $token`, map[string]any{"token": token, "ids": ids})
	})
}

// ChangesSince is the change feed: the changes that made the corpus
// versions from+1 … to, in version order — the writes through the core
// (their revisions' JSON) and the cases of the latest load (PublishLoad;
// each as the graph holds it now) — a delete's JSON being "", and whether
// the feed holds every one of those versions: false when they are more
// than MaxFeed, or when one is missing (a load before the latest, or one
// too large to publish, moved the version); the reader then builds the
// corpus afresh.
func (db *DB) ChangesSince(ctx context.Context, from, to int64) ([]ilgraph.CorpusChange, bool, error) {
	if to <= from || to-from > MaxFeed {
		return nil, false, nil
	}
	out, err := read(ctx, db, "reading the change feed", func(tx neo4j.ManagedTransaction) ([]ilgraph.CorpusChange, error) {
		recs, err := collect(ctx, tx, `MATCH (r:CaseRevision) WHERE r.corpus_version > $from AND r.corpus_version <= $to
RETURN r.corpus_version AS v, r.case_id AS id, r.action AS action, coalesce(r.json, '') AS json ORDER BY v`, map[string]any{"from": from, "to": to})
		if err != nil {
			return nil, err
		}
		out := make([]ilgraph.CorpusChange, 0, len(recs))
		for _, r := range recs {
			c := ilgraph.CorpusChange{Version: integer(r, "v"), ID: str(r, "id"), JSON: str(r, "json")}
			if str(r, "action") == ilgraph.ActionDelete {
				c.JSON = ""
			}
			out = append(out, c)
		}
		loaded, err := collect(ctx, tx, `MATCH (m:IlgraphMeta {id: 'corpus'}) WHERE m.load_ids IS NOT NULL
UNWIND range(0, size(m.load_ids) - 1) AS i
WITH m.load_from + 1 + i AS v, m.load_ids[i] AS id
WHERE v > $from AND v <= $to
OPTIONAL MATCH (n:Case {id: id})
RETURN v, id, coalesce(n.raw, '') AS json ORDER BY v`, map[string]any{"from": from, "to": to})
		if err != nil {
			return nil, err
		}
		for _, r := range loaded {
			out = append(out, ilgraph.CorpusChange{Version: integer(r, "v"), ID: str(r, "id"), JSON: str(r, "json")})
		}
		slices.SortStableFunc(out, func(a, b ilgraph.CorpusChange) int { return cmp.Compare(a.Version, b.Version) })
		return out, nil
	})
	if err != nil {
		return nil, false, err
	}
	if int64(len(out)) != to-from {
		return nil, false, nil
	}
	for i, c := range out {
		if c.Version != from+1+int64(i) {
			return nil, false, nil
		}
	}
	return out, true, nil
}
