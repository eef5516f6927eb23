package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

// str reads a string column, "" for null or a missing key.
func str(r *neo4j.Record, key string) string {
	v, _, _ := neo4j.GetRecordValue[string](r, key)
	return v
}

func integer(r *neo4j.Record, key string) int64 {
	v, _, _ := neo4j.GetRecordValue[int64](r, key)
	return v
}

func strs(r *neo4j.Record, key string) []string {
	raw, ok := r.Get(key)
	if !ok || raw == nil {
		return nil
	}
	list, _ := raw.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func prop[T neo4j.PropertyValue](n dbtype.Node, key string) T {
	v, _ := neo4j.GetProperty[T](n, key)
	return v
}

func propStrs(n dbtype.Node, key string) []string {
	raw, ok := n.Props[key].([]any)
	if !ok {
		return nil
	}
	out := make([]string, len(raw))
	for i, x := range raw {
		out[i], _ = x.(string)
	}
	return out
}

// caseReturn is the RETURN clause that reads a whole case: the node and its
// links in rank order. It expects the case bound to n.
// It leaves out the case's raw JSON, which only the API's json field needs
// (see RawJSON); caseReturnRaw includes it.
var (
	caseReturn    = caseReturnWith(false)
	caseReturnRaw = caseReturnWith(true)
)

func caseReturnWith(raw bool) string {
	var b strings.Builder
	if raw {
		b.WriteString("RETURN n")
	} else {
		b.WriteString("RETURN n {.*, raw: null} AS n")
	}
	for _, m := range kinds {
		fmt.Fprintf(&b, ",\n  [(n)-[r:%s]->(t:%s) | [coalesce(r.rank, 0), t.id]] AS %s", m.Rel, m.Label, m.Kind)
	}
	fmt.Fprintf(&b, ",\n  [(n)-[r:%s]->(t:Case) | [coalesce(r.rank, 0), t.id]] AS related", RelRelated)
	fmt.Fprintf(&b, ",\n  [(n)-[:%s]->(t:Case) | [0, t.id]] AS recurrence", RelRecurrence)
	return b.String()
}

// ranked sorts [rank, id] pairs by rank and returns the ids.
func ranked(r *neo4j.Record, key string) []string {
	raw, _ := r.Get(key)
	list, _ := raw.([]any)
	type pair struct {
		rank int64
		id   string
	}
	ps := make([]pair, 0, len(list))
	for _, x := range list {
		xs, _ := x.([]any)
		if len(xs) != 2 {
			continue
		}
		rank, _ := xs[0].(int64)
		id, _ := xs[1].(string)
		ps = append(ps, pair{rank, id})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].rank < ps[j].rank || ps[i].rank == ps[j].rank && ps[i].id < ps[j].id })
	var out []string
	for _, p := range ps {
		out = append(out, p.id)
	}
	return out
}

