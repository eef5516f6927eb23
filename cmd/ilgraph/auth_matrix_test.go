package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/token"
)

// An operation of the matrix: one request, the door whose error format it
// answers in, and the role it needs beyond the mode's (RoleNone: a read).
type operation struct {
	door   string // graphql, json, mcp, plain
	method string
	path   string
	body   string
	need   ilgraph.Role
	// open: served to anyone even on a private server (the explorer's
	// page and files, which hold no data, and signing in).
	open bool
	// make, when set, makes the request (path, body, extra headers) when
	// it is sent: a write's request depends on the graph as it is then
	// (auth_matrix_writes_test.go).
	make func() (path, body string, header http.Header)
}

// graphqlOps are the GraphQL operations, one per root field of Query (and
// Mutation), keyed as admission.Classes keys them.
var graphqlOps = map[string]string{
	"Query.case":               `{ case(id: "IL-0384") { id title { en } } }`,
	"Query.cases":              `{ cases(first: 3) { totalCount nodes { id } } }`,
	"Query.sharedWith":         `{ sharedWith(caseId: "IL-0384", kind: ROOT_CAUSE) { totalCount } }`,
	"Query.sameRootCause":      `{ sameRootCause(caseId: "IL-0384", first: 2) { nodes { reason } } }`,
	"Query.vocabulary":         `{ vocabulary(kind: COMPONENT) { id } }`,
	"Query.term":               `{ term(kind: COMPONENT, id: "message-broker") { id } }`,
	"Query.neighbourhood":      `{ neighbourhood(node: {kind: CASE, id: "IL-0384"}) { truncated nodes { id } } }`,
	"Query.cooccurrence":       `{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { nodes { key } } }`,
	"Query.connections":        `{ connections(from: "IL-0384", to: "IL-0282", limit: 3) { length } }`,
	"Query.stats":              `{ stats { cases } }`,
	"Query.breakdown":          `{ breakdown(rows: YEAR, columns: ROOT_CAUSE) { total } }`,
	"Query.similarCases":       `{ similarCases(caseId: "IL-0384", k: 2) { score } }`,
	"Query.similarToProfile":   `{ similarToProfile(profile: {components: ["message-broker"]}) { matches { score } } }`,
	"Query.explainSimilarity":  `{ explainSimilarity(a: "IL-0384", b: "IL-0282") { score } }`,
	"Query.similarityDefaults": `{ similarityDefaults { rarity } }`,
	"Query.suggestCutoffs":     `{ suggestCutoffs { kind min max } }`,
	"Query.suggest":            `{ suggest(text: "the message broker disk filled up") { lang } }`,
	"Query.similarToText":      `{ similarToText(text: "consumer lag after the broker disk filled", k: 2) { match { matches { score } } } }`,
	"Query.caseHistory":        `{ caseHistory(id: "IL-9398") { version action by } }`,
	"Query.similarJudgments":   `{ similarJudgments(caseId: "IL-0384") { judgments { judge grade } hidden { by } } }`,
	"introspection":            `{ __schema { queryType { name } } }`,
	// The review of machine-tagged cases (Mutation.reviewCase: auth_matrix_writes_test.go).
	"Query.reviewQueue": `{ reviewQueue(first: 2) { totalCount nodes { case { id } suggested { kind confidence } } } }`,
}

// jsonOps are the JSON API's routes, keyed as admission.Classes keys them,
// and /openapi.json.
var jsonOps = map[string]string{
	"GET /cases/{id}":                 "/cases/IL-0384",
	"GET /cases/{id}/similar":         "/cases/IL-0384/similar?k=2",
	"GET /cases/{id}/same-root-cause": "/cases/IL-0384/same-root-cause?limit=2",
	"GET /cases":                      "/cases?limit=2",
	"GET /topics/{kind}/{id}":         "/topics/component/message-broker?limit=2",
	"GET /vocab":                      "/vocab",
	"GET /suggest":                    "/suggest?q=consumer+lag+after+broker+disk+filled",
	"GET /cases/{id}/history":         "/cases/IL-9398/history",
	"GET /cases/{id}/judgments":       "/cases/IL-0384/judgments",
	"GET /openapi.json":               "/openapi.json",
	"GET /review-queue":               "/review-queue?limit=2",
}

// mcpOps are the MCP tools' arguments.
var mcpOps = map[string]map[string]any{
	"search_incidents":    {"query": "broker", "limit": 2},
	"get_incident":        {"id": "IL-0384"},
	"list_incidents":      {"limit": 2},
	"get_topic":           {"kind": "component", "id": "message-broker", "limit": 2},
	"vocab":               {},
	"similar_incidents":   {"id": "IL-0384", "k": 2},
	"match_incident":      {"components": []string{"message-broker"}, "k": 2},
	"suggest_terms":       {"text": "the message broker disk filled up"},
	"same_root_cause":     {"id": "IL-0384", "limit": 2},
	"graph_neighbourhood": {"kind": "case", "id": "IL-0384"},
}

