package jsonapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/suggest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(jsonapi.OpenAPI)
	if err != nil {
		t.Fatalf("loading openapi.json: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadDoc(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	// Every path the handler serves is documented.
	for _, p := range []string{"/cases", "/cases/{id}", "/cases/{id}/history", "/cases/{id}/restore", "/cases/{id}/similar", "/cases/{id}/same-root-cause", "/topics/{kind}/{id}", "/vocab", "/openapi.json"} {
		if doc.Paths.Find(p) == nil {
			t.Errorf("%s is not in openapi.json", p)
		}
	}
}

// server is the JSON API mounted beside GraphQL as ilgraph serve mounts it,
// over the seed corpus, with every answer checked against openapi.json.
type server struct {
	t      *testing.T
	url    string
	core   *explore.Service
	router routers.Router
	seeds  string
}

func mustServer(t *testing.T) *server {
	t.Helper()
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	if _, err := loader.Load(context.Background(), db, []string{seeds}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	core := apitest.Core(db)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quiet()})
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()},
		Shell: httpapi.Options{Routes: apitest.JSONAPI(nil, api), CORSOrigins: []string{"https://tools.example"}}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	router := routerFor(t, srv.URL)
	return &server{t: t, url: srv.URL, core: core, router: router, seeds: seeds}
}

