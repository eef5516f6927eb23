package resolvers_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// cooccur counts, over cases, the cases with each cause, each component
// and each (cause, component) pair.
func cooccur(cases []*ilgraph.Case) (n int, causes, comps map[string]int, pairs map[[2]string]int) {
	causes, comps, pairs = map[string]int{}, map[string]int{}, map[[2]string]int{}
	for _, c := range cases {
		causes[c.RootCause]++
		for _, x := range c.Components {
			comps[x]++
			pairs[[2]string{c.RootCause, x}]++
		}
	}
	return len(cases), causes, comps, pairs
}

// TestCooccurrenceFocused checks co-occurrence focused on one term: lift
// measured over the selection (every lift 1, as before), over the corpus,
// and over a base filter; each edge's support; and minSupport.
func TestCooccurrenceFocused(t *testing.T) {
	a := mustAPI(t)
	const q = `query($filter: CaseFilter, $base: CaseFilter, $liftBase: LiftBase, $minSupport: Int) {
		cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: $filter, base: $base, liftBase: $liftBase, minSupport: $minSupport) {
			nodes { key count } edges { source target count support lift } } }`
	focus := func(c *ilgraph.Case) bool { return c.RootCause == "config-change" }
	since := func(c *ilgraph.Case) bool { return c.Date >= "2015-01-01" }
	tests := []struct {
		name       string
		vars       map[string]any
		sel, base  func(c *ilgraph.Case) bool
		minSupport int
	}{
		{"lift within the selection", map[string]any{"filter": map[string]any{"rootCauses": []string{"config-change"}}},
			focus, focus, 1},
		{"lift against the corpus", map[string]any{"filter": map[string]any{"rootCauses": []string{"config-change"}}, "liftBase": "CORPUS"},
			focus, func(*ilgraph.Case) bool { return true }, 1},
		{"lift against a base filter", map[string]any{"filter": map[string]any{"rootCauses": []string{"config-change"}, "dateFrom": "2015-01-01"},
			"base": map[string]any{"dateFrom": "2015-01-01"}},
			func(c *ilgraph.Case) bool { return focus(c) && since(c) }, since, 1},
		{"explicit BASE", map[string]any{"filter": map[string]any{"rootCauses": []string{"config-change"}, "dateFrom": "2015-01-01"},
			"base": map[string]any{"dateFrom": "2015-01-01"}, "liftBase": "BASE"},
			func(c *ilgraph.Case) bool { return focus(c) && since(c) }, since, 1},
		{"minSupport 2", map[string]any{"filter": map[string]any{"rootCauses": []string{"config-change"}}, "liftBase": "CORPUS", "minSupport": 2},
			focus, func(*ilgraph.Case) bool { return true }, 2},
	}
	sawSupportOne, sawLiftNotOne := false, false
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			var got struct{ Cooccurrence drawing }
			a.must(q, tt.vars, &got)
			_, selCauses, selComps, selPairs := cooccur(a.where(tt.sel))
			n, causes, comps, pairs := cooccur(a.where(tt.base))
			want := map[string]string{}
			for p, c := range selPairs {
				support := pairs[p]
				if support < tt.minSupport {
					continue
				}
				lift := float64(support) * float64(n) / (float64(causes[p[0]]) * float64(comps[p[1]]))
				want["root_cause:"+p[0]+"→component:"+p[1]] = fmt.Sprintf("count %d support %d lift %.9f", c, support, lift)
			}
			gotEdges := map[string]string{}
			for _, e := range got.Cooccurrence.Edges {
				if e.Support == nil || e.Count == nil || e.Lift == nil {
					t.Fatalf("edge %s→%s lacks count, support or lift", e.Source, e.Target)
				}
				gotEdges[e.Source+"→"+e.Target] = fmt.Sprintf("count %d support %d lift %.9f", *e.Count, *e.Support, *e.Lift)
				sawSupportOne = sawSupportOne || *e.Support == 1
				sawLiftNotOne = sawLiftNotOne || math.Abs(*e.Lift-1) > 1e-9
			}
			if len(want) == 0 {
				t.Fatal("the test selects no pair")
			}
			for k, w := range want {
				if gotEdges[k] != w {
					t.Errorf("%s: got %q, want %q", k, gotEdges[k], w)
				}
			}
			for k := range gotEdges {
				if _, ok := want[k]; !ok {
					t.Errorf("unexpected edge %s", k)
				}
			}
			// Nodes count the selected cases, whatever lift is measured over.
			for _, node := range got.Cooccurrence.Nodes {
				kind, id, _ := strings.Cut(node.Key, ":")
				w := selCauses[id]
				if kind == "component" {
					w = selComps[id]
				}
				if node.Count == nil || *node.Count != w {
					t.Errorf("node %s: count %v, want %d", node.Key, node.Count, w)
				}
			}
		})
	}
	if !sawSupportOne || !sawLiftNotOne {
		t.Errorf("the cases never show a support-1 edge (%v) or a lift other than 1 (%v)", sawSupportOne, sawLiftNotOne)
	}
	t.Run("bad arguments", func(t *testing.T) {
		a.t = t
		for _, vars := range []map[string]any{
			{"liftBase": "BASE"},
			{"liftBase": "CORPUS", "base": map[string]any{"dateFrom": "2015-01-01"}},
			{"liftBase": "SELECTION", "base": map[string]any{"dateFrom": "2015-01-01"}},
			{"base": map[string]any{"dateFrom": "2015-13-01"}},
		} {
			errs := a.do(q, vars, nil)
			if len(errs) == 0 || errs[0].Extensions["code"] != "INVALID" {
				t.Errorf("%v: got %+v, want INVALID", vars, errs)
			}
		}
	})
}

