package resolvers_test

import (
	"fmt"
	"math"
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