// openOps are the routes open even on a private server: the explorer's
// page and files (what it shows comes from the API) and signing in.
var openOps = map[string]string{
	"explorer":       "/",
	"explorer page":  "/case/IL-0384",
	"explorer asset": "/assets/app/main.js",
	"session":        "/auth/session",
}

// otherOps are the other routes no door's table lists: the IDE and its
// assets, and /metrics.
var otherOps = map[string]string{
	"ide":       "/ide",
	"ide asset": "/ide/assets/vendor/graphiql/graphiql.min.js",
	"metrics":   "/metrics",
}

func gqlBody(q string) string {
	b, _ := json.Marshal(map[string]string{"query": q})
	return string(b)
}

func toolBody(name string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	return string(b)
}

// matrixOps builds every operation, and fails the test for a key of the
// doors' tables — admission.Classes (every GraphQL root field, JSON API
// route and MCP tool), the OpenAPI document's paths, the tools the MCP door
// lists and the root fields GraphQL introspection lists — that has no
// operation above: a new route, field or tool cannot be left out.
func matrixOps(t *testing.T, tools, fields []string, writes map[string]operation) map[string]operation {
	ops := map[string]operation{}
	for key := range admission.Classes {
		if op, ok := writes[key]; ok {
			ops[key] = op
			continue
		}
		switch {
		case strings.HasPrefix(key, "Query.") || strings.HasPrefix(key, "Mutation."):
			q, ok := graphqlOps[key]
			if !ok {
				t.Errorf("no matrix operation for GraphQL field %s", key)
				continue
			}
			need := ilgraph.RoleNone
			if strings.HasPrefix(key, "Mutation.") {
				need = ilgraph.RoleEditor
			}
			ops[key] = operation{door: "graphql", method: "POST", path: "/graphql", body: gqlBody(q), need: need}
		case strings.HasPrefix(key, "mcp "):
			name := strings.TrimPrefix(key, "mcp ")
			args, ok := mcpOps[name]
			if !ok {
				t.Errorf("no matrix operation for MCP tool %s", name)
				continue
			}
			ops[key] = operation{door: "mcp", method: "POST", path: "/mcp", body: toolBody(name, args)}
		case strings.Contains(key, " /"):
			p, ok := jsonOps[key]
			if !ok {
				t.Errorf("no matrix operation for JSON API route %s", key)
				continue
			}
			method, _, _ := strings.Cut(key, " ")
			ops[key] = operation{door: "json", method: method, path: p}
		}
	}
	ops["introspection"] = operation{door: "graphql", method: "POST", path: "/graphql", body: gqlBody(graphqlOps["introspection"])}
	ops["GET /openapi.json"] = operation{door: "json", method: "GET", path: "/openapi.json"}
	for name, p := range otherOps {
		ops[name] = operation{door: "plain", method: "GET", path: p}
	}
	for name, p := range openOps {
		ops[name] = operation{door: "plain", method: "GET", path: p, open: true}
	}
	var doc struct{ Paths map[string]any }
	if err := json.Unmarshal(jsonapi.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	for p, item := range doc.Paths {
		methods, _ := item.(map[string]any)
		for m := range methods {
			if _, ok := ops[strings.ToUpper(m)+" "+p]; !ok {
				t.Errorf("no matrix operation for the OpenAPI operation %s %s", strings.ToUpper(m), p)
			}
		}
	}
	for _, name := range tools {
		if _, ok := ops["mcp "+name]; !ok {
			t.Errorf("no matrix operation for the tool %s that /mcp lists", name)
		}
	}
	for _, f := range fields {
		if _, ok := ops[f]; !ok {
			t.Errorf("no matrix operation for the root field %s that introspection lists", f)
		}
	}
	return ops
}

// credential is one column of the matrix.
type credential struct {
	name  string
	token string
	role  ilgraph.Role // RoleNone: anonymous or not valid
	valid bool         // false: a token that is not valid
}

type answer struct {
	status    int
	challenge string
	body      string
}

func send(t *testing.T, base string, op operation, tok string) answer {
	t.Helper()
	var header http.Header
	if op.make != nil {
		op.path, op.body, header = op.make()
	}
	var body io.Reader
	if op.body != "" {
		body = strings.NewReader(op.body)
	}
	req, _ := http.NewRequest(op.method, base+op.path, body)
	if op.body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}
}