// recordCase rebuilds a case from a record shaped by caseReturn.
func recordCase(r *neo4j.Record) (*ilgraph.Case, error) {
	var n dbtype.Node
	switch v, _ := r.Get("n"); v := v.(type) {
	case dbtype.Node:
		n = v
	case map[string]any: // a projection of the node's properties
		n = dbtype.Node{Labels: []string{LabelCase}, Props: v}
	default:
		return nil, fmt.Errorf("case record holds %T", v)
	}
	c := &ilgraph.Case{
		ID:        prop[string](n, "id"),
		Org:       prop[string](n, "org"),
		OrgSlug:   prop[string](n, "org_slug"),
		DateKind:  prop[string](n, "date_kind"),
		Severity:  prop[string](n, "severity"),
		UpdatedAt: prop[string](n, "updated_at"),
		URL:       prop[string](n, "url"),
		Impact: ilgraph.Impact{
			Scope: prop[string](n, "impact_scope"), Users: prop[string](n, "impact_users"), Region: prop[string](n, "impact_region"),
		},
		Timeline: ilgraph.Timeline{
			DetectedAfter: prop[string](n, "detected_after"), ResolvedAfter: prop[string](n, "resolved_after"),
		},
		Review: ilgraph.Review{
			WrittenBy:  prop[string](n, "review_written_by"),
			ReviewedAt: prop[string](n, "review_reviewed_at"),
			ReviewedBy: prop[string](n, "review_reviewed_by"),
		},
		Raw:     json.RawMessage(prop[string](n, "raw")),
		Version: prop[int64](n, "version"),
	}
	if c.Version == 0 {
		c.Version = 1 // stored before cases had versions
	}
	if d, ok := n.Props["date"].(dbtype.Date); ok {
		c.Date = d.Time().Format(ilgraph.DateLayout)
	}
	if tc := prop[string](n, "tag_confidence"); tc != "" {
		c.TagConfidence = &ilgraph.TagConfidence{}
		if err := json.Unmarshal([]byte(tc), c.TagConfidence); err != nil {
			return nil, fmt.Errorf("case %s: tag_confidence: %w", c.ID, err)
		}
	}
	if rd := prop[string](n, "review_decisions"); rd != "" {
		if err := json.Unmarshal([]byte(rd), &c.Review.Decisions); err != nil {
			return nil, fmt.Errorf("case %s: review_decisions: %w", c.ID, err)
		}
	}
	text := func(name string) ilgraph.Text {
		return ilgraph.Text{En: prop[string](n, name+"_en"), Ko: prop[string](n, name+"_ko")}
	}
	c.Title, c.Summary, c.Trigger = text("title"), text("summary"), text("trigger")
	c.Detection, c.SymptomsText, c.Lessons = text("detection"), text("symptoms_text"), text("lessons")
	items := func(name string) []ilgraph.Item {
		en, ko := propStrs(n, name+"_en"), propStrs(n, name+"_ko")
		if len(en) == 0 {
			return nil
		}
		out := make([]ilgraph.Item, len(en))
		for i := range en {
			out[i].Text.En = en[i]
			if i < len(ko) {
				out[i].Text.Ko = ko[i]
			}
		}
		return out
	}
	c.Remediation, c.ActionItems = items("remediation"), items("action_items")
	urls, ks, arch := propStrs(n, "source_urls"), propStrs(n, "source_kinds"), propStrs(n, "source_archived")
	for i, u := range urls {
		s := ilgraph.Source{URL: u}
		if i < len(ks) {
			s.Kind = ks[i]
		}
		if i < len(arch) {
			s.Archived = arch[i]
		}
		c.Sources = append(c.Sources, s)
	}
	for _, d := range propStrs(n, "docs") {
		c.Docs = append(c.Docs, json.RawMessage(d))
	}
	if rc := ranked(r, string(ilgraph.KindRootCause)); len(rc) > 0 {
		c.RootCause = rc[0]
	}
	c.Components = ranked(r, string(ilgraph.KindComponent))
	c.Symptoms = ranked(r, string(ilgraph.KindSymptom))
	c.Contributing = ranked(r, string(ilgraph.KindContributing))
	c.Domain = ranked(r, string(ilgraph.KindDomain))
	c.Mechanisms = ranked(r, string(ilgraph.KindMechanism))
	c.Related = ranked(r, "related")
	if rec := ranked(r, "recurrence"); len(rec) > 0 {
		c.RecurrenceOf = rec[0]
	}
	return c, nil
}

// Case returns one whole case by id, its raw JSON included, or an
// ENOTFOUND error.
func (db *DB) Case(ctx context.Context, id string) (*ilgraph.Case, error) {
	cs, err := db.casesByID(ctx, []string{id}, caseReturnRaw)
	if err != nil {
		return nil, err
	}
	if cs[0] == nil {
		return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
	}
	return cs[0], nil
}

// CasesByID returns the cases with the given ids in one round trip, in the
// order asked, without their raw JSON (see RawJSON); an id with no case
// gives nil at its place.
func (db *DB) CasesByID(ctx context.Context, ids []string) ([]*ilgraph.Case, error) {
	return db.casesByID(ctx, ids, caseReturn)
}

func (db *DB) casesByID(ctx context.Context, ids []string, ret string) ([]*ilgraph.Case, error) {
	return inOrder(ctx, db, "reading cases", "UNWIND $ids AS id MATCH (n:Case {id: id}) "+ret, map[string]any{"ids": ids}, ids,
		func(r *neo4j.Record) (string, *ilgraph.Case, error) {
			c, err := recordCase(r)
			if err != nil {
				return "", nil, err
			}
			return c.ID, c, nil
		})
}

