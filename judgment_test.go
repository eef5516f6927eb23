package ilgraph

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestGrades(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Grade
	}{
		{"not_relevant", GradeNotRelevant}, {"0", GradeNotRelevant},
		{"relevant", GradeRelevant}, {"1", GradeRelevant},
		{"strongly_relevant", GradeStronglyRelevant}, {"2", GradeStronglyRelevant},
	} {
		t.Run("parses "+tc.in, func(t *testing.T) {
			got, err := ParseGrade(tc.in)
			if err != nil || got != tc.want {
				t.Errorf("ParseGrade(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "3", "-1", "RELEVANT", "very relevant"} {
		t.Run("refuses "+bad, func(t *testing.T) {
			_, err := ParseGrade(bad)
			var e *Error
			if !errors.As(err, &e) || e.Code != EINVALID || e.Field != FieldJudgmentGrade {
				t.Errorf("ParseGrade(%q): got %v, want EINVALID keyed %s", bad, err, FieldJudgmentGrade)
			}
		})
	}
	t.Run("the scale is testdata/relevance's", func(t *testing.T) {
		// testdata/relevance/README.md: 0 not similar, 1 related, 2 strongly similar.
		for i, g := range Grades {
			if int(g) != i || !g.Valid() {
				t.Errorf("Grades[%d] = %d (valid %v), want %d", i, int(g), g.Valid(), i)
			}
		}
		if Grade(3).Valid() || Grade(-1).Valid() {
			t.Error("grades off the scale are valid")
		}
	})
}

func TestJudgmentNotes(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		j    Judgment
		want string
	}{
		{Judgment{Query: "IL-0001", Match: "IL-0002", Judge: "alice", Grade: GradeNotRelevant, At: at}, "marked not relevant by alice"},
		{Judgment{Judge: "bob", Grade: GradeStronglyRelevant, Reason: "the same retry storm"}, "marked strongly relevant by bob: the same retry storm"},
	} {
		if got := tc.j.Note(); got != tc.want {
			t.Errorf("Note() = %q, want %q", got, tc.want)
		}
	}
	if got := (Hiding{By: "carol"}).Note(); got != "hidden by carol" {
		t.Errorf("Hiding.Note() = %q", got)
	}
}

func TestCheckJudgment(t *testing.T) {
	long := strings.Repeat("é", MaxJudgmentReason+1)
	for _, tc := range []struct {
		name         string
		query, match string
		grade        Grade
		reason       string
		field        string // "" : accepted
	}{
		{"accepted", "IL-0001", "IL-0002", GradeRelevant, "same broker", ""},
		{"a reason of exactly the limit", "IL-0001", "IL-0002", GradeRelevant, strings.Repeat("é", MaxJudgmentReason), ""},
		{"a case with itself", "IL-0001", "IL-0001", GradeRelevant, "", FieldJudgmentMatch},
		{"no match", "IL-0001", "", GradeRelevant, "", FieldJudgmentMatch},
		{"a grade above the scale", "IL-0001", "IL-0002", 3, "", FieldJudgmentGrade},
		{"a grade below the scale", "IL-0001", "IL-0002", -1, "", FieldJudgmentGrade},
		{"a reason too long", "IL-0001", "IL-0002", GradeRelevant, long, FieldJudgmentReason},
		{"a reason with a tab", "IL-0001", "IL-0002", GradeRelevant, "a\tb", FieldJudgmentReason},
		{"a reason of two lines", "IL-0001", "IL-0002", GradeRelevant, "a\nb", FieldJudgmentReason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckJudgment(tc.query, tc.match, tc.grade, tc.reason)
			var e *Error
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.field != "" && (!errors.As(err, &e) || e.Code != EINVALID || e.Field != tc.field):
				t.Errorf("got %v, want EINVALID keyed %s", err, tc.field)
			}
		})
	}
	t.Run("the message states the limit", func(t *testing.T) {
		err := CheckJudgment("IL-0001", "IL-0002", GradeRelevant, long)
		if got, want := ErrorMessageIn(err, map[string]string{FieldJudgmentReason: "reason"}), "reason may be at most 500 characters, not 501"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
