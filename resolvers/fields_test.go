package resolvers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// namedAs checks that an error message is about the input a door calls
// name (it starts with the name) and holds none of others (the other front
// doors' names for the same input, as their messages would write them).
func namedAs(t *testing.T, what, msg, name string, others ...string) {
	t.Helper()
	if !strings.HasPrefix(msg, name+" ") {
		t.Errorf("%s: message %q does not start with %q", what, msg, name)
	}
	for _, o := range others {
		if strings.Contains(msg, o) {
			t.Errorf("%s: message %q holds %q, another door's name for %s", what, msg, o, name)
		}
	}
}

// TestErrorsNameTheGraphQLArgument: a bad page size, cursor, k or minimum
// score is refused with the core's code and a message that names the
// GraphQL argument (first, after, k, minScore), not the JSON API's or
// MCP's names for it (limit, cursor, min_score).
func TestErrorsNameTheGraphQLArgument(t *testing.T) {
	a := mustAPI(t)
	for _, tc := range []struct {
		query, code, name string
		others            []string
	}{
		{`{ cases(first: 101) { totalCount } }`, "LIMIT", "first", []string{"limit"}},
		{`{ sameRootCause(caseId: "IL-0282", first: 1000) { totalCount } }`, "LIMIT", "first", []string{"limit"}},
		{`{ cases(first: -1) { totalCount } }`, "INVALID", "first", []string{"limit"}},
		{`{ cases(after: "nonsense") { totalCount } }`, "INVALID", "after", []string{`cursor "`}},
		{`{ sameRootCause(caseId: "IL-0282", after: "bm9wZQ") { totalCount } }`, "INVALID", "after", []string{`cursor "`}},
		{`{ similarCases(caseId: "IL-0384", k: 0) { score } }`, "LIMIT", "k", nil},
		{`{ case(id: "IL-0384") { similar(k: 1000) { score } } }`, "LIMIT", "k", nil},
		{`{ similarCases(caseId: "IL-0384", minScore: 2) { score } }`, "INVALID", "minScore", []string{"min_score"}},
		{`{ similarToProfile(profile: {components: ["message-broker"]}, minScore: -1) { matches { score } } }`, "INVALID", "minScore", []string{"min_score"}},
	} {
		errs := a.do(tc.query, nil, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != tc.code {
			t.Errorf("%s: errors %+v, want one %s", tc.query, errs, tc.code)
			continue
		}
		namedAs(t, tc.query, errs[0].Message, tc.name, tc.others...)
	}
	// The message states the limit, from the core.
	errs := a.do(`{ similarCases(caseId: "IL-0384", k: 0) { score } }`, nil, nil)
	if want := fmt.Sprintf("k must be from 1 to %d, not 0", explore.MaxSimilarK); len(errs) != 1 || errs[0].Message != want {
		t.Errorf("k: 0: errors %+v, want %q", errs, want)
	}
}

// TestDefaultsAreTheCores: an argument left out takes the core's default —
// the same-root-cause page, k — on the query root and on a case alike; and
// suggestCutoffs are the core's cut-offs.
func TestDefaultsAreTheCores(t *testing.T) {
	a := mustAPI(t)
	// A case with more same-root-cause cases than a default page.
	byCause := map[string]int{}
	for _, c := range a.cases {
		byCause[c.RootCause]++
	}
	var id string
	for _, c := range a.cases {
		if byCause[c.RootCause]-1 > explore.DefaultSameRootCause {
			id = c.ID
			break
		}
	}
	if id == "" {
		t.Fatalf("no seed case has more than %d others with its root cause: the check proves nothing", explore.DefaultSameRootCause)
	}
	type refs struct{ Case struct{ ID string } }
	var got struct {
		SameRootCause struct {
			TotalCount int
			Nodes      []refs
		}
		Case struct {
			SameRootCause []refs
			Similar       []struct{ Score float64 }
			Many          []struct{ Score float64 }
		}
		SimilarCases []struct{ Score float64 }
	}
	a.must(`query($id: ID!) { sameRootCause(caseId: $id) { totalCount nodes { case { id } } }
		case(id: $id) { sameRootCause { case { id } } similar { score } many: similar(k: 100) { score } }
		similarCases(caseId: $id) { score } }`, map[string]any{"id": id}, &got)
	if got.SameRootCause.TotalCount <= explore.DefaultSameRootCause {
		t.Fatalf("%s: %d same-root-cause cases, want more than %d", id, got.SameRootCause.TotalCount, explore.DefaultSameRootCause)
	}
	if n := len(got.SameRootCause.Nodes); n != explore.DefaultSameRootCause {
		t.Errorf("sameRootCause without first: %d cases, want the core's default %d", n, explore.DefaultSameRootCause)
	}
	if n := len(got.Case.SameRootCause); n != explore.DefaultSameRootCause {
		t.Errorf("Case.sameRootCause without first: %d cases, want the core's default %d", n, explore.DefaultSameRootCause)
	}
	if len(got.Case.Many) <= explore.DefaultSimilarK {
		t.Fatalf("%s: %d similar cases at most, want more than %d", id, len(got.Case.Many), explore.DefaultSimilarK)
	}
	if n := len(got.Case.Similar); n != explore.DefaultSimilarK {
		t.Errorf("Case.similar without k: %d cases, want the core's default %d", n, explore.DefaultSimilarK)
	}
	if n := len(got.SimilarCases); n != explore.DefaultSimilarK {
		t.Errorf("similarCases without k: %d cases, want the core's default %d", n, explore.DefaultSimilarK)
	}

	var cut struct {
		SuggestCutoffs []struct {
			Kind ilgraph.Kind
			Min  float64
			Max  int
		}
	}
	a.must(`{ suggestCutoffs { kind min max } }`, nil, &cut)
	want := explore.New(a.db, nil).SuggestCutoffs()
	if len(cut.SuggestCutoffs) != len(want) {
		t.Fatalf("suggestCutoffs: %+v, want %+v", cut.SuggestCutoffs, want)
	}
	for i, c := range cut.SuggestCutoffs {
		if w := want[i]; ilgraph.Kind(strings.ToLower(string(c.Kind))) != w.Kind || c.Min != w.Min || c.Max != w.Max {
			t.Errorf("suggestCutoffs[%d] = %+v, want %+v", i, c, w)
		}
	}
}
