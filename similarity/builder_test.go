package similarity

import (
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestBuilderChecksTheNames checks that a streaming build refuses an index
// whose cases name other organizations than those its analysis left out
// (a load changed the cases between the two reads), and accepts the same
// names in another order, keeping the order the cases name them in.
func TestBuilderChecksTheNames(t *testing.T) {
	rows := []ilgraph.CaseFeatures{
		{ID: "a", Org: "Acme (Widgets)", Text: "acme widgets queue overflow"},
		{ID: "b", Org: "Globex", Text: "globex queue overflow"},
	}
	build := func(extra []string) (*Index, error) {
		b := newBuilder(1, nil, extra)
		for _, r := range rows {
			b.add(r)
		}
		return b.finish()
	}
	ix, err := build([]string{"Globex", "Widgets", "Acme"})
	if err != nil {
		t.Fatalf("the same names in another order: %v", err)
	}
	if want := []string{"Acme", "Widgets", "Globex"}; !slicesEqual(ix.textStats.Extra, want) {
		t.Errorf("Extra %v, want %v (the order the cases name them in)", ix.textStats.Extra, want)
	}
	for _, extra := range [][]string{{"Acme", "Widgets"}, {"Acme", "Widgets", "Globex", "Initech"}} {
		if _, err := build(extra); ilgraph.ErrorCode(err) != ilgraph.ECONFLICT {
			t.Errorf("names %v read before cases naming %v: got %v, want a conflict", extra, ix.textStats.Extra, err)
		}
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
