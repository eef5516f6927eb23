package loader

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
)

// Limits on the size of what one case may hold. They keep a mistaken or
// hostile input from filling the database; real cases are far below them.
const (
	MaxTextLen   = 100_000 // characters in one text field
	MaxListLen   = 200     // entries in one list field
	MaxStringLen = 2_000   // characters in a short string (ids, names, URLs)
)

// EarliestDate is the earliest incident date accepted.
var EarliestDate = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)

// fieldProblem is a problem with one field of one case, before it is located.
type fieldProblem struct{ field, msg string }

// ValidateCase checks one case on its own against the vocabulary: required
// fields, formats, sizes and tags. Checks that need the other cases
// (duplicate ids, links) are done by the Loader. now bounds dates from above.
func ValidateCase(c *ilgraph.Case, vocab map[ilgraph.Kind]map[string]bool, now time.Time) []fieldProblem {
	var ps caseProblems
	ps.identity(c, now)
	ps.sizes(c)
	ps.tags(c, vocab)
	ps.tagConfidence(c)
	ps.reviewDecisions(c)
	ps.sources(c)
	ps.links(c)
	return ps
}

// caseProblems collects the problems of one case, in the order the checks
// find them.
type caseProblems []fieldProblem

func (ps *caseProblems) add(field, format string, args ...any) {
	*ps = append(*ps, fieldProblem{field, fmt.Sprintf(format, args...)})
}

// identity checks what names and dates the case: its id, organization,
// date, update time and severity, and the texts every case must have.
func (ps *caseProblems) identity(c *ilgraph.Case, now time.Time) {
	switch {
	case c.ID == "":
		ps.add("id", "required")
	case !ilgraph.CaseIDPattern.MatchString(c.ID):
		ps.add("id", "%q is not a case id: want an upper-case prefix, a dash and 4 to 9 digits, as IL-0384", clip(c.ID))
	}
	if strings.TrimSpace(c.Org) == "" {
		ps.add("org", "required")
	}
	switch {
	case c.OrgSlug == "":
		ps.add("org_slug", "required")
	case !ilgraph.SlugPattern.MatchString(c.OrgSlug):
		ps.add("org_slug", "%q is not a slug: want lower-case letters and digits joined by single dashes", clip(c.OrgSlug))
	}
	if c.Date == "" {
		ps.add("date", "required")
	} else if d, err := time.Parse(ilgraph.DateLayout, c.Date); err != nil {
		ps.add("date", "%q is not a real calendar date in the form YYYY-MM-DD", clip(c.Date))
	} else if d.Before(EarliestDate) {
		ps.add("date", "%s is before %s", c.Date, EarliestDate.Format(ilgraph.DateLayout))
	} else if d.After(now.AddDate(0, 0, 1)) {
		ps.add("date", "%s is in the future", c.Date)
	}
	if c.UpdatedAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, c.UpdatedAt); err != nil {
			ps.add("updated_at", "%q is not an RFC 3339 time", clip(c.UpdatedAt))
		}
	}
	if c.Severity != "" && !slices.Contains(ilgraph.Severities, c.Severity) {
		ps.add("severity", "%q is not one of %s", clip(c.Severity), strings.Join(ilgraph.Severities, ", "))
	}
	if strings.TrimSpace(c.Title.En) == "" {
		ps.add("title.en", "required")
	}
	if strings.TrimSpace(c.Summary.En) == "" {
		ps.add("summary.en", "required")
	}
}

// sizes checks the texts, the remediation and action items, the short
// strings and the durations: within their limits, and in their forms.
func (ps *caseProblems) sizes(c *ilgraph.Case) {
	texts := map[string]ilgraph.Text{
		"title": c.Title, "summary": c.Summary, "trigger": c.Trigger, "detection": c.Detection,
		"symptoms_text": c.SymptomsText, "lessons": c.Lessons,
	}
	for _, name := range sortedKeys(texts) {
		checkText(ps.add, name, texts[name])
	}
	for name, items := range map[string][]ilgraph.Item{"remediation": c.Remediation, "action_items": c.ActionItems} {
		if len(items) > MaxListLen {
			ps.add(name, "%d entries, more than the limit of %d", len(items), MaxListLen)
		}
		for i, it := range items {
			if strings.TrimSpace(it.Text.En) == "" && strings.TrimSpace(it.Text.Ko) == "" {
				ps.add(fmt.Sprintf("%s[%d].text", name, i), "empty")
			}
			checkText(ps.add, fmt.Sprintf("%s[%d].text", name, i), it.Text)
		}
	}
	shorts := map[string]string{
		"org": c.Org, "date_kind": c.DateKind, "impact.scope": c.Impact.Scope, "impact.users": c.Impact.Users,
		"impact.region": c.Impact.Region, "review.written_by": c.Review.WrittenBy, "review.reviewed_by": c.Review.ReviewedBy,
		"review.reviewed_at": c.Review.ReviewedAt, "url": c.URL,
	}
	for _, name := range sortedKeys(shorts) {
		if n := utf8.RuneCountInString(shorts[name]); n > MaxStringLen {
			ps.add(name, "%d characters, more than the limit of %d", n, MaxStringLen)
		}
	}
	for name, d := range map[string]string{"timeline.detected_after": c.Timeline.DetectedAfter, "timeline.resolved_after": c.Timeline.ResolvedAfter} {
		if d == "" {
			continue
		}
		if _, err := ilgraph.ParseDuration(d); err != nil {
			ps.add(name, "%v", err)
		}
	}
}

