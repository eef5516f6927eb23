package graph

import (
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
			}
		}
		fuzzed, err := compileFilter(build(term, org, date, text))
		if err != nil {
			if ilgraph.ErrorCode(err) != ilgraph.EINVALID {
				t.Fatalf("a bad filter gave %v, want an invalid-argument error", err)
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
			for i, r := range q {
				if strings.ContainsRune(`+-&|!(){}[]^"~*?:/`, r) && (i == 0 || q[i-1] != '\\') {
					t.Fatalf("unescaped Lucene operator %q in %q", r, q)
				}
			}
		}
	})
}
