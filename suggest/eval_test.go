package suggest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestEvalDoesNotRegress recomputes the leave-one-out figures of
// docs/suggest.md on the seed corpus and fails if any figure of the engine
// drops more than 0.05 below the one recorded in testdata/eval-recorded.json
// (written by: ilgraph eval suggest --seeds seeds --json). When a change
// improves the figures, record them again and update the doc.
func TestEvalDoesNotRegress(t *testing.T) {
	v, cases, _ := seeds(t)
	data, err := os.ReadFile(filepath.Join("testdata", "eval-recorded.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want Report
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got, err := Evaluate(v, cases, Options{}, DefaultCutoffs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cases != want.Cases {
		t.Errorf("corpus has %d cases, the recorded run had %d: record the figures again", got.Cases, want.Cases)
	}
	const slack = 0.05
	check := func(name string, g, w float64) {
		if g < w-slack {
			t.Errorf("%s = %.2f, recorded %.2f: dropped more than %.2f", name, g, w, slack)
		} else if g != w {
			t.Logf("%s = %.2f (recorded %.2f)", name, g, w)
		}
	}
	for lang, w := range want.Engine {
		g := got.Engine[lang]
		if g == nil {
			t.Errorf("no %s run", lang)
			continue
		}
		if g.Queries != w.Queries {
			t.Errorf("%s: %d queries, recorded %d", lang, g.Queries, w.Queries)
		}
		check(lang+" root cause top-1", g.RootCauseTop1, w.RootCauseTop1)
		check(lang+" root cause top-3", g.RootCauseTop3, w.RootCauseTop3)
		for _, k := range ilgraph.VocabKinds {
			check(fmt.Sprintf("%s %s precision", lang, k), g.Kinds[k].Precision, w.Kinds[k].Precision)
			check(fmt.Sprintf("%s %s recall", lang, k), g.Kinds[k].Recall, w.Kinds[k].Recall)
			check(fmt.Sprintf("%s %s F1", lang, k), g.Kinds[k].F1, w.Kinds[k].F1)
		}
	}
}
