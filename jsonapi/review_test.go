package jsonapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

type reviewQueueBody struct {
	Total      int
	NextCursor string `json:"next_cursor"`
	Cases      []struct {
		Case struct {
			ID         string
			Components []string
		}
		Version      int64
		EvidenceText string `json:"evidence_text"`
		Suggested    map[string][]struct {
			ID, Label  string
			Confidence *float64
			Evidence   []struct{ Kind string }
		}
	}
}

// TestReview lists the review queue and reviews a case through the JSON
// API, every answer checked against openapi.json.
func TestReview(t *testing.T) {
	s := mustServer(t)
	ed := asRole(t, s, "dana", ilgraph.RoleEditor)
	// Two machine-tagged copies of IL-0282, each tag of confidence 0.5
	// but the root cause's, 0.25.
	file, err := os.ReadFile(filepath.Join(s.seeds, "cases", "IL-0282.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(file, &c); err != nil {
		t.Fatal(err)
	}
	tags := map[string][]string{"root_cause": {c["root_cause"].(string)}}
	tc := map[string]any{"root_cause": map[string]float64{c["root_cause"].(string): 0.25}}
	for kind, field := range map[string]string{"component": "components", "symptom": "symptoms", "contributing": "contributing", "domain": "domain"} {
		conf := map[string]float64{}
		for _, x := range c[field].([]any) {
			tags[kind] = append(tags[kind], x.(string))
			conf[x.(string)] = 0.5
		}
		tc[field] = conf
	}
	if len(tags["component"]) < 2 {
		t.Fatalf("IL-0282 has %d components: the review below rejects the second", len(tags["component"]))
	}
	c["related"], c["recurrence_of"], c["tag_confidence"] = []any{}, "", tc
	c["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
	for _, x := range []struct{ id, date string }{{"PM-000000701", "2023-05-01"}, {"PM-000000702", "2024-05-01"}} {
		c["id"], c["date"] = x.id, x.date
		b, _ := json.Marshal(c)
		if r := ed.do("POST", "/cases", http.Header{"Content-Type": {"application/json"}}, bytes.NewReader(b)); r.status != 201 {
			t.Fatalf("writing %s: %d %s", x.id, r.status, r.body)
		}
	}

	t.Run("the queue: newest first, in pages, every tag with its confidence", func(t *testing.T) {
		first := decode[reviewQueueBody](t, s.get("/review-queue?limit=1"))
		if first.Total != 2 || len(first.Cases) != 1 || first.NextCursor == "" {
			t.Fatalf("first page: %+v", first)
		}
		second := decode[reviewQueueBody](t, s.get("/review-queue?limit=1&cursor="+url.QueryEscape(first.NextCursor)))
		if len(second.Cases) != 1 || second.NextCursor != "" {
			t.Fatalf("second page: %+v", second)
		}
		got := []string{first.Cases[0].Case.ID, second.Cases[0].Case.ID}
		if !slices.Equal(got, []string{"PM-000000702", "PM-000000701"}) {
			t.Errorf("queue %v, want the newer PM-000000702 first", got)
		}
		it := first.Cases[0]
		if it.Version != 1 || !strings.HasPrefix(it.EvidenceText, c["title"].(map[string]any)["en"].(string)+"\n\n") {
			t.Errorf("version %d, evidence text %.80q", it.Version, it.EvidenceText)
		}
		for _, kind := range []string{"root_cause", "component", "symptom", "contributing", "domain"} {
			var ids []string
			for _, x := range it.Suggested[kind] {
				want := 0.5
				if kind == "root_cause" {
					want = 0.25
				}
				if x.Confidence == nil || *x.Confidence != want || x.Label == "" || x.Evidence == nil {
					t.Errorf("%s %s: confidence %v, label %q, evidence %v; want %v, a label, a list", kind, x.ID, x.Confidence, x.Label, x.Evidence, want)
				}
				ids = append(ids, x.ID)
			}
			if !slices.Equal(ids, tags[kind]) {
				t.Errorf("%s: %v, want the case's %v", kind, ids, tags[kind])
			}
		}
		if r := s.get("/review-queue?limit=101"); r.status != 400 || !strings.Contains(string(r.body), "limit") {
			t.Errorf("limit=101: %d %s", r.status, r.body)
		}
		if r := s.get("/review-queue?sort=date_asc"); r.status != 400 {
			t.Errorf("an unknown parameter: %d %s", r.status, r.body)
		}
	})

	// Accept every tag but the second component, which is rejected.
	var decisions []map[string]any
	for _, kind := range []string{"root_cause", "component", "symptom", "contributing", "domain"} {
		for _, id := range tags[kind] {
			decisions = append(decisions, map[string]any{"kind": kind, "term": id, "decision": "accept"})
		}
	}
	decisions[2]["decision"] = "reject"
	body := func(ds []map[string]any) *bytes.Reader {
		b, _ := json.Marshal(map[string]any{"decisions": ds})
		return bytes.NewReader(b)
	}
	hdr := func(v string) http.Header {
		return http.Header{"Content-Type": {"application/json"}, "If-Match": {v}}
	}
	const path = "/cases/PM-000000702/review"
	rev := asRole(t, s, "rita", ilgraph.RoleReviewer)
	unchanged := func(t *testing.T) {
		t.Helper()
		if r := s.get("/cases/PM-000000702"); r.header.Get("ETag") != `"1"` {
			t.Errorf("the case is at %s after a refused review, want \"1\"", r.header.Get("ETag"))
		}
	}
	for _, tc := range []struct {
		name   string
		s      *server
		ifm    string
		body   *bytes.Reader
		status int
		code   string
		field  string // the one problem's field
	}{
		{"anonymous", s, `"1"`, body(decisions), 401, "UNAUTHORIZED", ""},
		{"a viewer", asRole(t, s, "vic", ilgraph.RoleViewer), `"1"`, body(decisions), 403, "FORBIDDEN", ""},
		{"a stale If-Match", rev, `"2"`, body(decisions), 409, "CONFLICT", ""},
		{"no If-Match", rev, "", body(decisions), 400, "INVALID", ""},
		{"an unknown field", rev, `"1"`, bytes.NewReader([]byte(`{"decisions": [], "accept": true}`)), 400, "INVALID", ""},
		{"a tag that was not suggested", rev, `"1"`, body(append(slices.Clone(decisions), map[string]any{"kind": "component", "term": "cdn", "decision": "accept"})), 400, "INVALID", fmt.Sprintf("decisions[%d].term", len(decisions))},
		{"rejecting the root cause", rev, `"1"`, body(append([]map[string]any{{"kind": "root_cause", "term": tags["root_cause"][0], "decision": "reject"}}, decisions[1:]...)), 400, "INVALID", "decisions[0].decision"},
	} {
		t.Run(tc.name+": refused, nothing changed", func(t *testing.T) {
			h := hdr(tc.ifm)
			if tc.ifm == "" {
				h.Del("If-Match")
			}
			r := tc.s.do("POST", path, h, tc.body)
			e := decode[problemsBody](t, r)
			if r.status != tc.status || e.Error.Code != tc.code {
				t.Errorf("%d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			if tc.field != "" && (len(e.Error.Problems) != 1 || e.Error.Problems[0].Field != tc.field || !strings.HasPrefix(e.Error.Message, "decisions ")) {
				t.Errorf("problems %+v (message %q), want one naming %s", e.Error.Problems, e.Error.Message, tc.field)
			}
			unchanged(t)
		})
	}

	r := rev.do("POST", path, hdr(`"1"`), body(decisions))
	got := decode[revisionBody](t, r)
	if r.status != 200 || got.Version != 2 || got.Action != "review" || got.By != "rita" || r.header.Get("ETag") != `"2"` || r.header.Get("Location") != "/cases/PM-000000702" {
		t.Fatalf("review: %d %s", r.status, clip(r.body))
	}
	var reviewed struct {
		Components []string
		Review     struct {
			WrittenBy  string `json:"written_by"`
			ReviewedBy string `json:"reviewed_by"`
			ReviewedAt string `json:"reviewed_at"`
			Decisions  []struct{ Kind, Term, Decision string }
		}
	}
	if err := json.Unmarshal(got.Case, &reviewed); err != nil {
		t.Fatal(err)
	}
	wantComponents := append([]string{tags["component"][0]}, tags["component"][2:]...)
	if !slices.Equal(reviewed.Components, wantComponents) || reviewed.Review.ReviewedBy != "rita" || reviewed.Review.ReviewedAt == "" ||
		reviewed.Review.WrittenBy != "import" || len(reviewed.Review.Decisions) != len(decisions) || reviewed.Review.Decisions[2].Decision != "reject" {
		t.Errorf("the reviewed case: %+v; want components %v, reviewed by rita, every decision recorded", reviewed, wantComponents)
	}
	if after := s.get("/cases/PM-000000702"); after.header.Get("ETag") != `"2"` || string(after.body) != string(got.Case) {
		t.Errorf("GET after the review: %s %s", after.header.Get("ETag"), clip(after.body))
	}
	if q := decode[reviewQueueBody](t, s.get("/review-queue")); q.Total != 1 || q.Cases[0].Case.ID != "PM-000000701" {
		t.Errorf("the queue after the review: %+v, want PM-000000701 alone", q)
	}
	if h := decode[struct{ History []revisionBody }](t, s.get("/cases/PM-000000702/history")); len(h.History) != 2 || h.History[0].Action != "review" {
		t.Errorf("history: %+v", h)
	}
}