type breakdownKey struct {
	Key, Label string
	Count      int
	Term       *struct{ ID, En string }
}

type breakdownResult struct {
	Total         int
	Rows, Columns []breakdownKey
	Cells         []struct {
		Row, Column string
		Count       int
	}
	Truncated bool
}

const breakdownFields = `total rows { key label count term { id en } } columns { key label count term { id en } } cells { row column count } truncated`

// axisValues returns a case's values along a dimension.
func axisValues(c *ilgraph.Case, dim string) []string {
	switch dim {
	case "YEAR":
		return []string{c.Date[:4]}
	case "MONTH":
		return []string{c.Date[:7]}
	}
	return c.Tags(ilgraph.Kind(strings.ToLower(dim)))
}

// wantAxis lists every key of a dimension, zero-filled, as docs/api.md
// defines it: years or months from the filter's dateFrom (else the first
// selected case) to its dateTo (else the last), every term of a kind by
// count descending then id, cut to top.
func wantAxis(a *api, sel []*ilgraph.Case, dim, dateFrom, dateTo string, top int) ([]string, map[string]int) {
	counts := map[string]int{}
	for _, c := range sel {
		for _, v := range axisValues(c, dim) {
			counts[v]++
		}
	}
	var keys []string
	switch dim {
	case "YEAR", "MONTH":
		first, last := dateFrom, dateTo
		for _, c := range sel {
			if dateFrom == "" && (first == "" || c.Date < first) {
				first = c.Date
			}
			if dateTo == "" && (last == "" || c.Date > last) {
				last = c.Date
			}
		}
		if first == "" {
			first = last
		}
		if last == "" {
			last = first
		}
		if first == "" {
			break
		}
		var y, m, ly, lm int
		fmt.Sscanf(first, "%d-%d", &y, &m)
		fmt.Sscanf(last, "%d-%d", &ly, &lm)
		for y*12+m <= ly*12+lm {
			k := fmt.Sprintf("%04d-%02d", y, m)
			if dim == "YEAR" {
				k = k[:4]
			}
			if len(keys) == 0 || keys[len(keys)-1] != k {
				keys = append(keys, k)
			}
			if m++; m > 12 {
				y, m = y+1, 1
			}
		}
	default:
		kind := ilgraph.Kind(strings.ToLower(dim))
		if kind == ilgraph.KindOrg {
			seen := map[string]bool{}
			for _, c := range a.cases {
				if !seen[c.OrgSlug] {
					seen[c.OrgSlug] = true
					keys = append(keys, c.OrgSlug)
				}
			}
		} else {
			for _, t := range a.vocab.Kinds[kind] {
				keys = append(keys, t.ID)
			}
		}
		sortByCount(keys, counts)
		if top > 0 && len(keys) > top {
			keys = keys[:top]
		}
	}
	return keys, counts
}

