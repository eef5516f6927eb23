package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

func orderBy(s ilgraph.CaseSort) (string, error) {
	switch s {
	case ilgraph.SortDateDesc, "":
		return "n.date DESC, n.id ASC", nil
	case ilgraph.SortDateAsc:
		return "n.date ASC, n.id ASC", nil
	case ilgraph.SortIDAsc:
		return "n.id ASC", nil
	case ilgraph.SortIDDesc:
		return "n.id DESC", nil
	case ilgraph.SortRelevance:
		return "score DESC, n.date DESC, n.id ASC", nil
	}
	return "", ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSort, "%q is not a case order", ilgraph.Clip(string(s), 40))
}

// ListCases returns the cases f selects, sorted, from offset, at most limit,
// with the total count, in one read transaction.
func (db *DB) ListCases(ctx context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	mc, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	order, err := orderBy(s)
	if err != nil {
		return nil, err
	}
	params := with(mc.params, map[string]any{"offset": int64(offset), "limit": int64(limit)})
	return read(ctx, db, "listing cases", func(tx neo4j.ManagedTransaction) (*ilgraph.CasePage, error) {
		recs, err := collect(ctx, tx, mc.text+"RETURN count(n) AS total", params)
		if err != nil {
			return nil, err
		}
		page := &ilgraph.CasePage{}
		if len(recs) == 1 {
			page.Total = int(integer(recs[0], "total"))
		}
		if limit == 0 || offset >= page.Total {
			return page, nil
		}
		recs, err = collect(ctx, tx, mc.text+"WITH n, score ORDER BY "+order+" SKIP $offset LIMIT $limit\n"+caseReturn, params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			c, err := recordCase(r)
			if err != nil {
				return nil, err
			}
			page.Cases = append(page.Cases, c)
		}
		return page, nil
	})
}

