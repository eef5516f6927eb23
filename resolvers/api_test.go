package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
)

// api is a running API over a graph loaded with seeds/, and the same cases
// read straight from the JSON files to compute expected answers.
type api struct {
	t      *testing.T
	db     *graph.DB
	url    string
	cases  []*ilgraph.Case
	byID   map[string]*ilgraph.Case
	vocab  *ilgraph.Vocabulary
	client *http.Client
}

func mustAPI(t *testing.T) *api {
	t.Helper()
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	if _, err := loader.Load(context.Background(), db, []string{seeds}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHandler(db, resolvers.Options{Logger: quietLogger()}))
	t.Cleanup(srv.Close)
	a := &api{t: t, db: db, url: srv.URL, cases: corpus.Cases(t, filepath.Join(seeds, "cases")),
		vocab: corpus.Vocab(t, filepath.Join(seeds, "vocab.json")), client: srv.Client(), byID: map[string]*ilgraph.Case{}}
	for _, c := range a.cases {
		a.byID[c.ID] = c
	}
	return a
}

type gqlError struct {
	Message    string
	Extensions map[string]any
}

// do posts a query and decodes data into out; it returns the errors.
func (a *api) do(query string, vars map[string]any, out any) []gqlError {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := a.client.Post(a.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		a.t.Fatalf("HTTP %d for %s: %s", resp.StatusCode, query, raw)
	}
	var env struct {
		Data   json.RawMessage
		Errors []gqlError
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		a.t.Fatalf("bad response %s: %v", raw, err)
	}
	if out != nil && len(env.Data) > 0 && string(env.Data) != "null" {
		if err := json.Unmarshal(env.Data, out); err != nil {
			a.t.Fatalf("decoding %s: %v", env.Data, err)
		}
	}
	return env.Errors
}

// must is do that fails on any error.
func (a *api) must(query string, vars map[string]any, out any) {
	a.t.Helper()
	if errs := a.do(query, vars, out); len(errs) > 0 {
		a.t.Fatalf("query %s: errors %+v", query, errs)
	}
}

