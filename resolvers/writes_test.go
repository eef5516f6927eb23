package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/resolvers"
)

const writeFields = `revision { version action by at restoredFrom json previous } case { id version title { en } rootCause { id } }`

type writeAnswer struct {
	Revision struct {
		Version      int
		Action       string
		By           string
		At           string
		RestoredFrom *int
		JSON         *string
		Previous     *string
	}
	Case *struct {
		ID        string
		Version   int
		Title     struct{ En string }
		RootCause struct{ ID string }
	}
}

// TestMutations runs the case mutations over HTTP: refused without a
// principal (the server has no authentication yet, so every write is),
// then as an editor (a test principal) through create, a stale update,
// an invalid update, an update, a delete and a restore, with the case's
// version and history read back.
func TestMutations(t *testing.T) {
	a := mustAPI(t)
	seed := a.cases[0]
	for _, c := range a.cases {
		if len(c.Related) == 0 && c.RecurrenceOf == "" {
			seed = c
			break
		}
	}
	data, err := os.ReadFile(filepath.Join(corpus.Seeds(t), "cases", seed.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	body["id"] = "IL-9101"
	v1, _ := json.Marshal(body)

	create := `mutation($json: String!) { createCase(json: $json) { ` + writeFields + ` } }`
	t.Run("no principal: UNAUTHORIZED, nothing written", func(t *testing.T) {
		errs := a.do(create, map[string]any{"json": string(v1)}, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != "UNAUTHORIZED" {
			t.Fatalf("errors %+v", errs)
		}
		var out struct{ Case *struct{ ID string } }
		a.must(`{ case(id: "IL-9101") { id } }`, nil, &out)
		if out.Case != nil {
			t.Error("an anonymous create wrote the case")
		}
	})

	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger()},
		httpapi.Options{Credentials: []httpapi.Credential{apitest.AsPrincipal(ilgraph.Principal{Name: "erin", Role: ilgraph.RoleEditor})}}))
	t.Cleanup(srv.Close)
	ed := *a
	ed.url, ed.client = srv.URL, srv.Client()

	var created struct{ CreateCase writeAnswer }
	ed.must(create, map[string]any{"json": string(v1)}, &created)
	if r := created.CreateCase.Revision; r.Version != 1 || r.Action != "CREATE" || r.By != "erin" || r.Previous != nil || r.JSON == nil {
		t.Errorf("create: %+v", r)
	}
	if c := created.CreateCase.Case; c == nil || c.ID != "IL-9101" || c.Version != 1 || c.RootCause.ID != seed.RootCause {
		t.Errorf("created case: %+v", c)
	}

	update := `mutation($id: ID!, $version: Int!, $json: String!) { updateCase(id: $id, version: $version, json: $json) { ` + writeFields + ` } }`
	body["title"].(map[string]any)["en"] = "Retitled through GraphQL"
	v2, _ := json.Marshal(body)
	errs := ed.do(update, map[string]any{"id": "IL-9101", "version": 5, "json": string(v2)}, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "CONFLICT" {
		t.Errorf("stale update: %+v", errs)
	}

	bad := map[string]any{}
	for k, v := range body {
		bad[k] = v
	}
	bad["date"], bad["components"] = "20190101", []string{"not-a-component"}
	vb, _ := json.Marshal(bad)
	errs = ed.do(update, map[string]any{"id": "IL-9101", "version": 1, "json": string(vb)}, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "INVALID" {
		t.Fatalf("invalid update: %+v", errs)
	}
	var fields []string
	probs, _ := errs[0].Extensions["problems"].([]any)
	for _, p := range probs {
		m, _ := p.(map[string]any)
		f, _ := m["field"].(string)
		fields = append(fields, f)
	}
	slices.Sort(fields)
	if !slices.Equal(fields, []string{"components[0]", "date"}) {
		t.Errorf("problems name %q, want components[0] and date: %+v", fields, probs)
	}

	var updated struct{ UpdateCase writeAnswer }
	ed.must(update, map[string]any{"id": "IL-9101", "version": 1, "json": string(v2)}, &updated)
	if r := updated.UpdateCase.Revision; r.Version != 2 || r.Previous == nil || *r.Previous != compactJSON(t, v1) {
		t.Errorf("update: %+v", r)
	}
	var del struct{ DeleteCase writeAnswer }
	ed.must(`mutation { deleteCase(id: "IL-9101", version: 2) { `+writeFields+` } }`, nil, &del)
	if del.DeleteCase.Case != nil || del.DeleteCase.Revision.JSON != nil || del.DeleteCase.Revision.Action != "DELETE" {
		t.Errorf("delete: %+v", del.DeleteCase)
	}
	var restored struct{ RestoreCase writeAnswer }
	ed.must(`mutation { restoreCase(id: "IL-9101", version: 3, from: 2) { `+writeFields+` } }`, nil, &restored)
	if c := restored.RestoreCase.Case; c == nil || c.Version != 4 || c.Title.En != "Retitled through GraphQL" ||
		restored.RestoreCase.Revision.RestoredFrom == nil || *restored.RestoreCase.Revision.RestoredFrom != 2 {
		t.Errorf("restore: %+v", restored.RestoreCase)
	}

	var hist struct {
		Case struct {
			Version int
			History []struct {
				Version int
				Action  string
				By      string
			}
		}
		CaseHistory []struct{ Version int }
	}
	a.must(`{ case(id: "IL-9101") { version history { version action by } } caseHistory(id: "IL-9101") { version } }`, nil, &hist)
	var got []string
	for _, h := range hist.Case.History {
		got = append(got, fmt.Sprintf("%d %s %s", h.Version, h.Action, h.By))
	}
	if want := []string{"4 RESTORE erin", "3 DELETE erin", "2 UPDATE erin", "1 CREATE erin"}; !slices.Equal(got, want) || hist.Case.Version != 4 || len(hist.CaseHistory) != 4 {
		t.Errorf("history %q (version %d, caseHistory %d entries), want %q", got, hist.Case.Version, len(hist.CaseHistory), want)
	}
	errs = a.do(`{ caseHistory(id: "IL-9999") { version } }`, nil, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
		t.Errorf("history of an unknown case: %+v", errs)
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