func with(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Facets computes the facet counts for f in one read transaction.
func (db *DB) Facets(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	mc, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	relKinds := map[string]ilgraph.Kind{}
	var rels []string
	for _, m := range kinds {
		relKinds[m.Rel] = m.Kind
		rels = append(rels, m.Rel)
	}
	return read(ctx, db, "counting facets", func(tx neo4j.ManagedTransaction) (*ilgraph.Facets, error) {
		out := &ilgraph.Facets{Terms: map[ilgraph.Kind][]ilgraph.TermCount{}}
		recs, err := collect(ctx, tx, mc.text+"MATCH (n)-[r:"+strings.Join(rels, "|")+"]->(t)\nRETURN type(r) AS rel, t.id AS id, count(DISTINCT n) AS c", mc.params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			k := relKinds[str(r, "rel")]
			out.Terms[k] = append(out.Terms[k], ilgraph.TermCount{Kind: k, ID: str(r, "id"), Count: int(integer(r, "c"))})
		}
		for _, ts := range out.Terms {
			ilgraph.SortTermCounts(ts)
		}
		recs, err = collect(ctx, tx, mc.text+"RETURN n.year AS year, count(*) AS c ORDER BY year", mc.params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out.Years = append(out.Years, ilgraph.YearCount{Year: int(integer(r, "year")), Count: int(integer(r, "c"))})
		}
		return out, nil
	})
}

// Terms returns every term of kind k (organizations for KindOrg) with its
// English and Korean label and description, ordered by id.
func (db *DB) Terms(ctx context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	m, err := modelOf(k)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("MATCH (t:%s) RETURN t.id AS id, coalesce(t.en, t.name) AS en, t.ko AS ko, t.description AS description ORDER BY id", m.Label)
	return read(ctx, db, "reading terms", func(tx neo4j.ManagedTransaction) ([]ilgraph.Term, error) {
		recs, err := collect(ctx, tx, q, nil)
		if err != nil {
			return nil, err
		}
		out := make([]ilgraph.Term, len(recs))
		for i, r := range recs {
			out[i] = ilgraph.Term{Kind: k, ID: str(r, "id"), En: str(r, "en"), Ko: str(r, "ko"), Description: str(r, "description")}
		}
		return out, nil
	})
}

// termsQuery builds one query over the terms keys name, kind by kind (a
// UNION ALL of per-label matches), each part returning the columns ret
// gives for its kind model (which binds the term as t).
func termsQuery(keys []ilgraph.TermKey, ret func(m kindModel) string) (string, map[string]any, error) {
	byKind := map[ilgraph.Kind][]string{}
	for _, k := range keys {
		if _, err := modelOf(k.Kind); err != nil {
			return "", nil, err
		}
		byKind[k.Kind] = append(byKind[k.Kind], k.ID)
	}
	var parts []string
	params := map[string]any{}
	for _, m := range kinds {
		ids, ok := byKind[m.Kind]
		if !ok {
			continue
		}
		params["ids_"+string(m.Kind)] = ids
		parts = append(parts, fmt.Sprintf("MATCH (t:%s) WHERE t.id IN $ids_%s RETURN '%s' AS kind, t.id AS id, %s", m.Label, m.Kind, m.Kind, ret(m)))
	}
	return strings.Join(parts, "\nUNION ALL\n"), params, nil
}

// byTerm runs a termsQuery and returns one value per key, in order (the
// zero value for a key the graph lacks).
func byTerm[V any](ctx context.Context, db *DB, what string, keys []ilgraph.TermKey, ret func(m kindModel) string, value func(r *neo4j.Record) V) ([]V, error) {
	q, params, err := termsQuery(keys, ret)
	if err != nil || q == "" {
		return nil, err
	}
	return inOrder(ctx, db, what, q, params, keys, func(r *neo4j.Record) (ilgraph.TermKey, V, error) {
		return ilgraph.TermKey{Kind: ilgraph.Kind(str(r, "kind")), ID: str(r, "id")}, value(r), nil
	})
}

// TermsByKey returns the terms asked for in one round trip, in order; a key
// with no term gives a Term with an empty ID at its place.
func (db *DB) TermsByKey(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	return byTerm(ctx, db, "reading terms", keys,
		func(kindModel) string {
			return "coalesce(t.en, t.name) AS en, t.ko AS ko, t.description AS description"
		},
		func(r *neo4j.Record) ilgraph.Term {
			return ilgraph.Term{Kind: ilgraph.Kind(str(r, "kind")), ID: str(r, "id"), En: str(r, "en"), Ko: str(r, "ko"), Description: str(r, "description")}
		})
}

// TermCaseCounts returns how many cases have each of the terms asked for,
// in one round trip, in order.
func (db *DB) TermCaseCounts(ctx context.Context, keys []ilgraph.TermKey) ([]int, error) {
	return byTerm(ctx, db, "counting term cases", keys,
		func(m kindModel) string { return fmt.Sprintf("COUNT { (t)<-[:%s]-(:Case) } AS c", m.Rel) },
		func(r *neo4j.Record) int { return int(integer(r, "c")) })
}

// Cooccurring returns, for the cases that have term (k, id), how many of
// them have each term of kind other, by count descending. other may equal k
// (the term itself is then left out).
func (db *DB) Cooccurring(ctx context.Context, k ilgraph.Kind, id string, other ilgraph.Kind, limit int) ([]ilgraph.TermCount, error) {
	m, err := modelOf(k)
	if err != nil {
		return nil, err
	}
	o, err := modelOf(other)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf(`MATCH (:%s {id: $id})<-[:%s]-(n:Case)-[:%s]->(t:%s)
WHERE NOT (t:%s AND t.id = $id)
RETURN t.id AS id, count(DISTINCT n) AS c ORDER BY c DESC, id ASC LIMIT $limit`, m.Label, m.Rel, o.Rel, o.Label, m.Label)
	return read(ctx, db, "counting co-occurring terms", func(tx neo4j.ManagedTransaction) ([]ilgraph.TermCount, error) {
		recs, err := collect(ctx, tx, q, map[string]any{"id": id, "limit": int64(limit)})
		if err != nil {
			return nil, err
		}
		out := make([]ilgraph.TermCount, len(recs))
		for i, r := range recs {
			out[i] = ilgraph.TermCount{Kind: other, ID: str(r, "id"), Count: int(integer(r, "c"))}
		}
		return out, nil
	})
}

// SameRootCause returns the other cases with id's root cause, ordered by how
// many other features they share with it (domains, components,
// contributing factors, symptoms, organization), then date descending, then
// id. It returns ENOTFOUND for an unknown case.
func (db *DB) SameRootCause(ctx context.Context, id string, offset, limit int) ([]ilgraph.CrossRef, int, error) {
	var cols []string
	var shared []ilgraph.Kind
	for _, m := range kinds {
		if m.Kind == ilgraph.KindRootCause {
			continue
		}
		shared = append(shared, m.Kind)
		cols = append(cols, fmt.Sprintf("[(a)-[:%[1]s]->(t:%[2]s)<-[:%[1]s]-(n) | t.id] AS shared_%[3]s", m.Rel, m.Label, m.Kind))
	}
	sizes := make([]string, len(shared))
	names := make([]string, len(shared))
	for i, k := range shared {
		names[i] = "shared_" + string(k)
		sizes[i] = "size(" + names[i] + ")"
	}
	q := fmt.Sprintf(`MATCH (a:Case {id: $id})-[:HAS_ROOT_CAUSE]->(:Cause)<-[:HAS_ROOT_CAUSE]-(n:Case)
WHERE n <> a
WITH a, n
WITH n, %s
WITH n, %s, %s AS shared
ORDER BY shared DESC, n.date DESC, n.id ASC
SKIP $offset LIMIT $limit
%s`, strings.Join(cols, ", "), strings.Join(names, ", "), strings.Join(sizes, " + "), caseReturn+", "+strings.Join(names, ", "))
	type result struct {
		refs  []ilgraph.CrossRef
		total int
	}
	res, err := read(ctx, db, "finding same-root-cause cases", func(tx neo4j.ManagedTransaction) (result, error) {
		recs, err := collect(ctx, tx, `MATCH (a:Case {id: $id})
RETURN COUNT { (a)-[:HAS_ROOT_CAUSE]->(:Cause)<-[:HAS_ROOT_CAUSE]-(n:Case) WHERE n <> a } AS total`, map[string]any{"id": id})
		if err != nil {
			return result{}, err
		}
		if len(recs) == 0 {
			return result{}, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q", id)
		}
		out := result{total: int(integer(recs[0], "total"))}
		recs, err = collect(ctx, tx, q, map[string]any{"id": id, "offset": int64(offset), "limit": int64(limit)})
		if err != nil {
			return result{}, err
		}
		for _, r := range recs {
			c, err := recordCase(r)
			if err != nil {
				return result{}, err
			}
			x := ilgraph.CrossRef{Case: c, Shared: map[ilgraph.Kind][]string{}}
			for _, k := range shared {
				ids := strs(r, "shared_"+string(k))
				sort.Strings(ids)
				x.Shared[k] = ids
			}
			out.refs = append(out.refs, x)
		}
		return out, nil
	})
	return res.refs, res.total, err
}

// VocabularyCounts returns every vocabulary term (not organizations) with its
// case count, in one round trip. The vocabulary is small and bounded, so the
// API reads it whole, once per request, instead of term by term.
func (db *DB) VocabularyCounts(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	var parts []string
	for _, m := range kinds {
		if m.Kind == ilgraph.KindOrg {
			continue
		}
		// COUNT of the pattern without a label on the far end is read from the
		// node's degree, not by walking the relationships.
		parts = append(parts, fmt.Sprintf("MATCH (t:%s) RETURN '%s' AS kind, t.id AS id, t.en AS en, t.ko AS ko, t.description AS description, t.aliases_en AS aliases_en, t.aliases_ko AS aliases_ko, COUNT { (t)<-[:%s]-() } AS c", m.Label, m.Kind, m.Rel))
	}
	return read(ctx, db, "reading the vocabulary", func(tx neo4j.ManagedTransaction) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
		recs, err := collect(ctx, tx, strings.Join(parts, "\nUNION ALL\n"), nil)
		if err != nil {
			return nil, err
		}
		out := make(map[ilgraph.TermKey]ilgraph.TermInfo, len(recs))
		for _, r := range recs {
			k := ilgraph.TermKey{Kind: ilgraph.Kind(str(r, "kind")), ID: str(r, "id")}
			out[k] = ilgraph.TermInfo{Term: ilgraph.Term{Kind: k.Kind, ID: k.ID, En: str(r, "en"), Ko: str(r, "ko"), Description: str(r, "description"),
				Aliases: ilgraph.Aliases{En: strs(r, "aliases_en"), Ko: strs(r, "aliases_ko")}}, Cases: int(integer(r, "c"))}
		}
		return out, nil
	})
}

