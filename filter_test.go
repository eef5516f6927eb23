package ilgraph

import (
	"reflect"
	"testing"
)

// TestCaseFilterIsZero sets each field of CaseFilter in turn (by
// reflection, so that a field added later is covered) and checks that
// IsZero sees it, except for the fields that only say how Text is searched.
func TestCaseFilterIsZero(t *testing.T) {
	if !(CaseFilter{}).IsZero() {
		t.Fatal("the zero filter: IsZero false")
	}
	if !(CaseFilter{Tags: map[Kind]TermMatch{KindSymptom: {}}, Text: "  ", TextMode: TextAny}).IsZero() {
		t.Error("empty tag matches, blank text and a text mode: IsZero false, want true")
	}
	if (CaseFilter{IDs: []string{}}).IsZero() {
		t.Error("IDs non-nil but empty (selects none): IsZero true")
	}
	typ := reflect.TypeOf(CaseFilter{})
	for i := 0; i < typ.NumField(); i++ {
		field := typ.Field(i)
		var f CaseFilter
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch field.Type.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"x"}))
		case reflect.Map:
			v.Set(reflect.ValueOf(map[Kind]TermMatch{KindRootCause: {AnyOf: []string{"capacity"}}}))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", field.Name, field.Type.Kind())
		}
		got := f.IsZero()
		want := field.Name == "TextMode" || field.Name == "TextFields"
		if got != want {
			t.Errorf("only %s set: IsZero %v, want %v", field.Name, got, want)
		}
	}
}

// TestCaseFilterMatch checks each rule of the reference matcher on one
// case, field by field: a value of the field that keeps the case and one
// that leaves it out. Every field of CaseFilter must be in the table (so a
// field added later gets a rule), and the text fields must not change the
// answer (Match leaves text to the full-text index).
func TestCaseFilterMatch(t *testing.T) {
	c := &Case{ID: "IL-0001", OrgSlug: "acme", Date: "2021-03-04", Severity: "sev2", RootCause: "capacity",
		Components: []string{"cache", "queue"}, Review: Review{WrittenBy: ImportWriter}}
	tags := func(k Kind, any, all []string) map[Kind]TermMatch {
		return map[Kind]TermMatch{k: {AnyOf: any, AllOf: all}}
	}
	cases := map[string][]struct {
		f    CaseFilter
		want bool
	}{
		"Tags": {
			{CaseFilter{Tags: tags(KindComponent, []string{"db", "queue"}, nil)}, true},
			{CaseFilter{Tags: tags(KindComponent, []string{"db"}, nil)}, false},
			{CaseFilter{Tags: tags(KindComponent, nil, []string{"cache", "queue", "cache"})}, true},
			{CaseFilter{Tags: tags(KindComponent, nil, []string{"cache", "db"})}, false},
			{CaseFilter{Tags: tags(KindComponent, []string{}, []string{})}, true},
			{CaseFilter{Tags: tags(KindRootCause, []string{"capacity"}, nil)}, true},
			{CaseFilter{Tags: tags(KindOrg, []string{"acme"}, nil)}, true},
			{CaseFilter{Tags: tags(KindOrg, nil, []string{"other"})}, false},
			{CaseFilter{Tags: tags(KindSymptom, []string{"slow"}, nil)}, false}, // the case has no symptom
		},
		"ExcludeOrgs":  {{CaseFilter{ExcludeOrgs: []string{"other"}}, true}, {CaseFilter{ExcludeOrgs: []string{"other", "acme"}}, false}},
		"DateFrom":     {{CaseFilter{DateFrom: "2021-03-04"}, true}, {CaseFilter{DateFrom: "2021-03-05"}, false}},
		"DateTo":       {{CaseFilter{DateTo: "2021-03-04"}, true}, {CaseFilter{DateTo: "2021-03-03"}, false}},
		"Severities":   {{CaseFilter{Severities: []string{"sev1", "sev2"}}, true}, {CaseFilter{Severities: []string{"unknown"}}, false}},
		"ReviewedOnly": {{CaseFilter{ReviewedOnly: false}, true}, {CaseFilter{ReviewedOnly: true}, false}},
		"ExcludeIDs":   {{CaseFilter{ExcludeIDs: []string{"IL-0002"}}, true}, {CaseFilter{ExcludeIDs: []string{"IL-0001"}}, false}},
		"IDs": {
			{CaseFilter{IDs: nil}, true}, {CaseFilter{IDs: []string{"IL-0001", "NOPE-0001"}}, true},
			{CaseFilter{IDs: []string{}}, false}, {CaseFilter{IDs: []string{"NOPE-0001"}}, false},
		},
	}
	text := map[string]bool{"Text": true, "TextMode": true, "TextFields": true}
	typ := reflect.TypeOf(CaseFilter{})
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		if _, ok := cases[name]; !ok && !text[name] {
			t.Errorf("CaseFilter.%s has no case in this test: give Match a rule for it", name)
		}
	}
	for name, tcs := range cases {
		for _, tc := range tcs {
			if got := tc.f.Match(c); got != tc.want {
				t.Errorf("%s: %+v: Match = %v, want %v", name, tc.f, got, tc.want)
			}
			// Text never changes what Match says.
			tc.f.Text, tc.f.TextMode, tc.f.TextFields = "no such words", TextPhrase, TextInTitles
			if got := tc.f.Match(c); got != tc.want {
				t.Errorf("%s with text: %+v: Match = %v, want %v", name, tc.f, got, tc.want)
			}
		}
	}
	// The machine-tagged case, once reviewed, counts as reviewed.
	reviewed := *c
	reviewed.Review.ReviewedAt = "2024-01-01"
	if f := (CaseFilter{ReviewedOnly: true}); !f.Match(&reviewed) {
		t.Error("ReviewedOnly left out a machine-tagged case that has been reviewed")
	}
}

// TestSharedFilterSelectsNothing: with nothing to share, SharedFilter's
// filter selects no case by Match, the meaning every store gives it.
func TestSharedFilterSelectsNothing(t *testing.T) {
	c := &Case{ID: "IL-0001", OrgSlug: "acme", Date: "2021-03-04", RootCause: "capacity", Components: []string{"cache"}}
	other := &Case{ID: "IL-0002", OrgSlug: "acme", Date: "2021-03-04", RootCause: "capacity", Components: []string{"cache", "queue"}}
	for _, tc := range []struct {
		k    Kind
		base CaseFilter
		want bool
	}{
		{KindComponent, CaseFilter{}, true},
		{KindSymptom, CaseFilter{}, false}, // c has no symptom
		{KindComponent, CaseFilter{Tags: map[Kind]TermMatch{KindComponent: {AnyOf: []string{"queue"}}}}, false}, // c lacks queue
		{KindComponent, CaseFilter{Tags: map[Kind]TermMatch{KindComponent: {AnyOf: []string{"cache", "queue"}}}}, true},
	} {
		f, err := SharedFilter(c, tc.k, "", tc.base)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(other); got != tc.want {
			t.Errorf("shared %s over %+v: Match(other) = %v, want %v (filter %+v)", tc.k, tc.base, got, tc.want, f)
		}
		if f.Match(c) {
			t.Errorf("shared %s: the case itself is selected", tc.k)
		}
	}
}