// refusedCode is the error code an answer carries in its door's format
// ("" when it carries none or the format is not the door's).
func refusedCode(door, body string) string {
	switch door {
	case "graphql":
		var e struct {
			Errors []struct{ Extensions struct{ Code string } }
		}
		if json.Unmarshal([]byte(body), &e) == nil && len(e.Errors) > 0 {
			return e.Errors[0].Extensions.Code
		}
	case "json", "mcp":
		var e struct{ Error struct{ Code string } }
		if json.Unmarshal([]byte(body), &e) == nil {
			return e.Error.Code
		}
	case "plain":
		return "plain"
	}
	return ""
}

// succeeded reports whether an answer is its operation's success.
func succeeded(op operation, a answer) bool {
	if a.status != 200 && !(op.make != nil && a.status == 201) { // a create answers 201
		return false
	}
	switch op.door {
	case "graphql":
		return !strings.Contains(a.body, `"errors"`) && strings.Contains(a.body, `"data"`)
	case "mcp":
		return strings.Contains(a.body, `"result"`) && !strings.Contains(a.body, `"isError":true`)
	}
	return true
}

// TestAuthMatrix runs every operation of every door × no token, an expired
// token, a revoked one and a token of each role × public and private mode,
// against ilgraph serve's own wiring (newAPI over the seeds in Neo4j), and
// checks each status, challenge and error format, that a private server
// tells an anonymous caller nothing of whether a case exists, that the
// probes stay open, and that the graph is unchanged.
func TestAuthMatrix(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	// Last use written once, before the graph's checksum is taken.
	tokens := token.New(db, token.Options{LastUseResolution: time.Hour, Logger: quietLogger()})
	creds := []credential{{name: "no token"}}
	for _, r := range ilgraph.Roles {
		tok, _, err := tokens.CreateToken(ctx, "matrix-"+r.String(), r, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tokens.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		creds = append(creds, credential{name: r.String(), token: tok, role: r, valid: true})
	}
	expired, _, err := tokens.CreateToken(ctx, "matrix-expired", ilgraph.RoleAdmin, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	revoked, _, err := tokens.CreateToken(ctx, "matrix-revoked", ilgraph.RoleAdmin, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tokens.RevokeToken(ctx, "matrix-revoked"); err != nil {
		t.Fatal(err)
	}
	creds = append(creds, credential{name: "expired", token: expired}, credential{name: "revoked", token: revoked},
		credential{name: "malformed", token: "not-a-token"})
	sim := newInMemory(db, true)
	mw := &matrixWrites{t: t, db: db}
	mw.setUp(coreOver(db, sim))
	before, err := graph.NewBench(db).Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writes := false // whether any operation writes

	for _, private := range []bool{false, true} {
		mode := map[bool]string{false: "public", true: "private"}[private]
		args := []string{"--auth-failures", "0"}
		if private {
			args = append(args, "--private")
		}
		f, err := parseServeFlags(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(newAPI(coreOver(db, sim, f.coreOptions(tokens)...), db, tokens, f, quietLogger()))
		admin := creds[len(ilgraph.Roles)].token
		ops := matrixOps(t, listTools(t, srv.URL, admin), rootFields(t, srv.URL, admin), mw.operations())
		names := make([]string, 0, len(ops))
		for n := range ops {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) < 40 {
			t.Fatalf("only %d operations: %v", len(names), names)
		}
		for _, name := range names {
			op := ops[name]
			writes = writes || op.need > ilgraph.RoleNone
			need := op.need
			if private && !op.open {
				need = max(need, ilgraph.RoleViewer)
			}
			// The refused columns first: for a write, the graph is then
			// checked unchanged before any column may change it.
			cols := slices.Clone(creds)
			slices.SortStableFunc(cols, func(a, b credential) int {
				return boolInt(a.valid && a.role >= need) - boolInt(b.valid && b.role >= need)
			})
			for i, c := range cols {
				if op.need > ilgraph.RoleNone && c.valid && c.role >= need && (i == 0 || !cols[i-1].valid || cols[i-1].role < need) {
					if sum, err := graph.NewBench(db).Checksum(ctx); err != nil || sum != before {
						t.Errorf("%s %s: the graph changed under refused requests (%v)", mode, name, err)
					}
				}
				a := send(t, srv.URL, op, c.token)
				where := mode + " " + name + " with " + c.name
				switch {
				case c.token != "" && !c.valid:
					if a.status != 401 || a.challenge != `Bearer realm="ilgraph", error="invalid_token"` || refusedCode(op.door, a.body) != "UNAUTHORIZED" && op.door != "plain" {
						t.Errorf("%s: %d %q %.200s; want 401, invalid_token, UNAUTHORIZED", where, a.status, a.challenge, a.body)
					}
				case need > ilgraph.RoleNone && c.role == ilgraph.RoleNone:
					if a.status != 401 || a.challenge != `Bearer realm="ilgraph"` || refusedCode(op.door, a.body) != "UNAUTHORIZED" && op.door != "plain" {
						t.Errorf("%s: %d %q %.200s; want 401 with a challenge", where, a.status, a.challenge, a.body)
					}
				case c.role < need:
					if !strings.Contains(a.body, "FORBIDDEN") || !strings.Contains(a.body, need.String()+" role") {
						t.Errorf("%s: %d %.200s; want FORBIDDEN naming %s", where, a.status, a.body, need)
					}
				default:
					if !succeeded(op, a) {
						t.Errorf("%s: %d %.300s; want success", where, a.status, a.body)
					}
				}
			}
			if op.need > ilgraph.RoleNone {
				// The next write's refusals are checked against the graph
				// as this one's successes left it.
				if before, err = graph.NewBench(db).Checksum(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}

		t.Run(mode+": probes stay open and say nothing of the data", func(t *testing.T) {
			for _, p := range []string{"/healthz", "/readyz"} {
				for _, c := range creds {
					a := send(t, srv.URL, operation{method: "GET", path: p}, c.token)
					if a.status != 200 || (a.body != "ok\n" && a.body != "ready\n") {
						t.Errorf("%s with %s: %d %q", p, c.name, a.status, a.body)
					}
				}
			}
		})
		if private {
			t.Run("private: whether a case exists is not told to anonymous callers", func(t *testing.T) {
				for _, pair := range [][2]operation{
					{{method: "GET", path: "/cases/IL-0384"}, {method: "GET", path: "/cases/IL-9999"}},
					{{method: "GET", path: "/cases/IL-0384/similar"}, {method: "GET", path: "/cases/IL-9999/similar"}},
					{{method: "POST", path: "/graphql", body: gqlBody(`{ case(id: "IL-0384") { id } }`)}, {method: "POST", path: "/graphql", body: gqlBody(`{ case(id: "IL-9999") { id } }`)}},
					{{method: "POST", path: "/mcp", body: toolBody("get_incident", map[string]any{"id": "IL-0384"})}, {method: "POST", path: "/mcp", body: toolBody("get_incident", map[string]any{"id": "IL-9999"})}},
				} {
					a, b := send(t, srv.URL, pair[0], ""), send(t, srv.URL, pair[1], "")
					if a != b || a.status != 401 {
						t.Errorf("%s and %s differ or answer: %+v / %+v", pair[0].path, pair[1].path, a, b)
					}
				}
				// The explorer's page is open, and the same for any case.
				if a, b := send(t, srv.URL, operation{method: "GET", path: "/case/IL-0384"}, ""), send(t, srv.URL, operation{method: "GET", path: "/case/IL-9999"}, ""); a != b || a.status != 200 {
					t.Errorf("the explorer's case pages differ or are not open: %d / %d", a.status, b.status)
				}
			})
		}
		srv.Close()
	}
	// When every operation reads, nothing may have changed; a write's
	// successes change the graph (its own tests check what they do), and
	// the matrix checked it unchanged after each write's refusals.
	after, err := graph.NewBench(db).Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before != after && !writes {
		t.Error("the graph changed")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// listTools asks /mcp for its tools.
func listTools(t *testing.T, base, tok string) []string {
	a := send(t, base, operation{method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, tok)
	var r struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal([]byte(a.body), &r); err != nil || len(r.Result.Tools) == 0 {
		t.Fatalf("tools/list: %d %s", a.status, a.body)
	}
	var names []string
	for _, x := range r.Result.Tools {
		names = append(names, x.Name)
	}
	return names
}

// rootFields asks GraphQL introspection for Query's and Mutation's fields,
// as admission.Classes keys them.
func rootFields(t *testing.T, base, tok string) []string {
	a := send(t, base, operation{method: "POST", path: "/graphql", body: gqlBody(`{ q: __type(name: "Query") { fields { name } } m: __type(name: "Mutation") { fields { name } } }`)}, tok)
	var r struct {
		Data struct {
			Q, M *struct{ Fields []struct{ Name string } }
		}
	}
	if err := json.Unmarshal([]byte(a.body), &r); err != nil || r.Data.Q == nil {
		t.Fatalf("introspection: %d %s", a.status, a.body)
	}
	var out []string
	for _, f := range r.Data.Q.Fields {
		out = append(out, "Query."+f.Name)
	}
	if r.Data.M != nil {
		for _, f := range r.Data.M.Fields {
			out = append(out, "Mutation."+f.Name)
		}
	}
	return slices.Compact(out)
}