// MaxMatchingIDs bounds CaseIDsMatching.
const MaxMatchingIDs = 100_000

// CaseIDsMatching returns the ids of the cases f selects (at most
// MaxMatchingIDs), for filters the similarity index cannot evaluate itself
// (full-text search).
func (db *DB) CaseIDsMatching(ctx context.Context, f ilgraph.CaseFilter) ([]string, error) {
	mc, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	return read(ctx, db, "selecting case ids", func(tx neo4j.ManagedTransaction) ([]string, error) {
		recs, err := collect(ctx, tx, mc.text+"RETURN n.id AS id LIMIT $max", with(mc.params, map[string]any{"max": int64(MaxMatchingIDs)}))
		if err != nil {
			return nil, err
		}
		out := make([]string, len(recs))
		for i, r := range recs {
			out[i] = str(r, "id")
		}
		return out, nil
	})
}

// MaxFormLookups bounds the word forms WordFormsFound looks up at once.
const MaxFormLookups = 200

// WordFormsFound returns which of forms — English words, as written —
// occur as whole words in the searched fields (titles only, with
// TextInTitles) of at least one case the filter f, which has text,
// selects: the forms of its words that the search matched. Each lookup is
// f's own full-text query with the form added as a required word of the
// fields as written.
func (db *DB) WordFormsFound(ctx context.Context, f ilgraph.CaseFilter, forms []string) ([]string, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if !f.HasText() || len(forms) == 0 {
		return nil, nil
	}
	if len(forms) > MaxFormLookups {
		return nil, ilgraph.Errorf(ilgraph.ELIMIT, "at most %d word forms are looked up at once, not %d", MaxFormLookups, len(forms))
	}
	fields := writtenFields
	if f.TitlesOnly() {
		fields = writtenTitles
	}
	base := luceneQuery(f)
	rows := make([]map[string]any, 0, len(forms))
	for _, w := range forms {
		if !ilgraph.IsEnglishWord(w) {
			continue
		}
		rows = append(rows, map[string]any{"form": w, "q": base + " +" + inFields(fields, quotePhrase(w))})
	}
	mc := compileFilterText(f, "row.q", map[string]any{"rows": rows})
	q := "UNWIND $rows AS row\nCALL (row) {\n" + mc.text + "RETURN n.id AS hit LIMIT 1\n}\nRETURN row.form AS form"
	return read(ctx, db, "finding word forms", func(tx neo4j.ManagedTransaction) ([]string, error) {
		recs, err := collect(ctx, tx, q, mc.params)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(recs))
		for i, r := range recs {
			out[i] = str(r, "form")
		}
		return out, nil
	})
}
