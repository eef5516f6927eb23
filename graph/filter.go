package graph

import (
	"fmt"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// matchClause is the start of a query over the cases a filter selects: it
// binds n (and score, 0 without a text query) and carries its parameters.
// Only fixed labels and relationship types from the model enter the text.
type matchClause struct {
	text   string
	params map[string]any
}

// compileFilter turns a filter into a MATCH … WHERE … that binds n and score.
func compileFilter(f ilgraph.CaseFilter) (matchClause, error) {
	if err := f.Validate(); err != nil {
		return matchClause{}, err
	}
	p := map[string]any{}
	var b strings.Builder
	if f.HasText() {
		p["text"] = luceneQuery(f.Text)
		b.WriteString("CALL db.index.fulltext.queryNodes('case_text', $text) YIELD node AS n, score\n")
	} else {
		b.WriteString("MATCH (n:Case) WITH n, 0.0 AS score\n")
	}
	var where []string
	if f.DateFrom != "" {
		p["dateFrom"] = f.DateFrom
		where = append(where, "n.date >= date($dateFrom)")
	}
	if f.DateTo != "" {
		p["dateTo"] = f.DateTo
		where = append(where, "n.date <= date($dateTo)")
	}
	if len(f.Severities) > 0 {
		p["severities"] = f.Severities
		where = append(where, "n.severity IN $severities")
	}
	if len(f.ExcludeIDs) > 0 {
		p["excludeIDs"] = f.ExcludeIDs
		where = append(where, "NOT n.id IN $excludeIDs")
	}
	if len(f.IDs) > 0 {
		p["ids"] = f.IDs
		where = append(where, "n.id IN $ids")
	}
	if len(f.ExcludeOrgs) > 0 {
		p["excludeOrgs"] = f.ExcludeOrgs
		where = append(where, "NOT n.org_slug IN $excludeOrgs")
	}
	for _, m := range kinds {
		tm, ok := f.Tags[m.Kind]
		if !ok {
			continue
		}
		if len(tm.AnyOf) > 0 {
			name := "any_" + string(m.Kind)
			p[name] = tm.AnyOf
			where = append(where, fmt.Sprintf("EXISTS { MATCH (n)-[:%s]->(t:%s) WHERE t.id IN $%s }", m.Rel, m.Label, name))
		}
		if len(tm.AllOf) > 0 {
			name := "all_" + string(m.Kind)
			p[name] = ilgraph.Unique(tm.AllOf)
			where = append(where, fmt.Sprintf("size([(n)-[:%s]->(t:%s) WHERE t.id IN $%s | t]) = size($%s)", m.Rel, m.Label, name, name))
		}
	}
	if len(where) > 0 {
		b.WriteString("WHERE ")
		b.WriteString(strings.Join(where, "\n  AND "))
		b.WriteString("\n")
	}
	return matchClause{text: b.String(), params: p}, nil
}

// luceneQuery turns user text into a Lucene query that matches its words:
// every character with a meaning in Lucene's syntax is escaped, so the text
// is only ever searched for, never parsed as operators.
func luceneQuery(s string) string {
	var words []string
	for _, w := range strings.Fields(s) {
		var b strings.Builder
		for _, r := range w {
			if strings.ContainsRune(`+-&|!(){}[]^"~*?:\/`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		// Lucene treats a bare AND/OR/NOT as an operator.
		switch b.String() {
		case "AND", "OR", "NOT":
			words = append(words, strings.ToLower(b.String()))
		default:
			words = append(words, b.String())
		}
	}
	return strings.Join(words, " ")
}
