package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// FuzzCompileFilter feeds arbitrary strings into every field of a case
// filter, as the GraphQL API passes them on. Compiling must never panic, and
// user text must never reach the query text: the Cypher for a filter equals
// the Cypher for the same filter with neutral values in the same fields.
func FuzzCompileFilter(f *testing.F) {
	for _, s := range []string{"capacity", "'", "\"", "`", "}) MATCH (n) DETACH DELETE n //", "$text", "2020-01-01", "장애", "*:*", "AND", `\`, ""} {
		f.Add(s, s, s, s)
	}
	f.Fuzz(func(t *testing.T, term, org, date, text string) {
		build := func(term, org, date, text string) ilgraph.CaseFilter {
			return ilgraph.CaseFilter{
				Tags: map[ilgraph.Kind]ilgraph.TermMatch{
					ilgraph.KindRootCause: {AnyOf: []string{term}},
					ilgraph.KindComponent: {AllOf: []string{term, term}},
					ilgraph.KindOrg:       {AnyOf: []string{org}},
				},
				ExcludeOrgs: []string{org}, DateFrom: date, Severities: []string{term}, Text: text, ExcludeIDs: []string{term},
				// Every mode and field set, chosen by the fuzzed input.
				TextMode:   []ilgraph.TextMode{ilgraph.TextAll, ilgraph.TextAny, ilgraph.TextPhrase}[len(term)%3],
				TextFields: []ilgraph.TextFields{ilgraph.TextInAll, ilgraph.TextInTitles}[len(org)%2],
			}
		}
		fuzzed, err := compileFilter(build(term, org, date, text))
		if err != nil {
			// A value the filter refuses is INVALID; one over a size bound
			// (a text of more than 500 characters, a list too long) is LIMIT.
			if code := ilgraph.ErrorCode(err); code != ilgraph.EINVALID && code != ilgraph.ELIMIT {
				t.Fatalf("a bad filter gave %v, want an invalid-argument or limit error", err)
			}
			return
		}
		neutralDate := ""
		if date != "" {
			neutralDate = "2000-01-01"
		}
		neutralText := ""
		if strings.TrimSpace(text) != "" {
			neutralText = "x"
		}
		neutral, err := compileFilter(build("x", "y", neutralDate, neutralText))
		if err != nil {
			t.Fatal(err)
		}
		if fuzzed.text != neutral.text {
			t.Fatalf("user values changed the query text:\n%s\nvs\n%s", fuzzed.text, neutral.text)
		}
		if q, ok := fuzzed.params["text"].(string); ok {
			if err := checkLucene(q); err != nil {
				t.Fatalf("%v in %q", err, q)
			}
		}
	})
}

// checkLucene checks that a query from luceneQuery has only the structure
// luceneQuery writes — clauses of an optional +, an optional group of
// alternatives in the index's fields (field:), and quoted phrases — and that inside the
// quotes every Lucene syntax character is escaped.
func checkLucene(q string) error {
	quoted := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if quoted {
			switch {
			case c == '\\':
				i++ // the escaped character, whatever it is
				if i >= len(q) {
					return fmt.Errorf("a trailing backslash")
				}
			case c == '"':
				quoted = false
			case strings.IndexByte(`+-&|!(){}[]^~*?:/`, c) >= 0:
				return fmt.Errorf("unescaped Lucene operator %q at %d", c, i)
			}
			continue
		}
		switch {
		case c == '"':
			quoted = true
		case c == '+' || c == ' ' || c == '(' || c == ')':
		case fieldPrefix(q[i:]) != "":
			i += len(fieldPrefix(q[i:])) - 1
		default:
			return fmt.Errorf("%q outside a phrase at %d", c, i)
		}
	}
	if quoted {
		return fmt.Errorf("an unclosed phrase")
	}
	return nil
}

// fieldPrefix returns the "field:" q starts with, when it names a field of
// the case_search index.
func fieldPrefix(q string) string {
	for _, fs := range [][]string{formFields, writtenFields} {
		for _, f := range fs {
			if strings.HasPrefix(q, f+":") {
				return f + ":"
			}
		}
	}
	return ""
}
