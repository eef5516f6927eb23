package explore_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

func rootCauses(ids ...string) ilgraph.CaseFilter {
	return ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindRootCause: {AnyOf: ids}}}
}

func TestResolveFilter(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		filter   ilgraph.CaseFilter
		kind     ilgraph.Kind
		want     string // the id the value resolves to (or stays)
		field    string // the warning's field; empty: no warning
		message  string // a piece of the warning's message
		suggests []string
	}{
		{"a valid id", rootCauses("capacity"), ilgraph.KindRootCause, "capacity", "", "", nil},
		{"another letter case", rootCauses("Capacity"), ilgraph.KindRootCause, "capacity", "filter.rootCauses", `"Capacity" is not a root cause id; using capacity (its id in another letter case)`, nil},
		{"the English label", rootCauses("capacity or limit exceeded"), ilgraph.KindRootCause, "capacity", "filter.rootCauses", "English label", nil},
		{"the Korean label", rootCauses("용량 또는 한도 초과"), ilgraph.KindRootCause, "capacity", "filter.rootCauses", "Korean label", nil},
		{"spaces for hyphens", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindContributing: {AllOf: []string{"Circular Dependency"}}}},
			ilgraph.KindContributing, "circular-dependency", "filter.contributing.allOf", "using circular-dependency", nil},
		{"an English alias", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{"Kafka"}}}},
			ilgraph.KindComponent, "message-broker", "filter.components.anyOf", "using message-broker (an English alias)", nil},
		{"a Korean alias", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{"메시지 큐"}}}},
			ilgraph.KindComponent, "message-broker", "filter.components.anyOf", "a Korean alias", nil},
		{"a typo", rootCauses("capacty"), ilgraph.KindRootCause, "capacty", "filter.rootCauses", "did you mean capacity?", []string{"capacity"}},
		{"another kind's id", rootCauses("message-broker"), ilgraph.KindRootCause, "message-broker", "filter.rootCauses", "message-broker is a component, not a root cause", nil},
		{"an organization's name", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindOrg: {AnyOf: []string{"Amazon Web Services"}}}},
			ilgraph.KindOrg, "amazon-web-services", "filter.orgs", "the organization's name", nil},
		{"an organization misspelt", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindOrg: {AnyOf: []string{"cloudfare"}}}},
			ilgraph.KindOrg, "cloudfare", "filter.orgs", "did you mean cloudflare?", []string{"cloudflare"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ws, err := f.core.ResolveFilter(ctx, tt.filter, "filter")
			if err != nil {
				t.Fatal(err)
			}
			m := got.Tags[tt.kind]
			if vals := append(m.AnyOf, m.AllOf...); len(vals) != 1 || vals[0] != tt.want {
				t.Errorf("resolved to %v, want %s", vals, tt.want)
			}
			if tt.field == "" {
				if len(ws) > 0 {
					t.Errorf("warnings for a valid id: %+v", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("got %d warnings, want 1: %+v", len(ws), ws)
			}
			w := ws[0]
			if w.Field != tt.field || !strings.Contains(w.Message, tt.message) || (tt.suggests != nil && !slices.Equal(w.Suggestions, tt.suggests)) {
				t.Errorf("warning %+v, want field %s, message with %q, suggestions %v", w, tt.field, tt.message, tt.suggests)
			}
			if resolved := w.Resolved != ""; resolved != (tt.want != w.Value) {
				t.Errorf("Resolved = %q for %q → %s", w.Resolved, w.Value, tt.want)
			}
		})
	}
	t.Run("excludeOrgs", func(t *testing.T) {
		got, ws, err := f.core.ResolveFilter(ctx, ilgraph.CaseFilter{ExcludeOrgs: []string{"Cloudflare"}}, "filter")
		if err != nil || !slices.Equal(got.ExcludeOrgs, []string{"cloudflare"}) || len(ws) != 1 || ws[0].Field != "filter.excludeOrgs" {
			t.Errorf("got %v %+v %v", got.ExcludeOrgs, ws, err)
		}
	})
}

