package memstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestReadModelEqualsCypher asks the core every question the read model
// answers twice — once from the read model, once from Neo4j's Cypher —
// over the seeds and a generated corpus, and wants identical answers:
// cases in order, totals, facets, statistics, co-occurrence graphs, same
// root cause pages and shared-feature lists.
func TestReadModelEqualsCypher(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	genPath := filepath.Join(t.TempDir(), "gen.jsonl")
	if err := gen.WriteFile(genPath, seeds, 1500, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Load(ctx, db, []string{seeds, genPath}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	src := memstore.NewSource(db)
	svc := similarity.NewService(db, src)
	store := memstore.NewStore(src)
	if _, err := svc.Index(ctx); err != nil {
		t.Fatal(err)
	}
	mem := explore.New(db, svc, explore.WithReadModel(store))
	cypher := explore.New(db, svc)
	if _, ok, _ := store.FacetCounts(ctx, ilgraph.CaseFilter{}); !ok {
		t.Fatal("the read model is not current after building the index")
	}
	// same asks both cores (they share the store and the service; only the
	// read model differs) and wants identical answers, errors included.
	same := func(t *testing.T, what string, ask func(c *explore.Service) (any, error)) {
		t.Helper()
		want, werr := ask(cypher)
		got, gerr := ask(mem)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: error %v, want %v", what, gerr, werr)
			return
		}
		// A list's filter echoes a shared-feature filter with the case's
		// terms in rank order from the graph, in id order from memory: the
		// same selection.
		for _, l := range []any{got, want} {
			if l, ok := l.(*explore.CaseList); ok && l != nil {
				for k, m := range l.Filter.Tags {
					slices.Sort(m.AnyOf)
					l.Filter.Tags[k] = m
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s differs:\n got %s\nwant %s", what, show(got), show(want))
		}
	}

	tags := func(k ilgraph.Kind, m ilgraph.TermMatch) ilgraph.CaseFilter {
		return ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{k: m}}
	}
	filters := map[string]ilgraph.CaseFilter{
		"everything":         {},
		"one year":           {DateFrom: "2021-01-01", DateTo: "2021-12-31"},
		"since 2020":         {DateFrom: "2020-01-01"},
		"root cause":         tags(ilgraph.KindRootCause, ilgraph.TermMatch{AnyOf: []string{"capacity"}}),
		"two root causes":    tags(ilgraph.KindRootCause, ilgraph.TermMatch{AnyOf: []string{"capacity", "config-change"}}),
		"component all-of":   tags(ilgraph.KindComponent, ilgraph.TermMatch{AllOf: []string{"application-database", "cache"}}),
		"factor any and all": tags(ilgraph.KindContributing, ilgraph.TermMatch{AnyOf: []string{"limit-unknown", "circular-dependency"}, AllOf: []string{"blast-radius-too-wide"}}),
		"unknown term":       tags(ilgraph.KindSymptom, ilgraph.TermMatch{AnyOf: []string{"no-such-symptom"}}),
		"org":                tags(ilgraph.KindOrg, ilgraph.TermMatch{AnyOf: []string{"amazon-web-services", "google"}}),
		"filtered page": {DateFrom: "2020-01-01", Tags: map[ilgraph.Kind]ilgraph.TermMatch{
			ilgraph.KindRootCause: {AnyOf: []string{"capacity"}}, ilgraph.KindComponent: {AnyOf: []string{"application-database"}}}},
		"severities and excluded orgs": {Severities: []string{"major", "critical"}, ExcludeOrgs: []string{"amazon-web-services"}},
		"ids":                          {IDs: []string{"IL-0384", "IL-0282", "GEN-0000007", "nope"}, ExcludeIDs: []string{"IL-0282"}},
		"domain before 2019":           {DateTo: "2018-12-31", Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindDomain: {AnyOf: []string{"aws"}}}},
		"reviewed only since 2020":     {DateFrom: "2020-01-01", ReviewedOnly: true},
	}
	first := func(n int) *int { return &n }
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			for _, s := range []ilgraph.CaseSort{ilgraph.SortDateDesc, ilgraph.SortDateAsc, ilgraph.SortIDAsc, ilgraph.SortIDDesc} {
				for _, p := range []explore.Page{{First: first(20)}, {First: first(7), After: explore.EncodeCursor(14)}, {First: first(100), After: explore.EncodeCursor(2000)}, {First: first(0)}} {
					q := explore.CaseQuery{Filter: f, Sort: s, Page: p}
					want, werr := cypher.Cases(ctx, q)
					got, err := mem.Cases(ctx, q)
					if fmt.Sprint(err) != fmt.Sprint(werr) {
						t.Fatalf("%s %+v: error %v, want %v", s, p, err, werr)
					}
					if werr != nil {
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s %+v: cases differ:\n got %v (%d)\nwant %v (%d)", s, p, caseIDs(got.Cases), got.TotalCount, caseIDs(want.Cases), want.TotalCount)
					}
					q.TagsOnly = true
					slim, err := mem.Cases(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(tagsOf(slim.Cases)) != fmt.Sprint(tagsOf(want.Cases)) || slim.TotalCount != want.TotalCount || slim.PageInfo != want.PageInfo {
						t.Errorf("%s %+v: tags only:\n%v\nwant\n%v", s, p, tagsOf(slim.Cases), tagsOf(want.Cases))
					}
				}
			}
			same(t, "facets", func(c *explore.Service) (any, error) { return c.Facets(ctx, f, explore.MaxFacetTop) })
			same(t, "stats", func(c *explore.Service) (any, error) { return c.Stats(ctx, f) })
			base := ilgraph.CaseFilter{DateFrom: "2019-01-01"}
			for _, kinds := range [][2]ilgraph.Kind{{ilgraph.KindRootCause, ilgraph.KindComponent}, {ilgraph.KindComponent, ilgraph.KindComponent}, {ilgraph.KindOrg, ilgraph.KindContributing}} {
				for _, q := range []explore.CooccurrenceQuery{
					{MinCount: 1}, {MinCount: 3}, {LiftBase: explore.LiftCorpus, MinCount: 1, MinSupport: 4},
					{LiftBase: explore.LiftBaseFilter, Base: &base, MinCount: 2},
				} {
					q.From, q.To, q.Filter = kinds[0], kinds[1], f
					same(t, fmt.Sprintf("cooccurrence %v %+v", kinds, q), func(c *explore.Service) (any, error) {
						return c.Cooccurrence(ctx, q)
					})
				}
			}
		})
	}
	for _, id := range []string{"IL-0384", "IL-0282", "GEN-0000001", "GEN-0000777", "GEN-0001500", "IL-NOPE"} {
		same(t, "same root cause of "+id, func(c *explore.Service) (any, error) {
			return c.SameRootCause(ctx, id, explore.Page{First: first(explore.MaxPageSize), After: explore.EncodeCursor(3)})
		})
		// Tags only (what a GraphQL list asking its cases for ids, dates,
		// titles and tags gets): the same references, their cases holding
		// the read model's fields.
		for _, p := range []explore.Page{{First: first(explore.MaxPageSize), After: explore.EncodeCursor(3)}, {First: first(20)}} {
			want, werr := cypher.SameRootCause(ctx, id, p)
			slim, err := mem.SameRootCauseTags(ctx, id, p)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("same root cause of %s, tags only: error %v, want %v", id, err, werr)
			}
			if werr != nil {
				continue
			}
			if got, want := crossRefsTags(slim), crossRefsTags(want); got != want {
				t.Errorf("same root cause of %s, tags only:\n got %s\nwant %s", id, got, want)
			}
		}
		for _, k := range ilgraph.AllKinds {
			same(t, fmt.Sprintf("shared %s with %s", k, id), func(c *explore.Service) (any, error) {
				return c.SharedWith(ctx, id, k, "", explore.CaseQuery{Filter: filters["since 2020"], Page: explore.Page{First: first(50)}})
			})
		}
	}
	same(t, "the mission", func(c *explore.Service) (any, error) {
		return c.SharedWith(ctx, "IL-0384", ilgraph.KindContributing, "circular-dependency", explore.CaseQuery{Filter: filters["root cause"]})
	})
	same(t, "organizations", func(c *explore.Service) (any, error) {
		return c.Terms(ctx, []ilgraph.TermKey{{Kind: ilgraph.KindOrg, ID: "amazon-web-services"}, {Kind: ilgraph.KindOrg, ID: "no-such-org"}, {Kind: ilgraph.KindRootCause, ID: "capacity"}})
	})
	// Term.cooccurring and the topic pages: every term of the vocabulary
	// (and two organizations, and a term nobody has), against every kind.
	vocab, err := cypher.Vocabulary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := []ilgraph.TermKey{{Kind: ilgraph.KindOrg, ID: "amazon-web-services"}, {Kind: ilgraph.KindOrg, ID: "google"}, {Kind: ilgraph.KindSymptom, ID: "no-such-symptom"}}
	for _, term := range vocab {
		keys = append(keys, ilgraph.TermKey{Kind: term.Kind, ID: term.ID})
	}
	for _, key := range keys {
		for _, other := range ilgraph.AllKinds {
			for _, n := range []int{0, 3, explore.MaxCooccurring} {
				same(t, fmt.Sprintf("cooccurring %s of %v, first %d", other, key, n), func(c *explore.Service) (any, error) {
					return c.Cooccurring(ctx, key, other, n)
				})
			}
		}
	}
	same(t, "topic page", func(c *explore.Service) (any, error) {
		return c.TermCases(ctx, ilgraph.TermKey{Kind: ilgraph.KindComponent, ID: "cache"}, explore.CaseQuery{Page: explore.Page{First: first(20)}})
	})

	// The relationship count the read model leaves to the graph.
	st, err := db.Stats(ctx, ilgraph.CaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.CaseRelationships(ctx, ilgraph.CaseFilter{}); err != nil || n != st.Relationships {
		t.Errorf("CaseRelationships = %d, %v; Stats says %d", n, err, st.Relationships)
	}
	if _, err := mem.Stats(ctx, ilgraph.CaseFilter{DateFrom: "2020-13-01"}); ilgraph.ErrorCode(err) != ilgraph.EINVALID {
		t.Errorf("a bad date: %v, want EINVALID", err)
	}
	if _, err := mem.Cooccurrence(ctx, explore.CooccurrenceQuery{From: "nope", To: ilgraph.KindComponent, MinCount: 1}); ilgraph.ErrorCode(err) != ilgraph.EINVALID {
		t.Errorf("an unknown kind: %v, want EINVALID", err)
	}

	// After a load the read model is stale: the core answers from Neo4j
	// at once (never an old answer), and from memory again once rebuilt.
	changed := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := gen.WriteFile(changed, seeds, 1, 99); err != nil { // GEN-0000001, other content
		t.Fatal(err)
	}
	if _, err := loader.Load(ctx, db, []string{filepath.Join(seeds, "vocab.json"), changed}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"right after a load", "after the rebuild"} {
		same(t, when, func(c *explore.Service) (any, error) {
			return c.Cases(ctx, explore.CaseQuery{Filter: ilgraph.CaseFilter{IDs: []string{"GEN-0000001"}}})
		})
		same(t, when, func(c *explore.Service) (any, error) { return c.Facets(ctx, ilgraph.CaseFilter{}, 1000) })
		if _, err := svc.Index(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := store.FacetCounts(ctx, ilgraph.CaseFilter{}); !ok {
		t.Error("the read model is not current after its rebuild")
	}
}

// show prints an answer with its cases' ids rather than their addresses.
func show(v any) string {
	switch v := v.(type) {
	case *explore.CaseList:
		return fmt.Sprintf("%v total %d %+v", caseIDs(v.Cases), v.TotalCount, v.PageInfo)
	case *explore.CrossReferenceList:
		var out []string
		for _, x := range v.Refs {
			out = append(out, fmt.Sprintf("%s:%d:%s", x.Case.ID, x.SharedCount, x.Reason))
		}
		return fmt.Sprintf("%v total %d", out, v.TotalCount)
	}
	return fmt.Sprintf("%+v", v)
}

func caseIDs(cs []*ilgraph.Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// tagsOf keeps of each case the fields the read model holds.
// crossRefsTags is a cross-reference list as text, its cases by tagsOf.
func crossRefsTags(l *explore.CrossReferenceList) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %+v %+v\n", l.TotalCount, l.Offset, l.PageInfo)
	for _, x := range l.Refs {
		fmt.Fprintf(&b, "%+v %v %v %d %q\n", tagsOf([]*ilgraph.Case{x.Case}), x.RootCause, x.Shared, x.SharedCount, x.Reason)
	}
	return b.String()
}

func tagsOf(cs []*ilgraph.Case) []ilgraph.Case {
	out := make([]ilgraph.Case, len(cs))
	for i, c := range cs {
		out[i] = ilgraph.Case{ID: c.ID, Date: c.Date, Severity: c.Severity, Title: c.Title, Org: c.Org, OrgSlug: c.OrgSlug,
			RootCause: c.RootCause, Components: c.Components, Symptoms: c.Symptoms, Contributing: c.Contributing, Domain: c.Domain}
	}
	return out
}
