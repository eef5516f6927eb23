package jsonapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/resolvers"
)

// asRole points s at the same API behind the test principal middleware,
// as name with role.
func asRole(t *testing.T, s *server, name string, role ilgraph.Role) *server {
	t.Helper()
	x := *s
	x.t = t
	api := jsonapi.NewHandler(s.core, jsonapi.Options{Logger: quiet()})
	h := apitest.New(s.core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()}, Shell: httpapi.Options{
		Routes:      apitest.JSONAPI(nil, api),
		Credentials: []httpapi.Credential{apitest.AsPrincipal(ilgraph.Principal{Name: name, Role: role})}}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	x.url, x.router = srv.URL, routerFor(t, srv.URL)
	return &x
}

type judgedMatch struct {
	Case      struct{ ID string }
	Score     float64
	Hidden    bool
	Hiding    *struct{ By string }
	Notes     []string
	Judgments []struct {
		Judge      string
		Grade      string
		GradeValue int `json:"grade_value"`
	}
}

func matchesText(ms []judgedMatch) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s %.9f hidden=%v", m.Case.ID, m.Score, m.Hidden)
	}
	return out
}

// TestJudgmentRoutes judges, hides, lists and withdraws through the JSON
// API, every answer checked against openapi.json: the judgment shows on the
// similar endpoint's row, a hidden match leaves the default list and comes
// back with include_hidden=true, scores unchanged; bad input names the
// API's own field, and the roles are the core's.
func TestJudgmentRoutes(t *testing.T) {
	s := mustServer(t)
	rev, ed := asRole(t, s, "rita", ilgraph.RoleReviewer), asRole(t, s, "ed", ilgraph.RoleEditor)
	viewer := asRole(t, s, "vic", ilgraph.RoleViewer)
	similar := func(query string) []judgedMatch {
		t.Helper()
		r := s.get("/cases/IL-0384/similar?" + query)
		if r.status != 200 {
			t.Fatalf("similar: %d %s", r.status, r.body)
		}
		return decode[struct{ Matches []judgedMatch }](t, r).Matches
	}
	before5, before6 := similar("k=5"), similar("k=6")
	target := before5[1].Case.ID
	judgment := "/cases/IL-0384/similar/" + target + "/judgment"
	hidden := "/cases/IL-0384/similar/" + target + "/hidden"
	put := func(x *server, path, body string) response {
		t.Helper()
		return x.do("PUT", path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(body))
	}

	t.Run("refused without the role, nothing stored", func(t *testing.T) {
		for _, tc := range []struct {
			who    *server
			method string
			path   string
			status int
			code   string
		}{
			{s, "PUT", judgment, 401, "UNAUTHORIZED"},
			{viewer, "PUT", judgment, 403, "FORBIDDEN"},
			{viewer, "DELETE", judgment, 403, "FORBIDDEN"},
			{rev, "PUT", hidden, 403, "FORBIDDEN"},
			{rev, "DELETE", hidden, 403, "FORBIDDEN"},
		} {
			r := tc.who.do(tc.method, tc.path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(`{"grade": "relevant"}`))
			if e := decode[errorBody](t, r); r.status != tc.status || e.Error.Code != tc.code {
				t.Errorf("%s %s: %d %s, want %d %s", tc.method, tc.path, r.status, r.body, tc.status, tc.code)
			}
		}
		r := s.get("/cases/IL-0384/judgments")
		if fb := decode[struct{ Judgments, Hidden []any }](t, r); r.status != 200 || len(fb.Judgments)+len(fb.Hidden) != 0 {
			t.Errorf("judgments: %d %s, want none", r.status, r.body)
		}
	})

	t.Run("bad input names the API's field", func(t *testing.T) {
		for _, tc := range []struct {
			path, body string
			status     int
			prefix     string
		}{
			{"/cases/IL-0384/similar/IL-0384/judgment", `{"grade": "relevant"}`, 400, "match must be another case"},
			{judgment, `{"grade": 3}`, 400, "grade must be"},
			{judgment, `{"grade": "very"}`, 400, "grade must be"},
			{judgment, `{}`, 400, "grade is missing"},
			{judgment, `{"grade": 1, "reason": "` + strings.Repeat("x", 501) + `"}`, 400, "reason may be at most 500 characters, not 501"},
			{judgment, `{"grade": 1, "reason": "two\nlines"}`, 400, "reason must be one line"},
			{judgment, `{"grade": 1, "why": "x"}`, 400, "the body must be"},
			{"/cases/IL-9999/similar/IL-0384/judgment", `{"grade": 1}`, 404, `no case with id "IL-9999"`},
		} {
			r := put(rev, tc.path, tc.body)
			if e := decode[errorBody](t, r); r.status != tc.status || !strings.HasPrefix(e.Error.Message, tc.prefix) {
				t.Errorf("PUT %s %.40s: %d %s, want %d starting %q", tc.path, tc.body, r.status, r.body, tc.status, tc.prefix)
			}
		}
	})

	t.Run("a judgment shows on its row; hiding takes the row off the default list", func(t *testing.T) {
		r := put(rev, judgment, `{"grade": "not_relevant", "reason": "a different failure"}`)
		j := decode[struct {
			CaseID     string `json:"case_id"`
			Match      string
			Judge      string
			Grade      string
			GradeValue int `json:"grade_value"`
			Note       string
		}](t, r)
		if r.status != 200 || j.CaseID != "IL-0384" || j.Match != target || j.Judge != "rita" || j.Grade != "not_relevant" || j.GradeValue != 0 ||
			j.Note != "marked not relevant by rita: a different failure" {
			t.Errorf("PUT judgment: %d %s", r.status, r.body)
		}
		rows := similar("k=5")
		if got, want := matchesText(rows), matchesText(before5); !slices.Equal(got, want) {
			t.Errorf("after judging: %q, want %q", got, want)
		}
		if got := rows[1]; len(got.Judgments) != 1 || got.Judgments[0].Judge != "rita" || !slices.Equal(got.Notes, []string{j.Note}) {
			t.Errorf("the judged row: %+v", got)
		}
		if r := s.do("PUT", hidden, nil, nil); r.status != 401 {
			t.Errorf("anonymous hide: %d %s, want 401", r.status, r.body)
		}
		r = ed.do("PUT", hidden, nil, nil)
		if h := decode[struct{ By, Match string }](t, r); r.status != 200 || h.By != "ed" || h.Match != target {
			t.Errorf("PUT hidden: %d %s", r.status, r.body)
		}
		var want []string
		for _, m := range before6 {
			if m.Case.ID != target {
				want = append(want, fmt.Sprintf("%s %.9f hidden=false", m.Case.ID, m.Score))
			}
		}
		if got := matchesText(similar("k=5")); !slices.Equal(got, want) {
			t.Errorf("default list %q, want %q", got, want)
		}
		want = matchesText(before5)
		want[1] = strings.Replace(want[1], "hidden=false", "hidden=true", 1)
		all := similar("k=5&include_hidden=true")
		if got := matchesText(all); !slices.Equal(got, want) {
			t.Errorf("include_hidden %q, want %q", got, want)
		}
		if all[1].Hiding == nil || all[1].Hiding.By != "ed" {
			t.Errorf("hiding %+v, want ed's", all[1].Hiding)
		}
		r = s.get("/cases/IL-0384/judgments")
		fb := decode[struct {
			Judgments []struct{ Match, Judge string }
			Hidden    []struct{ Match, By string }
		}](t, r)
		if r.status != 200 || len(fb.Judgments) != 1 || fb.Judgments[0].Match != target || len(fb.Hidden) != 1 || fb.Hidden[0].By != "ed" {
			t.Errorf("GET judgments: %d %s", r.status, r.body)
		}
	})

	t.Run("hiding needs a not-relevant judgment", func(t *testing.T) {
		r := ed.do("PUT", "/cases/IL-0384/similar/"+before5[2].Case.ID+"/hidden", nil, nil)
		if e := decode[errorBody](t, r); r.status != 409 || e.Error.Code != "CONFLICT" {
			t.Errorf("hiding an unjudged match: %d %s, want 409 CONFLICT", r.status, r.body)
		}
	})

	t.Run("withdrawing and unhiding", func(t *testing.T) {
		r := rev.do("DELETE", judgment, nil, nil)
		if w := decode[struct{ Withdrawn bool }](t, r); r.status != 200 || !w.Withdrawn {
			t.Errorf("DELETE judgment: %d %s", r.status, r.body)
		}
		if got, want := matchesText(similar("k=5")), matchesText(before5); !slices.Equal(got, want) {
			t.Errorf("after withdrawing: %q, want %q", got, want)
		}
		r = ed.do("DELETE", hidden, nil, nil)
		if u := decode[struct{ Unhidden bool }](t, r); r.status != 200 || u.Unhidden {
			t.Errorf("DELETE hidden: %d %s, want unhidden false (the hiding went with the judgment)", r.status, r.body)
		}
		if r := s.get(judgment); r.status != 405 {
			t.Errorf("GET %s: %d, want 405", judgment, r.status)
		}
		if r := s.get("/cases/IL-9999/judgments"); r.status != 404 {
			t.Errorf("GET judgments of an unknown case: %d, want 404", r.status)
		}
	})
}