func ids(cs []*ilgraph.Case) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func (a *api) where(keep func(c *ilgraph.Case) bool) []*ilgraph.Case {
	var out []*ilgraph.Case
	for _, c := range a.cases {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

func TestCaseByID(t *testing.T) {
	a := mustAPI(t)
	var got struct {
		Case struct {
			ID           string
			Organization struct{ ID, En string }
			Date         string
			Year         int
			Title        ilgraph.Text
			Summary      ilgraph.Text
			Trigger      ilgraph.Text
			Lessons      ilgraph.Text
			Remediation  []ilgraph.Text
			ActionItems  []ilgraph.Text
			Impact       ilgraph.Impact
			Timeline     struct {
				ResolvedAfter        *string
				ResolvedAfterMinutes *int
			}
			RootCause    struct{ ID, En, Ko string }
			Components   []struct{ ID string }
			Symptoms     []struct{ ID string }
			Contributing []struct{ ID string }
			Domains      []struct{ ID string }
			Related      []struct{ ID string }
			Sources      []ilgraph.Source
			JSON         string
		}
		Missing *struct{ ID string }
	}
	a.must(`query($id: ID!) { case(id: $id) {
		id organization { id en } date year title { en ko } summary { en ko } trigger { en ko } lessons { en ko }
		remediation { en ko } actionItems { en ko } impact { scope users region }
		timeline { resolvedAfter resolvedAfterMinutes }
		rootCause { id en ko } components { id } symptoms { id } contributing { id } domains { id } related { id }
		sources { url kind archived } json }
		missing: case(id: "IL-9999") { id } }`, map[string]any{"id": "IL-0384"}, &got)
	want := a.byID["IL-0384"]
	c := got.Case
	termIDs := func(ts []struct{ ID string }) []string {
		out := []string{}
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"id", c.ID, want.ID},
		{"org", c.Organization.ID + "/" + c.Organization.En, want.OrgSlug + "/" + want.Org},
		{"date", c.Date, want.Date},
		{"year", c.Year, want.Year()},
		{"title", c.Title, want.Title},
		{"summary", c.Summary, want.Summary},
		{"trigger", c.Trigger, want.Trigger},
		{"lessons", c.Lessons, want.Lessons},
		{"impact", c.Impact, want.Impact},
		{"sources", c.Sources, want.Sources},
		{"root cause", c.RootCause.ID, want.RootCause},
		{"components", termIDs(c.Components), want.Components},
		{"symptoms", termIDs(c.Symptoms), want.Symptoms},
		{"contributing", termIDs(c.Contributing), want.Contributing},
		{"domains", termIDs(c.Domains), want.Domain},
		{"related", termIDs(c.Related), append([]string{}, want.Related...)},
		{"remediation count", len(c.Remediation), len(want.Remediation)},
		{"action items count", len(c.ActionItems), len(want.ActionItems)},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if m, _ := ilgraph.ParseDuration(want.Timeline.ResolvedAfter); c.Timeline.ResolvedAfterMinutes == nil || *c.Timeline.ResolvedAfterMinutes != m {
		t.Errorf("resolved minutes: got %v, want %d", c.Timeline.ResolvedAfterMinutes, m)
	}
	if c.RootCause.En == "" || c.RootCause.Ko == "" {
		t.Errorf("root cause without labels: %+v", c.RootCause)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(c.JSON), &raw); err != nil || raw["id"] != "IL-0384" {
		t.Errorf("json field: %v %v", raw["id"], err)
	}
	if got.Missing != nil {
		t.Errorf("unknown id: got %+v, want null", got.Missing)
	}
}

// listAll pages through a case list (page size 7, to cross pages) and
// returns the ids in order and the total.
func (a *api) listAll(field, args string, vars map[string]any) ([]string, int) {
	a.t.Helper()
	var all []string
	var after *string
	total := -1
	for i := 0; i < 100; i++ {
		v := map[string]any{"after": after}
		for k, x := range vars {
			v[k] = x
		}
		var got map[string]struct {
			TotalCount int
			Nodes      []struct{ ID string }
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
		}
		decl := "$after: String"
		if strings.Contains(args, "$filter") {
			decl += ", $filter: CaseFilter"
		}
		a.must(fmt.Sprintf(`query(%s) { %s(%s first: 7, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`, decl, field, args), v, &got)
		page := got[field]
		if total >= 0 && page.TotalCount != total {
			a.t.Fatalf("totalCount changed between pages: %d then %d", total, page.TotalCount)
		}
		total = page.TotalCount
		for _, n := range page.Nodes {
			all = append(all, n.ID)
		}
		if !page.PageInfo.HasNextPage {
			return all, total
		}
		after = page.PageInfo.EndCursor
	}
	a.t.Fatal("pagination did not end")
	return nil, 0
}

func has(list []string, x string) bool { return slices.Contains(list, x) }

func hasAll(list []string, xs []string) bool {
	for _, x := range xs {
		if !has(list, x) {
			return false
		}
	}
	return true
}

func hasAny(list []string, xs []string) bool {
	for _, x := range xs {
		if has(list, x) {
			return true
		}
	}
	return false
}

func TestCaseListFilters(t *testing.T) {
	a := mustAPI(t)
	tests := []struct {
		name   string
		filter map[string]any
		keep   func(c *ilgraph.Case) bool
	}{
		{"everything", map[string]any{}, func(c *ilgraph.Case) bool { return true }},
		{"root cause", map[string]any{"rootCauses": []string{"capacity"}}, func(c *ilgraph.Case) bool { return c.RootCause == "capacity" }},
		{"two root causes", map[string]any{"rootCauses": []string{"capacity", "software-bug"}}, func(c *ilgraph.Case) bool {
			return c.RootCause == "capacity" || c.RootCause == "software-bug"
		}},
		{"components any-of", map[string]any{"components": map[string]any{"anyOf": []string{"application-database", "message-broker"}}}, func(c *ilgraph.Case) bool {
			return hasAny(c.Components, []string{"application-database", "message-broker"})
		}},
		{"domains all-of", map[string]any{"domains": map[string]any{"allOf": []string{"aws", "database"}}}, func(c *ilgraph.Case) bool {
			return hasAll(c.Domain, []string{"aws", "database"})
		}},
		{"symptoms all-of and any-of", map[string]any{"symptoms": map[string]any{"allOf": []string{"high-latency"}, "anyOf": []string{"high-error-rate", "full-outage"}}}, func(c *ilgraph.Case) bool {
			return has(c.Symptoms, "high-latency") && hasAny(c.Symptoms, []string{"high-error-rate", "full-outage"})
		}},
		{"factor and cause", map[string]any{"contributing": map[string]any{"anyOf": []string{"circular-dependency"}}, "rootCauses": []string{"capacity"}}, func(c *ilgraph.Case) bool {
			return has(c.Contributing, "circular-dependency") && c.RootCause == "capacity"
		}},
		{"org", map[string]any{"orgs": []string{"amazon-web-services", "cloudflare"}}, func(c *ilgraph.Case) bool {
			return c.OrgSlug == "amazon-web-services" || c.OrgSlug == "cloudflare"
		}},
		{"exclude org", map[string]any{"excludeOrgs": []string{"amazon-web-services"}}, func(c *ilgraph.Case) bool { return c.OrgSlug != "amazon-web-services" }},
		{"date range", map[string]any{"dateFrom": "2019-01-01", "dateTo": "2021-12-31"}, func(c *ilgraph.Case) bool {
			return c.Date >= "2019-01-01" && c.Date <= "2021-12-31"
		}},
		{"severity", map[string]any{"severities": []string{"unknown"}}, func(c *ilgraph.Case) bool { return c.Severity == "unknown" }},
		{"unknown term matches nothing", map[string]any{"rootCauses": []string{"no-such-term"}}, func(c *ilgraph.Case) bool { return false }},
		{"everything combined", map[string]any{"domains": map[string]any{"anyOf": []string{"database", "aws"}}, "dateFrom": "2015-01-01", "excludeOrgs": []string{"gitlab"}, "symptoms": map[string]any{"anyOf": []string{"high-latency", "high-error-rate"}}}, func(c *ilgraph.Case) bool {
			return hasAny(c.Domain, []string{"database", "aws"}) && c.Date >= "2015-01-01" && c.OrgSlug != "gitlab" && hasAny(c.Symptoms, []string{"high-latency", "high-error-rate"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			want := ids(a.where(tt.keep))
			got, total := a.listAll("cases", "filter: $filter, sort: ID_ASC,", map[string]any{"filter": tt.filter})
			if total != len(want) || !slices.Equal(got, want) {
				t.Errorf("got %d: %v\nwant %d: %v", total, got, len(want), want)
			}
		})
	}
	t.Run("date order", func(t *testing.T) {
		a.t = t
		want := slices.Clone(a.cases)
		sort.SliceStable(want, func(i, j int) bool {
			if want[i].Date != want[j].Date {
				return want[i].Date > want[j].Date
			}
			return want[i].ID < want[j].ID
		})
		got, _ := a.listAll("cases", "sort: DATE_DESC,", nil)
		if !reflect.DeepEqual(got, ids(want)) {
			t.Errorf("DATE_DESC:\n got %v\nwant %v", got, ids(want))
		}
	})
}

func TestFacets(t *testing.T) {
	a := mustAPI(t)
	filter := map[string]any{"domains": map[string]any{"anyOf": []string{"database"}}}
	var got struct {
		Cases struct {
			Facets map[string][]struct {
				Term  *struct{ ID string }
				Year  int
				Count int
			}
		}
	}
	a.must(`query($filter: CaseFilter) { cases(filter: $filter) { facets {
		rootCauses { term { id } count } components { term { id } count } symptoms { term { id } count }
		contributing { term { id } count } domains { term { id } count } orgs { term { id } count } years { year count } } } }`,
		map[string]any{"filter": filter}, &got)
	sel := a.where(func(c *ilgraph.Case) bool { return has(c.Domain, "database") })
	kinds := map[string]ilgraph.Kind{"rootCauses": ilgraph.KindRootCause, "components": ilgraph.KindComponent, "symptoms": ilgraph.KindSymptom,
		"contributing": ilgraph.KindContributing, "domains": ilgraph.KindDomain, "orgs": ilgraph.KindOrg}
	for field, k := range kinds {
		want := map[string]int{}
		for _, c := range sel {
			for _, id := range c.Tags(k) {
				want[id]++
			}
		}
		gotm := map[string]int{}
		prev := math.MaxInt
		for _, f := range got.Cases.Facets[field] {
			gotm[f.Term.ID] = f.Count
			if f.Count > prev {
				t.Errorf("%s facets not sorted by count", field)
			}
			prev = f.Count
		}
		if !reflect.DeepEqual(gotm, want) {
			t.Errorf("%s facets:\n got %v\nwant %v", field, gotm, want)
		}
	}
	wantYears := map[int]int{}
	for _, c := range sel {
		wantYears[c.Year()]++
	}
	gotYears := map[int]int{}
	for _, y := range got.Cases.Facets["years"] {
		gotYears[y.Year] = y.Count
	}
	if !reflect.DeepEqual(gotYears, wantYears) {
		t.Errorf("year facets: got %v, want %v", gotYears, wantYears)
	}
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}']+`)

// hasWord reports whether text has word as a whole word (case-insensitive),
// the way the full-text index's tokenizer splits English.
func hasWord(text, word string) bool {
	for _, w := range wordRE.FindAllString(strings.ToLower(text), -1) {
		if strings.Trim(w, "'") == word {
			return true
		}
	}
	return false
}

func TestFullTextSearch(t *testing.T) {
	a := mustAPI(t)
	tests := []struct {
		text string
		keep func(c *ilgraph.Case) bool
	}{
		{"Kinesis", func(c *ilgraph.Case) bool {
			return hasWord(c.Title.En+" "+c.Summary.En+" "+c.Title.Ko+" "+c.Summary.Ko, "kinesis")
		}},
		{"kubernetes", func(c *ilgraph.Case) bool {
			return hasWord(c.Title.En+" "+c.Summary.En+" "+c.Title.Ko+" "+c.Summary.Ko, "kubernetes")
		}},
		{"장애", func(c *ilgraph.Case) bool { return strings.Contains(c.Title.Ko+" "+c.Summary.Ko, "장애") }},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			a.t = t
			want := ids(a.where(tt.keep))
			got, total := a.listAll("cases", "filter: $filter, sort: ID_ASC,", map[string]any{"filter": map[string]any{"text": tt.text}})
			if total != len(want) || !reflect.DeepEqual(got, want) {
				t.Errorf("text %q:\n got %v\nwant %v", tt.text, got, want)
			}
			if len(want) == 0 {
				t.Errorf("the corpus has no case for %q; the test shows nothing", tt.text)
			}
			// Relevance order returns the same set.
			rel, _ := a.listAll("cases", "filter: $filter, sort: RELEVANCE,", map[string]any{"filter": map[string]any{"text": tt.text}})
			sort.Strings(rel)
			if !reflect.DeepEqual(rel, want) {
				t.Errorf("RELEVANCE returned another set: %v", rel)
			}
		})
	}
}

func TestSharedWithMissionExample(t *testing.T) {
	a := mustAPI(t)
	want := ids(a.where(func(c *ilgraph.Case) bool {
		return c.ID != "IL-0384" && c.RootCause == "capacity" && has(c.Contributing, "circular-dependency")
	}))
	got, total := a.listAll("sharedWith", `caseId: "IL-0384", kind: CONTRIBUTING, term: "circular-dependency", filter: $filter, sort: ID_ASC,`,
		map[string]any{"filter": map[string]any{"rootCauses": []string{"capacity"}}})
	if total != len(want) || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}

	t.Run("any shared component", func(t *testing.T) {
		a.t = t
		src := a.byID["IL-0384"]
		want := ids(a.where(func(c *ilgraph.Case) bool { return c.ID != src.ID && hasAny(c.Components, src.Components) }))
		got, _ := a.listAll("sharedWith", `caseId: "IL-0384", kind: COMPONENT, filter: $filter, sort: ID_ASC,`, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("errors", func(t *testing.T) {
		a.t = t
		errs := a.do(`{ sharedWith(caseId: "IL-9999", kind: DOMAIN) { totalCount } }`, nil, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Errorf("unknown case: got %+v, want NOT_FOUND", errs)
		}
		errs = a.do(`{ sharedWith(caseId: "IL-0384", kind: DOMAIN, term: "gcp") { totalCount } }`, nil, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != "INVALID" {
			t.Errorf("term the case lacks: got %+v, want INVALID", errs)
		}
	})
}

func TestSameRootCause(t *testing.T) {
	a := mustAPI(t)
	src := a.byID["IL-0282"]
	type ref struct {
		id     string
		shared int
		date   string
	}
	var want []ref
	for _, c := range a.cases {
		if c.ID == src.ID || c.RootCause != src.RootCause {
			continue
		}
		n := 0
		for _, k := range ilgraph.AllKinds {
			if k == ilgraph.KindRootCause {
				continue
			}
			for _, x := range c.Tags(k) {
				if has(src.Tags(k), x) {
					n++
				}
			}
		}
		want = append(want, ref{c.ID, n, c.Date})
	}
	sort.Slice(want, func(i, j int) bool {
		if want[i].shared != want[j].shared {
			return want[i].shared > want[j].shared
		}
		if want[i].date != want[j].date {
			return want[i].date > want[j].date
		}
		return want[i].id < want[j].id
	})
	var got struct {
		SameRootCause struct {
			TotalCount int
			Nodes      []struct {
				Case        struct{ ID string }
				RootCause   struct{ ID string }
				SharedCount int
				Reason      string
				Shared      []struct {
					Kind string
					Term struct{ ID, En string }
				}
			}
		}
	}
	a.must(`{ sameRootCause(caseId: "IL-0282", first: 100) { totalCount nodes { case { id } rootCause { id } sharedCount reason shared { kind term { id en } } } } }`, nil, &got)
	if got.SameRootCause.TotalCount != len(want) || len(got.SameRootCause.Nodes) != len(want) {
		t.Fatalf("got %d (%d nodes), want %d", got.SameRootCause.TotalCount, len(got.SameRootCause.Nodes), len(want))
	}
	alsoShared := 0
	for i, n := range got.SameRootCause.Nodes {
		w := want[i]
		if n.Case.ID != w.id || n.SharedCount != w.shared || len(n.Shared) != w.shared || n.RootCause.ID != src.RootCause {
			t.Errorf("#%d: got %s sharing %d (%d listed), want %s sharing %d", i, n.Case.ID, n.SharedCount, len(n.Shared), w.id, w.shared)
		}
		c := a.byID[n.Case.ID]
		// The reason names each shared domain, then counts what else is
		// shared, kind by kind (issue #17: it used to name domains only).
		wantReason := "same root cause"
		for _, s := range n.Shared {
			k := ilgraph.Kind(strings.ToLower(s.Kind))
			if !has(src.Tags(k), s.Term.ID) || !has(c.Tags(k), s.Term.ID) {
				t.Errorf("%s: %s %s is not shared", n.Case.ID, s.Kind, s.Term.ID)
			}
			if k == ilgraph.KindDomain {
				wantReason += " · shared " + s.Term.En
			}
		}
		var also []string
		for _, k := range []struct {
			kind             ilgraph.Kind
			singular, plural string
		}{{ilgraph.KindComponent, "component", "components"}, {ilgraph.KindSymptom, "symptom", "symptoms"},
			{ilgraph.KindContributing, "contributing factor", "contributing factors"}, {ilgraph.KindMechanism, "mechanism", "mechanisms"},
			{ilgraph.KindOrg, "the organization", ""}} {
			count := 0
			for _, x := range c.Tags(k.kind) {
				if has(src.Tags(k.kind), x) {
					count++
				}
			}
			switch {
			case count == 0:
			case k.kind == ilgraph.KindOrg:
				also = append(also, k.singular)
			case count == 1:
				also = append(also, "1 "+k.singular)
			default:
				also = append(also, fmt.Sprintf("%d %s", count, k.plural))
			}
		}
		if len(also) > 0 {
			wantReason += " · also shares " + strings.Join(also, ", ")
			alsoShared++
		}
		if n.Reason != wantReason {
			t.Errorf("%s: reason %q, want %q", n.Case.ID, n.Reason, wantReason)
		}
	}
	if alsoShared == 0 {
		t.Error("no reference shares anything but domains: the test shows nothing")
	}
}

func TestVocabularyAndTerms(t *testing.T) {
	a := mustAPI(t)
	var got struct {
		Vocabulary []struct {
			Kind, ID, En string
			Ko           *string
			CaseCount    int
		}
		Term struct {
			ID          string
			Cases       struct{ TotalCount int }
			Cooccurring []struct {
				Term  struct{ ID string }
				Count int
			}
		}
	}
	a.must(`{ vocabulary { kind id en ko caseCount }
		term(kind: ROOT_CAUSE, id: "capacity") { id cases { totalCount } cooccurring(kind: COMPONENT, first: 100) { term { id } count } } }`, nil, &got)
	wantTerms := 0
	for _, k := range ilgraph.VocabKinds {
		wantTerms += len(a.vocab.Kinds[k])
	}
	orgs := map[string]int{}
	for _, c := range a.cases {
		orgs[c.OrgSlug]++
	}
	if len(got.Vocabulary) != wantTerms+len(orgs) {
		t.Errorf("got %d terms, want %d vocabulary terms and %d organizations", len(got.Vocabulary), wantTerms, len(orgs))
	}
	for _, term := range got.Vocabulary {
		k := ilgraph.Kind(strings.ToLower(term.Kind))
		want := 0
		for _, c := range a.cases {
			if has(c.Tags(k), term.ID) {
				want++
			}
		}
		if term.CaseCount != want {
			t.Errorf("%s %s: caseCount %d, want %d", k, term.ID, term.CaseCount, want)
		}
		if k != ilgraph.KindOrg && (term.Ko == nil || *term.Ko == "") {
			t.Errorf("%s %s has no Korean label", k, term.ID)
		}
	}
	capacity := a.where(func(c *ilgraph.Case) bool { return c.RootCause == "capacity" })
	if got.Term.Cases.TotalCount != len(capacity) {
		t.Errorf("term cases: got %d, want %d", got.Term.Cases.TotalCount, len(capacity))
	}
	want := map[string]int{}
	for _, c := range capacity {
		for _, x := range c.Components {
			want[x]++
		}
	}
	gotm := map[string]int{}
	for _, x := range got.Term.Cooccurring {
		gotm[x.Term.ID] = x.Count
	}
	if !reflect.DeepEqual(gotm, want) {
		t.Errorf("co-occurring components of capacity:\n got %v\nwant %v", gotm, want)
	}
}

type drawing struct {
	Nodes []struct {
		Key, Kind, ID, Label string
		Count                *int
	}
	Edges []struct {
		Source, Target, Type string
		Count, Support       *int
		Lift                 *float64
	}
	Truncated bool
}

func TestNeighbourhood(t *testing.T) {
	a := mustAPI(t)
	var got struct{ Neighbourhood drawing }
	a.must(`{ neighbourhood(node: {kind: CASE, id: "IL-0384"}, depth: 1) { nodes { key kind id label } edges { source target type } truncated } }`, nil, &got)
	src := a.byID["IL-0384"]
	want := map[string]bool{"case:IL-0384": true}
	for _, f := range src.Features() {
		want[string(f.Kind)+":"+f.ID] = true
	}
	for _, r := range src.Related {
		want["case:"+r] = true
	}
	for _, c := range a.cases {
		if has(c.Related, src.ID) || c.RecurrenceOf == src.ID {
			want["case:"+c.ID] = true
		}
	}
	gotKeys := map[string]bool{}
	for _, n := range got.Neighbourhood.Nodes {
		gotKeys[n.Key] = true
	}
	if !reflect.DeepEqual(gotKeys, want) {
		t.Errorf("depth-1 nodes:\n got %v\nwant %v", gotKeys, want)
	}
	for _, e := range got.Neighbourhood.Edges {
		if !gotKeys[e.Source] || !gotKeys[e.Target] {
			t.Errorf("edge %v leaves the drawing", e)
		}
	}
	// Every tag of the case is an edge from it.
	if len(got.Neighbourhood.Edges) < len(src.Features()) {
		t.Errorf("got %d edges, want at least %d", len(got.Neighbourhood.Edges), len(src.Features()))
	}
	t.Run("a filter keeps the cases it selects", func(t *testing.T) {
		// The case with the most linked cases, and a date that splits them.
		linked := func(src *ilgraph.Case) []*ilgraph.Case {
			var out []*ilgraph.Case
			for _, c := range a.cases {
				if c.ID != src.ID && (has(src.Related, c.ID) || has(c.Related, src.ID) || c.RecurrenceOf == src.ID || src.RecurrenceOf == c.ID) {
					out = append(out, c)
				}
			}
			return out
		}
		var src *ilgraph.Case
		for _, c := range a.cases {
			if src == nil || len(linked(c)) > len(linked(src)) {
				src = c
			}
		}
		ls := linked(src)
		dates := make([]string, len(ls))
		for i, c := range ls {
			dates[i] = c.Date
		}
		slices.Sort(dates)
		from := dates[len(dates)/2]
		want := map[string]bool{"case:" + src.ID: true}
		for _, f := range src.Features() {
			want[string(f.Kind)+":"+f.ID] = true
		}
		kept := 0
		for _, c := range ls {
			if c.Date >= from {
				want["case:"+c.ID] = true
				kept++
			}
		}
		if kept == 0 || kept == len(ls) {
			t.Fatalf("%s: the date %s does not split its %d linked cases", src.ID, from, len(ls))
		}
		var got struct{ Neighbourhood drawing }
		a.must(`query($id: ID!, $from: String) { neighbourhood(node: {kind: CASE, id: $id}, depth: 1, filter: {dateFrom: $from}) { nodes { key } edges { source target type } } }`,
			map[string]any{"id": src.ID, "from": from}, &got)
		gotKeys := map[string]bool{}
		for _, n := range got.Neighbourhood.Nodes {
			gotKeys[n.Key] = true
		}
		if !reflect.DeepEqual(gotKeys, want) {
			t.Errorf("%s from %s: nodes\n got %v\nwant %v", src.ID, from, gotKeys, want)
		}
		for _, e := range got.Neighbourhood.Edges {
			if !gotKeys[e.Source] || !gotKeys[e.Target] {
				t.Errorf("edge %v leaves the drawing", e)
			}
		}
	})
	var small struct{ Neighbourhood drawing }
	a.must(`{ neighbourhood(node: {kind: ROOT_CAUSE, id: "capacity"}, depth: 2, limit: 5) { nodes { key } truncated } }`, nil, &small)
	if len(small.Neighbourhood.Nodes) != 5 || !small.Neighbourhood.Truncated {
		t.Errorf("limit 5: got %d nodes, truncated %v", len(small.Neighbourhood.Nodes), small.Neighbourhood.Truncated)
	}
	errs := a.do(`{ neighbourhood(node: {kind: COMPONENT, id: "no-such"}) { truncated } }`, nil, nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
		t.Errorf("unknown node: got %+v", errs)
	}
}

func TestCooccurrenceLift(t *testing.T) {
	a := mustAPI(t)
	filter := map[string]any{"dateFrom": "2015-01-01"}
	var got struct{ Cooccurrence drawing }
	a.must(`query($filter: CaseFilter) { cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: $filter) { nodes { key count } edges { source target count lift } } }`,
		map[string]any{"filter": filter}, &got)
	sel := a.where(func(c *ilgraph.Case) bool { return c.Date >= "2015-01-01" })
	n := float64(len(sel))
	causes, comps, pairs := map[string]int{}, map[string]int{}, map[[2]string]int{}
	for _, c := range sel {
		causes[c.RootCause]++
		for _, x := range c.Components {
			comps[x]++
			pairs[[2]string{c.RootCause, x}]++
		}
	}
	if len(got.Cooccurrence.Edges) != len(pairs) {
		t.Errorf("got %d edges, want %d", len(got.Cooccurrence.Edges), len(pairs))
	}
	for _, e := range got.Cooccurrence.Edges {
		cause, comp := strings.TrimPrefix(e.Source, "root_cause:"), strings.TrimPrefix(e.Target, "component:")
		want := pairs[[2]string{cause, comp}]
		lift := float64(want) * n / (float64(causes[cause]) * float64(comps[comp]))
		if *e.Count != want || math.Abs(*e.Lift-lift) > 1e-9 {
			t.Errorf("%s→%s: got count %d lift %.4f, want %d and %.4f", cause, comp, *e.Count, *e.Lift, want, lift)
		}
	}
	for _, node := range got.Cooccurrence.Nodes {
		kind, id, _ := strings.Cut(node.Key, ":")
		want := causes[id]
		if kind == "component" {
			want = comps[id]
		}
		if node.Count == nil || *node.Count != want {
			t.Errorf("node %s: count %v, want %d", node.Key, node.Count, want)
		}
	}
}

func TestConnections(t *testing.T) {
	a := mustAPI(t)
	from, to := a.byID["IL-0384"], a.byID["ILG-0002"]
	var shared []string
	for _, f := range from.Features() {
		if has(to.Tags(f.Kind), f.ID) {
			shared = append(shared, string(f.Kind)+":"+f.ID)
		}
	}
	if len(shared) == 0 {
		t.Fatal("test cases share nothing")
	}
	var got struct {
		Connections []struct {
			Length int
			Nodes  []struct{ Key string }
		}
	}
	a.must(`{ connections(from: "IL-0384", to: "ILG-0002", limit: 100) { length nodes { key } } }`, nil, &got)
	var middles []string
	for _, p := range got.Connections {
		if p.Length != 2 || len(p.Nodes) != 3 || p.Nodes[0].Key != "case:IL-0384" || p.Nodes[2].Key != "case:ILG-0002" {
			t.Errorf("path %+v is not a two-hop path between the cases", p)
			continue
		}
		middles = append(middles, p.Nodes[1].Key)
	}
	sort.Strings(middles)
	sort.Strings(shared)
	if !reflect.DeepEqual(middles, shared) {
		t.Errorf("connections through %v, want through every shared feature %v", middles, shared)
	}
}

func TestStats(t *testing.T) {
	a := mustAPI(t)
	var got struct {
		Stats struct {
			Cases, Organizations int
			Bilingual, Reviewed  int
			PerDomain            []struct {
				Term  struct{ ID string }
				Count int
			}
			PerYear      []struct{ Year, Count int }
			PerRootCause []struct {
				Term  struct{ ID string }
				Count int
			}
			PerOrganization, Top5 []struct {
				Term  struct{ ID string }
				Count int
			}
			TimeToResolveByRootCause []struct {
				Term         struct{ ID string }
				Distribution struct {
					Cases, Measured int
					Median          *int
				}
			}
		}
	}
	a.must(`{ stats { cases organizations bilingual reviewed perDomain { term { id } count } perYear { year count } perRootCause { term { id } count }
		perOrganization { term { id } count } top5: perOrganization(first: 5) { term { id } count }
		timeToResolveByRootCause { term { id } distribution { cases measured median } } } }`, nil, &got)
	orgs := map[string]bool{}
	perOrg := map[string]int{}
	years := map[int]int{}
	causes := map[string]int{}
	mins := map[string][]int{}
	domains := map[string]int{}
	bilingual, reviewed := 0, 0
	for _, c := range a.cases {
		orgs[c.OrgSlug] = true
		perOrg[c.OrgSlug]++
		for _, d := range c.Domain {
			domains[d]++
		}
		if c.Bilingual() {
			bilingual++
		}
		if c.Reviewed() {
			reviewed++
		}
		years[c.Year()]++
		causes[c.RootCause]++
		if m, err := ilgraph.ParseDuration(c.Timeline.ResolvedAfter); err == nil {
			mins[c.RootCause] = append(mins[c.RootCause], m)
		}
	}
	if got.Stats.Cases != len(a.cases) || got.Stats.Organizations != len(orgs) {
		t.Errorf("totals: got %d cases %d orgs, want %d and %d", got.Stats.Cases, got.Stats.Organizations, len(a.cases), len(orgs))
	}
	if got.Stats.Bilingual != bilingual || got.Stats.Reviewed != reviewed {
		t.Errorf("bilingual %d, reviewed %d; want %d and %d", got.Stats.Bilingual, got.Stats.Reviewed, bilingual, reviewed)
	}
	gotDomains := map[string]int{}
	for _, d := range got.Stats.PerDomain {
		gotDomains[d.Term.ID] = d.Count
	}
	if !reflect.DeepEqual(gotDomains, domains) {
		t.Errorf("per domain: got %v, want %v", gotDomains, domains)
	}
	// Organizations: by cases descending, then id; first: 5 the first five.
	var wantOrgs []string
	for o := range perOrg {
		wantOrgs = append(wantOrgs, o)
	}
	sort.Slice(wantOrgs, func(i, j int) bool {
		if perOrg[wantOrgs[i]] != perOrg[wantOrgs[j]] {
			return perOrg[wantOrgs[i]] > perOrg[wantOrgs[j]]
		}
		return wantOrgs[i] < wantOrgs[j]
	})
	var gotOrgs []string
	for _, o := range got.Stats.PerOrganization {
		gotOrgs = append(gotOrgs, fmt.Sprintf("%s %d", o.Term.ID, o.Count))
	}
	for i, o := range wantOrgs {
		wantOrgs[i] = fmt.Sprintf("%s %d", o, perOrg[o])
	}
	if !slices.Equal(gotOrgs, wantOrgs) {
		t.Errorf("per organization: got %v, want %v", gotOrgs, wantOrgs)
	}
	if len(wantOrgs) < 6 || len(got.Stats.Top5) != 5 {
		t.Fatalf("perOrganization(first: 5): %d of %d organizations", len(got.Stats.Top5), len(wantOrgs))
	}
	for i, o := range got.Stats.Top5 {
		if g := fmt.Sprintf("%s %d", o.Term.ID, o.Count); g != wantOrgs[i] {
			t.Errorf("perOrganization(first: 5) #%d: got %s, want %s", i, g, wantOrgs[i])
		}
	}
	if errs := a.do(`{ stats { perOrganization(first: -1) { count } } }`, nil, nil); len(errs) == 0 || errs[0].Extensions["code"] != "INVALID" {
		t.Errorf("perOrganization(first: -1): errors %+v, want INVALID", errs)
	}
	gotYears := map[int]int{}
	for _, y := range got.Stats.PerYear {
		gotYears[y.Year] = y.Count
	}
	if !reflect.DeepEqual(gotYears, years) {
		t.Errorf("per year: got %v, want %v", gotYears, years)
	}
	gotCauses := map[string]int{}
	for _, c := range got.Stats.PerRootCause {
		gotCauses[c.Term.ID] = c.Count
	}
	if !reflect.DeepEqual(gotCauses, causes) {
		t.Errorf("per root cause: got %v, want %v", gotCauses, causes)
	}
	for _, d := range got.Stats.TimeToResolveByRootCause {
		ms := mins[d.Term.ID]
		sort.Ints(ms)
		if d.Distribution.Cases != causes[d.Term.ID] || d.Distribution.Measured != len(ms) {
			t.Errorf("%s: %d cases %d measured, want %d and %d", d.Term.ID, d.Distribution.Cases, d.Distribution.Measured, causes[d.Term.ID], len(ms))
		}
		if len(ms) > 0 {
			median := ms[int(math.Ceil(0.5*float64(len(ms))))-1]
			if d.Distribution.Median == nil || *d.Distribution.Median != median {
				t.Errorf("%s: median %v, want %d", d.Term.ID, d.Distribution.Median, median)
			}
		}
	}
}

// countCaseReads counts, until the test ends, the times cases are read
// from Neo4j (graph.DB.CasesByID).
func countCaseReads(t *testing.T, a *api) *atomic.Int64 {
	var n atomic.Int64
	a.db.SetQueryHook(func(what string, _ time.Duration) {
		if what == "reading cases" {
			n.Add(1)
		}
	})
	t.Cleanup(func() { a.db.SetQueryHook(nil) })
	return &n
}

// TestSameRootCauseFromMemory: a same-root-cause list whose cases are asked
// only for fields the read model holds (ids, dates, titles, organization,
// tags) is answered from memory, its cases not read from Neo4j once the
// corpus is in memory, and gives what the list of whole cases gives (asked
// for a summary too, which only the graph holds) — as Query.sameRootCause
// and as Case.sameRootCause.
func TestSameRootCauseFromMemory(t *testing.T) {
	a := mustAPI(t)
	n := countCaseReads(t, a)
	a.must(`{ similarCases(caseId: "IL-0384", k: 1) { score } }`, nil, nil) // waits for the corpus in memory
	const fields = `id date title { en ko } organization { id en } rootCause { id } components { id } symptoms { id } contributing { id } domains { id }`
	type ref struct {
		Case struct {
			ID, Date     string
			Title        struct{ En, Ko string }
			Organization struct{ ID, En string }
			RootCause    struct{ ID string }
			Components   []struct{ ID string }
			Symptoms     []struct{ ID string }
			Contributing []struct{ ID string }
			Domains      []struct{ ID string }
			Summary      *struct{ En string }
		}
		SharedCount int
		Reason      string
		Shared      []struct {
			Kind string
			Term struct{ ID string }
		}
	}
	type answer struct {
		SameRootCause struct {
			TotalCount int
			Nodes      []ref
		}
		Case struct{ SameRootCause []ref }
	}
	ask := func(caseFields string) (answer, int64) {
		var got answer
		n.Store(0)
		a.must(fmt.Sprintf(`query($id: ID!, $after: String) { sameRootCause(caseId: $id, first: 20, after: $after) { totalCount nodes { case { %[1]s } sharedCount reason shared { kind term { id } } } }
			case(id: $id) { sameRootCause(first: 5) { case { %[1]s } sharedCount reason shared { kind term { id } } } } }`, caseFields), map[string]any{"id": "IL-0282", "after": explore.EncodeCursor(1)}, &got)
		return got, n.Load()
	}
	// Cases read from the graph: the case lookup (Query.case) is one; the
	// lists add none when tags only, one each with summaries.
	slim, reads := ask(fields)
	if reads != 1 {
		t.Errorf("tags only: cases read from Neo4j %d times, want once (the case itself)", reads)
	}
	whole, reads := ask(fields + ` summary { en }`)
	if reads != 3 {
		t.Errorf("with summaries: cases read from Neo4j %d times, want 3 (the case, then each list's cases)", reads)
	}
	if len(slim.SameRootCause.Nodes) < 2 || len(slim.Case.SameRootCause) < 2 {
		t.Fatalf("IL-0282 has %d / %d same-root-cause cases on the pages: the check proves nothing", len(slim.SameRootCause.Nodes), len(slim.Case.SameRootCause))
	}
	for _, w := range [][]ref{whole.SameRootCause.Nodes, whole.Case.SameRootCause} {
		for i := range w {
			if w[i].Case.Summary == nil || w[i].Case.Summary.En == "" {
				t.Fatalf("%s: no summary in the whole case", w[i].Case.ID)
			}
			w[i].Case.Summary = nil
		}
	}
	if got, want := fmt.Sprintf("%+v", slim), fmt.Sprintf("%+v", whole); got != want {
		t.Errorf("tags only:\n got %s\nwant %s", got, want)
	}
}

// TestCaseFromMemory: a case asked only for fields the read model holds is
// answered from memory, not read from Neo4j, and gives what the whole case
// gives (asked for a summary too); an unknown id is null either way.
func TestCaseFromMemory(t *testing.T) {
	a := mustAPI(t)
	n := countCaseReads(t, a)
	a.must(`{ similarCases(caseId: "IL-0384", k: 1) { score } }`, nil, nil) // waits for the corpus in memory
	const fields = `__typename id date year severity title { en ko } organization { id en } rootCause { id en } components { id } symptoms { id } contributing { id } domains { id } mechanisms { id }`
	ask := func(id, caseFields string) (map[string]any, int64) {
		var got struct{ Case map[string]any }
		n.Store(0)
		a.must(fmt.Sprintf(`query($id: ID!) { case(id: $id) { %s } }`, caseFields), map[string]any{"id": id}, &got)
		return got.Case, n.Load()
	}
	for _, id := range []string{"IL-0384", "IL-0282", "ILG-0002", "ILG-0199"} {
		slim, reads := ask(id, fields)
		if reads != 0 {
			t.Errorf("%s, tags only: read from Neo4j %d times, want none", id, reads)
		}
		whole, reads := ask(id, `... on Case { `+fields+` summary { en } }`)
		if reads != 1 {
			t.Errorf("%s, with its summary: read from Neo4j %d times, want once", id, reads)
		}
		if whole == nil || whole["summary"] == nil {
			t.Fatalf("%s: no whole case: %v", id, whole)
		}
		delete(whole, "summary")
		if got, want := fmt.Sprint(slim), fmt.Sprint(whole); got != want {
			t.Errorf("%s, tags only:\n got %s\nwant %s", id, got, want)
		}
	}
	if got, reads := ask("IL-9999", fields); got != nil || reads != 0 {
		t.Errorf("an unknown case, tags only: got %v after %d reads, want null and none", got, reads)
	}
}

// TestSimilarFromMemory: a list of similar cases whose cases are asked
// only for list fields is answered from the in-memory corpus, the cases not
// read from Neo4j, and gives the answer the whole cases give.
func TestSimilarFromMemory(t *testing.T) {
	a := mustAPI(t)
	n := countCaseReads(t, a)
	a.must(`{ similarCases(caseId: "IL-0384", k: 1) { score } }`, nil, nil) // waits for the corpus in memory
	const fields = `id date title { en ko } organization { id en } rootCause { id } components { id } symptoms { id } contributing { id } domains { id } mechanisms { id }`
	type match struct {
		Case struct {
			ID, Date     string
			Title        struct{ En, Ko string }
			Organization struct{ ID, En string }
			RootCause    struct{ ID string }
			Components   []struct{ ID string }
			Symptoms     []struct{ ID string }
			Contributing []struct{ ID string }
			Domains      []struct{ ID string }
			Mechanisms   []struct{ ID string }
			Summary      *struct{ En string }
		}
		Score  float64
		Shared []struct {
			Kind         string
			Term         struct{ ID string }
			Contribution float64
		}
	}
	type answer struct {
		SimilarCases []match
		Case         struct{ Similar []match }
	}
	ask := func(caseFields string) (answer, int64) {
		var got answer
		n.Store(0)
		a.must(fmt.Sprintf(`query($id: ID!) { similarCases(caseId: $id, k: 8) { case { %[1]s } score shared { kind term { id } contribution } }
			case(id: $id) { similar(k: 4) { case { %[1]s } score shared { kind term { id } contribution } } } }`, caseFields), map[string]any{"id": "IL-0282"}, &got)
		return got, n.Load()
	}
	// Cases read from the graph: the case lookup (Query.case) is one; the
	// lists add none when tags only, one each with summaries.
	slim, reads := ask(fields)
	if reads != 1 {
		t.Errorf("tags only: cases read from Neo4j %d times, want once (the case itself)", reads)
	}
	whole, reads := ask(fields + ` summary { en }`)
	if reads != 3 {
		t.Errorf("with summaries: cases read from Neo4j %d times, want 3 (the case, then each list's cases)", reads)
	}
	if len(slim.SimilarCases) < 8 || len(slim.Case.Similar) < 4 {
		t.Fatalf("IL-0282 has %d / %d similar cases: the check proves nothing", len(slim.SimilarCases), len(slim.Case.Similar))
	}
	for _, w := range [][]match{whole.SimilarCases, whole.Case.Similar} {
		for i := range w {
			if w[i].Case.Summary == nil || w[i].Case.Summary.En == "" {
				t.Fatalf("%s: no summary in the whole case", w[i].Case.ID)
			}
			w[i].Case.Summary = nil
		}
	}
	if got, want := fmt.Sprintf("%+v", slim), fmt.Sprintf("%+v", whole); got != want {
		t.Errorf("tags only:\n got %s\nwant %s", got, want)
	}
}

// TestNoNPlusOne counts the transactions sent to Neo4j for a page of cases
// with their tags, related cases and term counts: the count must not grow
// with the page size.
func TestNoNPlusOne(t *testing.T) {
	a := mustAPI(t)
	var n atomic.Int64
	a.db.SetQueryHook(func(string, time.Duration) { n.Add(1) })
	defer a.db.SetQueryHook(nil)
	count := func(first int) int64 {
		n.Store(0)
		a.must(fmt.Sprintf(`{ cases(first: %d) { nodes { id organization { en } rootCause { id en caseCount } components { id en caseCount }
			symptoms { id } contributing { id } domains { id } related { id title { en } rootCause { id } } recurrences { id } } } }`, first), nil, nil)
		return n.Load()
	}
	// The first request after a load also builds the read model (the
	// similarity index: two queries, once per corpus version); a similarity
	// query waits for it. What must not grow is the per-request count.
	a.must(`{ similarCases(caseId: "IL-0384", k: 1) { score } }`, nil, nil)
	small, large := count(2), count(100) // 100: every seed case
	// The large page may need fewer: its related cases are often on the
	// page already. It must never need more.
	if large > small {
		t.Errorf("%d round trips for 2 cases, %d for %d: round trips grow with the page", small, large, len(a.cases))
	}
	if small > 5 || large > 5 {
		t.Errorf("%d and %d round trips for one page, want at most 5 (list, vocabulary, related, recurrences)", small, large)
	}
}

func TestLimitsAndBadInput(t *testing.T) {
	a := mustAPI(t)
	code := func(errs []gqlError) string {
		if len(errs) == 0 {
			return ""
		}
		c, _ := errs[0].Extensions["code"].(string)
		return c
	}
	tests := []struct {
		name, query string
		wantCode    string
	}{
		{"page too large", `{ cases(first: 101) { totalCount } }`, "LIMIT"},
		{"negative page", `{ cases(first: -1) { totalCount } }`, "INVALID"},
		{"bad cursor", `{ cases(after: "nonsense") { totalCount } }`, "INVALID"},
		{"bad date", `{ cases(filter: {dateFrom: "2020-13-45"}) { totalCount } }`, "INVALID"},
		{"reversed dates", `{ cases(filter: {dateFrom: "2021-01-01", dateTo: "2020-01-01"}) { totalCount } }`, "INVALID"},
		{"relevance without text", `{ cases(sort: RELEVANCE) { totalCount } }`, "INVALID"},
		{"too deep", `{ case(id: "IL-0384") { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { rootCause { cases(first: 1) { nodes { id } } } } } } } } } } } } } }`, "LIMIT"},
		{"too complex", `{ cases(first: 100) { nodes { sameRootCause(first: 100) { case { related { id } } } } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"a full page of cases with their tags is allowed", `{ cases(first: 100) { nodes { id title { en ko } organization { en } rootCause { id en caseCount } components { id en caseCount } symptoms { id en } contributing { id en } domains { id en } related { id title { en } } } } }`, ""},
		{"depth out of range", `{ neighbourhood(node: {kind: CASE, id: "IL-0384"}, depth: 9) { truncated } }`, "INVALID"},
		{"unknown field", `{ case(id: "IL-0384") { nope } }`, "GRAPHQL_VALIDATION_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			if got := code(a.do(tt.query, nil, nil)); got != tt.wantCode {
				t.Errorf("got code %q, want %q", got, tt.wantCode)
			}
		})
	}
	t.Run("hostile strings are data, never Cypher", func(t *testing.T) {
		a.t = t
		before, _ := graph.NewBench(a.db).Checksum(context.Background())
		// Every string argument of the schema, each given the hostile value.
		queries := []string{
			`query($s: ID!) { case(id: $s) { id } }`,
			`query($s: String!) { cases(filter: {text: $s, rootCauses: [$s], orgs: [$s], excludeOrgs: [$s], severities: [$s], dateFrom: $s,
				components: {anyOf: [$s]}, symptoms: {allOf: [$s]}, contributing: {anyOf: [$s]}, domains: {allOf: [$s]}}) { totalCount } }`,
			`query($s: String!) { cases(filter: {text: $s}, sort: RELEVANCE) { totalCount nodes { id } facets { years { year } } } }`,
			`query($s: String!) { cases(after: $s) { totalCount } }`,
			`query($s: ID!) { sharedWith(caseId: $s, kind: COMPONENT) { totalCount } }`,
			`query($s: ID!) { sharedWith(caseId: "IL-0384", kind: COMPONENT, term: $s) { totalCount } }`,
			`query($s: ID!) { sameRootCause(caseId: $s) { totalCount } }`,
			`query($s: ID!) { term(kind: COMPONENT, id: $s) { id cases { totalCount } cooccurring(kind: SYMPTOM) { count } } }`,
			`query($s: ID!) { neighbourhood(node: {kind: CASE, id: $s}) { truncated } }`,
			`query($s: ID!) { neighbourhood(node: {kind: ORG, id: $s}) { truncated } }`,
			`query($s: String!) { cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: {text: $s, orgs: [$s]}) { edges { lift } } }`,
			`query($s: ID!) { connections(from: $s, to: "IL-0384") { length } }`,
			`query($s: String!) { stats(filter: {text: $s, rootCauses: [$s]}) { cases } }`,
			`query($s: ID!) { similarCases(caseId: $s) { score } }`,
			`query($s: String!) { similarCases(caseId: "IL-0384", filter: {text: $s, excludeOrgs: [$s]}) { score } }`,
			`query($s: ID!) { similarToProfile(profile: {rootCause: $s, components: [$s], symptoms: [$s], contributing: [$s], domains: [$s], org: $s}) { matches { score } } }`,
			`query($s: ID!) { explainSimilarity(a: $s, b: "IL-0384") { score } }`,
			`query($s: ID!) { explainSimilarity(a: "IL-0384", b: $s) { score } }`,
			`query($s: String!) { cooccurrence(from: ROOT_CAUSE, to: COMPONENT, base: {text: $s, rootCauses: [$s], dateTo: $s}) { edges { support } } }`,
			`query($s: String!) { breakdown(rows: YEAR, columns: ORG, filter: {text: $s, orgs: [$s], dateFrom: $s}) { total } }`,
			`query($s: String!) { breakdown(rows: MONTH, columns: COMPONENT, filter: {components: {allOf: [$s]}, excludeOrgs: [$s]}) { cells { count } } }`,
		}
		for _, s := range []string{`'`, `"`, "`", `}) MATCH (n) DETACH DELETE n //`, `\`, `" OR 1=1 --`, strings.Repeat("가", 400), strings.Repeat("x", 5000), `*:*`, `AND OR NOT`, `title_en:(x)`, "\u0000", `$id`, `IL-0384' OR '1'='1`} {
			for _, q := range queries {
				for _, e := range a.do(q, map[string]any{"s": s}, nil) {
					if code := e.Extensions["code"]; code == "INTERNAL" || code == nil {
						t.Errorf("%.40q in %.60s: %+v", s, q, e)
					}
				}
			}
		}
		after, _ := graph.NewBench(a.db).Checksum(context.Background())
		if before != after {
			t.Error("the graph changed")
		}
	})
	t.Run("body size limit", func(t *testing.T) {
		a.t = t
		big := `{"query":"{ cases { totalCount } }","variables":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
		resp, err := a.client.Post(a.url+"/graphql", "application/json", strings.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("2 MiB body: HTTP %d, want a 4xx", resp.StatusCode)
		}
	})
}

func TestHTTPEndpoints(t *testing.T) {
	a := mustAPI(t)
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/ide": "<html", "/metrics": "ilgraph_graphql_requests_total"} {
		resp, err := a.client.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(strings.ToLower(string(body)), strings.ToLower(want)) {
			t.Errorf("%s: HTTP %d %.80q", path, resp.StatusCode, body)
		}
	}
	// GET /graphql follows GraphQL over HTTP.
	resp, err := a.client.Get(a.url + `/graphql?query=` + urlQuery(`{ case(id: "IL-0384") { id } }`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"IL-0384"`) {
		t.Errorf("GET /graphql: %s", body)
	}
	// Metrics count operations by name.
	a.must(`query CasePage { cases { totalCount } }`, nil, nil)
	resp, _ = a.client.Get(a.url + "/metrics")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `ilgraph_graphql_requests_total{operation="CasePage",status="200"} 1`) ||
		!strings.Contains(string(body), `ilgraph_neo4j_duration_seconds_count{query="listing cases"}`) {
		t.Errorf("metrics lack the operation:\n%s", body)
	}
}

// TestTermListsBothWays asks for every case's tags once with plain fields
// only (marshalled inline, resolvers/inline.go) and once with a resolver
// field beside them (marshalled concurrently), through a fragment too, and
// compares both with the seed JSON and the vocabulary.
func TestTermListsBothWays(t *testing.T) {
	a := mustAPI(t)
	type term struct {
		ID, En      string
		Ko          *string
		Description *string
		CaseCount   *int
	}
	type node struct {
		ID                     string
		Components, Mechanisms []term
		Symptoms               []term
	}
	// all reads every case with q, a page of 100 at a time.
	all := func(q string) []node {
		var nodes []node
		after := ""
		for {
			var got struct {
				Cases struct {
					Nodes    []node
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
				}
			}
			a.must(q, map[string]any{"after": after}, &got)
			nodes = append(nodes, got.Cases.Nodes...)
			if !got.Cases.PageInfo.HasNextPage {
				return nodes
			}
			after = got.Cases.PageInfo.EndCursor
		}
	}
	counts := map[string]int{}
	for _, c := range a.cases {
		for _, id := range c.Symptoms {
			counts[id]++
		}
	}
	labels := map[string]struct{ en, ko, description string }{}
	for _, tm := range a.vocab.Terms() {
		labels[string(tm.Kind)+"/"+tm.ID] = struct{ en, ko, description string }{tm.En, tm.Ko, tm.Description}
	}
	for _, q := range []string{
		`query($after: String) { cases(first: 100, after: $after, sort: ID_ASC) { pageInfo { hasNextPage endCursor }
		   nodes { id components { id en ko description } mechanisms { ...T } symptoms { id en ko description } } } }
		 fragment T on Term { id en ko description }`,
		`query($after: String) { cases(first: 100, after: $after, sort: ID_ASC) { pageInfo { hasNextPage endCursor }
		   nodes { id components { id en ko description caseCount } mechanisms { ... on Term { id en ko description caseCount } } symptoms { id en ko description caseCount } } } }`,
	} {
		nodes := all(q)
		if len(nodes) != len(a.cases) {
			t.Fatalf("%d cases, want %d", len(nodes), len(a.cases))
		}
		withCount := nodes[0].Components[0].CaseCount != nil
		for _, n := range nodes {
			c := a.byID[n.ID]
			for _, l := range []struct {
				kind ilgraph.Kind
				got  []term
				want []string
			}{{ilgraph.KindComponent, n.Components, c.Components}, {ilgraph.KindMechanism, n.Mechanisms, c.Mechanisms}, {ilgraph.KindSymptom, n.Symptoms, c.Symptoms}} {
				if len(l.got) != len(l.want) {
					t.Fatalf("%s %s: %d terms, want %d", n.ID, l.kind, len(l.got), len(l.want))
				}
				for i, tm := range l.got {
					want := labels[string(l.kind)+"/"+l.want[i]]
					if tm.ID != l.want[i] || tm.En != want.en || tm.Ko == nil || *tm.Ko != want.ko || tm.Description == nil || *tm.Description != want.description {
						t.Errorf("%s %s #%d: got %+v, want %s %+v", n.ID, l.kind, i, tm, l.want[i], want)
					}
					if withCount != (tm.CaseCount != nil) {
						t.Errorf("%s %s #%d: caseCount present %v, want %v", n.ID, l.kind, i, tm.CaseCount != nil, withCount)
					}
					if l.kind == ilgraph.KindSymptom && withCount && *tm.CaseCount != counts[tm.ID] {
						t.Errorf("%s symptom %s: caseCount %d, want %d", n.ID, tm.ID, *tm.CaseCount, counts[tm.ID])
					}
				}
			}
		}
	}
}
