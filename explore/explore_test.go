package explore_test

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/refstore"
)

type fixture struct {
	core  *explore.Service
	store *refstore.Store
	cases []*ilgraph.Case
	byID  map[string]*ilgraph.Case
	vocab *ilgraph.Vocabulary
}

// mustCore returns the core over the seed corpus held in memory.
func mustCore(tb testing.TB) fixture {
	tb.Helper()
	seeds := corpus.Seeds(tb)
	cases := corpus.Cases(tb, filepath.Join(seeds, "cases"))
	vocab := corpus.Vocab(tb, filepath.Join(seeds, "vocab.json"))
	store := refstore.New(cases, vocab)
	f := fixture{core: explore.New(store, newMemSimilarity(cases)), store: store, cases: cases, byID: map[string]*ilgraph.Case{}, vocab: vocab}
	for _, c := range cases {
		f.byID[c.ID] = c
	}
	return f
}

func ptr[T any](v T) *T { return &v }

func ids(cs []*ilgraph.Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestCasesPaging(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	t.Run("cursors walk the whole selection once", func(t *testing.T) {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("paging does not end")
			}
			l, err := f.core.Cases(ctx, explore.CaseQuery{Page: explore.Page{First: ptr(7), After: after}})
			if err != nil {
				t.Fatal(err)
			}
			if l.TotalCount != len(f.cases) {
				t.Fatalf("TotalCount = %d, want %d", l.TotalCount, len(f.cases))
			}
			got = append(got, ids(l.Cases)...)
			if !l.PageInfo.HasNextPage {
				break
			}
			if l.PageInfo.EndCursor != l.Cursor(len(l.Cases)-1) {
				t.Fatalf("EndCursor %q is not the last case's cursor %q", l.PageInfo.EndCursor, l.Cursor(len(l.Cases)-1))
			}
			after = l.PageInfo.EndCursor
		}
		want := ids(f.cases)
		sort.Slice(want, func(i, j int) bool {
			a, b := f.byID[want[i]], f.byID[want[j]]
			if a.Date != b.Date {
				return a.Date > b.Date
			}
			return a.ID < b.ID
		})
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("pages gave\n%v\nwant (newest first)\n%v", got, want)
		}
	})
	for _, tc := range []struct {
		name string
		q    explore.CaseQuery
		code string
	}{
		{"negative first", explore.CaseQuery{Page: explore.Page{First: ptr(-1)}}, ilgraph.EINVALID},
		{"first over the maximum", explore.CaseQuery{Page: explore.Page{First: ptr(explore.MaxPageSize + 1)}}, ilgraph.ELIMIT},
		{"a cursor we never gave", explore.CaseQuery{Page: explore.Page{After: "bm9wZQ"}}, ilgraph.EINVALID},
		{"relevance without text", explore.CaseQuery{Sort: ilgraph.SortRelevance}, ilgraph.EINVALID},
		{"unknown sort", explore.CaseQuery{Sort: "SIDEWAYS"}, ilgraph.EINVALID},
		{"bad date", explore.CaseQuery{Filter: ilgraph.CaseFilter{DateFrom: "2020-13-01"}}, ilgraph.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := f.store.Calls["ListCases"]
			_, err := f.core.Cases(ctx, tc.q)
			if got := ilgraph.ErrorCode(err); got != tc.code {
				t.Errorf("error %v: code %q, want %q", err, got, tc.code)
			}
			if f.store.Calls["ListCases"] != calls {
				t.Errorf("the store was asked although the query is invalid")
			}
		})
	}
}

