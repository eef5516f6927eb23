package storetest_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/refstore"
	"github.com/ilgraph/ilgraph/internal/storetest"
)

// TestReferenceStore runs the suite on the reference store itself. Its
// answers are the expected ones, so this checks what the suite adds around
// them — the corpora load and are valid, every generated filter is valid,
// pages and totals are consistent — and that it runs without a database.
func TestReferenceStore(t *testing.T) {
	for _, co := range storetest.Corpora(t) {
		t.Run(co.Name, func(t *testing.T) {
			storetest.Run(t, co, refstore.New(co.Cases, co.Vocab), storetest.Options{Filters: 100})
		})
	}
}

// TestFiltersCoverEveryRule: the generated filters set every field of
// CaseFilter but the text ones (which Run adds for a store that searches
// text), every kind with any-of and all-of, and include the zero filter
// and an empty non-nil IDs; and they select something often enough to
// compare real answers.
func TestFiltersCoverEveryRule(t *testing.T) {
	co := storetest.Corpora(t)[1]
	fs := storetest.Filters(co, 1, 300)
	set := map[string]bool{}
	selecting := 0
	typ := reflect.TypeOf(ilgraph.CaseFilter{})
	for _, f := range fs {
		x := f.Filter
		v := reflect.ValueOf(x)
		for i := 0; i < typ.NumField(); i++ {
			set[typ.Field(i).Name] = set[typ.Field(i).Name] || !v.Field(i).IsZero()
		}
		for k, m := range x.Tags {
			if len(m.AnyOf) > 0 {
				set["anyOf "+string(k)] = true
			}
			if len(m.AllOf) > 0 {
				set["allOf "+string(k)] = true
			}
		}
		set["IDs listed"] = set["IDs listed"] || len(x.IDs) > 0
		set["empty IDs"] = set["empty IDs"] || (x.IDs != nil && len(x.IDs) == 0)
		set["zero"] = set["zero"] || x.IsZero()
		n := 0
		for _, c := range co.Cases {
			if x.Match(c) {
				n++
			}
		}
		if n > 0 && n < len(co.Cases) {
			selecting++
		}
	}
	// Every field of the filter (read from the type, so that a field added
	// later must be generated too), but the text, which Run adds for stores
	// that search it.
	want := []string{"IDs listed", "empty IDs", "zero"}
	for i := 0; i < typ.NumField(); i++ {
		if name := typ.Field(i).Name; !strings.HasPrefix(name, "Text") {
			want = append(want, name)
		}
	}
	for _, k := range ilgraph.AllKinds {
		want = append(want, "anyOf "+string(k), "allOf "+string(k))
	}
	for _, w := range want {
		if !set[w] {
			t.Errorf("no generated filter sets %s", w)
		}
	}
	if selecting < len(fs)/3 {
		t.Errorf("only %d of %d filters select some but not all cases", selecting, len(fs))
	}
	// The corpus has cases on both sides of every rule that depends on a
	// case's fields alone.
	var machine, reviewed, bilingual, noSeverity, unmeasured int
	for _, c := range co.Cases {
		if c.MachineTagged() {
			machine++
		}
		if c.Reviewed() {
			reviewed++
		}
		if c.Bilingual() {
			bilingual++
		}
		if c.Severity == "" {
			noSeverity++
		}
		if c.Timeline.ResolvedAfter == "" {
			unmeasured++
		}
	}
	for name, n := range map[string]int{"machine-tagged": machine, "reviewed": reviewed, "bilingual": bilingual, "without a severity": noSeverity, "without a resolution time": unmeasured} {
		if n == 0 || n == len(co.Cases) {
			t.Errorf("%s cases: %d of %d", name, n, len(co.Cases))
		}
	}
}

// drifting lists cases as the reference store does with one rule of the
// filter changed: change rewrites each filter before the store sees it.
type drifting struct {
	ref    *refstore.Store
	change func(ilgraph.CaseFilter) ilgraph.CaseFilter
}

func (d drifting) ListCases(ctx context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	return d.ref.ListCases(ctx, d.change(f), s, offset, limit)
}

// recorder is a storetest.T that keeps what the suite reports; Fatalf
// stops the run with a panic that TestSuiteCatchesDrift recovers.
type recorder struct{ errors []string }

type stopped struct{}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
	panic(stopped{})
}

// TestSuiteCatchesDrift changes one rule of the filter's meaning at a time
// in an otherwise correct store, and wants the suite to fail it: each rule
// is checked by some generated filter.
func TestSuiteCatchesDrift(t *testing.T) {
	co := storetest.Corpora(t)[2]
	dayBefore := func(d string) string {
		x, _ := time.Parse(ilgraph.DateLayout, d)
		return x.AddDate(0, 0, -1).Format(ilgraph.DateLayout)
	}
	drifts := map[string]func(ilgraph.CaseFilter) ilgraph.CaseFilter{
		"an empty non-nil IDs selects everything": func(f ilgraph.CaseFilter) ilgraph.CaseFilter {
			if f.IDs != nil && len(f.IDs) == 0 {
				f.IDs = nil
			}
			return f
		},
		"dateTo is exclusive": func(f ilgraph.CaseFilter) ilgraph.CaseFilter {
			if f.DateTo != "" {
				f.DateTo = dayBefore(f.DateTo)
			}
			if f.DateFrom > f.DateTo && f.DateTo != "" {
				f.DateFrom = f.DateTo
			}
			return f
		},
		"all-of means any-of": func(f ilgraph.CaseFilter) ilgraph.CaseFilter {
			tags := map[ilgraph.Kind]ilgraph.TermMatch{}
			for k, m := range f.Tags {
				if len(m.AllOf) > 0 && len(m.AnyOf) == 0 {
					m = ilgraph.TermMatch{AnyOf: m.AllOf}
				}
				tags[k] = m
			}
			f.Tags = tags
			return f
		},
		"reviewedOnly is ignored": func(f ilgraph.CaseFilter) ilgraph.CaseFilter { f.ReviewedOnly = false; return f },
		"excludeOrgs is ignored":  func(f ilgraph.CaseFilter) ilgraph.CaseFilter { f.ExcludeOrgs = nil; return f },
		"severities are ignored":  func(f ilgraph.CaseFilter) ilgraph.CaseFilter { f.Severities = nil; return f },
		"excludeIDs is ignored":   func(f ilgraph.CaseFilter) ilgraph.CaseFilter { f.ExcludeIDs = nil; return f },
		"an unknown any-of term is dropped": func(f ilgraph.CaseFilter) ilgraph.CaseFilter {
			tags := map[ilgraph.Kind]ilgraph.TermMatch{}
			for k, m := range f.Tags {
				var keep []string
				for _, t := range m.AnyOf {
					if !strings.HasPrefix(t, "no-such-") {
						keep = append(keep, t)
					}
				}
				m.AnyOf = keep
				tags[k] = m
			}
			f.Tags = tags
			return f
		},
	}
	for name, change := range drifts {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			func() {
				defer func() {
					if p := recover(); p != nil {
						if _, ok := p.(stopped); !ok {
							panic(p)
						}
					}
				}()
				storetest.Run(rec, co, drifting{refstore.New(co.Cases, co.Vocab), change}, storetest.Options{Filters: 150})
			}()
			if len(rec.errors) == 0 {
				t.Fatal("the suite passed a store whose filter means something else")
			}
			t.Logf("first report: %s", rec.errors[0])
		})
	}
}
