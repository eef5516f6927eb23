package jsonapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/resolvers"
)

type revisionBody struct {
	ID           string
	Version      int64
	Action       string
	By           string
	RestoredFrom int64 `json:"restored_from"`
	Case         json.RawMessage
	Previous     json.RawMessage
}

type problemsBody struct {
	Error struct {
		Code, Message string
		Problems      []struct{ Field, Rule, Message string }
	}
}

// asEditor points s at the same API behind the test principal middleware,
// as an editor.
func asEditor(t *testing.T, s *server) *server {
	t.Helper()
	ed := *s
	ed.t = t
	api := jsonapi.NewHandler(s.core, jsonapi.Options{Logger: quiet()})
	h := apitest.New(s.core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()}, Shell: httpapi.Options{
		Routes:      apitest.JSONAPI(nil, api),
		Credentials: []httpapi.Credential{apitest.AsPrincipal(ilgraph.Principal{Name: "dana", Role: ilgraph.RoleEditor})}}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ed.url, ed.router = srv.URL, routerFor(t, srv.URL)
	return &ed
}

// TestCaseChanges creates, updates, deletes and restores a case through
// the JSON API, every answer checked against openapi.json: refused (401)
// without a principal; as an editor, the ETag of GET /cases/{id} is what
// If-Match sends back, a stale one is 409 and changes nothing, an invalid
// case is 400 with every problem naming its field, and the history lists
// every change.
func TestCaseChanges(t *testing.T) {
	s := mustServer(t)
	file, err := os.ReadFile(filepath.Join(s.seeds, "cases", "IL-0282.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(file, &c); err != nil {
		t.Fatal(err)
	}
	c["id"], c["related"], c["recurrence_of"] = "IL-9201", []any{}, ""
	v1, _ := json.Marshal(c)
	hdr := func(kv ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}

	t.Run("never open to anyone", func(t *testing.T) {
		for _, req := range []struct{ method, path, body string }{
			{"POST", "/cases", string(v1)},
			{"PUT", "/cases/IL-0282", string(file)},
			{"DELETE", "/cases/IL-0282", ""},
			{"POST", "/cases/IL-0282/restore", `{"from": 1}`},
		} {
			r := s.do(req.method, req.path, hdr("If-Match", `"1"`), strings.NewReader(req.body))
			if e := decode[errorBody](t, r); r.status != 401 || e.Error.Code != "UNAUTHORIZED" {
				t.Errorf("%s %s without a principal: %d %s", req.method, req.path, r.status, r.body)
			}
		}
		if r := s.get("/cases/IL-9201"); r.status != 404 {
			t.Errorf("an anonymous create wrote the case: %d", r.status)
		}
	})

	ed := asEditor(t, s)
	r := ed.do("POST", "/cases", hdr(), bytes.NewReader(v1))
	rev := decode[revisionBody](t, r)
	if r.status != 201 || rev.Version != 1 || rev.Action != "create" || rev.By != "dana" || r.header.Get("ETag") != `"1"` ||
		r.header.Get("Location") != "/cases/IL-9201" || string(rev.Previous) != "null" {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	got := ed.get("/cases/IL-9201")
	if got.status != 200 || got.header.Get("ETag") != `"1"` || compactOf(t, v1) != string(got.body) {
		t.Fatalf("GET after create: %d %s %s", got.status, got.header.Get("ETag"), clip(got.body))
	}
	if r := ed.do("POST", "/cases", hdr(), bytes.NewReader(v1)); r.status != 409 {
		t.Errorf("create of an existing id: %d", r.status)
	}

	c["title"].(map[string]any)["en"] = "Changed through the JSON API"
	v2, _ := json.Marshal(c)
	for _, tag := range []string{`"2"`, `"0"`, `W/"1"`, `1`, `*`} {
		r := ed.do("PUT", "/cases/IL-9201", hdr("If-Match", tag), bytes.NewReader(v2))
		want := 400
		if tag == `"2"` {
			want = 409
		}
		if r.status != want {
			t.Errorf("If-Match %s: %d %s, want %d", tag, r.status, r.body, want)
		}
	}
	if r := ed.do("PUT", "/cases/IL-9201", hdr(), bytes.NewReader(v2)); r.status != 400 || !strings.Contains(string(r.body), "If-Match") {
		t.Errorf("no If-Match: %d %s", r.status, r.body)
	}
	if after := ed.get("/cases/IL-9201"); string(after.body) != string(got.body) || after.header.Get("ETag") != `"1"` {
		t.Error("a refused update changed the case")
	}

	bad := map[string]any{}
	for k, v := range c {
		bad[k] = v
	}
	bad["org_slug"], bad["symptoms"], bad["sources"] = "Not A Slug", []any{"no-such-symptom"}, []any{map[string]any{"url": "ftp://x"}}
	vb, _ := json.Marshal(bad)
	r = ed.do("PUT", "/cases/IL-9201", hdr("If-Match", `"1"`), bytes.NewReader(vb))
	e := decode[problemsBody](t, r)
	var fields []string
	for _, p := range e.Error.Problems {
		fields = append(fields, p.Field)
	}
	slices.Sort(fields)
	if r.status != 400 || e.Error.Code != "INVALID" || !slices.Equal(fields, []string{"org_slug", "sources[0].url", "symptoms[0]"}) {
		t.Errorf("invalid case: %d, problems name %q: %s", r.status, fields, r.body)
	}

	r = ed.do("PUT", "/cases/IL-9201", hdr("If-Match", `"1"`), bytes.NewReader(v2))
	if rev := decode[revisionBody](t, r); r.status != 200 || rev.Version != 2 || r.header.Get("ETag") != `"2"` || string(rev.Previous) != compactOf(t, v1) {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	var gq struct {
		Case struct{ Title struct{ En string } }
	}
	s.gql(`{ case(id: "IL-9201") { title { en } } }`, &gq)
	if gq.Case.Title.En != "Changed through the JSON API" {
		t.Errorf("GraphQL reads the title %q after the update", gq.Case.Title.En)
	}
	if r := ed.do("PUT", "/cases/IL-9299", hdr("If-Match", `"1"`), bytes.NewReader(v2)); r.status != 400 {
		t.Errorf("a body whose id is not the path's: %d %s", r.status, r.body)
	}
	unknown := strings.Replace(string(v2), "IL-9201", "IL-9299", 1)
	if r := ed.do("PUT", "/cases/IL-9299", hdr("If-Match", `"1"`), strings.NewReader(unknown)); r.status != 404 {
		t.Errorf("update of an unknown case: %d %s", r.status, r.body)
	}

	r = ed.do("DELETE", "/cases/IL-9201", hdr("If-Match", `"2"`), nil)
	if rev := decode[revisionBody](t, r); r.status != 200 || rev.Version != 3 || string(rev.Case) != "null" {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := ed.get("/cases/IL-9201"); r.status != 404 {
		t.Errorf("GET after delete: %d", r.status)
	}
	r = ed.do("POST", "/cases/IL-9201/restore", hdr("If-Match", `"3"`), strings.NewReader(`{"from": 1}`))
	if rev := decode[revisionBody](t, r); r.status != 200 || rev.Version != 4 || rev.RestoredFrom != 1 || string(rev.Case) != compactOf(t, v1) {
		t.Fatalf("restore: %d %s", r.status, r.body)
	}
	if r := ed.do("POST", "/cases/IL-9201/restore", hdr("If-Match", `"4"`), strings.NewReader(`{"from": 99}`)); r.status != 404 {
		t.Errorf("restore of a version that never was: %d %s", r.status, r.body)
	}
	if r := ed.do("POST", "/cases/IL-9201/restore", hdr("If-Match", `"4"`), strings.NewReader(`{"version": 1}`)); r.status != 400 {
		t.Errorf("restore without from: %d %s", r.status, r.body)
	}

	h := decode[struct {
		ID      string
		History []revisionBody
	}](t, s.get("/cases/IL-9201/history"))
	var log []string
	for _, rv := range h.History {
		log = append(log, fmt.Sprintf("%d %s %s", rv.Version, rv.Action, rv.By))
	}
	if want := []string{"4 restore dana", "3 delete dana", "2 update dana", "1 create dana"}; !slices.Equal(log, want) {
		t.Errorf("history %q, want %q", log, want)
	}
	if r := s.get("/cases/IL-9999/history"); r.status != 404 {
		t.Errorf("history of an unknown case: %d", r.status)
	}
	if r := s.get("/cases/IL-0282/history"); r.status != 200 || !strings.Contains(string(r.body), `"history":[]`) {
		t.Errorf("history of a case only loaded: %d %s", r.status, r.body)
	}

	t.Run("body over the limit", func(t *testing.T) {
		r := ed.do("POST", "/cases", hdr(), bytes.NewReader(make([]byte, 2<<20)))
		if e := decode[errorBody](t, r); r.status != 413 || e.Error.Code != "LIMIT" {
			t.Errorf("%d %s", r.status, r.body)
		}
	})
}

func compactOf(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
