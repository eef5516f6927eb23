package resolvers

import (
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// Every field key has a GraphQL name (every key is an argument or an input
// field of the schema), and no name is for a key that does not exist.
func TestFieldNamesCoverTheKeys(t *testing.T) {
	for _, k := range ilgraph.FieldKeys {
		if fieldNames[k] == "" {
			t.Errorf("no GraphQL name for the field key %s", k)
		}
	}
	for k := range fieldNames {
		if !slices.Contains(ilgraph.FieldKeys, k) {
			t.Errorf("a GraphQL name for %q, which is not a field key", k)
		}
	}
}
