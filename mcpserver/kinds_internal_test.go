package mcpserver

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestFiltersCoverEveryKind: every list argument of Filters is a kind's, and
// every kind of the domain's table has one.
func TestFiltersCoverEveryKind(t *testing.T) {
	var f Filters
	v := reflect.ValueOf(&f).Elem()
	lists := 0
	for i := range v.NumField() {
		if v.Field(i).Type() == reflect.TypeOf([]string(nil)) {
			v.Field(i).Set(reflect.ValueOf([]string{v.Type().Field(i).Name}))
			lists++
		}
	}
	terms := f.terms()
	var kinds []ilgraph.Kind
	for k, ids := range terms {
		if len(ids) != 1 {
			t.Errorf("kind %s: %v", k, ids)
		}
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	want := slices.Clone(ilgraph.AllKinds)
	slices.Sort(want)
	if !slices.Equal(kinds, want) || lists != len(want) {
		t.Errorf("Filters has %d lists and covers kinds %v, want one list per kind %v", lists, kinds, want)
	}
}
