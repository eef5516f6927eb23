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

// compileFilter turns a filter into a MATCH … WHERE … that binds n and
// score. What it selects is ilgraph.CaseFilter.Match's meaning, and the
// full-text index's for the text (the conformance suite, internal/storetest,
// checks it).
func compileFilter(f ilgraph.CaseFilter) (matchClause, error) {
	if err := f.Validate(); err != nil {
		return matchClause{}, err
	}
	p := map[string]any{}
	if f.HasText() {
		p["text"] = luceneQuery(f)
	}
	return compileFilterText(f, "$text", p), nil
}

// compileFilterText is compileFilter for a valid filter whose Lucene query
// (when it has text) is textExpr, a parameter or a variable, not user text.
func compileFilterText(f ilgraph.CaseFilter, textExpr string, p map[string]any) matchClause {
	var b strings.Builder
	if f.HasText() {
		b.WriteString("CALL db.index.fulltext.queryNodes('case_search', " + textExpr + ") YIELD node AS n, score\n")
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
	if f.IDs != nil {
		// An empty, non-nil list selects nothing (ilgraph.CaseFilter.Match).
		p["ids"] = f.IDs
		where = append(where, "n.id IN $ids")
	}
	if f.ReviewedOnly {
		// machine_tagged is Case.MachineTagged, stored by the loader.
		where = append(where, "coalesce(n.machine_tagged, false) = false")
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
	return matchClause{text: b.String(), params: p}
}

// Fields of the case_search index. These fixed strings are the only field
// names ever placed in a Lucene query. A search looks for its words' stems
// in the *_forms fields (the fields with their English words stemmed:
// searchFormProps); which forms of a word occur is looked up in the
// fields as written.
var (
	formFields      = []string{"title_en_forms", "title_ko_forms", "summary_en_forms", "summary_ko_forms"}
	titleFormFields = []string{"title_en_forms", "title_ko_forms"}
	writtenFields   = []string{"title_en", "title_ko", "summary_en", "summary_ko"}
	writtenTitles   = []string{"title_en", "title_ko"}
)

// luceneQuery turns a filter's text into a Lucene query. Each phrase of
// f.TextPhrases (a word, or in mode PHRASE the whole text) becomes one quoted
// phrase, so that the pieces the CJK analyzer cuts it into — overlapping
// two-character pieces of Korean, the parts of "front-end" — must occur
// together and in order: "데이터베이스" no longer matches 데이터센터 through
// the piece 데이. Its English words are replaced by their stems
// (ilgraph.SearchForms), and the phrase is looked for in the stemmed
// fields, so that every form of a word matches (ilgraph.WordStem). Mode
// ALL requires every phrase (+), ANY at least one.
// Every character with a meaning in Lucene's syntax is escaped, and inside
// quotes nothing but the analyzer reads the text: user text is only ever
// searched for, never parsed as operators. A phrase the analyzer leaves
// nothing of (a stop word such as "the", punctuation) drops out of the query.
func luceneQuery(f ilgraph.CaseFilter) string {
	fields := formFields
	if f.TitlesOnly() {
		fields = titleFormFields
	}
	var clauses []string
	for _, ph := range f.TextPhrases() {
		q := inFields(fields, quotePhrase(ilgraph.SearchForms(ph)))
		if f.TextMatchesAll() {
			q = "+" + q
		}
		clauses = append(clauses, q)
	}
	return strings.Join(clauses, " ")
}

// inFields returns a Lucene clause that matches the quoted phrase q in any
// of fields.
func inFields(fields []string, q string) string {
	alts := make([]string, len(fields))
	for i, field := range fields {
		alts[i] = field + ":" + q
	}
	return "(" + strings.Join(alts, " ") + ")"
}

// quotePhrase returns s as a Lucene phrase: in double quotes, with every
// syntax character escaped (inside quotes only '"' and '\' would need it;
// escaping the rest is harmless and keeps the rule simple).
func quotePhrase(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune(`+-&|!(){}[]^"~*?:\/`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
