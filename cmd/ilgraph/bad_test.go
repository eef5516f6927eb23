package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestBadInputsLoseNothing loads each kind of bad input in testdata/bad/
// into a graph holding the seeds: each must fail with exit status 3 and a
// message naming the file, the position and the field, and leave the graph
// exactly as it was (same counts, same checksum).
func TestBadInputsLoseNothing(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, &out, &errb); code != exitOK {
		t.Fatalf("loading the seeds: exit %d: %s", code, errb.String())
	}
	before, err := graph.NewBench(db).Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	beforeCounts, _ := graph.NewBench(db).Count(ctx)

	// A 50 MB string field is made here rather than committed.
	huge := filepath.Join(t.TempDir(), "huge-string.json")
	c := map[string]any{"id": "ILG-9301", "org": "E", "org_slug": "e", "date": "2024-05-06", "title": map[string]string{"en": "t"},
		"summary": map[string]string{"en": strings.Repeat("x", 50<<20)}, "root_cause": "capacity"}
	data, _ := json.Marshal(c)
	os.WriteFile(huge, data, 0o644)

	tests := []struct {
		path string
		want []string // fragments the error must contain, besides file:line
	}{
		{"truncated.json", []string{"invalid JSON", "truncated"}},
		{"wrong-type-title.json", []string{`field "title"`, "want an object, got a JSON number"}},
		{"wrong-type-components.json", []string{`field "components"`, "want an array, got a JSON string"}},
		{"wrong-type-in-list.json", []string{`field "symptoms"`, "want a string, got a JSON number"}},
		{"missing-id.json", []string{`field "id": required`}},
		{"missing-root-cause.json", []string{`field "root_cause": required`}},
		{"missing-title.json", []string{`field "title.en": required`}},
		{"unknown-root-cause.json", []string{`field "root_cause"`, `"capcity" is not a root cause`, `did you mean "capacity"`}},
		{"unknown-component.json", []string{`field "components[1]"`, `"flux-capacitor" is not a component`}},
		{"duplicate-in-file.json", []string{`field "id": duplicate id: also at`}},
		{"duplicate-across-files", []string{"a.json", "b.json", "duplicate id"}},
		{"related-unknown.json", []string{`field "related[0]"`, `"ILG-9999" is not a known case`}},
		{"self-related.json", []string{`field "related[0]"`, "itself"}},
		{"recurrence-self.json", []string{`field "recurrence_of"`, "itself"}},
		{"impossible-date.json", []string{`field "date"`, "not a real calendar date"}},
		{"future-date.json", []string{`field "date"`, "in the future"}},
		{"bad-id.json", []string{`field "id"`, "is not a case id"}},
		{"bad-slug.json", []string{`field "org_slug"`, "is not a slug"}},
		{"bad-duration.json", []string{`field "timeline.resolved_after"`}},
		{"bad-source-url.json", []string{`field "sources[0].url"`, "absolute http(s) URL"}},
		{"bom.json", []string{"byte-order mark"}},
		{"invalid-utf8.json", []string{"invalid UTF-8"}},
		{"deep-nesting.json", []string{"invalid JSON", "nest"}},
		{"empty.json", []string{"file is empty"}},
		{"mixed-array.json", []string{"[1]", "a case must be a JSON object, not a number", "[2]", "not a string"}},
		{"not-an-object.json", []string{"want a case object"}},
		{"null.json", []string{"want a case object"}},
		{"trailing-garbage.json", []string{"after the closing ']'"}},
		{"jsonl-bad-line.jsonl", []string{"invalid JSON"}},
		{"too-many-components.json", []string{`field "components"`, "more than the limit of 200"}},
		{huge, []string{`field "summary.en"`, "more than the limit of 100000"}},
	}
	for _, tt := range tests {
		path := tt.path
		if !filepath.IsAbs(path) {
			path = filepath.Join("testdata", "bad", path)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(ctx, []string{"load", "--quiet", path}, &out, &errb)
			msg := errb.String()
			if code != exitInvalid {
				t.Errorf("exit %d, want %d; stderr: %.300s", code, exitInvalid, msg)
			}
			base := regexp.QuoteMeta(filepath.Base(path))
			if filepath.Ext(path) == "" {
				base = `\w+\.json`
			}
			if !regexp.MustCompile(base + `:\d+`).MatchString(msg) {
				t.Errorf("the message does not name file and line: %.300s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the message lacks %q: %.400s", w, msg)
				}
			}
			if len(msg) > 20000 {
				t.Errorf("a %d-byte message: bad input must not be echoed whole", len(msg))
			}
			after, err := graph.NewBench(db).Checksum(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if after != before {
				afterCounts, _ := graph.NewBench(db).Count(ctx)
				t.Errorf("the graph changed: %v -> %v", beforeCounts, afterCounts)
			}
		})
	}
}