// tags checks the tags of every vocabulary kind: a root cause is required,
// and each tag is a term of the vocabulary, listed once, in lists within
// the limit.
func (ps *caseProblems) tags(c *ilgraph.Case, vocab map[ilgraph.Kind]map[string]bool) {
	if c.RootCause == "" {
		ps.add("root_cause", "required")
	}
	for _, k := range ilgraph.VocabKinds {
		field := string(k)
		if k == ilgraph.KindComponent || k == ilgraph.KindSymptom || k == ilgraph.KindMechanism {
			field += "s"
		}
		tags := c.Tags(k)
		if len(tags) > MaxListLen {
			ps.add(field, "%d entries, more than the limit of %d", len(tags), MaxListLen)
			continue
		}
		seen := map[string]bool{}
		for i, t := range tags {
			f := field
			if k != ilgraph.KindRootCause {
				f = fmt.Sprintf("%s[%d]", field, i)
			}
			switch {
			case seen[t]:
				ps.add(f, "%q is listed twice", clip(t))
			case !vocab[k][t]:
				ps.add(f, "%q is not a %s in the vocabulary%s", clip(t), k.Label(), suggest(t, vocab[k]))
			}
			seen[t] = true
		}
	}
}

// tagConfidence checks that every confidence is of one of the case's tags
// and between 0 and 1.
func (ps *caseProblems) tagConfidence(c *ilgraph.Case) {
	tc := c.TagConfidence
	if tc == nil {
		return
	}
	for _, k := range ilgraph.VocabKinds {
		field := "tag_confidence." + string(k)
		if k == ilgraph.KindComponent || k == ilgraph.KindSymptom {
			field += "s"
		}
		conf := tc.Of(k)
		for _, id := range sortedKeys(conf) {
			switch x := conf[id]; {
			case !slices.Contains(c.Tags(k), id):
				ps.add(field+"."+clip(id), "%q is not one of the case's %s tags", clip(id), k.Label())
			case x < 0 || x > 1:
				ps.add(field+"."+id, "%v is not a confidence between 0 and 1", x)
			}
		}
	}
}

// reviewDecisions checks the record of a review made through the API
// (review.decisions): each entry a kind a review decides on, a term id, a
// known decision, with a replacement exactly when it replaces and a
// confidence between 0 and 1 only for what the machine suggested. The terms
// are not looked up in the vocabulary: the record says what was decided
// then, and a rejected term may leave the vocabulary later.
func (ps *caseProblems) reviewDecisions(c *ilgraph.Case) {
	ds := c.Review.Decisions
	if len(ds) == 0 {
		return
	}
	if most := MaxListLen * len(ilgraph.VocabKinds); len(ds) > most {
		ps.add("review.decisions", "%d entries, more than the limit of %d", len(ds), most)
		return
	}
	if strings.TrimSpace(c.Review.ReviewedAt) == "" {
		ps.add("review.decisions", "a record of a review needs review.reviewed_at, when the review was made")
	}
	for i, d := range ds {
		f := fmt.Sprintf("review.decisions[%d]", i)
		switch {
		case d.Decision == ilgraph.DecisionAdd && (!d.Kind.Valid() || !slices.Contains(ilgraph.VocabKinds, d.Kind)):
			ps.add(f+".kind", "%q is not a kind of the vocabulary", clip(string(d.Kind)))
		case d.Decision != ilgraph.DecisionAdd && !slices.Contains(ilgraph.MachineKinds, d.Kind):
			ps.add(f+".kind", "%q is not a kind a machine tags (root_cause, component, symptom, contributing, domain)", clip(string(d.Kind)))
		}
		if !ilgraph.TermIDPattern.MatchString(d.Term) {
			ps.add(f+".term", "%q is not a term id", clip(d.Term))
		}
		if !slices.Contains(ilgraph.Decisions, d.Decision) {
			ps.add(f+".decision", "%q is not one of %s", clip(d.Decision), strings.Join(ilgraph.Decisions, ", "))
		}
		switch {
		case d.Decision == ilgraph.DecisionReplace && !ilgraph.TermIDPattern.MatchString(d.With):
			ps.add(f+".with", "%q is not a term id: a replacement names the term that replaced the suggestion", clip(d.With))
		case d.Decision != ilgraph.DecisionReplace && d.With != "":
			ps.add(f+".with", "only a replacement names a term to replace with")
		}
		switch {
		case d.Confidence == nil:
		case d.Decision == ilgraph.DecisionAdd:
			ps.add(f+".confidence", "a tag the reviewer added has no machine confidence")
		case *d.Confidence < 0 || *d.Confidence > 1:
			ps.add(f+".confidence", "%v is not a confidence between 0 and 1", *d.Confidence)
		}
	}
}