// routerFor finds the operations of openapi.json in requests to the server
// at base.
func routerFor(t *testing.T, base string) routers.Router {
	t.Helper()
	doc := loadDoc(t)
	// The document's server URL is relative ("/"): OpenAPI resolves it
	// against the document's own URL, which kin-openapi's router does not
	// do, so resolve it here to the server that serves the document.
	for _, sv := range doc.Servers {
		u, err := url.Parse(base + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		ref, err := url.Parse(sv.URL)
		if err != nil {
			t.Fatalf("server URL %q: %v", sv.URL, err)
		}
		sv.URL = strings.TrimSuffix(u.ResolveReference(ref).String(), "/")
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// get sends a request and validates the response against openapi.json.
func (s *server) do(method, path string, header http.Header, body io.Reader) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, body: raw}
	if resp.StatusCode >= 500 && resp.StatusCode != 503 && resp.StatusCode != 504 {
		s.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	s.validate(req, r)
	return r
}

func (s *server) get(path string) response {
	s.t.Helper()
	return s.do("GET", path, nil, nil)
}

// validate checks a response against the operation's documented responses;
// a path the document lacks must answer with the error shape.
func (s *server) validate(req *http.Request, r response) {
	s.t.Helper()
	route, params, err := s.router.FindRoute(req)
	if req.Method == "HEAD" {
		return
	}
	if err != nil {
		// Not an operation of the API (unknown path, wrong method): the
		// answer must still be the documented error.
		var e struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal(r.body, &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
			s.t.Fatalf("%s %s: %d, body is not the error shape: %s", req.Method, req.URL, r.status, r.body)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Body:                   io.NopCloser(bytes.NewReader(r.body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		s.t.Fatalf("%s %s: %d response does not match openapi.json: %v\n%s", req.Method, req.URL, r.status, err, clip(r.body))
	}
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", clip(r.body), err)
	}
	return v
}

// gql runs a GraphQL query on the same server.
func (s *server) gql(query string, out any) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	resp, err := http.Post(s.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data   json.RawMessage
		Errors []any
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || len(env.Errors) > 0 {
		s.t.Fatalf("graphql %s: %v %v", query, err, env.Errors)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		s.t.Fatal(err)
	}
}

type errorBody struct {
	Error struct{ Code, Message string }
}

type summary struct {
	ID        string `json:"id"`
	URL       string `json:"url"`
	RootCause string `json:"root_cause"`
	Date      string `json:"date"`
}

type casePage struct {
	Total      int       `json:"total"`
	Cases      []summary `json:"cases"`
	NextCursor string    `json:"next_cursor"`
	WordForms  []struct {
		Word  string   `json:"word"`
		Forms []string `json:"forms"`
	} `json:"word_forms"`
}

func TestCaseIsTheJSONAsLoaded(t *testing.T) {
	s := mustServer(t)
	r := s.get("/cases/IL-0282")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	raws, err := s.core.RawJSON(context.Background(), []string{"IL-0282"})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.body) != raws[0] {
		t.Fatalf("body is not the stored JSON byte for byte:\n%s\n%s", clip(r.body), clip([]byte(raws[0])))
	}
	// …which is the file's JSON.
	file, err := os.ReadFile(filepath.Join(s.seeds, "cases", "IL-0282.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal(file, &a)
	json.Unmarshal(r.body, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the case's JSON differs from its file")
	}
	// ETag and 304.
	etag := r.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		r2 := s.do("GET", "/cases/IL-0282", http.Header{"If-None-Match": {inm}}, nil)
		if r2.status != http.StatusNotModified || len(r2.body) != 0 || r2.header.Get("ETag") != etag {
			t.Fatalf("If-None-Match %s: %d %q", inm, r2.status, r2.body)
		}
	}
	if r2 := s.do("GET", "/cases/IL-0282", http.Header{"If-None-Match": {`"stale"`}}, nil); r2.status != 200 {
		t.Fatalf("stale ETag: %d", r2.status)
	}
	// The ETag is the case's version, as GraphQL reads it.
	var v struct{ Case struct{ Version int } }
	s.gql(`{ case(id: "IL-0282") { version } }`, &v)
	if want := fmt.Sprintf("%q", fmt.Sprint(v.Case.Version)); v.Case.Version < 1 || etag != want {
		t.Fatalf("ETag %s, want the version %s", etag, want)
	}
	// HEAD works too.
	if r := s.do("HEAD", "/cases/IL-0282", nil, nil); r.status != 200 || r.header.Get("ETag") != etag {
		t.Fatalf("HEAD: %d", r.status)
	}
}

func TestSimilarIsTheGraphQLAnswer(t *testing.T) {
	s := mustServer(t)
	for _, q := range []struct{ rest, args string }{
		{"", "k: 10"},
		{"?k=5&weights=root_cause=3,component=1.5&rarity=true", "k: 5, weights: {rootCause: 3, component: 1.5}, rarity: true"},
		{"?k=20&min_score=0.2&weights=" + url.QueryEscape("domain=0,org=0"), "k: 20, minScore: 0.2, weights: {domain: 0, org: 0}"},
	} {
		r := s.get("/cases/IL-0282/similar" + q.rest)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", q.rest, r.status, r.body)
		}
		got := decode[struct {
			CaseID  string `json:"case_id"`
			Matches []struct {
				Case   summary
				Score  float64
				Shared []struct {
					Kind, ID, Label string
					Contribution    float64
				}
			}
		}](t, r)
		var want struct {
			SimilarCases []struct {
				Case   struct{ ID string }
				Score  float64
				Shared []struct {
					Kind         string
					Term         struct{ ID, En string }
					Contribution float64
				}
			}
		}
		s.gql(`{ similarCases(caseId: "IL-0282", `+q.args+`) { case { id } score shared { kind term { id en } contribution } } }`, &want)
		if got.CaseID != "IL-0282" || len(got.Matches) != len(want.SimilarCases) || len(got.Matches) == 0 {
			t.Fatalf("%s: %d matches, GraphQL %d", q.rest, len(got.Matches), len(want.SimilarCases))
		}
		for i, m := range got.Matches {
			w := want.SimilarCases[i]
			// The text channel's share has no GraphQL feature to compare with
			// (TestSimilarSharesAddUpToTheScoreAndAreGraphQLs checks it).
			m.Shared = slices.DeleteFunc(m.Shared, func(f struct {
				Kind, ID, Label string
				Contribution    float64
			}) bool {
				return f.Kind == string(ilgraph.WeightText)
			})
			if m.Case.ID != w.Case.ID || m.Score != w.Score || len(m.Shared) != len(w.Shared) {
				t.Fatalf("%s: match %d is %s %v, GraphQL %s %v", q.rest, i, m.Case.ID, m.Score, w.Case.ID, w.Score)
			}
			for j, f := range m.Shared {
				wf := w.Shared[j]
				if f.ID != wf.Term.ID || f.Label != wf.Term.En || f.Contribution != wf.Contribution || strings.ToUpper(f.Kind) != wf.Kind {
					t.Fatalf("%s: match %d feature %d: %+v, GraphQL %+v", q.rest, i, j, f, wf)
				}
			}
		}
	}
}

func TestCaseListIsTheGraphQLAnswer(t *testing.T) {
	s := mustServer(t)
	for _, q := range []struct{ rest, filter string }{
		{"?root_cause=capacity", `filter: {rootCauses: ["capacity"]}`},
		{"?domain=database&domain=aws&sort=date_asc", `filter: {domains: {allOf: ["database", "aws"]}}, sort: DATE_ASC`},
		{"?component=application-database,cloud-load-balancer", `filter: {components: {allOf: ["application-database", "cloud-load-balancer"]}}`},
		{"?q=DynamoDB&sort=relevance", `filter: {text: "DynamoDB"}, sort: RELEVANCE`},
		{"?q=certificate+expired", `filter: {text: "certificate expired"}`},
		{"?from=2020-01-01&to=2024-12-31&org=amazon-web-services,google-cloud", `filter: {dateFrom: "2020-01-01", dateTo: "2024-12-31", orgs: ["amazon-web-services", "google-cloud"]}`},
		{"?limit=100&sort=id_desc", `sort: ID_DESC, first: 100`},
	} {
		got := decode[casePage](t, s.get("/cases"+q.rest))
		var want struct {
			Cases struct {
				TotalCount int
				Nodes      []struct{ ID string }
				WordForms  []struct {
					Word  string
					Forms []string
				}
			}
		}
		s.gql(`{ cases(`+q.filter+`) { totalCount nodes { id } wordForms { word forms } } }`, &want)
		if g, w := fmt.Sprint(got.WordForms), fmt.Sprint(want.Cases.WordForms); g != w || strings.Contains(q.rest, "certificate") && !strings.Contains(g, "certificates") {
			t.Errorf("%s: word_forms %s, GraphQL wordForms %s", q.rest, g, w)
		}
		if got.Total != want.Cases.TotalCount || len(got.Cases) != len(want.Cases.Nodes) {
			t.Fatalf("%s: %d cases of %d, GraphQL %d of %d", q.rest, len(got.Cases), got.Total, len(want.Cases.Nodes), want.Cases.TotalCount)
		}
		for i, c := range got.Cases {
			if c.ID != want.Cases.Nodes[i].ID || c.URL != "/cases/"+c.ID {
				t.Fatalf("%s: case %d is %s, GraphQL %s", q.rest, i, c.ID, want.Cases.Nodes[i].ID)
			}
		}
	}
	// Following next_cursor visits every case once.
	seen := map[string]bool{}
	path, total := "/cases?limit=7&sort=id_asc", -1
	for pages := 0; path != ""; pages++ {
		p := decode[casePage](t, s.get(path))
		total = p.Total
		for _, c := range p.Cases {
			if seen[c.ID] {
				t.Fatalf("%s listed twice", c.ID)
			}
			seen[c.ID] = true
		}
		path = ""
		if p.NextCursor != "" {
			path = "/cases?limit=7&sort=id_asc&cursor=" + url.QueryEscape(p.NextCursor)
		}
		if pages > 1000 {
			t.Fatal("pagination does not end")
		}
	}
	var all struct{ Cases struct{ TotalCount int } }
	s.gql(`{ cases { totalCount } }`, &all)
	if len(seen) != total || total != all.Cases.TotalCount || total == 0 {
		t.Fatalf("visited %d of %d cases, GraphQL counts %d", len(seen), total, all.Cases.TotalCount)
	}
}

func TestTopicIsTheGraphQLAnswer(t *testing.T) {
	s := mustServer(t)
	got := decode[struct {
		Term struct {
			Kind, ID, En string
			Cases        int
		}
		Cooccurring map[string][]struct {
			ID    string
			Label string
			Count int
		}
		Cases      []summary
		NextCursor string `json:"next_cursor"`
	}](t, s.get("/topics/root_cause/capacity?limit=5"))
	var want struct {
		Term struct {
			En          string
			CaseCount   int
			Cooccurring []struct {
				Term  struct{ ID, En string }
				Count int
			}
			Cases struct{ Nodes []struct{ ID string } }
		}
	}
	s.gql(`{ term(kind: ROOT_CAUSE, id: "capacity") { en caseCount cooccurring(kind: COMPONENT) { term { id en } count } cases(first: 5) { nodes { id } } } }`, &want)
	if got.Term.ID != "capacity" || got.Term.Kind != "root_cause" || got.Term.En != want.Term.En || got.Term.Cases != want.Term.CaseCount || got.Term.Cases == 0 {
		t.Fatalf("term %+v, GraphQL %+v", got.Term, want.Term)
	}
	comps := got.Cooccurring["component"]
	if len(comps) != len(want.Term.Cooccurring) || len(comps) == 0 {
		t.Fatalf("%d co-occurring components, GraphQL %d", len(comps), len(want.Term.Cooccurring))
	}
	for i, c := range comps {
		w := want.Term.Cooccurring[i]
		if c.ID != w.Term.ID || c.Label != w.Term.En || c.Count != w.Count {
			t.Fatalf("co-occurring %d: %+v, GraphQL %+v", i, c, w)
		}
	}
	for i, c := range got.Cases {
		if c.ID != want.Term.Cases.Nodes[i].ID || c.RootCause != "capacity" {
			t.Fatalf("case %d: %s, GraphQL %s", i, c.ID, want.Term.Cases.Nodes[i].ID)
		}
	}
	for _, k := range []string{"root_cause", "component", "symptom", "contributing", "domain", "org"} {
		if _, ok := got.Cooccurring[k]; !ok {
			t.Errorf("no co-occurring %s", k)
		}
	}
	// The topic's next page is the case list's.
	next := decode[casePage](t, s.get("/cases?root_cause=capacity&cursor="+url.QueryEscape(got.NextCursor)))
	if len(next.Cases) == 0 || next.Cases[0].ID == got.Cases[4].ID {
		t.Fatalf("next page %+v", next.Cases)
	}
	// Organizations are topics too; kinds are read loosely.
	if r := s.get("/topics/ORG/amazon-web-services"); r.status != 200 {
		t.Fatalf("org topic: %d %s", r.status, r.body)
	}
	if r := s.get("/topics/root-cause/capacity?limit=0&cooccurring=0"); r.status != 200 {
		t.Fatalf("root-cause: %d %s", r.status, r.body)
	}
}

func TestVocabIsTheGraphQLAnswer(t *testing.T) {
	s := mustServer(t)
	r := s.get("/vocab")
	got := decode[struct {
		Kinds map[string][]struct {
			ID, En string
			Cases  int
		}
	}](t, r)
	var want struct {
		Vocabulary []struct {
			Kind, ID, En string
			CaseCount    int
		}
	}
	s.gql(`{ vocabulary { kind id en caseCount } }`, &want)
	n := 0
	for _, w := range want.Vocabulary {
		ts := got.Kinds[strings.ToLower(w.Kind)]
		found := false
		for _, t := range ts {
			if t.ID == w.ID {
				found = t.En == w.En && t.Cases == w.CaseCount
			}
		}
		if !found {
			t.Fatalf("%s %s (%d cases) not in /vocab as GraphQL has it", w.Kind, w.ID, w.CaseCount)
		}
		n++
	}
	total := 0
	for _, ts := range got.Kinds {
		total += len(ts)
	}
	if total != n || n == 0 {
		t.Fatalf("/vocab has %d terms, GraphQL %d", total, n)
	}
	etag := r.header.Get("ETag")
	if r2 := s.do("GET", "/vocab", http.Header{"If-None-Match": {etag}}, nil); etag == "" || r2.status != 304 {
		t.Fatalf("vocab ETag %q: %d", etag, r2.status)
	}
	one := decode[struct{ Kinds map[string][]any }](t, s.get("/vocab?kind=symptom"))
	if len(one.Kinds) != 1 || len(one.Kinds["symptom"]) == 0 {
		t.Fatalf("kind=symptom: %v", one.Kinds)
	}
}

func TestSameRootCause(t *testing.T) {
	s := mustServer(t)
	got := decode[struct {
		Total int
		Cases []struct {
			Case   summary
			Reason string
		}
	}](t, s.get("/cases/IL-0282/same-root-cause?limit=3"))
	var want struct {
		SameRootCause struct {
			TotalCount int
			Nodes      []struct {
				Case   struct{ ID string }
				Reason string
			}
		}
	}
	s.gql(`{ sameRootCause(caseId: "IL-0282", first: 3) { totalCount nodes { case { id } reason } } }`, &want)
	if got.Total != want.SameRootCause.TotalCount || len(got.Cases) != 3 {
		t.Fatalf("%d of %d, GraphQL %d", len(got.Cases), got.Total, want.SameRootCause.TotalCount)
	}
	for i, c := range got.Cases {
		if c.Case.ID != want.SameRootCause.Nodes[i].Case.ID || c.Reason != want.SameRootCause.Nodes[i].Reason {
			t.Fatalf("%d: %+v", i, c)
		}
	}
}

func TestBadInput(t *testing.T) {
	s := mustServer(t)
	for _, tc := range []struct {
		path   string
		status int
		code   string
		says   string // the message names the parameter or the limit
	}{
		{"/cases/IL-9999", 404, "NOT_FOUND", "IL-9999"},
		{"/cases/" + strings.Repeat("x", 300), 404, "NOT_FOUND", "no case"},
		{"/cases/IL-9999/similar", 404, "NOT_FOUND", "IL-9999"},
		{"/cases/IL-9999/same-root-cause", 404, "NOT_FOUND", "IL-9999"},
		{"/topics/component/no-such-term", 404, "NOT_FOUND", "no-such-term"},
		{"/topics/planet/earth", 404, "NOT_FOUND", "planet"},
		{"/cases/IL-0282/similar/more", 404, "NOT_FOUND", "no such path"},
		{"/cases/IL-0282/similar?k=abc", 400, "INVALID", "k"},
		{"/cases/IL-0282/similar?k=0", 400, "LIMIT", "k must be from 1 to 100"},
		{"/cases/IL-0282/similar?k=1000", 400, "LIMIT", "k must be from 1 to 100"},
		{"/cases/IL-0282/similar?k=1&k=2", 400, "INVALID", "k: given 2 times"},
		{"/cases/IL-0282/similar?weights=root_cause=x", 400, "INVALID", "weights"},
		{"/cases/IL-0282/similar?weights=planet=1", 400, "INVALID", "weights"},
		{"/cases/IL-0282/similar?weights=root_cause=5000", 400, "INVALID", "weights"},
		{"/cases/IL-0282/similar?weights=root_cause=0,component=0,symptom=0,contributing=0,domain=0,mechanism=0,org=0,text=0", 400, "INVALID", "weights"},
		{"/cases/IL-0282/similar?rarity=maybe", 400, "INVALID", "rarity"},
		{"/cases/IL-0282/similar?min_score=2", 400, "INVALID", "min_score"},
		{"/cases/IL-0282/similar?min_score=NaN", 400, "INVALID", "min_score"},
		{"/cases/IL-0282/similar?kk=1", 400, "INVALID", `unknown parameter "kk"`},
		{"/cases/IL-0282?pretty=1", 400, "INVALID", `unknown parameter "pretty"`},
		{"/cases?limit=101", 400, "LIMIT", "limit must be from 0 to 100"},
		{"/cases?limit=-1", 400, "INVALID", "limit"},
		{"/cases?limit=1e3", 400, "INVALID", "limit"},
		{"/cases?cursor=bogus", 400, "INVALID", "cursor"},
		{"/cases?from=2020-13-01", 400, "INVALID", "from"},
		{"/cases?from=2021-01-01&to=2020-01-01", 400, "INVALID", "from"},
		{"/cases?sort=sideways", 400, "INVALID", "sort"},
		{"/cases?sort=relevance", 400, "INVALID", "q is needed to rank by relevance"},
		{"/cases?q=" + strings.Repeat("a", 501), 400, "LIMIT", "q is longer than 500 characters"},
		{"/cases?component=" + strings.Repeat("a,", 101), 400, "LIMIT", "component: at most 100 values"},
		{"/cases?q=%ff", 400, "INVALID", "q"},
		{"/cases?a=%zz", 400, "INVALID", "query string"},
		{"/cases?x=" + strings.Repeat("a", 132000), 400, "LIMIT", "query string"},
		{"/topics/component/message-broker?limit=500", 400, "LIMIT", "limit"},
		{"/topics/component/message-broker?cooccurring=x", 400, "INVALID", "cooccurring"},
		{"/vocab?kind=planet", 400, "INVALID", "kind"},
		{"/cases/IL-0282/same-root-cause?limit=1000", 400, "LIMIT", "limit"},
	} {
		r := s.get(tc.path)
		e := decode[errorBody](t, r)
		if r.status != tc.status || e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.says) {
			t.Errorf("%s: %d %s %q; want %d %s mentioning %q", clip([]byte(tc.path)), r.status, e.Error.Code, e.Error.Message, tc.status, tc.code, tc.says)
		}
	}
	// Hostile strings anywhere: never a 5xx, always a documented answer
	// (do checks both).
	for _, h := range []string{"%00", "..%2F..%2Fetc%2Fpasswd", "%F0%9F%92%A5", "'%20OR%201=1--", "%22%7D%7B", "MATCH%20(n)%20DETACH%20DELETE%20n",
		strings.Repeat("%E2%80%AE", 50), "IL-0282%0D%0AX-Injected:%201", "%5Cu0000"} {
		for _, path := range []string{"/cases/" + h, "/cases/" + h + "/similar", "/topics/component/" + h, "/topics/" + h + "/x",
			"/cases?q=" + h, "/cases?component=" + h + "&org=" + h, "/cases?cursor=" + h, "/cases/IL-0282/similar?weights=" + h, "/vocab?kind=" + h} {
			r := s.get(path)
			if r.status >= 500 || r.header.Get("X-Injected") != "" {
				t.Errorf("%s: %d", path, r.status)
			}
		}
	}
	// A label or alias is resolved to its id, with a warning; as in GraphQL.
	w := decode[struct {
		Total    int
		Warnings []struct{ Field, Value, Resolved, Message string }
	}](t, s.get("/cases?component=Kafka&root_cause=Capacity"))
	if w.Total == 0 || len(w.Warnings) != 2 || w.Warnings[0].Resolved == "" || w.Warnings[1].Resolved == "" {
		t.Fatalf("labels and aliases: %+v", w)
	}
	// Filters naming unknown terms simply match nothing, as in GraphQL.
	if p := decode[casePage](t, s.get("/cases?component=no-such-component")); p.Total != 0 || len(p.Cases) != 0 {
		t.Fatalf("unknown component: %+v", p)
	}
	// Methods a path does not answer; no large bodies.
	r := s.do("PATCH", "/cases", nil, strings.NewReader("{}"))
	if e := decode[errorBody](t, r); r.status != 405 || r.header.Get("Allow") != "GET, HEAD, POST" || e.Error.Code != "INVALID" {
		t.Fatalf("PATCH /cases: %d %s", r.status, r.body)
	}
	r = s.do("POST", "/vocab", nil, strings.NewReader("{}"))
	if e := decode[errorBody](t, r); r.status != 405 || r.header.Get("Allow") != "GET, HEAD" || e.Error.Code != "INVALID" {
		t.Fatalf("POST /vocab: %d %s", r.status, r.body)
	}
	r = s.do("GET", "/cases", nil, bytes.NewReader(make([]byte, 2<<20)))
	if e := decode[errorBody](t, r); r.status != 413 || e.Error.Code != "LIMIT" || !strings.Contains(e.Error.Message, "1048576") {
		t.Fatalf("large body: %d %s", r.status, r.body)
	}
}

func TestCORSFromTheSharedMiddleware(t *testing.T) {
	s := mustServer(t)
	r := s.do("GET", "/cases/IL-0282", http.Header{"Origin": {"https://tools.example"}}, nil)
	if r.header.Get("Access-Control-Allow-Origin") != "https://tools.example" || r.header.Get("X-Request-Id") == "" {
		t.Fatalf("allowed origin: %v", r.header)
	}
	if !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("ETag not exposed to scripts: %v", r.header)
	}
	req, _ := http.NewRequest("OPTIONS", s.url+"/mcp", nil)
	req.Header.Set("Origin", "https://tools.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,mcp-protocol-version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") {
		t.Fatalf("preflight for MCP: %d %v", resp.StatusCode, resp.Header)
	}
	r = s.do("GET", "/vocab", http.Header{"Origin": {"https://evil.example"}}, nil)
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS for an origin not allowed")
	}
}

