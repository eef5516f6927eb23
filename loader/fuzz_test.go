package loader

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
)

// FuzzParse feeds arbitrary bytes to the case parser and validator. They
// must never panic; every case handed on must carry its raw JSON; every
// problem must point at a line inside the input.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodCase))
	f.Add([]byte("[" + goodCase + "," + goodCase + "]"))
	f.Add([]byte(goodCase + "\n" + goodCase))
	f.Add([]byte(""))
	f.Add([]byte("\xEF\xBB\xBF{}"))
	f.Add([]byte(`[{"id": 5}, 7, "x", null]`))
	f.Add([]byte(`{"id":"IL-0001","timeline":{"resolved_after":"9h 9x"},"title":{"en":"\u00ff"}}`))
	vocab := (&ilgraph.Vocabulary{Kinds: map[ilgraph.Kind][]ilgraph.Term{
		ilgraph.KindRootCause: {{ID: "capacity"}}, ilgraph.KindComponent: {{ID: "cache"}},
	}}).Index()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		probs := Parse("fuzz.json", bytes.NewReader(data), func(p Parsed) error {
			if !json.Valid(p.Case.Raw) {
				t.Fatalf("case at %s kept invalid raw JSON %q", p.Pos, p.Case.Raw)
			}
			if p.Pos.Line < 1 || p.Pos.Line > lines {
				t.Fatalf("case at line %d of a %d-line input", p.Pos.Line, lines)
			}
			ValidateCase(p.Case, vocab, now)
			return nil
		})
		for _, p := range probs {
			if p.Pos.Line < 1 || p.Pos.Line > lines {
				t.Fatalf("problem %q at line %d of a %d-line input", p.Error(), p.Pos.Line, lines)
			}
			if p.Msg == "" {
				t.Fatalf("problem without a message at %s", p.Pos)
			}
		}
	})
}