// The mission's question, answered by the core's filter composition and
// checked against a brute-force reading of the JSON.
func TestSharedWith(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	src := f.byID["IL-0384"]
	if src == nil {
		t.Fatal("the seeds lack IL-0384")
	}
	hasTag := func(c *ilgraph.Case, k ilgraph.Kind, id string) bool {
		for _, t := range c.Tags(k) {
			if t == id {
				return true
			}
		}
		return false
	}
	for _, term := range src.Contributing {
		t.Run(term, func(t *testing.T) {
			l, err := f.core.SharedWith(ctx, src.ID, ilgraph.KindContributing, term, explore.CaseQuery{
				Filter: ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindRootCause: {AnyOf: []string{"capacity"}}}},
				Page:   explore.Page{First: ptr(explore.MaxPageSize)},
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range f.cases {
				if c.ID != src.ID && c.RootCause == "capacity" && hasTag(c, ilgraph.KindContributing, term) {
					want = append(want, c.ID)
				}
			}
			got := ids(l.Cases)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") || l.TotalCount != len(want) {
				t.Errorf("got %v (total %d), want %v", got, l.TotalCount, want)
			}
		})
	}
	t.Run("a term the case lacks", func(t *testing.T) {
		_, err := f.core.SharedWith(ctx, src.ID, ilgraph.KindContributing, "no-such-factor", explore.CaseQuery{})
		if ilgraph.ErrorCode(err) != ilgraph.EINVALID {
			t.Errorf("got %v, want EINVALID", err)
		}
	})
	t.Run("an unknown case", func(t *testing.T) {
		_, err := f.core.SharedWith(ctx, "IL-NOPE", ilgraph.KindContributing, "", explore.CaseQuery{})
		if ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
			t.Errorf("got %v, want ENOTFOUND", err)
		}
	})
}

func TestSameRootCauseReasons(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	vocab, err := f.core.VocabularySnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range f.cases[:10] {
		l, err := f.core.SameRootCause(ctx, src.ID, explore.Page{First: ptr(explore.MaxPageSize)})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l.Refs {
			if x.Case.RootCause != src.RootCause || x.RootCause.ID != src.RootCause {
				t.Errorf("%s lists %s with root cause %s", src.ID, x.Case.ID, x.Case.RootCause)
			}
			var domains []string
			others := map[ilgraph.Kind]int{}
			n := 0
			for _, k := range ilgraph.AllKinds[1:] {
				for _, a := range src.Tags(k) {
					for _, b := range x.Case.Tags(k) {
						if a == b {
							n++
							others[k]++
							if k == ilgraph.KindDomain {
								domains = append(domains, vocab[ilgraph.TermKey{Kind: k, ID: a}].En)
							}
						}
					}
				}
			}
			want := ilgraph.CrossReferenceReason(domains, others)
			if x.SharedCount != n || len(x.Shared) != n {
				t.Errorf("%s–%s: SharedCount %d, %d shared listed, want %d", src.ID, x.Case.ID, x.SharedCount, len(x.Shared), n)
			}
			if x.Reason != want {
				t.Errorf("%s–%s: reason %q, want %q", src.ID, x.Case.ID, x.Reason, want)
			}
		}
	}
	t.Run("the vocabulary is read once for many pages", func(t *testing.T) {
		before := f.store.Calls["VocabularyCounts"]
		for i := 0; i < 5; i++ {
			if _, err := f.core.SameRootCause(ctx, f.cases[i].ID, explore.Page{}); err != nil {
				t.Fatal(err)
			}
		}
		if got := f.store.Calls["VocabularyCounts"] - before; got > 1 {
			t.Errorf("vocabulary read %d times within its TTL, want at most 1", got)
		}
	})
}

