package memstore_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/storetest"
	"github.com/ilgraph/ilgraph/memstore"
)

// TestReadModelConformsWithoutIndex is TestReadModelConforms with the
// aggregate index off: every aggregate walks the selected cases' features
// (the path of kinds with too many terms), which must mean the same.
func TestReadModelConformsWithoutIndex(t *testing.T) {
	defer memstore.SetSmallKindMax(-1)()
	for _, co := range storetest.Corpora(t) {
		t.Run(co.Name, func(t *testing.T) {
			s := memstore.Build(rowsOf(co.Cases), 1)
			storetest.Run(t, co, readModel{s}, storetest.Options{Filters: 150, StatsWithoutRelationships: true})
		})
	}
}

// aggregates are every aggregate answer of a snapshot to a filter.
func aggregates(t *testing.T, s *memstore.Snapshot, f ilgraph.CaseFilter) []any {
	t.Helper()
	out := []any{s.Stats(f), s.Facets(f), s.Cooccurrence(ilgraph.KindRootCause, ilgraph.KindComponent, f),
		s.Cooccurrence(ilgraph.KindComponent, ilgraph.KindComponent, f), s.Cooccurrence(ilgraph.KindOrg, ilgraph.KindDomain, f)}
	for _, axes := range [][2]ilgraph.Axis{
		{ilgraph.Axis(ilgraph.KindRootCause), ilgraph.AxisYear}, {ilgraph.AxisMonth, ilgraph.Axis(ilgraph.KindComponent)},
		{ilgraph.Axis(ilgraph.KindDomain), ilgraph.Axis(ilgraph.KindContributing)}, {ilgraph.Axis(ilgraph.KindOrg), ilgraph.AxisYear},
	} {
		b, err := s.Breakdown(axes[0], axes[1], f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestAggregatesFollowWrites checks that the aggregate index, made once
// per snapshot, never answers for a snapshot it was not made from: a
// snapshot whose answers were asked (so its index is made) is changed by
// With — a case updated to other terms, date and minutes, a case created,
// a case deleted — and each snapshot after a change answers as a snapshot
// built from its cases does, while the one before still answers as
// before.
func TestAggregatesFollowWrites(t *testing.T) {
	rows := rowsOf(generated(t, 300, 5))
	filters := []ilgraph.CaseFilter{{}, {DateFrom: "2021-01-01", DateTo: "2021-12-31"}}
	for _, r := range rows[:3] {
		for _, f := range r.Features {
			filters = append(filters, ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{f.Kind: {AnyOf: []string{f.ID}}}})
		}
	}
	s := memstore.Build(slices.Clone(rows[:299]), 1)
	answers := func(s *memstore.Snapshot) [][]any {
		var out [][]any
		for _, f := range filters {
			out = append(out, aggregates(t, s, f))
		}
		return out
	}
	before := answers(s)

	// An update: case 0 takes case 1's terms, a date in 2021 and other
	// minutes.
	up := rows[0]
	up.Features = slices.Clone(rows[1].Features)
	up.Date, up.Resolved, up.ResolvedMin = "2021-06-15", true, 12345
	created := rows[299]
	created.Date = "2021-02-03"
	steps := []struct {
		name string
		id   string
		row  *ilgraph.CaseFeatures
		want []ilgraph.CaseFeatures // the cases after
	}{
		{"update", up.ID, &up, append([]ilgraph.CaseFeatures{up}, rows[1:299]...)},
		{"create", created.ID, &created, append(append([]ilgraph.CaseFeatures{up}, rows[1:299]...), created)},
		{"delete", rows[2].ID, nil, append(append([]ilgraph.CaseFeatures{up, rows[1]}, rows[3:299]...), created)},
	}
	for i, st := range steps {
		prev := s
		prevAnswers := answers(prev)
		s, _ = s.With(int64(i+2), st.id, st.row)
		got, want := answers(s), answers(memstore.Build(st.want, 1))
		for j := range filters {
			if !reflect.DeepEqual(got[j], want[j]) {
				t.Errorf("after the %s, filter %+v: the changed snapshot answers\n%s\nwhere a build of its cases answers\n%s", st.name, filters[j], showAll(got[j]), showAll(want[j]))
			}
		}
		if again := answers(prev); !reflect.DeepEqual(again, prevAnswers) {
			t.Errorf("after the %s, the snapshot before it answers otherwise", st.name)
		}
		if reflect.DeepEqual(got, prevAnswers) {
			t.Errorf("the %s changed no answer: the test tests nothing", st.name)
		}
	}
	if !reflect.DeepEqual(answers(memstore.Build(slices.Clone(rows[:299]), 1)), before) {
		t.Error("the first snapshot's answers are not those of a build of its cases")
	}
}

func showAll(xs []any) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, "  %+v\n", x)
	}
	return b.String()
}

