package explorer_test

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/suggest"
)

// The suggested filters cut suggestions as the server does: the CUTOFFS of
// app/cases.js are suggest.DefaultCutoffs, kind by kind.
func TestSuggestedFilterCutoffsAreTheEngines(t *testing.T) {
	src, err := fs.ReadFile(explorer.Assets(), "app/cases.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export const CUTOFFS = (\{[^;]*\});`).FindSubmatch(src)
	if m == nil {
		t.Fatal("app/cases.js: no CUTOFFS")
	}
	// { rootCauses: [0, 1], … } as JSON: quote the keys.
	js := regexp.MustCompile(`(\w+):`).ReplaceAll(m[1], []byte(`"$1":`))
	var got map[string][2]float64
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("CUTOFFS %s: %v", m[1], err)
	}
	fields := map[ilgraph.Kind]string{ilgraph.KindRootCause: "rootCauses", ilgraph.KindComponent: "components",
		ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domains",
		ilgraph.KindMechanism: "mechanisms"}
	if len(got) != len(ilgraph.VocabKinds) {
		t.Errorf("CUTOFFS has %d kinds, want %d", len(got), len(ilgraph.VocabKinds))
	}
	for _, k := range ilgraph.VocabKinds {
		want := suggest.DefaultCutoffs[k]
		g, ok := got[fields[k]]
		if !ok || g[0] != want.Min || int(g[1]) != want.Max {
			t.Errorf("CUTOFFS.%s = %v, suggest.DefaultCutoffs[%s] = %+v", fields[k], g, k, want)
		}
	}
}
