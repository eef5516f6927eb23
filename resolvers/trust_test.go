package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// TestUnknownValuesAreNull checks that every optional string of a case that
// the source leaves empty comes back as null, never as "", and every known
// one as it is in the seed JSON.
func TestUnknownValuesAreNull(t *testing.T) {
	a := mustAPI(t)
	var got struct {
		Cases struct {
			Nodes    []map[string]json.RawMessage
			PageInfo struct {
				HasNextPage bool
				EndCursor   string
			}
		}
	}
	// Every case, a page of 100 at a time.
	var nodes []map[string]json.RawMessage
	for after := ""; ; after = got.Cases.PageInfo.EndCursor {
		got.Cases.Nodes = nil
		a.must(`query($after: String) { cases(first: 100, after: $after, sort: ID_ASC) { pageInfo { hasNextPage endCursor } nodes { id dateKind severity updatedAt url
		timeline { detectedAfter resolvedAfter detectedAfterMinutes resolvedAfterMinutes }
		impact { scope users region } review { writtenBy reviewedAt reviewedBy } sources { url kind archived } } } }`, map[string]any{"after": after}, &got)
		nodes = append(nodes, got.Cases.Nodes...)
		if !got.Cases.PageInfo.HasNextPage {
			break
		}
	}
	got.Cases.Nodes = nodes
	if len(got.Cases.Nodes) != len(a.cases) {
		t.Fatalf("got %d cases, want %d", len(got.Cases.Nodes), len(a.cases))
	}
	nulls, values := 0, 0
	check := func(id, field string, raw json.RawMessage, want string) {
		t.Helper()
		wantJSON := "null"
		if want != "" {
			b, _ := json.Marshal(want)
			wantJSON = string(b)
			values++
		} else {
			nulls++
		}
		if string(raw) != wantJSON {
			t.Errorf("%s %s: got %s, want %s", id, field, raw, wantJSON)
		}
	}
	sub := func(raw json.RawMessage) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, n := range got.Cases.Nodes {
		var id string
		json.Unmarshal(n["id"], &id)
		c := a.byID[id]
		check(id, "dateKind", n["dateKind"], c.DateKind)
		check(id, "severity", n["severity"], c.Severity)
		check(id, "updatedAt", n["updatedAt"], c.UpdatedAt)
		check(id, "url", n["url"], c.URL)
		tl := sub(n["timeline"])
		check(id, "timeline.detectedAfter", tl["detectedAfter"], c.Timeline.DetectedAfter)
		check(id, "timeline.resolvedAfter", tl["resolvedAfter"], c.Timeline.ResolvedAfter)
		for field, d := range map[string]string{"detectedAfterMinutes": c.Timeline.DetectedAfter, "resolvedAfterMinutes": c.Timeline.ResolvedAfter} {
			want := "null"
			if m, err := ilgraph.ParseDuration(d); err == nil {
				want = fmt.Sprint(m)
			}
			if string(tl[field]) != want {
				t.Errorf("%s timeline.%s: got %s, want %s", id, field, tl[field], want)
			}
		}
		im := sub(n["impact"])
		check(id, "impact.scope", im["scope"], c.Impact.Scope)
		check(id, "impact.users", im["users"], c.Impact.Users)
		check(id, "impact.region", im["region"], c.Impact.Region)
		rv := sub(n["review"])
		check(id, "review.writtenBy", rv["writtenBy"], c.Review.WrittenBy)
		check(id, "review.reviewedAt", rv["reviewedAt"], c.Review.ReviewedAt)
		check(id, "review.reviewedBy", rv["reviewedBy"], c.Review.ReviewedBy)
		var srcs []map[string]json.RawMessage
		json.Unmarshal(n["sources"], &srcs)
		for i, s := range srcs {
			check(id, fmt.Sprintf("sources[%d].kind", i), s["kind"], c.Sources[i].Kind)
			check(id, fmt.Sprintf("sources[%d].archived", i), s["archived"], c.Sources[i].Archived)
		}
	}
	if nulls == 0 || values == 0 {
		t.Errorf("the seeds exercise %d nulls and %d values; the test needs both", nulls, values)
	}
}

