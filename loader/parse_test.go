package loader

import (
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
)

const goodCase = `{"id":"IL-0001","org":"Example","org_slug":"example","date":"2020-01-02","title":{"en":"t"},"summary":{"en":"s"},"root_cause":"capacity","components":["cache"],"symptoms":["high-latency"],"contributing":["limit-unknown"],"domain":["database"],"related":[],"sources":[{"url":"https://example.com/pm"}]}`

func parseString(t *testing.T, in string) ([]Parsed, Problems) {
	t.Helper()
	var got []Parsed
	probs := Parse("in.json", strings.NewReader(in), func(p Parsed) error {
		got = append(got, p)
		return nil
	})
	return got, probs
}

func TestParseShapes(t *testing.T) {
	two := strings.Replace(goodCase, "IL-0001", "IL-0002", 1)
	tests := []struct {
		name      string
		in        string
		wantIDs   []string
		wantLines []int
		wantIdx   []int
	}{
		{"lone object", goodCase, []string{"IL-0001"}, []int{1}, []int{-1}},
		{"lone object with whitespace", "\n\n  " + goodCase + "\n\n", []string{"IL-0001"}, []int{3}, []int{-1}},
		{"array", "[\n" + goodCase + ",\n" + two + "\n]", []string{"IL-0001", "IL-0002"}, []int{2, 3}, []int{0, 1}},
		{"empty array", "[]", nil, nil, nil},
		{"json lines", goodCase + "\n" + two + "\n", []string{"IL-0001", "IL-0002"}, []int{1, 2}, []int{0, 1}},
		{"json lines with blank lines", goodCase + "\n\n\n" + two, []string{"IL-0001", "IL-0002"}, []int{1, 4}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := parseString(t, tt.in)
			if len(probs) > 0 {
				t.Fatalf("problems: %v", probs)
			}
			if len(got) != len(tt.wantIDs) {
				t.Fatalf("got %d cases, want %d", len(got), len(tt.wantIDs))
			}
			for i, p := range got {
				if p.Case.ID != tt.wantIDs[i] || p.Pos.Line != tt.wantLines[i] || p.Pos.Index != tt.wantIdx[i] {
					t.Errorf("case %d: got %s at line %d index %d, want %s at line %d index %d",
						i, p.Case.ID, p.Pos.Line, p.Pos.Index, tt.wantIDs[i], tt.wantLines[i], tt.wantIdx[i])
				}
				if len(p.Case.Raw) == 0 || p.Case.Raw[0] != '{' {
					t.Errorf("case %d: raw JSON not kept: %q", i, p.Case.Raw)
				}
			}
		})
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantLine  int
		wantField string
		wantMsg   string
		wantCases int // cases parsed before or despite the problem
	}{
		{"empty file", "", 1, "", "file is empty", 0},
		{"only whitespace", " \n\t\n", 1, "", "file is empty", 0},
		{"byte-order mark", "\xEF\xBB\xBF" + goodCase, 1, "", "byte-order mark", 0},
		{"truncated object", goodCase[:40], 1, "", "invalid JSON", 0},
		{"truncated array", "[\n" + goodCase + ",\n" + goodCase[:30], 3, "", "array element [1]", 1},
		{"not an object", `"hello"`, 1, "", "want a case object", 0},
		{"number in array", "[\n" + goodCase + ",\n42\n]", 3, "", "a case must be a JSON object, not a number", 1},
		{"wrong type title", strings.Replace(goodCase, `"title":{"en":"t"}`, `"title":5`, 1), 1, "title", "want an object, got a JSON number", 0},
		{"wrong type components", strings.Replace(goodCase, `"components":["cache"]`, `"components":"cache"`, 1), 1, "components", "want an array, got a JSON string", 0},
		{"wrong type in list", strings.Replace(goodCase, `"components":["cache"]`, `"components":[1]`, 1), 1, "components", "want a string, got a JSON number", 0},
		{"invalid utf-8", "[\n" + goodCase + ",\n" + strings.Replace(goodCase, `"t"`, "\"\xff\xfe\"", 1) + "\n]", 3, "", "invalid UTF-8", 1},
		{"trailing junk after array", "[" + goodCase + "]\n]", 2, "", "after the closing", 1},
		{"junk after object", goodCase + "\n}", 2, "", "invalid JSON", 1},
		{"deep nesting", strings.Repeat("[", 20000), 1, "", "invalid JSON", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := parseString(t, tt.in)
			if len(probs) != 1 {
				t.Fatalf("got %d problems %v, want 1", len(probs), probs)
			}
			p := probs[0]
			if p.Pos.File != "in.json" || p.Pos.Line != tt.wantLine || p.Field != tt.wantField || !strings.Contains(p.Msg, tt.wantMsg) {
				t.Errorf("got %q (line %d, field %q), want line %d, field %q, message containing %q",
					p.Error(), p.Pos.Line, p.Field, tt.wantLine, tt.wantField, tt.wantMsg)
			}
			if len(got) != tt.wantCases {
				t.Errorf("got %d cases, want %d", len(got), tt.wantCases)
			}
		})
	}
}

