package jsonapi_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/suggest"
)

// TestErrorsNameTheParameter: the core refuses a bad page size, cursor, k,
// minimum score (and the rest below), and the message names the query
// parameter the client sent — limit, cursor, k, min_score — never
// GraphQL's name for it (first, after, minScore).
func TestErrorsNameTheParameter(t *testing.T) {
	s := mustServer(t)
	for _, tc := range []struct {
		path, code, name string
		others           []string // what the other doors call the input
	}{
		{"/cases?limit=101", "LIMIT", "limit", []string{"first"}},
		{"/cases?limit=-1", "INVALID", "limit", []string{"first"}},
		{"/cases/IL-0282/same-root-cause?limit=1000", "LIMIT", "limit", []string{"first"}},
		{"/topics/component/message-broker?limit=500", "LIMIT", "limit", []string{"first"}},
		{"/cases?cursor=bogus", "INVALID", "cursor", []string{"after"}},
		{"/cases/IL-0282/same-root-cause?cursor=bm9wZQ", "INVALID", "cursor", []string{"after"}},
		{"/cases/IL-0282/similar?k=0", "LIMIT", "k", nil},
		{"/cases/IL-0282/similar?k=1000", "LIMIT", "k", nil},
		{"/cases/IL-0282/similar?min_score=2", "INVALID", "min_score", []string{"minScore"}},
		{"/cases/IL-0282/similar?min_score=-0.5", "INVALID", "min_score", []string{"minScore"}},
		{"/topics/component/message-broker?cooccurring=500", "LIMIT", "cooccurring", []string{"first"}},
		{"/cases?sort=relevance", "INVALID", "q", []string{"filter.text", "query"}},
		{"/suggest?q=%20%20", "INVALID", "q", []string{"text"}},
		{"/suggest?q=" + strings.Repeat("a", suggest.MaxTextChars+1), "LIMIT", "q", []string{"text"}},
		{"/suggest?q=x&lang=fr", "INVALID", "lang", nil},
	} {
		r := s.get(tc.path)
		e := decode[errorBody](t, r)
		if r.status != 400 || e.Error.Code != tc.code {
			t.Errorf("%s: %d %s %q, want 400 %s", clip([]byte(tc.path)), r.status, e.Error.Code, e.Error.Message, tc.code)
			continue
		}
		msg := e.Error.Message
		if !strings.HasPrefix(msg, tc.name+" ") {
			t.Errorf("%s: message %q does not start with %q", clip([]byte(tc.path)), msg, tc.name)
		}
		for _, o := range tc.others {
			if strings.Contains(msg, o) {
				t.Errorf("%s: message %q names %q, another door's name for %s", clip([]byte(tc.path)), msg, o, tc.name)
			}
		}
	}
	// The message states the core's limit.
	e := decode[errorBody](t, s.get("/cases?limit=101"))
	if want := fmt.Sprintf("limit must be from 0 to %d, not 101", explore.MaxPageSize); e.Error.Message != want {
		t.Errorf("limit=101: %q, want %q", e.Error.Message, want)
	}
}

