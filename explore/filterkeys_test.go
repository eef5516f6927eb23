package explore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// TestFilterErrorsNameTheirFieldByKey: an error about a part of a filter
// carries that part's key, the same whatever question the filter is asked
// with, and a message that speaks no front door's names.
func TestFilterErrorsNameTheirFieldByKey(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	terms := make([]string, ilgraph.MaxFilterTerms+1)
	for i := range terms {
		terms[i] = "t"
	}
	for _, tc := range []struct {
		name   string
		filter ilgraph.CaseFilter
		field  string
		code   string // EINVALID unless the row says ELIMIT (a bound on a size)
	}{
		{"not a date", ilgraph.CaseFilter{DateFrom: "2020-13-01"}, ilgraph.FieldFilterDateFrom, ""},
		{"not a date, the end", ilgraph.CaseFilter{DateTo: "yesterday"}, ilgraph.FieldFilterDateTo, ""},
		{"dates out of order", ilgraph.CaseFilter{DateFrom: "2021-01-01", DateTo: "2020-01-01"}, ilgraph.FieldFilterDateFrom, ""},
		{"text too long", ilgraph.CaseFilter{Text: strings.Repeat("a", ilgraph.MaxTextQuery+1)}, ilgraph.FieldText, ilgraph.ELIMIT},
		{"unknown text mode", ilgraph.CaseFilter{Text: "disk", TextMode: "SOME"}, ilgraph.FieldFilterTextMode, ""},
		{"too many components", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AllOf: terms}}}, ilgraph.FieldFilterTerms(ilgraph.KindComponent, ""), ilgraph.ELIMIT},
		{"too many organizations left out", ilgraph.CaseFilter{ExcludeOrgs: terms}, ilgraph.FieldFilterExcludeOrgs, ilgraph.ELIMIT},
		{"unknown kind", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{"planet": {AnyOf: []string{"mars"}}}}, ilgraph.FieldFilter, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for q, ask := range map[string]func() error{
				"cases": func() error {
					_, err := f.core.Cases(ctx, explore.CaseQuery{Filter: tc.filter})
					return err
				},
				"stats": func() error {
					_, err := f.core.Stats(ctx, tc.filter)
					return err
				},
			} {
				want := tc.code
				if want == "" {
					want = ilgraph.EINVALID
				}
				var e *ilgraph.Error
				if err := ask(); !errors.As(err, &e) || e.Code != want || e.Field != tc.field {
					t.Errorf("%s: error %v (field %q), want %s with field %q", q, err, fieldOf(e), want, tc.field)
					continue
				}
				if w := protocolWords.FindString(e.Message); w != "" || e.Message == "" {
					t.Errorf("%s: message %q names %q, a front door's name for an input", q, e.Message, w)
				}
			}
		})
	}
}

func fieldOf(e *ilgraph.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}

// TestTermCasesDefaultPage: a topic page that names no size holds
// DefaultTopicCases cases, whichever door asks; one that names a size
// holds that many.
func TestTermCasesDefaultPage(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	count := map[string]int{}
	for _, c := range f.cases {
		for _, comp := range c.Components {
			count[comp]++
		}
	}
	best := ""
	for comp, n := range count {
		if n > count[best] || (n == count[best] && comp < best) {
			best = comp
		}
	}
	if count[best] <= explore.DefaultTopicCases+1 {
		t.Fatalf("no component has more than %d cases: the check proves nothing", explore.DefaultTopicCases+1)
	}
	key := ilgraph.TermKey{Kind: ilgraph.KindComponent, ID: best}
	l, err := f.core.TermCases(ctx, key, explore.CaseQuery{})
	if err != nil || len(l.Cases) != explore.DefaultTopicCases || l.TotalCount != count[best] {
		t.Errorf("default page: %v, %d of %d cases; want %d of %d", err, lenOf(l), totalOf(l), explore.DefaultTopicCases, count[best])
	}
	n := explore.DefaultTopicCases + 1
	if l, err = f.core.TermCases(ctx, key, explore.CaseQuery{Page: explore.Page{First: &n}}); err != nil || len(l.Cases) != n {
		t.Errorf("a page of %d: %v, %d cases", n, err, lenOf(l))
	}
}

func lenOf(l *explore.CaseList) int {
	if l == nil {
		return 0
	}
	return len(l.Cases)
}

func totalOf(l *explore.CaseList) int {
	if l == nil {
		return 0
	}
	return l.TotalCount
}
