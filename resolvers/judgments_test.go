package resolvers_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/resolvers"
)

// as returns the API served to a test principal.
func (a *api) as(name string, role ilgraph.Role) *api {
	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger()},
		httpapi.Options{Credentials: []httpapi.Credential{apitest.AsPrincipal(ilgraph.Principal{Name: name, Role: role})}}))
	a.t.Cleanup(srv.Close)
	b := *a
	b.url, b.client = srv.URL, srv.Client()
	return &b
}

type similarRow struct {
	Case      struct{ ID string }
	Score     float64
	Hidden    bool
	Hiding    *struct{ By string }
	Notes     []string
	Judgments []struct {
		Judge string
		Grade string
	}
}

func rowsText(rows []similarRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%s %.9f hidden=%v", r.Case.ID, r.Score, r.Hidden)
	}
	return out
}

// TestJudgeSimilarThroughGraphQL: a reviewer's judgment shows on the match
// (similarCases and a case page's similar), an editor hides it from the
// default list and includeHidden brings it back marked hidden, with every
// score as before; bad input names GraphQL's arguments.
func TestJudgeSimilarThroughGraphQL(t *testing.T) {
	a := mustAPI(t)
	rita, ed := a.as("rita", ilgraph.RoleReviewer), a.as("ed", ilgraph.RoleEditor)
	const rowFields = `case { id } score hidden hiding { by } notes judgments { judge grade }`
	similar := func(k int, includeHidden bool) []similarRow {
		t.Helper()
		var out struct{ SimilarCases []similarRow }
		a.must(fmt.Sprintf(`{ similarCases(caseId: "IL-0384", k: %d, includeHidden: %v) { %s } }`, k, includeHidden, rowFields), nil, &out)
		return out.SimilarCases
	}
	before5, before6 := similar(5, false), similar(6, false)
	target := before5[1].Case.ID

	t.Run("a reviewer judges a match", func(t *testing.T) {
		var out struct {
			JudgeSimilar struct {
				CaseID, Match, Judge, Grade, At, Note string
				Reason                                *string
			}
		}
		rita.must(`mutation($m: ID!) { judgeSimilar(caseId: "IL-0384", match: $m, grade: NOT_RELEVANT, reason: "a different failure") { caseId match judge grade reason at note } }`,
			map[string]any{"m": target}, &out)
		j := out.JudgeSimilar
		if j.CaseID != "IL-0384" || j.Match != target || j.Judge != "rita" || j.Grade != "NOT_RELEVANT" || j.Reason == nil || *j.Reason != "a different failure" {
			t.Errorf("got %+v, want rita's NOT_RELEVANT of IL-0384–%s with its reason", j, target)
		}
		if want := "marked not relevant by rita: a different failure"; j.Note != want {
			t.Errorf("note %q, want %q", j.Note, want)
		}
		if at, err := time.Parse(time.RFC3339Nano, j.At); err != nil || time.Since(at) > time.Minute {
			t.Errorf("at %q (%v), want RFC 3339, now", j.At, err)
		}
	})

	t.Run("the judgment shows on the match, the scores are as before", func(t *testing.T) {
		rows := similar(5, false)
		if got, want := rowsText(rows), rowsText(before5); !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := rows[1].Notes, []string{"marked not relevant by rita: a different failure"}; !slices.Equal(got, want) {
			t.Errorf("notes %q, want %q", got, want)
		}
		var page struct {
			Case struct{ Similar []similarRow }
		}
		a.must(`{ case(id: "IL-0384") { similar(k: 5) { `+rowFields+` } } }`, nil, &page)
		if got := page.Case.Similar; len(got) != 5 || len(got[1].Judgments) != 1 || got[1].Judgments[0].Judge != "rita" {
			t.Errorf("the case page's similar cases: %+v, want rita's judgment on the second", got)
		}
	})

	t.Run("an editor hides it from the list, not from the ranking", func(t *testing.T) {
		var out struct {
			HideSimilar struct{ CaseID, Match, By, At string }
		}
		ed.must(`mutation($m: ID!) { hideSimilar(caseId: "IL-0384", match: $m) { caseId match by at } }`, map[string]any{"m": target}, &out)
		if h := out.HideSimilar; h.CaseID != "IL-0384" || h.Match != target || h.By != "ed" || h.At == "" {
			t.Errorf("got %+v, want ed's hiding of %s", h, target)
		}
		var want []string
		for _, r := range before6 {
			if r.Case.ID != target {
				want = append(want, fmt.Sprintf("%s %.9f hidden=false", r.Case.ID, r.Score))
			}
		}
		if got := rowsText(similar(5, false)); !slices.Equal(got, want) {
			t.Errorf("default list %q, want %q", got, want)
		}
		all := similar(5, true)
		want = rowsText(before5)
		want[1] = strings.Replace(want[1], "hidden=false", "hidden=true", 1)
		if got := rowsText(all); !slices.Equal(got, want) {
			t.Errorf("with includeHidden %q, want %q", got, want)
		}
		if all[1].Hiding == nil || all[1].Hiding.By != "ed" || all[0].Hiding != nil {
			t.Errorf("hiding %+v / %+v, want ed's on the second only", all[1].Hiding, all[0].Hiding)
		}
		var fb struct {
			SimilarJudgments struct {
				CaseID    string
				Judgments []struct{ Match, Judge string }
				Hidden    []struct{ Match, By string }
			}
		}
		a.must(`{ similarJudgments(caseId: "IL-0384") { caseId judgments { match judge } hidden { match by } } }`, nil, &fb)
		if f := fb.SimilarJudgments; f.CaseID != "IL-0384" || len(f.Judgments) != 1 || f.Judgments[0].Match != target || len(f.Hidden) != 1 || f.Hidden[0].By != "ed" {
			t.Errorf("similarJudgments: %+v", f)
		}
	})

	t.Run("bad input names the GraphQL argument", func(t *testing.T) {
		for _, tc := range []struct {
			query, code, prefix string
		}{
			{`mutation { judgeSimilar(caseId: "IL-0384", match: "IL-0384", grade: RELEVANT) { judge } }`, "INVALID", "match "},
			{fmt.Sprintf(`mutation { judgeSimilar(caseId: "IL-0384", match: "IL-0282", grade: RELEVANT, reason: %q) { judge } }`, strings.Repeat("x", 501)), "INVALID", "reason may be at most 500 characters"},
			{`mutation { judgeSimilar(caseId: "IL-0384", match: "IL-9999", grade: RELEVANT) { judge } }`, "NOT_FOUND", `no case with id "IL-9999"`},
			{`mutation { hideSimilar(caseId: "IL-0384", match: "IL-0282") { by } }`, "FORBIDDEN", "this needs the editor role"},
		} {
			errs := rita.do(tc.query, nil, nil)
			if len(errs) != 1 || errs[0].Extensions["code"] != tc.code || !strings.HasPrefix(errs[0].Message, tc.prefix) {
				t.Errorf("%.90s: got %+v, want one %s starting %q", tc.query, errs, tc.code, tc.prefix)
			}
		}
		errs := a.do(`mutation { withdrawJudgment(caseId: "IL-0384", match: "IL-0282") }`, nil, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != "UNAUTHORIZED" {
			t.Errorf("anonymous withdraw: got %+v, want UNAUTHORIZED", errs)
		}
	})

	t.Run("withdrawing the judgment shows the match again", func(t *testing.T) {
		var out struct{ WithdrawJudgment bool }
		rita.must(`mutation($m: ID!) { withdrawJudgment(caseId: "IL-0384", match: $m) }`, map[string]any{"m": target}, &out)
		if !out.WithdrawJudgment {
			t.Error("withdrawJudgment: false, want true")
		}
		if got, want := rowsText(similar(5, false)), rowsText(before5); !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
		var un struct{ UnhideSimilar bool }
		ed.must(`mutation($m: ID!) { unhideSimilar(caseId: "IL-0384", match: $m) }`, map[string]any{"m": target}, &un)
		if un.UnhideSimilar {
			t.Error("unhideSimilar: true, want false (the hiding went with the judgment)")
		}
	})
}
