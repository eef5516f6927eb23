package ilgraph

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// TermMatch selects cases by their terms of one kind: any of AnyOf (when
// given) and all of AllOf.
type TermMatch struct {
	AnyOf []string
	AllOf []string
}

// IsZero reports whether the match selects everything.
func (m TermMatch) IsZero() bool { return len(m.AnyOf) == 0 && len(m.AllOf) == 0 }

// CaseFilter selects cases. Zero fields select everything; the fields
// combine with AND.
type CaseFilter struct {
	Tags        map[Kind]TermMatch // per kind, including KindRootCause and KindOrg
	ExcludeOrgs []string
	DateFrom    string // YYYY-MM-DD, inclusive
	DateTo      string // YYYY-MM-DD, inclusive
	Severities  []string
	Text        string     // full-text search over titles and summaries, English and Korean
	TextMode    TextMode   // how Text's words combine; TextAll when empty
	TextFields  TextFields // where Text is searched; TextInAll when empty
	ExcludeIDs  []string
	IDs         []string // only these cases
	// ReviewedOnly leaves out machine-tagged cases (Case.MachineTagged):
	// those an importer tagged that no person has reviewed yet.
	ReviewedOnly bool
}

// IsZero reports whether f sets no condition and so selects every case.
// IDs is a condition when it is non-nil, even empty (it then selects none);
// TextMode and TextFields only say how Text is searched.
func (f CaseFilter) IsZero() bool {
	for _, m := range f.Tags {
		if !m.IsZero() {
			return false
		}
	}
	return len(f.ExcludeOrgs) == 0 && f.DateFrom == "" && f.DateTo == "" && len(f.Severities) == 0 &&
		!f.HasText() && len(f.ExcludeIDs) == 0 && f.IDs == nil && !f.ReviewedOnly
}

// TextMode says how the words of a full-text query combine. A word is what
// lies between spaces; in every mode the pieces the index splits one word
// into (Korean two-character pieces, the parts of "front-end") must match
// together, in order.
type TextMode string

// The text modes.
const (
	TextAll    TextMode = "ALL"    // every word, anywhere in the searched fields (the default)
	TextAny    TextMode = "ANY"    // at least one of the words
	TextPhrase TextMode = "PHRASE" // the words one after another, in one field
)

// TextFields says which fields a full-text query searches.
type TextFields string

// The searchable field sets.
const (
	TextInAll    TextFields = "ALL"    // titles and summaries, English and Korean (the default)
	TextInTitles TextFields = "TITLES" // titles only, English and Korean
)

// Limits on filters, so that no request can make the database do unbounded work.
const (
	MaxFilterTerms = 100
	MaxTextQuery   = 500
	MaxTextWords   = 32
)

// Validate checks the filter's values and returns an EINVALID error that
// carries the key of the field at fault (FieldFilter…, FieldFilterTerms,
// FieldText), which each front door names its own way.
func (f *CaseFilter) Validate() error {
	for k, m := range f.Tags {
		if !k.Valid() {
			return FieldErrorf(EINVALID, FieldFilter, "names %q, which is not a kind of term", Clip(string(k), 40))
		}
		if len(m.AnyOf)+len(m.AllOf) > MaxFilterTerms {
			return FieldErrorf(ELIMIT, FieldFilterTerms(k, ""), "has more than %d terms", MaxFilterTerms)
		}
	}
	for _, d := range []struct{ key, date string }{{FieldFilterDateFrom, f.DateFrom}, {FieldFilterDateTo, f.DateTo}} {
		if d.date == "" {
			continue
		}
		if _, err := time.Parse(DateLayout, d.date); err != nil {
			return FieldErrorf(EINVALID, d.key, "%q is not a date in the form YYYY-MM-DD", Clip(d.date, 60))
		}
	}
	if f.DateFrom != "" && f.DateTo != "" && f.DateFrom > f.DateTo {
		return FieldErrorf(EINVALID, FieldFilterDateFrom, "%s is later than the end of the range (%s)", f.DateFrom, f.DateTo)
	}
	if utf8.RuneCountInString(f.Text) > MaxTextQuery {
		return FieldErrorf(ELIMIT, FieldText, "is longer than %d characters", MaxTextQuery)
	}
	if len(strings.Fields(f.Text)) > MaxTextWords {
		return FieldErrorf(ELIMIT, FieldText, "has more than %d words", MaxTextWords)
	}
	switch f.TextMode {
	case "", TextAll, TextAny, TextPhrase:
	default:
		return FieldErrorf(EINVALID, FieldFilterTextMode, "%q is not a text mode", Clip(string(f.TextMode), 60))
	}
	switch f.TextFields {
	case "", TextInAll, TextInTitles:
	default:
		return FieldErrorf(EINVALID, FieldFilterTextFields, "%q is not a set of text fields", Clip(string(f.TextFields), 60))
	}
	if len(f.ExcludeOrgs) > MaxFilterTerms {
		return FieldErrorf(ELIMIT, FieldFilterExcludeOrgs, "has more than %d terms", MaxFilterTerms)
	}
	if len(f.Severities) > MaxFilterTerms || len(f.ExcludeIDs) > 10*MaxFilterTerms || len(f.IDs) > 10*MaxFilterTerms {
		return FieldErrorf(ELIMIT, FieldFilter, "has too many values in a list")
	}
	return nil
}

