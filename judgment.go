package ilgraph

import (
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// Grade is how relevant a judge found a similar match to its query case,
// on the scale of the judged sets in testdata/relevance (README.md there):
// 0 not relevant, 1 relevant, 2 strongly relevant.
type Grade int

// The grades, lowest first.
const (
	GradeNotRelevant      Grade = 0
	GradeRelevant         Grade = 1
	GradeStronglyRelevant Grade = 2
)

// Grades lists every grade, lowest first.
var Grades = []Grade{GradeNotRelevant, GradeRelevant, GradeStronglyRelevant}

var gradeNames = map[Grade]string{GradeNotRelevant: "not relevant", GradeRelevant: "relevant", GradeStronglyRelevant: "strongly relevant"}

// gradeKeys are the grades as the JSON API, MCP and the command line spell
// them (GraphQL's enum values are the same in capitals).
var gradeKeys = map[Grade]string{GradeNotRelevant: "not_relevant", GradeRelevant: "relevant", GradeStronglyRelevant: "strongly_relevant"}

// Valid reports whether g is on the scale.
func (g Grade) Valid() bool { _, ok := gradeNames[g]; return ok }

// String is the grade in words: "not relevant", "relevant", "strongly
// relevant".
func (g Grade) String() string {
	if s, ok := gradeNames[g]; ok {
		return s
	}
	return fmt.Sprintf("Grade(%d)", int(g))
}

// Key is the grade as the JSON API and MCP spell it: not_relevant,
// relevant, strongly_relevant.
func (g Grade) Key() string { return gradeKeys[g] }

// ParseGrade reads a grade's key (not_relevant, relevant,
// strongly_relevant) or its number (0, 1, 2); EINVALID, keyed
// FieldJudgmentGrade, for anything else.
func ParseGrade(s string) (Grade, error) {
	for g, k := range gradeKeys {
		if s == k || s == fmt.Sprint(int(g)) {
			return g, nil
		}
	}
	return 0, FieldErrorf(EINVALID, FieldJudgmentGrade, "must be not_relevant (0), relevant (1) or strongly_relevant (2), not %q", Clip(s, 40))
}

// MaxJudgmentReason bounds a judgment's reason, in characters: a sentence
// or two, as the judged sets' reasons are.
const MaxJudgmentReason = 500

// Judgment is one judge's verdict on one similar match: how relevant case
// Match is to case Query, and why. There is at most one per (Query, Match,
// Judge); judging again replaces it.
type Judgment struct {
	Query  string // the case whose similar cases were listed
	Match  string // the similar case judged
	Judge  string // the principal's name
	Grade  Grade
	Reason string // "" when none was given
	At     time.Time
}

// Note is the judgment as a match's explanation shows it: "marked not
// relevant by alice: a different failure".
func (j Judgment) Note() string {
	s := "marked " + j.Grade.String() + " by " + j.Judge
	if j.Reason != "" {
		s += ": " + j.Reason
	}
	return s
}

// Hiding says that an editor hid a match from its query case's similar
// cases: who and when. Only a match some judgment marks not relevant may
// be hidden; it leaves the default list, not the ranking.
type Hiding struct {
	Query, Match string
	By           string // the principal's name
	At           time.Time
}

// Note is the hiding as a match's explanation shows it: "hidden by bob".
func (h Hiding) Note() string { return "hidden by " + h.By }

// CheckJudgment checks what a judgment is given before anything is looked
// up: two different cases, a grade on the scale, a reason of at most
// MaxJudgmentReason characters on one line. Each error is EINVALID keyed
// by its field (FieldJudgmentMatch, FieldJudgmentGrade,
// FieldJudgmentReason).
func CheckJudgment(query, match string, g Grade, reason string) error {
	if err := CheckPair(query, match); err != nil {
		return err
	}
	if !g.Valid() {
		return FieldErrorf(EINVALID, FieldJudgmentGrade, "must be 0 (not relevant), 1 (relevant) or 2 (strongly relevant), not %d", int(g))
	}
	if n := utf8.RuneCountInString(reason); n > MaxJudgmentReason {
		return FieldErrorf(EINVALID, FieldJudgmentReason, "may be at most %d characters, not %d", MaxJudgmentReason, n)
	}
	if !utf8.ValidString(reason) {
		return FieldErrorf(EINVALID, FieldJudgmentReason, "must be UTF-8 text")
	}
	for _, r := range reason {
		if unicode.IsControl(r) {
			return FieldErrorf(EINVALID, FieldJudgmentReason, "must be one line of text, without tabs or other control characters")
		}
	}
	return nil
}

// CheckPair checks a (query, match) pair a judgment or a hiding names:
// both given, and not the same case (EINVALID keyed FieldJudgmentMatch).
func CheckPair(query, match string) error {
	switch {
	case query == "":
		return Errorf(EINVALID, "name the case whose similar cases are judged")
	case match == "":
		return FieldErrorf(EINVALID, FieldJudgmentMatch, "must name the similar case judged")
	case query == match:
		return FieldErrorf(EINVALID, FieldJudgmentMatch, "must be another case than %s: a case is not judged as similar to itself", Clip(query, 60))
	}
	return nil
}

// Timestamp is a time as every door writes a judgment's or a hiding's: RFC
// 3339 in UTC (with fractions of a second when it has them), as a case
// revision's.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
