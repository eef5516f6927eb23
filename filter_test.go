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
