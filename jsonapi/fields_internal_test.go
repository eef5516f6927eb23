package jsonapi

import (
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// The JSON API names only keys that exist.
func TestFieldNamesAreKeys(t *testing.T) {
	for k, name := range fieldNames {
		if !slices.Contains(ilgraph.FieldKeys, k) || name == "" {
			t.Errorf("a name %q for %q, which is not a field key", name, k)
		}
	}
}

// A filter's terms of a kind are named by the kind's parameter (the kind
// itself), whichever list of the core's filter they went to.
func TestKindFieldsAreTheKindParameters(t *testing.T) {
	for _, info := range ilgraph.Kinds {
		for _, m := range []string{"", ilgraph.MatchAnyOf, ilgraph.MatchAllOf} {
			if key := ilgraph.FieldFilterTerms(info.Kind, m); fieldNames[key] != string(info.Kind) {
				t.Errorf("%s is named %q, want the parameter %q", key, fieldNames[key], info.Kind)
			}
		}
	}
}