func TestSuggestIsTheEngineOverTheSeeds(t *testing.T) {
	s := mustServer(t)
	v, probs := loader.ParseVocabulary(filepath.Join(s.seeds, "vocab.json"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	// The graph gives terms by id; ties between equally confident terms
	// break by vocabulary order, so the files' engine gets the same order.
	for _, ts := range v.Kinds {
		sort.Slice(ts, func(i, j int) bool { return ts[i].ID < ts[j].ID })
	}
	var cases []ilgraph.Case
	for _, c := range corpus.Cases(t, filepath.Join(s.seeds, "cases")) {
		cases = append(cases, *c)
	}
	eng, err := suggest.New(v, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed",
		"데이터베이스 연결이 고갈되어 지연 시간이 증가했고 오류율이 높아졌다",
		"certificate expired, TLS handshakes failed, nobody had the runbook",
	} {
		r := s.get("/suggest?limit=3&q=" + url.QueryEscape(text))
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		got := decode[struct {
			Lang  string
			Terms map[string][]struct {
				ID, Label  string
				Confidence float64
				Evidence   []struct{ Kind string }
			}
			Neighbours []struct {
				CaseID string `json:"case_id"`
			}
		}](t, r)
		want, err := eng.Suggest(text, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Lang != want.Lang || len(got.Neighbours) != len(want.Neighbours) {
			t.Fatalf("%q: lang %s, %d neighbours; the engine over the files: %s, %d", text, got.Lang, len(got.Neighbours), want.Lang, len(want.Neighbours))
		}
		n := 0
		for _, k := range ilgraph.VocabKinds {
			w := want.Top(k, 3, 0)
			g := got.Terms[string(k)]
			if len(g) != len(w) {
				t.Fatalf("%q %s: %d terms, the engine over the files %d", text, k, len(g), len(w))
			}
			for i := range g {
				if g[i].ID != w[i].ID || g[i].Confidence != w[i].Confidence || len(g[i].Evidence) != len(w[i].Evidence) || g[i].Label == "" {
					t.Fatalf("%q %s %d: %+v, the engine over the files %+v", text, k, i, g[i], w[i])
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%q: nothing suggested", text)
		}
		if len(got.Terms[string(ilgraph.KindMechanism)]) == 0 {
			t.Errorf("%q: no mechanism suggested; the engine over the files: %v", text, want.Top(ilgraph.KindMechanism, 3, 0))
		}
	}
	for _, bad := range []struct{ path, code, says string }{
		{"/suggest", "INVALID", "q"},
		{"/suggest?q=%20%20", "INVALID", "q"},
		{"/suggest?q=" + strings.Repeat("a", 10001), "LIMIT", "10000"},
		{"/suggest?q=x&lang=fr", "INVALID", "lang"},
		{"/suggest?q=x&limit=51", "LIMIT", "limit"},
		{"/suggest?q=x&min_confidence=2", "INVALID", "min_confidence"},
	} {
		r := s.get(bad.path)
		e := decode[errorBody](t, r)
		if r.status != 400 || e.Error.Code != bad.code || !strings.Contains(e.Error.Message, bad.says) {
			t.Errorf("%s: %d %+v", clip([]byte(bad.path)), r.status, e)
		}
	}
}
