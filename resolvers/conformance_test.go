package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/nodetest"
	"github.com/ilgraph/ilgraph/resolvers"
)

// auditDir holds our runner for graphql-http's server audits, with the
// package versions pinned by its package-lock.json.
const auditDir = "testdata/graphql-http"

type auditResult struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Level  string `json:"level"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// TestGraphQLOverHTTPConformance runs every audit of the graphql-http suite
// (MUST, SHOULD and MAY) against the real handler over the real Neo4j, and
// fails naming each audit that does not pass. It needs Node.js and npm and
// installs the pinned packages (npm ci) when node_modules is missing; under
// CI=true a missing node or npm is a failure, elsewhere a skip.
func TestGraphQLOverHTTPConformance(t *testing.T) {
	node := auditTools(t)

	db := neo4jtest.MustOpen(t)
	srv := httptest.NewServer(newHandler(db, resolvers.Options{Logger: quietLogger()}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "audit.mjs", srv.URL+"/graphql")
	cmd.Dir = auditDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node audit.mjs: %v\n%s", err, stderr.Bytes())
	}
	var results []auditResult
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("audit.mjs printed no JSON array: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	if len(results) == 0 {
		t.Fatal("audit.mjs ran no audits")
	}

	passed, total := map[string]int{}, map[string]int{}
	var failed []auditResult
	for _, r := range results {
		total[r.Level]++
		if r.Status == "ok" {
			passed[r.Level]++
		} else {
			failed = append(failed, r)
		}
	}
	var counts []string
	for _, level := range []string{"MUST", "SHOULD", "MAY"} {
		counts = append(counts, fmt.Sprintf("%s %d/%d", level, passed[level], total[level]))
	}
	t.Logf("graphql-http audits: %s", strings.Join(counts, ", "))
	if len(failed) > 0 {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "id\tstatus\taudit\treason")
		for _, r := range failed {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Name, oneLine(r.Reason, 160))
		}
		tw.Flush()
		t.Errorf("%d of %d graphql-http audits do not pass (%s):\n%s", len(failed), len(results), strings.Join(counts, ", "), b.String())
	}
}

// auditTools returns node, with the audits' pinned packages installed.
func auditTools(t *testing.T) string {
	t.Helper()
	return nodetest.Node(t, "the GraphQL over HTTP audits", auditDir, "graphql-http", "graphql")
}

// TestStandardIntrospection: graphql-js's own introspection query (every
// option on), which schema tools and IDEs send, is answered under the
// default limits, and graphql-js builds from it a schema with every Query
// field of ours.
func TestStandardIntrospection(t *testing.T) {
	node := auditTools(t)
	db := neo4jtest.MustOpen(t)
	srv := httptest.NewServer(newHandler(db, resolvers.Options{Logger: quietLogger()}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "introspect.mjs", srv.URL+"/graphql")
	cmd.Dir = auditDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node introspect.mjs: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Status      int
		Errors      []map[string]any
		Types       int
		QueryFields []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("introspect.mjs printed %s: %v", out, err)
	}
	var want []string
	for _, f := range resolvers.NewExecutableSchema(resolvers.Config{Resolvers: &resolvers.Resolver{}}).Schema().Query.Fields {
		if !strings.HasPrefix(f.Name, "__") {
			want = append(want, f.Name)
		}
	}
	slices.Sort(want)
	if got.Status != http.StatusOK || len(got.Errors) > 0 || !slices.Equal(got.QueryFields, want) || got.Types < len(want) {
		t.Errorf("standard introspection: HTTP %d, errors %v, %d types, Query fields %v; want 200, no errors, Query fields %v",
			got.Status, got.Errors, got.Types, got.QueryFields, want)
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// TestGraphQLHTTPEdges checks what the audits leave out: the other 4xx
// answers, request errors from our limits, and APQ over GET.
func TestGraphQLHTTPEdges(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	srv := httptest.NewServer(newHandler(db, resolvers.Options{Logger: quietLogger(), MaxDepth: 2}))
	t.Cleanup(srv.Close)
	const hash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38" // sha256("{__typename}")
	tests := []struct {
		name, method, path, contentType, accept, body string
		wantStatus                                    int
		wantBody                                      string
	}{
		{"PUT", "PUT", "/graphql", "application/json", "", `{"query":"{ __typename }"}`, 405, `"BAD_REQUEST"`},
		{"Accept neither JSON type", "POST", "/graphql", "application/json", "text/html", `{"query":"{ __typename }"}`, 406, `"BAD_REQUEST"`},
		{"Accept prefers graphql-response+json", "POST", "/graphql", "application/json", "application/json;q=0.5, application/graphql-response+json", `{"query":"{"}`, 400, `"GRAPHQL_PARSE_FAILED"`},
		{"form body", "POST", "/graphql", "application/x-www-form-urlencoded", "", `query=%7B__typename%7D`, 415, `"BAD_REQUEST"`},
		{"latin-1 body", "POST", "/graphql", "application/json; charset=latin1", "", `{"query":"{ __typename }"}`, 415, `"BAD_REQUEST"`},
		{"trailing garbage", "POST", "/graphql", "application/json", "", `{"query":"{ __typename }"} x`, 400, `"BAD_REQUEST"`},
		{"too deep, json", "POST", "/graphql", "application/json", "application/json", `{"query":"{ cases { nodes { id } } }"}`, 200, `"LIMIT"`},
		{"too deep, graphql-response+json", "POST", "/graphql", "application/json", "application/graphql-response+json", `{"query":"{ cases { nodes { id } } }"}`, 400, `"LIMIT"`},
		{"introspection counts once against the depth", "POST", "/graphql", "application/json", "application/json", `{"query":"{ __schema { queryType { fields { type { ofType { name } } } } } }"}`, 200, `"queryType"`},
		{"introspection deeper than its own bound", "POST", "/graphql", "application/json", "application/json",
			`{"query":"{ __type(name: \"Case\") { ` + strings.Repeat("ofType { ", resolvers.MaxIntrospectionDepth) + `name` + strings.Repeat(" }", resolvers.MaxIntrospectionDepth) + ` } }"}`, 200, `introspection is nested 34 levels deep`},
		{"APQ unknown hash", "GET", `/graphql?extensions=` + urlQuery(`{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}`), "", "", "", 200, `PERSISTED_QUERY_NOT_FOUND`},
		{"APQ register", "GET", `/graphql?query=` + urlQuery(`{__typename}`) + `&extensions=` + urlQuery(`{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}`), "", "", "", 200, `{"data":{"__typename":"Query"}}`},
		{"APQ by hash", "GET", `/graphql?extensions=` + urlQuery(`{"persistedQuery":{"version":1,"sha256Hash":"`+hash+`"}}`), "", "", "", 200, `{"data":{"__typename":"Query"}}`},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
		req.RequestURI = ""
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || !strings.Contains(body.String(), tt.wantBody) {
			t.Errorf("%s: HTTP %d %s, want %d with %s", tt.name, resp.StatusCode, body.String(), tt.wantStatus, tt.wantBody)
		}
		if resp.StatusCode != 200 && strings.Contains(body.String(), `"data"`) {
			t.Errorf("%s: a request error with a data entry: %s", tt.name, body.String())
		}
	}
}

// TestIntrospectionAndIDESettings checks Options.Introspection and the
// IDE (ilgraph serve --ide), on (the default) and off.
func TestIntrospectionAndIDESettings(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	off := false
	for _, tt := range []struct {
		name string
		opt  apitest.Options
		on   bool
	}{
		{"default", apitest.Options{}, true},
		{"off", apitest.Options{GraphQL: resolvers.Options{Introspection: &off}, NoIDE: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.GraphQL.Logger = quietLogger()
			srv := httptest.NewServer(newHandlerWith(db, tt.opt))
			defer srv.Close()
			get := func(path, accept string) (int, string) {
				req, _ := http.NewRequest("GET", srv.URL+path, nil)
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var b bytes.Buffer
				b.ReadFrom(resp.Body)
				return resp.StatusCode, b.String()
			}
			status, body := get("/ide", "text/html")
			if tt.on && (status != 200 || !strings.Contains(strings.ToLower(body), "<html")) {
				t.Errorf("IDE on: /ide answers HTTP %d %.80q", status, body)
			}
			if !tt.on && status != http.StatusNotFound {
				t.Errorf("IDE off: /ide answers HTTP %d, want 404", status)
			}
			// Its files come from the binary, and go with it.
			if status, _ := get("/ide/assets/vendor/graphiql/graphiql.min.js", ""); tt.on != (status == 200) || (!tt.on && status != http.StatusNotFound) {
				t.Errorf("IDE on: %v; GraphiQL answers HTTP %d", tt.on, status)
			}
			for _, q := range []string{
				`{ __schema { queryType { name } } }`,
				`query IntrospectionQuery { __type(name: "Case") { name } }`,
				`{ ...F } fragment F on Query { ... on Query { __type(name: "Case") { name } } }`,
			} {
				status, body := get("/graphql?query="+urlQuery(q), "application/graphql-response+json")
				if tt.on && (status != 200 || strings.Contains(body, `"errors"`)) {
					t.Errorf("introspection on: %s: HTTP %d %s", q, status, body)
				}
				if !tt.on && (status != 400 || !strings.Contains(body, `"INTROSPECTION_DISABLED"`) || strings.Contains(body, `"data"`)) {
					t.Errorf("introspection off: %s: HTTP %d %s, want 400 INTROSPECTION_DISABLED without data", q, status, body)
				}
			}
			if status, body := get("/graphql?query="+urlQuery(`{ __typename }`), ""); status != 200 || body != `{"data":{"__typename":"Query"}}` {
				t.Errorf("__typename: HTTP %d %s", status, body)
			}
		})
	}
}