// sources checks the sources' URLs and archived copies.
func (ps *caseProblems) sources(c *ilgraph.Case) {
	if len(c.Sources) > MaxListLen {
		ps.add("sources", "%d entries, more than the limit of %d", len(c.Sources), MaxListLen)
	}
	for i, s := range c.Sources {
		if err := checkURL(s.URL); err != nil {
			ps.add(fmt.Sprintf("sources[%d].url", i), "%v", err)
		}
		if s.Archived != "" {
			if err := checkURL(s.Archived); err != nil {
				ps.add(fmt.Sprintf("sources[%d].archived", i), "%v", err)
			}
		}
	}
}

// links checks the related cases and the case this one recurs: case ids,
// not the case itself, each listed once. Whether they exist is the
// Loader's check.
func (ps *caseProblems) links(c *ilgraph.Case) {
	if len(c.Related) > MaxListLen {
		ps.add("related", "%d entries, more than the limit of %d", len(c.Related), MaxListLen)
	}
	seen := map[string]bool{}
	for i, r := range c.Related {
		f := fmt.Sprintf("related[%d]", i)
		switch {
		case !ilgraph.CaseIDPattern.MatchString(r):
			ps.add(f, "%q is not a case id", clip(r))
		case r == c.ID:
			ps.add(f, "a case cannot be related to itself")
		case seen[r]:
			ps.add(f, "%q is listed twice", r)
		}
		seen[r] = true
	}
	if c.RecurrenceOf != "" {
		switch {
		case !ilgraph.CaseIDPattern.MatchString(c.RecurrenceOf):
			ps.add("recurrence_of", "%q is not a case id", clip(c.RecurrenceOf))
		case c.RecurrenceOf == c.ID:
			ps.add("recurrence_of", "a case cannot be a recurrence of itself")
		}
	}
}

func checkText(add func(string, string, ...any), name string, t ilgraph.Text) {
	for lang, s := range map[string]string{"en": t.En, "ko": t.Ko} {
		if n := utf8.RuneCountInString(s); n > MaxTextLen {
			add(name+"."+lang, "%d characters, more than the limit of %d", n, MaxTextLen)
		}
	}
}

func checkURL(s string) error {
	if s == "" {
		return fmt.Errorf("required")
	}
	if len(s) > MaxStringLen {
		return fmt.Errorf("%d characters, more than the limit of %d", len(s), MaxStringLen)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", clip(s))
	}
	return nil
}

// suggest names the closest vocabulary term, for typos.
func suggest(t string, terms map[string]bool) string {
	best, bestD := "", 4
	for id := range terms {
		if d := levenshtein(t, id); d < bestD || (d == bestD && id < best) {
			best, bestD = id, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	r := []rune(s)
	return string(r[:77]) + "…"
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// CheckCase is ValidateCase for callers outside the loader (importers): the
// problems of one case on its own, located at pos.
func CheckCase(c *ilgraph.Case, vocab map[ilgraph.Kind]map[string]bool, now time.Time, pos Position) Problems {
	var out Problems
	for _, fp := range ValidateCase(c, vocab, now) {
		out = append(out, &Problem{Pos: pos, CaseID: c.ID, Field: fp.field, Msg: fp.msg})
	}
	return out
}