// TestDefaultsAreTheCores: a request that names no limit or k gets the
// core's default page of same-root-cause cases and number of similar
// cases.
func TestDefaultsAreTheCores(t *testing.T) {
	s := mustServer(t)
	cases := corpus.Cases(t, filepath.Join(s.seeds, "cases"))
	byCause := map[string]int{}
	for _, c := range cases {
		byCause[c.RootCause]++
	}
	var id string
	for _, c := range cases {
		if byCause[c.RootCause]-1 > explore.DefaultSameRootCause {
			id = c.ID
			break
		}
	}
	if id == "" {
		t.Fatalf("no seed case has more than %d others with its root cause: the check proves nothing", explore.DefaultSameRootCause)
	}
	refs := decode[struct {
		Total int
		Cases []struct{ ID string }
	}](t, s.get("/cases/"+id+"/same-root-cause"))
	if refs.Total <= explore.DefaultSameRootCause || len(refs.Cases) != explore.DefaultSameRootCause {
		t.Errorf("%s/same-root-cause: %d of %d cases, want the core's default %d", id, len(refs.Cases), refs.Total, explore.DefaultSameRootCause)
	}
	type similar struct{ Matches []struct{ Score float64 } }
	if all := decode[similar](t, s.get("/cases/"+id+"/similar?k=100")); len(all.Matches) <= explore.DefaultSimilarK {
		t.Fatalf("%s: %d similar cases at most, want more than %d", id, len(all.Matches), explore.DefaultSimilarK)
	}
	if got := decode[similar](t, s.get("/cases/"+id+"/similar")); len(got.Matches) != explore.DefaultSimilarK {
		t.Errorf("%s/similar: %d cases, want the core's default %d", id, len(got.Matches), explore.DefaultSimilarK)
	}
}

// TestOpenAPIStatesTheCoresLimits: openapi.json is written by hand, but the
// defaults and bounds it states are the core's.
func TestOpenAPIStatesTheCoresLimits(t *testing.T) {
	doc := loadDoc(t)
	param := func(path, name string) *openapi3.Schema {
		t.Helper()
		item := doc.Paths.Find(path)
		if item == nil || item.Get == nil {
			t.Fatalf("openapi.json has no GET %s", path)
		}
		for _, p := range item.Get.Parameters {
			if p.Value != nil && p.Value.Name == name && p.Value.In == "query" {
				return p.Value.Schema.Value
			}
		}
		t.Fatalf("GET %s has no parameter %s", path, name)
		return nil
	}
	num := func(v *float64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	f := func(n int) float64 { return float64(n) }
	for _, tc := range []struct {
		path, name    string
		def, min, max any
	}{
		{"/cases", "limit", f(explore.DefaultPageSize), f(0), f(explore.MaxPageSize)},
		{"/cases/{id}/same-root-cause", "limit", f(explore.DefaultSameRootCause), f(0), f(explore.MaxPageSize)},
		{"/cases/{id}/similar", "k", f(explore.DefaultSimilarK), f(1), f(explore.MaxSimilarK)},
		{"/cases/{id}/similar", "min_score", f(0), f(0), f(1)},
		{"/topics/{kind}/{id}", "limit", f(explore.DefaultTopicCases), f(0), f(explore.MaxPageSize)},
		{"/topics/{kind}/{id}", "cooccurring", f(explore.DefaultCooccurring), f(0), f(explore.MaxCooccurring)},
		{"/suggest", "limit", f(explore.DefaultSuggestPerKind), f(1), f(explore.MaxSuggestPerKind)},
	} {
		sc := param(tc.path, tc.name)
		if got := []any{sc.Default, num(sc.Min), num(sc.Max)}; fmt.Sprint(got) != fmt.Sprint([]any{tc.def, tc.min, tc.max}) {
			t.Errorf("%s %s: default, minimum, maximum %v; the core's %v", tc.path, tc.name, got, []any{tc.def, tc.min, tc.max})
		}
	}
	if sc := param("/cases/{id}/similar", "rarity"); sc.Default != ilgraph.DefaultRarity {
		t.Errorf("rarity: default %v, the core's %v", sc.Default, ilgraph.DefaultRarity)
	}
	if sc := param("/cases", "q"); sc.MaxLength == nil || *sc.MaxLength != uint64(ilgraph.MaxTextQuery) {
		t.Errorf("/cases q: maxLength %v, the core's %d", sc.MaxLength, ilgraph.MaxTextQuery)
	}
	if sc := param("/suggest", "q"); sc.MaxLength == nil || *sc.MaxLength != uint64(suggest.MaxTextChars) {
		t.Errorf("/suggest q: maxLength %v, the core's %d", sc.MaxLength, suggest.MaxTextChars)
	}
}