// inOrder runs a query that returns at most one row per key and gives one
// value per key asked for, in the order asked: the zero value for a key the
// graph lacks. row reads a row's key and value.
func inOrder[K comparable, V any](ctx context.Context, db *DB, what, query string, params map[string]any, keys []K, row func(*neo4j.Record) (K, V, error)) ([]V, error) {
	found, err := read(ctx, db, what, func(tx neo4j.ManagedTransaction) (map[K]V, error) {
		recs, err := collect(ctx, tx, query, params)
		if err != nil {
			return nil, err
		}
		out := make(map[K]V, len(recs))
		for _, r := range recs {
			k, v, err := row(r)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]V, len(keys))
	for i, k := range keys {
		out[i] = found[k]
	}
	return out, nil
}

// ExistingCaseIDs returns which of ids are cases in the graph.
func (db *DB) ExistingCaseIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	return read(ctx, db, "looking up case ids", func(tx neo4j.ManagedTransaction) (map[string]bool, error) {
		recs, err := collect(ctx, tx, "UNWIND $ids AS id MATCH (n:Case {id: id}) RETURN n.id AS id", map[string]any{"ids": ids})
		if err != nil {
			return nil, err
		}
		out := make(map[string]bool, len(recs))
		for _, r := range recs {
			out[str(r, "id")] = true
		}
		return out, nil
	})
}

// RecurrencesOf returns, for each id, the ids of the cases that are
// recurrences of it (ordered by date, then id), in one round trip.
func (db *DB) RecurrencesOf(ctx context.Context, ids []string) ([][]string, error) {
	return inOrder(ctx, db, "reading recurrences", `UNWIND $ids AS id
MATCH (:Case {id: id})<-[:RECURRENCE_OF]-(r:Case)
WITH id, r ORDER BY r.date, r.id
RETURN id, collect(r.id) AS rs`, map[string]any{"ids": ids}, ids,
		func(r *neo4j.Record) (string, []string, error) { return str(r, "id"), strs(r, "rs"), nil })
}

// RawJSON returns each case's JSON as loaded, in one round trip, in order
// ("" for an unknown id).
func (db *DB) RawJSON(ctx context.Context, ids []string) ([]string, error) {
	return inOrder(ctx, db, "reading raw cases", "UNWIND $ids AS id MATCH (n:Case {id: id}) RETURN n.id AS id, n.raw AS raw", map[string]any{"ids": ids}, ids,
		func(r *neo4j.Record) (string, string, error) { return str(r, "id"), str(r, "raw"), nil })
}

// EachCase calls fn with every case, without its raw JSON, ordered by id.
// What is derived from the whole corpus's text (the suggestion engine)
// reads it this way. It reads pages of eachCasePage cases, each in a read
// transaction of its own, and calls fn between them: a consumer that takes
// minutes over a million cases never holds a transaction past the server's
// limit (db.transaction.timeout), and a retried page never calls fn twice.
func (db *DB) EachCase(ctx context.Context, fn func(*ilgraph.Case) error) error {
	return byIDPages(eachCasePage, func(c *ilgraph.Case) string { return c.ID }, fn, func(after string) ([]*ilgraph.Case, error) {
		return read(ctx, db, "reading every case", func(tx neo4j.ManagedTransaction) ([]*ilgraph.Case, error) {
			res, err := tx.Run(ctx, "MATCH (n:Case) WHERE n.id > $after WITH n ORDER BY n.id LIMIT $page "+caseReturn,
				map[string]any{"after": after, "page": int64(eachCasePage)})
			if err != nil {
				return nil, err
			}
			var out []*ilgraph.Case
			for res.Next(ctx) {
				c, err := recordCase(res.Record())
				if err != nil {
					return nil, err
				}
				out = append(out, c)
			}
			return out, res.Err()
		})
	})
}

// byIDPages reads a whole label in pages ordered by id: read(after) returns
// the next page of at most size items whose ids follow after, and fn is
// called with each item between the pages (so no transaction stays open
// while fn works). A page shorter than size is the last. The next page is
// read while fn works through the current one, so that Neo4j and the caller
// (building the in-memory corpus, writing an export) work at the same time;
// when fn fails, the read under way is waited for before returning.
func byIDPages[T any](size int, id func(T) string, fn func(T) error, read func(after string) ([]T, error)) error {
	type result struct {
		page []T
		err  error
	}
	next := make(chan result, 1)
	fetch := func(after string) {
		go func() {
			page, err := read(after)
			next <- result{page, err}
		}()
	}
	fetch("")
	for {
		r := <-next
		if r.err != nil {
			return r.err
		}
		more := len(r.page) >= size
		if more {
			fetch(id(r.page[len(r.page)-1]))
		}
		for _, x := range r.page {
			if err := fn(x); err != nil {
				if more {
					<-next
				}
				return err
			}
		}
		if !more {
			return nil
		}
	}
}

// eachCasePage is how many cases EachCase reads in one transaction.
var eachCasePage = 2000