func TestValidateCase(t *testing.T) {
	vocab := &ilgraph.Vocabulary{Kinds: map[ilgraph.Kind][]ilgraph.Term{
		ilgraph.KindRootCause:    {{ID: "capacity"}},
		ilgraph.KindComponent:    {{ID: "cache"}, {ID: "message-broker"}},
		ilgraph.KindSymptom:      {{ID: "high-latency"}},
		ilgraph.KindContributing: {{ID: "limit-unknown"}},
		ilgraph.KindDomain:       {{ID: "database"}},
	}}
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		edit      func(c *ilgraph.Case)
		wantField string
		wantMsg   string
	}{
		{"valid", func(c *ilgraph.Case) {}, "", ""},
		{"missing id", func(c *ilgraph.Case) { c.ID = "" }, "id", "required"},
		{"bad id", func(c *ilgraph.Case) { c.ID = "il-1" }, "id", "is not a case id"},
		{"missing org", func(c *ilgraph.Case) { c.Org = " " }, "org", "required"},
		{"bad slug", func(c *ilgraph.Case) { c.OrgSlug = "Amazon Web Services" }, "org_slug", "is not a slug"},
		{"missing date", func(c *ilgraph.Case) { c.Date = "" }, "date", "required"},
		{"impossible date", func(c *ilgraph.Case) { c.Date = "2021-02-30" }, "date", "not a real calendar date"},
		{"wrong date form", func(c *ilgraph.Case) { c.Date = "25/11/2020" }, "date", "not a real calendar date"},
		{"future date", func(c *ilgraph.Case) { c.Date = "2031-01-01" }, "date", "in the future"},
		{"ancient date", func(c *ilgraph.Case) { c.Date = "1900-01-01" }, "date", "is before"},
		{"bad updated_at", func(c *ilgraph.Case) { c.UpdatedAt = "yesterday" }, "updated_at", "RFC 3339"},
		{"bad severity", func(c *ilgraph.Case) { c.Severity = "huge" }, "severity", "is not one of"},
		{"missing title", func(c *ilgraph.Case) { c.Title.En = "" }, "title.en", "required"},
		{"missing summary", func(c *ilgraph.Case) { c.Summary.En = "" }, "summary.en", "required"},
		{"huge text", func(c *ilgraph.Case) { c.Lessons.Ko = strings.Repeat("가", MaxTextLen+1) }, "lessons.ko", "more than the limit"},
		{"missing root cause", func(c *ilgraph.Case) { c.RootCause = "" }, "root_cause", "required"},
		{"unknown root cause", func(c *ilgraph.Case) { c.RootCause = "capcity" }, "root_cause", `did you mean "capacity"`},
		{"unknown component", func(c *ilgraph.Case) { c.Components = []string{"cache", "warp-drive"} }, "components[1]", "not a component in the vocabulary"},
		{"duplicate symptom", func(c *ilgraph.Case) { c.Symptoms = []string{"high-latency", "high-latency"} }, "symptoms[1]", "listed twice"},
		{"unknown factor", func(c *ilgraph.Case) { c.Contributing = []string{"bad-luck"} }, "contributing[0]", "not a contributing factor"},
		{"unknown domain", func(c *ilgraph.Case) { c.Domain = []string{"space"} }, "domain[0]", "not a domain"},
		{"bad duration", func(c *ilgraph.Case) { c.Timeline.ResolvedAfter = "17 hours" }, "timeline.resolved_after", "unknown unit"},
		{"duration out of order", func(c *ilgraph.Case) { c.Timeline.DetectedAfter = "5m 2h" }, "timeline.detected_after", "in the order"},
		{"bad source url", func(c *ilgraph.Case) { c.Sources = []ilgraph.Source{{URL: "aws.amazon.com/message"}} }, "sources[0].url", "absolute http(s) URL"},
		{"missing source url", func(c *ilgraph.Case) { c.Sources = []ilgraph.Source{{Kind: "official-status"}} }, "sources[0].url", "required"},
		{"self related", func(c *ilgraph.Case) { c.Related = []string{"IL-0001"} }, "related[0]", "itself"},
		{"bad related id", func(c *ilgraph.Case) { c.Related = []string{"x"} }, "related[0]", "not a case id"},
		{"related twice", func(c *ilgraph.Case) { c.Related = []string{"IL-0002", "IL-0002"} }, "related[1]", "listed twice"},
		{"self recurrence", func(c *ilgraph.Case) { c.RecurrenceOf = "IL-0001" }, "recurrence_of", "itself"},
		{"empty remediation item", func(c *ilgraph.Case) { c.Remediation = []ilgraph.Item{{}} }, "remediation[0].text", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := parseString(t, goodCase)
			if len(probs) > 0 || len(got) != 1 {
				t.Fatalf("base case does not parse: %v", probs)
			}
			c := got[0].Case
			tt.edit(c)
			ps := ValidateCase(c, vocab.Index(), now)
			if tt.wantField == "" {
				if len(ps) > 0 {
					t.Fatalf("got problems %v, want none", ps)
				}
				return
			}
			if len(ps) != 1 {
				t.Fatalf("got %d problems %v, want 1", len(ps), ps)
			}
			if ps[0].field != tt.wantField || !strings.Contains(ps[0].msg, tt.wantMsg) {
				t.Errorf("got field %q message %q, want field %q message containing %q", ps[0].field, ps[0].msg, tt.wantField, tt.wantMsg)
			}
		})
	}
}

func TestProblemError(t *testing.T) {
	p := &Problem{Pos: Position{File: "seeds/cases/x.json", Line: 12, Index: 3}, CaseID: "IL-0384", Field: "root_cause", Msg: "unknown"}
	want := `seeds/cases/x.json:12 [3]: case IL-0384: field "root_cause": unknown`
	if got := p.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
