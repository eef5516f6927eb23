package explore_test

import (
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// highlighted returns the highlighted pieces of a snippet.
func highlighted(s explore.Snippet) []string {
	var out []string
	for _, h := range s.Highlights {
		out = append(out, s.Text[h.Start:h.End])
	}
	return out
}

func TestSnippets(t *testing.T) {
	long := strings.Repeat("Nothing to see in this sentence. ", 20) + "Then the primary database failed over. " + strings.Repeat("More filler text here. ", 20)
	c := &ilgraph.Case{
		Title:   ilgraph.Text{En: "The Database's replica and the database", Ko: "분산데이터베이스가 멈췄고 데이터센터는 정상이었다"},
		Summary: ilgraph.Text{En: long, Ko: "데이터베이스 장애, 31시간 동안 데이터베이스가 멈췄다"},
	}
	tests := []struct {
		name   string
		filter ilgraph.CaseFilter
		want   []string // field/language: highlights, per snippet
	}{
		{"no text, no snippets", ilgraph.CaseFilter{}, nil},
		{"a Korean word inside compounds and before particles, not its pieces", ilgraph.CaseFilter{Text: "데이터베이스"},
			[]string{"title/ko: 데이터베이스", "summary/ko: 데이터베이스 데이터베이스"}},
		{"an English word whole, any case, not inside database's", ilgraph.CaseFilter{Text: "DATABASE"},
			[]string{"title/en: database", "summary/en: database"}},
		{"a phrase across punctuation", ilgraph.CaseFilter{Text: "데이터베이스 장애", TextMode: ilgraph.TextPhrase},
			[]string{"summary/ko: 데이터베이스 장애"}},
		{"every word in ALL mode", ilgraph.CaseFilter{Text: "primary failed"},
			[]string{"summary/en: primary failed"}},
		{"titles only", ilgraph.CaseFilter{Text: "데이터베이스", TextFields: ilgraph.TextInTitles},
			[]string{"title/ko: 데이터베이스"}},
		{"Korean glued to digits is one word to the index", ilgraph.CaseFilter{Text: "시간"}, nil},
		{"stop words alone find nothing", ilgraph.CaseFilter{Text: "the"}, nil},
		{"every form of an English word", ilgraph.CaseFilter{Text: "databases"},
			[]string{"title/en: database", "summary/en: database"}},
		{"forms in a phrase", ilgraph.CaseFilter{Text: "databases fail", TextMode: ilgraph.TextPhrase},
			[]string{"summary/en: database failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range explore.Snippets(c, tt.filter) {
				got = append(got, s.Field+"/"+s.Language+": "+strings.Join(highlighted(s), " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	t.Run("a long summary is cut to a window around the match", func(t *testing.T) {
		for _, s := range explore.Snippets(c, ilgraph.CaseFilter{Text: "failed"}) {
			if s.Field != "summary" {
				continue
			}
			if !strings.HasPrefix(s.Text, "…") || !strings.HasSuffix(s.Text, "…") || len([]rune(s.Text)) > explore.SnippetRunes+2 {
				t.Errorf("window %q", s.Text)
			}
			if got := highlighted(s); len(got) != 1 || got[0] != "failed" {
				t.Errorf("highlights %q in %q", got, s.Text)
			}
		}
	})
}
