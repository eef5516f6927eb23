package ilgraph

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Text is a bilingual text block of the incident-library format.
type Text struct {
	En string `json:"en"`
	Ko string `json:"ko,omitempty"`
}

// IsZero reports whether both languages are empty.
func (t Text) IsZero() bool { return t.En == "" && t.Ko == "" }

// Item is one remediation step or action item.
type Item struct {
	Text Text `json:"text"`
}

// Impact says who and what an incident affected.
type Impact struct {
	Scope  string `json:"scope,omitempty"`
	Users  string `json:"users,omitempty"`
	Region string `json:"region,omitempty"`
}

// Timeline holds the durations the source gives, as the library writes them
// ("17h 8m"); empty when unknown.
type Timeline struct {
	DetectedAfter string `json:"detected_after"`
	ResolvedAfter string `json:"resolved_after"`
}

// Source is a public document a case is written from.
type Source struct {
	URL      string `json:"url"`
	Kind     string `json:"kind,omitempty"`
	Archived string `json:"archived,omitempty"`
}

// Review records who wrote and reviewed a case.
type Review struct {
	WrittenBy  string `json:"written_by,omitempty"`
	ReviewedAt string `json:"reviewed_at"`
	ReviewedBy string `json:"reviewed_by"`
	// Decisions is, for a machine-tagged case reviewed through the API,
	// the record of the review: every tag the machine had suggested, with
	// its confidence and what the reviewer decided, then the tags the
	// reviewer added. Empty for any other case.
	Decisions []ReviewDecision `json:"decisions,omitempty"`
}

// The decisions of a review (ReviewDecision.Decision): a machine-suggested
// tag is accepted, rejected or replaced by another term of its kind; a tag
// nobody suggested is added.
const (
	DecisionAccept  = "accept"
	DecisionReject  = "reject"
	DecisionReplace = "replace"
	DecisionAdd     = "add"
)

// Decisions lists the decisions a review records, in the order the API
// documents them.
var Decisions = []string{DecisionAccept, DecisionReject, DecisionReplace, DecisionAdd}

// ReviewDecision is one entry of a review's record: a tag of kind Kind the
// machine suggested (or, for DecisionAdd, the reviewer added), the
// machine's confidence in it when it recorded one, and the decision; With
// is the term that replaced it (DecisionReplace only).
type ReviewDecision struct {
	Kind       Kind     `json:"kind"`
	Term       string   `json:"term"`
	Confidence *float64 `json:"confidence,omitempty"`
	Decision   string   `json:"decision"`
	With       string   `json:"with,omitempty"`
}

// MachineKinds are the kinds a machine tags (ilgraph import) and a review
// decides on: those TagConfidence has a field for. Mechanisms are chosen
// by people only.
var MachineKinds = []Kind{KindRootCause, KindComponent, KindSymptom, KindContributing, KindDomain}

// Case is one incident in the incident-library JSON format. Every field of
// the format has a typed field here; Raw keeps the case's JSON exactly as it
// was read so that fields this version does not know are never lost.
type Case struct {
	ID           string            `json:"id"`
	Org          string            `json:"org"`
	OrgSlug      string            `json:"org_slug"`
	Date         string            `json:"date"`
	DateKind     string            `json:"date_kind,omitempty"`
	Title        Text              `json:"title"`
	Summary      Text              `json:"summary"`
	Trigger      Text              `json:"trigger"`
	Detection    Text              `json:"detection"`
	SymptomsText Text              `json:"symptoms_text"`
	Lessons      Text              `json:"lessons"`
	Remediation  []Item            `json:"remediation"`
	ActionItems  []Item            `json:"action_items"`
	Impact       Impact            `json:"impact"`
	Timeline     Timeline          `json:"timeline"`
	Severity     string            `json:"severity,omitempty"`
	RootCause    string            `json:"root_cause"`
	Components   []string          `json:"components"`
	Symptoms     []string          `json:"symptoms"`
	Contributing []string          `json:"contributing"`
	Domain       []string          `json:"domain"`
	Mechanisms   []string          `json:"mechanisms,omitempty"`
	Related      []string          `json:"related"`
	RecurrenceOf string            `json:"recurrence_of"`
	Sources      []Source          `json:"sources"`
	Docs         []json.RawMessage `json:"docs"`
	Review       Review            `json:"review"`
	UpdatedAt    string            `json:"updated_at,omitempty"`
	URL          string            `json:"url,omitempty"`
	// TagConfidence is, for a machine-tagged case, how sure the tagger was
	// of each tag (see MachineTagged); nil for a hand-tagged case.
	TagConfidence *TagConfidence `json:"tag_confidence,omitempty"`

	// Raw is the case's JSON as read (compacted). Not part of the format.
	Raw json.RawMessage `json:"-"`
	// Version counts the writes of the case as stored (1 for its first; a
	// load that changes it and every write through the core add one): what
	// an update or delete names to say which version it read. 0 when not
	// read from the store. Not part of the format.
	Version int64 `json:"-"`
}