func TestProfileSuggestions(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	p := explore.Profile{Components: []string{"message-broker"}, Symptoms: []string{"high-latency", "high-error-rate"}}
	pm, err := f.core.SimilarToProfile(ctx, p, explore.SimilarityQuery{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(pm.Matches) == 0 {
		t.Fatal("no matches for a common profile")
	}
	// Each suggested root cause weighs the summed scores of the matches
	// that have it.
	want := map[string]float64{}
	for _, m := range pm.Matches {
		want[m.Case.RootCause] += m.Score
	}
	if len(pm.RootCauses) != len(want) {
		t.Errorf("%d root causes suggested, want %d", len(pm.RootCauses), len(want))
	}
	for i, wt := range pm.RootCauses {
		if d := wt.Weight - want[wt.Key.ID]; d > 1e-6 || d < -1e-6 {
			t.Errorf("root cause %s: weight %v, want %v", wt.Key.ID, wt.Weight, want[wt.Key.ID])
		}
		if i > 0 && wt.Weight > pm.RootCauses[i-1].Weight {
			t.Errorf("root causes not by weight: %v", pm.RootCauses)
		}
	}
	if len(pm.Remedies) != len(pm.Matches) {
		t.Errorf("%d remedies for %d matches", len(pm.Remedies), len(pm.Matches))
	}
	for _, m := range pm.Matches {
		sum := 0.0
		for _, s := range m.Shared {
			sum += s.Contribution
		}
		if d := sum - m.Score; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: contributions add to %v, score %v", m.Case.ID, sum, m.Score)
		}
		if len(m.Differing) > explore.MaxDiffering {
			t.Errorf("%s: %d differing features, at most %d", m.Case.ID, len(m.Differing), explore.MaxDiffering)
		}
	}
	for _, tc := range []struct {
		name string
		p    explore.Profile
		q    explore.SimilarityQuery
		code string
	}{
		{"empty profile", explore.Profile{}, explore.SimilarityQuery{K: 5}, ilgraph.EINVALID},
		{"k zero", p, explore.SimilarityQuery{}, ilgraph.ELIMIT},
		{"k over the maximum", p, explore.SimilarityQuery{K: explore.MaxSimilarK + 1}, ilgraph.ELIMIT},
		{"negative weight", p, explore.SimilarityQuery{K: 5, Weights: ilgraph.Weights{ilgraph.KindComponent: -1}}, ilgraph.EINVALID},
		{"min score over one", p, explore.SimilarityQuery{K: 5, MinScore: 1.5}, ilgraph.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.core.SimilarToProfile(ctx, tc.p, tc.q)
			if got := ilgraph.ErrorCode(err); got != tc.code {
				t.Errorf("error %v: code %q, want %q", err, got, tc.code)
			}
		})
	}
}

func TestTerms(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	t.Run("unknown term is ENOTFOUND", func(t *testing.T) {
		_, err := f.core.Term(ctx, ilgraph.TermKey{Kind: ilgraph.KindRootCause, ID: "Capacity"})
		if ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
			t.Errorf("got %v, want ENOTFOUND", err)
		}
	})
	t.Run("a batch keeps its order and labels unknown ids with themselves", func(t *testing.T) {
		org := f.cases[0]
		keys := []ilgraph.TermKey{{Kind: ilgraph.KindRootCause, ID: "capacity"}, {Kind: ilgraph.KindOrg, ID: org.OrgSlug}, {Kind: ilgraph.KindComponent, ID: "nope"}}
		ts, err := f.core.Terms(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].ID != "capacity" || ts[0].En == "" || ts[0].En == "capacity" {
			t.Errorf("capacity: %+v", ts[0])
		}
		if ts[1].ID != org.OrgSlug || ts[1].En != org.Org {
			t.Errorf("org: %+v, want %s (%s)", ts[1], org.OrgSlug, org.Org)
		}
		if ts[2].ID != "nope" || ts[2].En != "nope" {
			t.Errorf("unknown: %+v", ts[2])
		}
	})
	t.Run("facets keep the top n of each kind", func(t *testing.T) {
		fs, err := f.core.Facets(ctx, ilgraph.CaseFilter{}, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ilgraph.AllKinds {
			if len(fs.Terms[k]) > 3 {
				t.Errorf("%s: %d terms, want at most 3", k, len(fs.Terms[k]))
			}
		}
		if _, err := f.core.Facets(ctx, ilgraph.CaseFilter{}, 0); ilgraph.ErrorCode(err) != ilgraph.ELIMIT {
			t.Errorf("top 0: got %v, want ELIMIT", err)
		}
	})
}