func sortByCount(keys []string, counts map[string]int) {
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if counts[keys[j]] > counts[keys[i]] || counts[keys[j]] == counts[keys[i]] && keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
}

// TestBreakdown checks two-dimensional breakdowns against counts made from
// the seed JSON: every row × column, zero-filled, empty years and months
// included, terms by count, top, and the limits.
func TestBreakdown(t *testing.T) {
	a := mustAPI(t)
	tests := []struct {
		name            string
		rows, cols      string
		filter          map[string]any
		keep            func(c *ilgraph.Case) bool
		dateFrom, dateT string
		top             int
	}{
		{"years × root causes, config changes and automation", "YEAR", "ROOT_CAUSE",
			map[string]any{"rootCauses": []string{"config-change", "automation"}},
			func(c *ilgraph.Case) bool { return c.RootCause == "config-change" || c.RootCause == "automation" }, "", "", 0},
		{"components × months in a date range", "COMPONENT", "MONTH",
			map[string]any{"rootCauses": []string{"capacity"}, "dateFrom": "2018-06-01", "dateTo": "2021-02-28"},
			func(c *ilgraph.Case) bool {
				return c.RootCause == "capacity" && c.Date >= "2018-06-01" && c.Date <= "2021-02-28"
			}, "2018-06-01", "2021-02-28", 0},
		{"factors × components, top 5", "CONTRIBUTING", "COMPONENT", nil,
			func(c *ilgraph.Case) bool { return true }, "", "", 5},
		{"organizations × years since 2020", "ORG", "YEAR", map[string]any{"dateFrom": "2020-01-01"},
			func(c *ilgraph.Case) bool { return c.Date >= "2020-01-01" }, "2020-01-01", "", 0},
		{"domains × symptoms, nothing selected", "DOMAIN", "SYMPTOM", map[string]any{"rootCauses": []string{"no-such-cause"}},
			func(c *ilgraph.Case) bool { return false }, "", "", 0},
	}
	// A root cause whose cases leave a year empty between their first and
	// last, found in the seeds rather than assumed, so the zero-filling of
	// years is always exercised.
	years := map[string]map[int]bool{}
	for _, c := range a.cases {
		if years[c.RootCause] == nil {
			years[c.RootCause] = map[int]bool{}
		}
		years[c.RootCause][c.Year()] = true
	}
	var gapCauses []string
	for rc, ys := range years {
		lo, hi := 9999, 0
		for y := range ys {
			lo, hi = min(lo, y), max(hi, y)
		}
		if hi-lo+1 > len(ys) {
			gapCauses = append(gapCauses, rc)
		}
	}
	sort.Strings(gapCauses)
	if len(gapCauses) > 0 {
		rc := gapCauses[0]
		tests = append(tests, struct {
			name            string
			rows, cols      string
			filter          map[string]any
			keep            func(c *ilgraph.Case) bool
			dateFrom, dateT string
			top             int
		}{"years × components, one root cause with a gap: " + rc, "YEAR", "COMPONENT",
			map[string]any{"rootCauses": []string{rc}},
			func(c *ilgraph.Case) bool { return c.RootCause == rc }, "", "", 0})
	}
	sawEmptyYear := false
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			vars := map[string]any{"filter": tt.filter, "top": nil}
			if tt.top > 0 {
				vars["top"] = tt.top
			}
			var got struct{ Breakdown breakdownResult }
			a.must(fmt.Sprintf(`query($filter: CaseFilter, $top: Int) { breakdown(rows: %s, columns: %s, filter: $filter, top: $top) { %s } }`,
				tt.rows, tt.cols, breakdownFields), vars, &got)
			b := got.Breakdown
			sel := a.where(tt.keep)
			rows, rowCounts := wantAxis(a, sel, tt.rows, tt.dateFrom, tt.dateT, tt.top)
			cols, colCounts := wantAxis(a, sel, tt.cols, tt.dateFrom, tt.dateT, tt.top)
			if b.Total != len(sel) {
				t.Errorf("total %d, want %d", b.Total, len(sel))
			}
			for _, axis := range []struct {
				name   string
				got    []breakdownKey
				want   []string
				counts map[string]int
				dim    string
			}{{"rows", b.Rows, rows, rowCounts, tt.rows}, {"columns", b.Columns, cols, colCounts, tt.cols}} {
				var keys []string
				for _, k := range axis.got {
					keys = append(keys, k.Key)
					if k.Count != axis.counts[k.Key] {
						t.Errorf("%s %s: count %d, want %d", axis.name, k.Key, k.Count, axis.counts[k.Key])
					}
					isTerm := axis.dim != "YEAR" && axis.dim != "MONTH"
					if isTerm && (k.Term == nil || k.Term.ID != k.Key || k.Label != k.Term.En || k.Label == "") {
						t.Errorf("%s %s: label %q, term %+v", axis.name, k.Key, k.Label, k.Term)
					}
					if !isTerm && (k.Term != nil || k.Label != k.Key) {
						t.Errorf("%s %s: label %q, term %+v", axis.name, k.Key, k.Label, k.Term)
					}
					if axis.dim == "YEAR" && k.Count == 0 {
						sawEmptyYear = true
					}
				}
				if strings.Join(keys, ",") != strings.Join(axis.want, ",") {
					t.Errorf("%s:\n got %v\nwant %v", axis.name, keys, axis.want)
				}
			}
			if len(b.Cells) != len(rows)*len(cols) {
				t.Fatalf("%d cells, want %d × %d", len(b.Cells), len(rows), len(cols))
			}
			for i, cell := range b.Cells {
				r, c := rows[i/len(cols)], cols[i%len(cols)]
				want := 0
				for _, x := range sel {
					if has(axisValues(x, tt.rows), r) && has(axisValues(x, tt.cols), c) {
						want++
					}
				}
				if cell.Row != r || cell.Column != c || cell.Count != want {
					t.Errorf("cell %d: got %+v, want %s × %s = %d", i, cell, r, c, want)
				}
			}
			if b.Truncated != (tt.top > 0) {
				t.Errorf("truncated %v", b.Truncated)
			}
		})
	}
	if !sawEmptyYear {
		t.Error("no test has an empty year between the first and the last")
	}
	t.Run("bad arguments", func(t *testing.T) {
		a.t = t
		for q, code := range map[string]string{
			`{ breakdown(rows: YEAR, columns: YEAR) { total } }`:                                                               "INVALID",
			`{ breakdown(rows: YEAR, columns: COMPONENT, top: 0) { total } }`:                                                  "INVALID",
			`{ breakdown(rows: MONTH, columns: COMPONENT, filter: {dateFrom: "1900-01-01"}) { total } }`:                       "LIMIT",
			`{ breakdown(rows: MONTH, columns: COMPONENT, filter: {dateFrom: "2021-01-01", dateTo: "2020-01-01"}) { total } }`: "INVALID",
		} {
			errs := a.do(q, nil, nil)
			if len(errs) == 0 || errs[0].Extensions["code"] != code {
				t.Errorf("%s: got %+v, want %s", q, errs, code)
			}
		}
	})
}
