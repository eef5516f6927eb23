package mcpserver

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// The tools name only keys that exist.
func TestFieldNamesAreKeys(t *testing.T) {
	for k, name := range fieldNames {
		if !slices.Contains(ilgraph.FieldKeys, k) || name == "" {
			t.Errorf("a name %q for %q, which is not a field key", name, k)
		}
	}
}

// Every kind's terms are named by an argument the tools take: in a filter,
// one of Filters'; in a profile, one of match_incident's.
func TestKindFieldsAreArguments(t *testing.T) {
	args := func(v any) []string {
		var out []string
		ty := reflect.TypeOf(v)
		for i := 0; i < ty.NumField(); i++ {
			name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
		return out
	}
	filters, profile := args(Filters{}), args(MatchArgs{})
	seen := map[string]bool{}
	for _, info := range ilgraph.Kinds {
		name := fieldNames[ilgraph.FieldFilterTerms(info.Kind, "")]
		if !slices.Contains(filters, name) || seen[name] {
			t.Errorf("%s's filter terms are named %q: not one of its own Filters arguments %v", info.Kind, name, filters)
		}
		seen[name] = true
		for _, m := range []string{ilgraph.MatchAnyOf, ilgraph.MatchAllOf} {
			if got := fieldNames[ilgraph.FieldFilterTerms(info.Kind, m)]; got != name {
				t.Errorf("%s's %s terms are named %q, its filter argument %q", info.Kind, m, got, name)
			}
		}
		if p := fieldNames[ilgraph.FieldProfileTerms(info.Kind)]; !slices.Contains(profile, p) {
			t.Errorf("%s's profile terms are named %q: not a match_incident argument %v", info.Kind, p, profile)
		}
	}
}