// Match reports whether case c meets every condition of the filter except
// Text: it is the one meaning of a filter, which every store that answers
// filtered questions (Neo4j's Cypher in graph/, the read model in
// similarity/, the reference store tests use) must give; the conformance
// suite (internal/storetest) checks that they do. Its rules, condition by
// condition, all combined with AND:
//
//   - Tags, per kind: with AnyOf non-empty, the case has at least one of
//     its terms; with AllOf, every one of them (repeats count once). An
//     empty list sets no condition; a term no case has matches nothing. A
//     kind's terms are Case.Tags (for KindOrg, the organization's slug).
//   - ExcludeOrgs: the case's organization (OrgSlug) is not listed.
//   - DateFrom, DateTo: the case's date is on or after DateFrom, on or
//     before DateTo (both YYYY-MM-DD, inclusive).
//   - Severities: the case's severity is one of them ("" is the severity of
//     a case that gives none).
//   - ReviewedOnly: the case is not machine-tagged (Case.MachineTagged).
//   - ExcludeIDs: the case's id is not listed.
//   - IDs: when non-nil, the case's id is listed; an empty, non-nil IDs
//     selects no case.
//
// Text is not evaluated here: its meaning is the full-text index's
// (Lucene's CJK analyzer over titles and summaries: Unicode word breaks,
// stop words, overlapping Korean two-letter pieces; English words matched
// in every form, by the stems of WordStem on both the fields and the
// query), which plain Go does not reproduce exactly. A store evaluates a filter with text as the
// cases the index finds for Text (with TextMode and TextFields) that Match
// also accepts.
func (f *CaseFilter) Match(c *Case) bool {
	for k, m := range f.Tags {
		tags := c.Tags(k)
		if len(m.AnyOf) > 0 && !containsAny(tags, m.AnyOf) {
			return false
		}
		for _, t := range m.AllOf {
			if !slices.Contains(tags, t) {
				return false
			}
		}
	}
	if slices.Contains(f.ExcludeOrgs, c.OrgSlug) {
		return false
	}
	if f.DateFrom != "" && c.Date < f.DateFrom || f.DateTo != "" && c.Date > f.DateTo {
		return false
	}
	if len(f.Severities) > 0 && !slices.Contains(f.Severities, c.Severity) {
		return false
	}
	if f.ReviewedOnly && c.MachineTagged() {
		return false
	}
	if slices.Contains(f.ExcludeIDs, c.ID) {
		return false
	}
	return f.IDs == nil || slices.Contains(f.IDs, c.ID)
}

// containsAny reports whether xs holds at least one of ys.
func containsAny(xs, ys []string) bool {
	for _, y := range ys {
		if slices.Contains(xs, y) {
			return true
		}
	}
	return false
}

// HasText reports whether the filter has a full-text query.
func (f *CaseFilter) HasText() bool { return strings.TrimSpace(f.Text) != "" }

// TextPhrases returns what the full-text query looks for, each to be matched
// as a phrase: its words (split at spaces) in modes ALL and ANY, the whole
// text with its spaces collapsed in mode PHRASE.
func (f *CaseFilter) TextPhrases() []string {
	words := strings.Fields(f.Text)
	if f.TextMode == TextPhrase && len(words) > 0 {
		return []string{strings.Join(words, " ")}
	}
	return words
}

// TextMatchesAll reports whether every phrase of TextPhrases must match (as
// opposed to at least one).
func (f *CaseFilter) TextMatchesAll() bool { return f.TextMode != TextAny }

// TitlesOnly reports whether the full-text query searches titles only.
func (f *CaseFilter) TitlesOnly() bool { return f.TextFields == TextInTitles }

// Clip shortens s to at most n runes (n ≥ 2) for a message, never cutting a
// character in two; a clipped string ends with "…".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Unique returns xs without repeats, in first-seen order.
func Unique(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// SharedFilter narrows base to the cases that share a feature of kind k with
// c: with term, the cases that have that term (c must have it too); without,
// the cases with at least one of c's terms of kind k. c itself is left out.
func SharedFilter(c *Case, k Kind, term string, base CaseFilter) (CaseFilter, error) {
	if !k.Valid() {
		return base, Errorf(EINVALID, "unknown kind %q", k)
	}
	tags := c.Tags(k)
	f := base
	f.Tags = make(map[Kind]TermMatch, len(base.Tags)+1)
	for kk, m := range base.Tags {
		f.Tags[kk] = m
	}
	m := f.Tags[k]
	if term != "" {
		found := false
		for _, t := range tags {
			found = found || t == term
		}
		if !found {
			return base, Errorf(EINVALID, "case %s has no %s %q", c.ID, k.Label(), term)
		}
		m.AllOf = append(append([]string(nil), m.AllOf...), term)
	} else {
		if len(tags) == 0 {
			// Nothing to share: select nothing.
			tags = []string{}
			f.IDs = []string{}
		}
		if len(m.AnyOf) > 0 {
			// Both the caller's any-of and the case's terms must hold: keep
			// the intersection.
			var both []string
			for _, t := range m.AnyOf {
				for _, u := range tags {
					if t == u {
						both = append(both, t)
					}
				}
			}
			if len(both) == 0 {
				f.IDs = []string{}
			}
			tags = both
		}
		m.AnyOf = tags
	}
	f.Tags[k] = m
	f.ExcludeIDs = append(append([]string(nil), base.ExcludeIDs...), c.ID)
	return f, nil
}