// TestCursorPastTheEnd checks that a cursor beyond the end of a list is an
// INVALID error, while the cursor of the last item gives an empty last page.
func TestCursorPastTheEnd(t *testing.T) {
	a := mustAPI(t)
	n := len(a.cases)
	sameCause := len(a.where(func(c *ilgraph.Case) bool { return c.ID != "IL-0282" && c.RootCause == a.byID["IL-0282"].RootCause }))
	for _, tt := range []struct {
		name, query string
		total       int
	}{
		{"cases", `query($after: String) { list: cases(first: 5, after: $after) { totalCount nodes { id } pageInfo { hasNextPage hasPreviousPage } } }`, n},
		{"sameRootCause", `query($after: String) { list: sameRootCause(caseId: "IL-0282", first: 5, after: $after) { totalCount nodes { case { id } } pageInfo { hasNextPage hasPreviousPage } } }`, sameCause},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			var got struct {
				List struct {
					TotalCount int
					Nodes      []any
					PageInfo   struct{ HasNextPage, HasPreviousPage bool }
				}
			}
			// The cursor of the last item: an empty page, no error.
			a.must(tt.query, map[string]any{"after": explore.EncodeCursor(tt.total - 1)}, &got)
			if got.List.TotalCount != tt.total || len(got.List.Nodes) != 0 || got.List.PageInfo.HasNextPage || !got.List.PageInfo.HasPreviousPage {
				t.Errorf("after the last item: %+v", got.List)
			}
			// Past the end: INVALID, saying so.
			for _, offset := range []int{tt.total, tt.total + 50} {
				errs := a.do(tt.query, map[string]any{"after": explore.EncodeCursor(offset)}, nil)
				if len(errs) != 1 || errs[0].Extensions["code"] != "INVALID" || !strings.Contains(errs[0].Message, "past the end") {
					t.Errorf("cursor of item %d of %d: got %+v, want INVALID past the end", offset, tt.total, errs)
				}
			}
		})
	}
}

// TestHTTPStatus pins the HTTP statuses docs/api.md documents for a client
// that accepts application/json: a request that does not parse or validate
// is 200 with errors and no data (GraphQL over HTTP; the conformance test
// covers application/graphql-response+json), a body that is not JSON 400
// BAD_REQUEST; a query refused for its depth or complexity, and errors while
// running, 200 with the errors listed.
func TestHTTPStatus(t *testing.T) {
	a := mustAPI(t)
	for _, tt := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"query":"{ case(id: \"IL-0384\") { nope } }"}`, 200, "GRAPHQL_VALIDATION_FAILED"},
		{`{"query":"{ case(id: "}`, 200, "GRAPHQL_PARSE_FAILED"},
		{`{"query":"{ cases(first: 101) { totalCount } }"}`, 200, "LIMIT"},
		{`{"query":"{ cases(first: 100) { nodes { sameRootCause(first: 100) { case { related { id } } } } } }"}`, 200, "COMPLEXITY_LIMIT_EXCEEDED"},
		{`{"query":"{ case(id: \"IL-0384\") { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { id } } } } } } } } } } } } } }"}`, 200, "LIMIT"},
		{`{"query":"{ similarCases(caseId: \"IL-9999\") { score } }"}`, 200, "NOT_FOUND"},
		{`not json`, 400, "BAD_REQUEST"},
	} {
		resp, err := a.client.Post(a.url+"/graphql", "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Errors []gqlError }
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		code := ""
		if len(env.Errors) > 0 {
			code, _ = env.Errors[0].Extensions["code"].(string)
		}
		if resp.StatusCode != tt.status || code != tt.code {
			t.Errorf("%s: HTTP %d %q, want %d %q", tt.body, resp.StatusCode, code, tt.status, tt.code)
		}
	}
}