// ImportWriter is review.written_by of a case an importer wrote and tagged
// by machine (ilgraph import).
const ImportWriter = "import"

// MachineTagged reports whether the case's tags were chosen by a machine
// and no person has reviewed them since: review.written_by is "import" and
// review.reviewed_at is empty. A reviewer who checks the tags sets
// reviewed_at (and reviewed_by); from then on the case counts as reviewed.
func (c *Case) MachineTagged() bool {
	return c.Review.WrittenBy == ImportWriter && strings.TrimSpace(c.Review.ReviewedAt) == ""
}

// Reviewed reports whether a second reader has checked the case against its
// source: review.reviewed_at is set.
func (c *Case) Reviewed() bool { return strings.TrimSpace(c.Review.ReviewedAt) != "" }

// Bilingual reports whether every text the case gives in English — title,
// summary, trigger, detection, symptoms text, lessons, each remediation step
// and action item — is given in Korean too.
func (c *Case) Bilingual() bool {
	for _, t := range []Text{c.Title, c.Summary, c.Trigger, c.Detection, c.SymptomsText, c.Lessons} {
		if strings.TrimSpace(t.En) != "" && strings.TrimSpace(t.Ko) == "" {
			return false
		}
	}
	for _, items := range [][]Item{c.Remediation, c.ActionItems} {
		for _, it := range items {
			if strings.TrimSpace(it.Text.En) != "" && strings.TrimSpace(it.Text.Ko) == "" {
				return false
			}
		}
	}
	return true
}

// TagConfidence holds, per kind, a confidence in [0, 1] for each tag a
// machine chose: the suggestion engine's, or a fixed one for a tag taken
// from a source's own categories (docs/import.md).
type TagConfidence struct {
	RootCause    map[string]float64 `json:"root_cause,omitempty"`
	Components   map[string]float64 `json:"components,omitempty"`
	Symptoms     map[string]float64 `json:"symptoms,omitempty"`
	Contributing map[string]float64 `json:"contributing,omitempty"`
	Domain       map[string]float64 `json:"domain,omitempty"`
}

// Of returns the confidences of kind k (nil for KindOrg or none).
func (t *TagConfidence) Of(k Kind) map[string]float64 {
	if t == nil {
		return nil
	}
	switch k {
	case KindRootCause:
		return t.RootCause
	case KindComponent:
		return t.Components
	case KindSymptom:
		return t.Symptoms
	case KindContributing:
		return t.Contributing
	case KindDomain:
		return t.Domain
	}
	return nil
}

