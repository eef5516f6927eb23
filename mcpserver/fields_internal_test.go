package mcpserver

import (
	"slices"
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