func TestWarningsReachTheRequest(t *testing.T) {
	f := mustCore(t)
	ctx, ws := explore.WithWarnings(context.Background())
	got, err := f.core.Cases(ctx, explore.CaseQuery{Filter: rootCauses("Capacity"), Sort: ilgraph.SortIDAsc, Page: explore.Page{First: ptr(100)}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.core.Cases(context.Background(), explore.CaseQuery{Filter: rootCauses("capacity"), Sort: ilgraph.SortIDAsc, Page: explore.Page{First: ptr(100)}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(got.Cases), ids(want.Cases)) || len(want.Cases) == 0 {
		t.Errorf("Capacity found %v, capacity %v", ids(got.Cases), ids(want.Cases))
	}
	if l := ws.List(); len(l) != 1 || l[0].Value != "Capacity" {
		t.Errorf("warnings %+v", l)
	}
	// The same value twice in one request warns once.
	if _, err := f.core.Stats(ctx, rootCauses("Capacity")); err != nil {
		t.Fatal(err)
	}
	if l := ws.List(); len(l) != 1 {
		t.Errorf("warnings %+v", l)
	}

	t.Run("profiles", func(t *testing.T) {
		ctx, ws := explore.WithWarnings(context.Background())
		p := explore.Profile{Components: []string{"Message Broker / streaming"}, Symptoms: []string{"high-latency"}, Org: "Cloudflare"}
		if _, err := f.core.SimilarToProfile(ctx, p, explore.SimilarityQuery{K: 5}); err != nil {
			t.Fatal(err)
		}
		var fields []string
		for _, w := range ws.List() {
			fields = append(fields, w.Field+"→"+w.Resolved)
		}
		if want := []string{"profile.components→message-broker", "profile.org→cloudflare"}; !slices.Equal(fields, want) {
			t.Errorf("got %v, want %v", fields, want)
		}
	})
}

// TestProfileKinds: a term of every kind in the domain's table survives a
// profile's every step — Terms, Features, ResolveProfile (exact id and a
// label it resolves), and the warnings name the kind's profile field.
func TestProfileKinds(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	for _, info := range ilgraph.Kinds {
		t.Run(string(info.Kind), func(t *testing.T) {
			var term ilgraph.Term
			if info.Vocab {
				if len(f.vocab.Kinds[info.Kind]) == 0 {
					t.Fatalf("the seed vocabulary has no %s", info.Label)
				}
				term = f.vocab.Kinds[info.Kind][0]
			} else {
				c := f.cases[0]
				term = ilgraph.Term{ID: c.Tags(info.Kind)[0], En: c.Org}
			}
			var p explore.Profile
			p.SetTerms(info.Kind, []string{term.ID})
			if got := p.Terms(info.Kind); !slices.Equal(got, []string{term.ID}) {
				t.Fatalf("Terms after SetTerms = %v, want [%s]", got, term.ID)
			}
			if fs := p.Features(); len(fs) != 1 || fs[0] != (ilgraph.Feature{Kind: info.Kind, ID: term.ID}) {
				t.Fatalf("Features = %v, want only %s:%s", fs, info.Kind, term.ID)
			}
			got, ws, err := f.core.ResolveProfile(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Features(), p.Features()) || len(ws) != 0 {
				t.Errorf("ResolveProfile(%v) = %v with warnings %+v, want it unchanged", p.Features(), got.Features(), ws)
			}
			var byLabel explore.Profile
			byLabel.SetTerms(info.Kind, []string{term.En})
			got, ws, err = f.core.ResolveProfile(ctx, byLabel)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{term.ID}; !slices.Equal(got.Terms(info.Kind), want) {
				t.Errorf("label %q resolved to %v, want %v", term.En, got.Terms(info.Kind), want)
			}
			if len(ws) != 1 || ws[0].Field != "profile."+info.ProfileField {
				t.Errorf("warnings %+v, want one on profile.%s", ws, info.ProfileField)
			}
		})
	}
}

// TestFilterKinds: a label of every kind in a filter resolves, and its
// warning names the kind's filter field.
func TestFilterKinds(t *testing.T) {
	f := mustCore(t)
	for _, info := range ilgraph.Kinds {
		t.Run(string(info.Kind), func(t *testing.T) {
			label, id := f.cases[0].Org, f.cases[0].Tags(ilgraph.KindOrg)[0]
			if info.Vocab {
				label, id = f.vocab.Kinds[info.Kind][0].En, f.vocab.Kinds[info.Kind][0].ID
			}
			m := ilgraph.TermMatch{AllOf: []string{label}}
			field := "filter." + info.Field + ".allOf"
			if info.One {
				m, field = ilgraph.TermMatch{AnyOf: []string{label}}, "filter."+info.Field
			}
			got, ws, err := f.core.ResolveFilter(context.Background(), ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{info.Kind: m}}, "filter")
			if err != nil {
				t.Fatal(err)
			}
			r := got.Tags[info.Kind]
			if vals := append(r.AnyOf, r.AllOf...); !slices.Equal(vals, []string{id}) {
				t.Errorf("%q resolved to %v, want [%s]", label, vals, id)
			}
			if len(ws) != 1 || ws[0].Field != field {
				t.Errorf("warnings %+v, want one on %s", ws, field)
			}
		})
	}
}