// Set records confidence x for tag id of kind k (not KindOrg).
func (t *TagConfidence) Set(k Kind, id string, x float64) {
	m := map[Kind]*map[string]float64{
		KindRootCause: &t.RootCause, KindComponent: &t.Components, KindSymptom: &t.Symptoms,
		KindContributing: &t.Contributing, KindDomain: &t.Domain,
	}[k]
	if m == nil {
		return
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[id] = x
}

// TagScore is one machine-chosen tag with its confidence.
type TagScore struct {
	Kind       Kind
	ID         string
	Confidence float64
}

// TagScores lists the case's tag confidences kind by kind (VocabKinds
// order), each kind's tags in the case's order; a confidence for a term the
// case does not carry is left out. Nil when the case has no confidences.
func (c *Case) TagScores() []TagScore {
	if c.TagConfidence == nil {
		return nil
	}
	out := []TagScore{}
	for _, k := range VocabKinds {
		conf := c.TagConfidence.Of(k)
		for _, id := range c.Tags(k) {
			if x, ok := conf[id]; ok {
				out = append(out, TagScore{Kind: k, ID: id, Confidence: x})
			}
		}
	}
	return out
}

// Feature is one tag of a case: a vocabulary term of a kind, or its org.
type Feature struct {
	Kind Kind
	ID   string
}

func (f Feature) String() string { return string(f.Kind) + ":" + f.ID }

// Tags returns the case's terms of a vocabulary kind (for KindOrg, its slug).
func (c *Case) Tags(k Kind) []string {
	switch k {
	case KindRootCause:
		if c.RootCause == "" {
			return nil
		}
		return []string{c.RootCause}
	case KindComponent:
		return c.Components
	case KindSymptom:
		return c.Symptoms
	case KindContributing:
		return c.Contributing
	case KindDomain:
		return c.Domain
	case KindMechanism:
		return c.Mechanisms
	case KindOrg:
		if c.OrgSlug == "" {
			return nil
		}
		return []string{c.OrgSlug}
	}
	return nil
}

// Features returns every feature of the case, kinds in AllKinds order.
func (c *Case) Features() []Feature {
	var fs []Feature
	for _, k := range AllKinds {
		for _, id := range c.Tags(k) {
			fs = append(fs, Feature{Kind: k, ID: id})
		}
	}
	return fs
}

// Year returns the year of the case's date, or 0 if the date is not valid.
func (c *Case) Year() int {
	t, err := time.Parse(DateLayout, c.Date)
	if err != nil {
		return 0
	}
	return t.Year()
}

// DateLayout is the layout of Case.Date.
const DateLayout = "2006-01-02"

// CaseIDPattern is the form of a case id: an upper-case prefix, a dash and
// four to nine digits. The incident library uses IL-0001…; the cases we write
// ourselves use ILG-0001…, and generated corpora GEN-….
var CaseIDPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,9}-[0-9]{4,9}$`)

// SlugPattern is the form of an organization slug.
var SlugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// TermIDPattern is the form of a vocabulary term id.
var TermIDPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Severities lists the severity values a case may have.
var Severities = []string{"unknown", "sev0", "sev1", "sev2", "sev3", "sev4", "sev5"}

// ParseDuration parses a duration as the library writes it ("17h 8m", "2d 3h",
// "45m", "30s") and returns it in whole minutes, rounded down. Units d, h, m, s
// may appear once each, in that order, separated by spaces.
func ParseDuration(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	order := "dhms"
	last := -1
	var secs int64
	for _, part := range strings.Fields(s) {
		if len(part) < 2 {
			return 0, fmt.Errorf("duration %q: %q is not a number followed by d, h, m or s", s, part)
		}
		unit := part[len(part)-1]
		pos := strings.IndexByte(order, unit)
		if pos < 0 {
			return 0, fmt.Errorf("duration %q: unknown unit %q (want d, h, m or s)", s, string(unit))
		}
		if pos <= last {
			return 0, fmt.Errorf("duration %q: units must appear once each, in the order d h m s", s)
		}
		last = pos
		n, err := strconv.ParseInt(part[:len(part)-1], 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("duration %q: %q is not a whole number", s, part[:len(part)-1])
		}
		secs += n * [...]int64{86400, 3600, 60, 1}[pos]
	}
	if secs > 366*86400 {
		return 0, fmt.Errorf("duration %q is longer than a year", s)
	}
	return int(secs / 60), nil
}

// FormatDuration writes minutes the way the library does ("17h 8m").
func FormatDuration(minutes int) string {
	if minutes <= 0 {
		return "0m"
	}
	d, h, m := minutes/1440, minutes%1440/60, minutes%60
	var parts []string
	if d > 0 {
		parts = append(parts, strconv.Itoa(d)+"d")
	}
	if h > 0 {
		parts = append(parts, strconv.Itoa(h)+"h")
	}
	if m > 0 {
		parts = append(parts, strconv.Itoa(m)+"m")
	}
	return strings.Join(parts, " ")
}