// TestSameRootCauseBruteForce compares the same-root-cause pages with a
// brute-force answer over the rows: every other case with one of the
// case's root causes, by shared other terms descending, then date
// descending, then id — pages at the start, in the middle, across ties and
// past the end.
func TestSameRootCauseBruteForce(t *testing.T) {
	rows := rowsOf(generated(t, 1500, 9))
	// Some cases with two root causes, so that a candidate is met twice.
	for i := 0; i < len(rows); i += 7 {
		rows[i].Features = append(slices.Clone(rows[i].Features), rows[(i+3)%len(rows)].Features...)
	}
	s := memstore.Build(rows, 1)
	type cand struct {
		id, date string
		shared   int
	}
	for q := 0; q < len(rows); q += 37 {
		a := rows[q]
		terms := map[ilgraph.Feature]bool{}
		for _, f := range a.Features {
			terms[f] = true
		}
		var want []cand
		for _, r := range rows {
			if r.ID == a.ID {
				continue
			}
			same, shared, seen := false, 0, map[ilgraph.Feature]bool{}
			for _, f := range r.Features {
				if seen[f] || !terms[f] {
					continue
				}
				seen[f] = true
				if f.Kind == ilgraph.KindRootCause {
					same = true
				} else {
					shared++
				}
			}
			if same {
				want = append(want, cand{r.ID, r.Date, shared})
			}
		}
		slices.SortFunc(want, func(x, y cand) int {
			if x.shared != y.shared {
				return y.shared - x.shared
			}
			if x.date != y.date {
				return strings.Compare(y.date, x.date)
			}
			return strings.Compare(x.id, y.id)
		})
		for _, pg := range [][2]int{{0, 20}, {0, 1}, {7, 5}, {len(want) / 2, 13}, {max(len(want)-3, 0), 10}, {len(want), 5}, {0, len(want) + 1}} {
			refs, total, ok := s.SameRootCause(a.ID, pg[0], pg[1])
			if !ok || total != len(want) {
				t.Fatalf("%s: total %d ok %v, want %d", a.ID, total, ok, len(want))
			}
			end := min(pg[0]+pg[1], len(want))
			var got, exp []string
			for _, r := range refs {
				n := 0
				for _, ids := range r.Shared {
					n += len(ids)
				}
				got = append(got, fmt.Sprintf("%s/%d", r.Case.ID, n))
			}
			for _, c := range want[min(pg[0], end):end] {
				exp = append(exp, fmt.Sprintf("%s/%d", c.id, c.shared))
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("%s page %v:\n got %v\nwant %v", a.ID, pg, got, exp)
			}
		}
	}
}

// TestEveryCaseAnswersAreCopies checks that the answers to the filter with
// no condition, made once per snapshot, reach callers as copies: a caller
// changing what it got (the core sets Stats.Relationships) changes nothing
// the next caller gets.
func TestEveryCaseAnswersAreCopies(t *testing.T) {
	rows := rowsOf(generated(t, 200, 3))
	s := memstore.Build(rows, 1)
	want := aggregates(t, memstore.Build(rows, 1), ilgraph.CaseFilter{})
	st, fs := s.Stats(ilgraph.CaseFilter{}), s.Facets(ilgraph.CaseFilter{})
	if len(st.PerOrg) == 0 || len(st.ResolveByCause) == 0 || len(st.TopPairs) == 0 || len(fs.Years) == 0 {
		t.Fatalf("the corpus leaves lists empty: %+v", st)
	}
	st.Relationships = 99
	st.PerOrg[0].Count, st.ResolveByCause[0].Median, st.TopPairs[0].Count, st.PerYear[0].Count = -1, -1, -1, -1
	st.PerRootCause = append(st.PerRootCause[:0], ilgraph.TermCount{ID: "changed"})
	fs.Years[0].Count = -1
	for k := range fs.Terms {
		fs.Terms[k][0].Count = -1
	}
	fs.Terms[ilgraph.KindOrg] = nil
	if got := aggregates(t, s, ilgraph.CaseFilter{}); !reflect.DeepEqual(got, want) {
		t.Errorf("after a caller changed its answers, the snapshot answers\n%s\nwhere a build of its cases answers\n%s", showAll(got), showAll(want))
	}
}
