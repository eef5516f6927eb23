// Package importer turns incidents from outside collections into cases of
// the incident-library format: the postmortems.app collection's Markdown
// files (ReadPostmortems), JSON Lines of plain descriptions (ReadText) and
// teams' own Markdown post-mortems (ReadMarkdown).
// A Tagger tags each one with the suggestion engine (package suggest), built
// from the vocabulary and a corpus of hand-tagged cases as evidence, plus
// the source's own categories where they map to a term without doubt.
//
// Every case an importer writes is machine-tagged: review.written_by is
// "import" (ilgraph.ImportWriter) and tag_confidence holds a confidence per
// tag, until a person reviews it (docs/import.md).
package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/suggest"
)

// Record is one incident read from a source, before it is tagged.
type Record struct {
	Pos loader.Position // where it was read (file and line)
	// Key is what the case id is derived from: hex digits (a uuid without
	// its dashes, or a hash of the source's id). ID, when set, is used as is.
	Key string
	ID  string
	// SourceID is the record's id in its source, for messages.
	SourceID   string
	Org        string
	Date       string      // YYYY-MM-DD
	DateKind   string      // DateIncident, DatePublished or DateApproximate
	DateFound  DateFinding // where the date was found (postmortems.app)
	Title      string
	Summary    string
	URL        string
	Archived   string
	Categories []string // the source's own categories
	// ResolvedAfter is the end time minus the start time, as the library
	// writes durations; empty when unknown.
	ResolvedAfter string
	// DetectedAfter is the time from the start to detection, when the
	// source gives it.
	DetectedAfter string
	// Given are tags the source's own labels give without doubt (a
	// person's label mapped by a table, or the organization's provider
	// domain), each with its confidence. A given root cause wins over the
	// engine's suggestion.
	Given []Given
	// Remediation are what was done to mitigate, as the source lists it.
	Remediation []string
	// Sources, when set, are the case's sources, the official one first
	// (its URL is the case's url); otherwise URL and Archived make one.
	Sources []ilgraph.Source
	// TagText and Lang, when set, are the text the tags are suggested from
	// and its language ("en", "ko"); by default the title and summary in
	// English (suggest.ImportText).
	TagText, Lang string
	// Fill, when set, fills the fields of the case a source gives beyond
	// the record's (a Markdown post-mortem's sections), before the case is
	// checked.
	Fill func(*ilgraph.Case)
}

// Given is a tag a source's own labels give, with its confidence.
type Given struct {
	ilgraph.Feature
	Confidence float64
}

// CategoryConfidence is the confidence recorded for a tag taken from a
// source's own categories (CategoryMap) rather than from the suggestion
// engine: the category is a person's judgment, but a coarse one.
const CategoryConfidence = 0.5

// CategoryMapping is what one of a source's categories says in our terms.
type CategoryMapping struct {
	// RootCause is the root cause a case gets when the engine suggests
	// none; the engine's best suggestion always wins otherwise.
	RootCause string
	// Tags are added to the case (with CategoryConfidence, or the engine's
	// confidence when higher).
	Tags []ilgraph.Feature
}

// CategoryMap maps the postmortems.app categories to our terms, where the
// mapping is unambiguous (docs/import.md explains each). Categories not
// listed (cloud, automation, cascading-failure, time, undescriptive) say
// nothing a term can carry.
var CategoryMap = map[string]CategoryMapping{
	"config-change": {RootCause: "config-change"},
	"hardware":      {RootCause: "hardware-failure"},
	"security":      {Tags: []ilgraph.Feature{{Kind: ilgraph.KindDomain, ID: "security"}}},
}

// Tagger builds tagged cases from records. Build it with NewTagger.
type Tagger struct {
	engine *suggest.Engine
	vocab  *ilgraph.Vocabulary
	index  map[ilgraph.Kind]map[string]bool
	// Now bounds dates from above (default time.Now).
	Now func() time.Time
}

// NewTagger returns a tagger over the vocabulary, with corpus (hand-tagged
// cases, usually seeds/) as the suggestion engine's evidence.
func NewTagger(v *ilgraph.Vocabulary, corpus []ilgraph.Case) (*Tagger, error) {
	e, err := suggest.New(v, corpus, suggest.Options{})
	if err != nil {
		return nil, err
	}
	return &Tagger{engine: e, vocab: v, index: v.Index(), Now: time.Now}, nil
}

// Result is what an import produced.
type Result struct {
	Cases   []*ilgraph.Case
	Skipped loader.Problems // records that became no case, and why
	Notes   []string        // things worth knowing that skipped nothing (an id moved by a collision)
}

// Import gives every record an id (checking for collisions), then tags it
// and checks the case as the loader would. Records that cannot become a
// valid case are reported in Skipped; the others are in Cases, in the order
// of records.
func (t *Tagger) Import(recs []*Record, idPrefix string) *Result {
	res := &Result{}
	ok := t.assignIDs(recs, idPrefix, res)
	for _, r := range recs {
		if !ok[r] {
			continue
		}
		c, probs := t.Case(r)
		if len(probs) > 0 {
			res.Skipped = append(res.Skipped, probs...)
			continue
		}
		res.Cases = append(res.Cases, c)
	}
	return res
}

// idDigits is how many hex digits one id is made of: 16^7 − 1 =
// 268,435,455 has nine decimal digits, the most a case id holds.
const idDigits = 7

// assignIDs sets each record's ID: given ids are kept (a repeat is
// skipped); the others are prefix-NNNNNNNNN, the decimal value of the first
// seven hex digits of Key. When two keys give the same number, the record
// whose key sorts later takes the next seven digits of its key, and so on —
// stable as long as the records are.
func (t *Tagger) assignIDs(recs []*Record, prefix string, res *Result) map[*Record]bool {
	ok := map[*Record]bool{}
	taken := map[string]*Record{}
	for _, r := range recs {
		if r.ID == "" {
			continue
		}
		if other, dup := taken[r.ID]; dup {
			res.Skipped = append(res.Skipped, &loader.Problem{Pos: r.Pos, CaseID: r.ID, Field: "id", Msg: fmt.Sprintf("duplicate id: also at %s", other.Pos)})
			continue
		}
		taken[r.ID] = r
		ok[r] = true
	}
	var derived []*Record
	for _, r := range recs {
		if r.ID == "" {
			derived = append(derived, r)
		}
	}
	sort.SliceStable(derived, func(i, j int) bool { return derived[i].Key < derived[j].Key })
	for _, r := range derived {
		for w := 0; ; w++ {
			id, more := shortID(prefix, r.Key, w)
			if !more {
				res.Skipped = append(res.Skipped, &loader.Problem{Pos: r.Pos, Field: "id", Msg: fmt.Sprintf("no free case id for %q: every %d-digit window of it is taken", r.SourceID, idDigits)})
				break
			}
			if other, dup := taken[id]; dup {
				res.Notes = append(res.Notes, fmt.Sprintf("%s: %s (%q) would take %s, which %s (%q) has; it takes the next digits of its key", r.Pos, prefix, r.SourceID, id, other.Pos, other.SourceID))
				continue
			}
			r.ID = id
			taken[id] = r
			ok[r] = true
			break
		}
	}
	return ok
}

// shortID returns prefix-NNNNNNNNN from the w-th window of seven hex digits
// of key, and false when key has no such window.
func shortID(prefix, key string, w int) (string, bool) {
	if len(key) < (w+1)*idDigits {
		return "", false
	}
	n, err := strconv.ParseUint(key[w*idDigits:(w+1)*idDigits], 16, 32)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s-%09d", prefix, n), true
}

// hexKey is s with dashes removed and lower-cased, when what is left is
// hex digits (a uuid, a hex id), or "".
var hexOnly = regexp.MustCompile(`^[0-9a-f]+$`)

func hexKey(s string) string {
	k := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "-", ""))
	if len(k) < idDigits || !hexOnly.MatchString(k) {
		return ""
	}
	return k
}

// hashKey is a hex key for a source id that is not hex: its SHA-256.
func hashKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Case tags the record and builds its case; problems say why it cannot be
// imported.
func (t *Tagger) Case(r *Record) (*ilgraph.Case, loader.Problems) {
	c := &ilgraph.Case{
		ID: r.ID, Org: r.Org, OrgSlug: Slug(r.Org), Date: r.Date, DateKind: r.DateKind,
		Title:   ilgraph.Text{En: r.Title},
		Summary: ilgraph.Text{En: r.Summary},
		Review:  ilgraph.Review{WrittenBy: ilgraph.ImportWriter},
	}
	c.Timeline.ResolvedAfter = r.ResolvedAfter
	c.Timeline.DetectedAfter = r.DetectedAfter
	for _, m := range r.Remediation {
		if m = strings.TrimSpace(m); m != "" {
			c.Remediation = append(c.Remediation, ilgraph.Item{Text: ilgraph.Text{En: m}})
		}
	}
	if r.Fill != nil {
		r.Fill(c)
	}
	if len(r.Sources) > 0 {
		c.Sources = r.Sources
		c.URL = r.Sources[0].URL
	} else if r.URL != "" {
		s := ilgraph.Source{URL: r.URL, Kind: "official"}
		if r.Archived != "" {
			s.Archived = r.Archived
		}
		c.Sources = []ilgraph.Source{s}
		c.URL = r.URL
	}
	problem := func(field, format string, args ...any) loader.Problems {
		return loader.Problems{{Pos: r.Pos, CaseID: r.ID, Field: field, Msg: fmt.Sprintf(format, args...)}}
	}
	if c.OrgSlug == "" && strings.TrimSpace(r.Org) != "" {
		return nil, problem("org", "%q has no letter or digit to make an organization slug of", ilgraph.Clip(r.Org, 60))
	}
	text, lang := suggest.ImportText(r.Title, r.Summary), "en"
	if r.TagText != "" {
		text = suggest.ImportText("", r.TagText)
	}
	if r.Lang != "" {
		lang = r.Lang
	}
	if strings.TrimSpace(text) == "" {
		return nil, problem("summary", "no title and no text to tag")
	}
	res, err := t.engine.Suggest(text, lang, "")
	if err != nil {
		return nil, problem("summary", "%v", err)
	}
	conf := &ilgraph.TagConfidence{}
	if g, ok := t.givenRootCause(r.Given); ok {
		c.RootCause = g.ID
		conf.Set(ilgraph.KindRootCause, g.ID, max(g.Confidence, confidenceOf(res, ilgraph.KindRootCause, g.ID)))
	} else if best := res.Top(ilgraph.KindRootCause, 1, 0); len(best) > 0 {
		c.RootCause = best[0].ID
		conf.Set(ilgraph.KindRootCause, best[0].ID, best[0].Confidence)
	} else if rc := t.mappedRootCause(r.Categories); rc != "" {
		c.RootCause = rc
		conf.Set(ilgraph.KindRootCause, rc, CategoryConfidence)
	} else {
		return nil, problem("root_cause", "no root cause: the suggestion engine proposes none and no category (%s) maps to one", strings.Join(r.Categories, ", "))
	}
	lists := map[ilgraph.Kind]*[]string{
		ilgraph.KindComponent: &c.Components, ilgraph.KindSymptom: &c.Symptoms,
		ilgraph.KindContributing: &c.Contributing, ilgraph.KindDomain: &c.Domain,
	}
	for _, k := range ilgraph.VocabKinds[1:] {
		if lists[k] == nil {
			continue // mechanisms: tag_confidence has no field for them, so they are not machine-tagged
		}
		for _, s := range res.InProfile(k, suggest.DefaultCutoffs[k]) {
			*lists[k] = append(*lists[k], s.ID)
			conf.Set(k, s.ID, s.Confidence)
		}
	}
	for _, cat := range r.Categories {
		for _, f := range CategoryMap[cat].Tags {
			list := lists[f.Kind]
			if list == nil || !t.vocab.Has(f.Kind, f.ID) {
				continue
			}
			if !slices.Contains(*list, f.ID) {
				*list = append(*list, f.ID)
			}
			if conf.Of(f.Kind)[f.ID] < CategoryConfidence {
				conf.Set(f.Kind, f.ID, CategoryConfidence)
			}
		}
	}
	for _, g := range r.Given {
		list := lists[g.Kind]
		if list == nil || !t.vocab.Has(g.Kind, g.ID) {
			continue
		}
		if !slices.Contains(*list, g.ID) {
			*list = append(*list, g.ID)
		}
		if conf.Of(g.Kind)[g.ID] < g.Confidence {
			conf.Set(g.Kind, g.ID, g.Confidence)
		}
	}
	// The tagging rules want a symptom and a domain: when none cleared its
	// cut-off and no category or label gave one, the engine's best of that
	// kind is taken, with its (low) confidence, for a reviewer to judge.
	for _, k := range []ilgraph.Kind{ilgraph.KindSymptom, ilgraph.KindDomain} {
		if best := res.Top(k, 1, 0); len(*lists[k]) == 0 && len(best) > 0 && best[0].Confidence > 0 {
			*lists[k] = append(*lists[k], best[0].ID)
			conf.Set(k, best[0].ID, best[0].Confidence)
		}
	}
	c.TagConfidence = conf
	tidy(c)
	if probs := loader.CheckCase(c, t.index, t.Now(), r.Pos); len(probs) > 0 {
		return nil, probs
	}
	return c, nil
}

// confidenceOf is the engine's confidence in term id of kind k, 0 when it
// did not suggest it.
func confidenceOf(res *suggest.Result, k ilgraph.Kind, id string) float64 {
	for _, s := range res.ByKind[k] {
		if s.ID == id {
			return s.Confidence
		}
	}
	return 0
}

// givenRootCause is the root cause among given tags, when it is a term of
// the vocabulary.
func (t *Tagger) givenRootCause(given []Given) (Given, bool) {
	for _, g := range given {
		if g.Kind == ilgraph.KindRootCause && t.vocab.Has(ilgraph.KindRootCause, g.ID) {
			return g, true
		}
	}
	return Given{}, false
}

func (t *Tagger) mappedRootCause(categories []string) string {
	for _, cat := range categories {
		if rc := CategoryMap[cat].RootCause; rc != "" && t.vocab.Has(ilgraph.KindRootCause, rc) {
			return rc
		}
	}
	return ""
}

// removable are the tagging rules (loader.TaggingRules) whose fix is to drop
// the tag the warning points at; tidy applies them to machine-chosen tags.
var removable = map[string]bool{
	"saas-with-specific-domain":     true,
	"provider-domain-unsupported":   true,
	"factor-restates-cause":         true,
	"messaging-for-broker":          true,
	"full-outage-but-partial-scope": true,
}

var indexedField = regexp.MustCompile(`^(components|symptoms|contributing|domain)\[(\d+)\]$`)

// tidy drops the machine-chosen tags that break a tagging rule whose fix is
// to drop them, so that an imported case does not start with warnings a
// program could have avoided; with both full-outage and partial-outage, the
// less confident goes. A security root cause gets the security domain the
// rule asks for.
func tidy(c *ilgraph.Case) {
	kindOf := map[string]ilgraph.Kind{"components": ilgraph.KindComponent, "symptoms": ilgraph.KindSymptom, "contributing": ilgraph.KindContributing, "domain": ilgraph.KindDomain}
	drop := func(k ilgraph.Kind, id string) {
		list := map[ilgraph.Kind]*[]string{
			ilgraph.KindComponent: &c.Components, ilgraph.KindSymptom: &c.Symptoms,
			ilgraph.KindContributing: &c.Contributing, ilgraph.KindDomain: &c.Domain,
		}[k]
		*list = slices.DeleteFunc(*list, func(x string) bool { return x == id })
		delete(c.TagConfidence.Of(k), id)
	}
	for range 10 {
		changed := false
		for _, w := range loader.CheckTagging(c, loader.Position{}) {
			m := indexedField.FindStringSubmatch(w.Field)
			switch {
			case w.Rule == "full-and-partial-outage":
				s := c.TagConfidence.Of(ilgraph.KindSymptom)
				if s["full-outage"] < s["partial-outage"] {
					drop(ilgraph.KindSymptom, "full-outage")
				} else {
					drop(ilgraph.KindSymptom, "partial-outage")
				}
			case w.Rule == "security-cause-without-domain" && !slices.Contains(c.Domain, "security"):
				// The rule follows from the root cause: an attack carries
				// the security domain, as sure as the root cause is.
				c.Domain = append(c.Domain, "security")
				c.TagConfidence.Set(ilgraph.KindDomain, "security", c.TagConfidence.Of(ilgraph.KindRootCause)[c.RootCause])
			case removable[w.Rule] && m != nil:
				k := kindOf[m[1]]
				i, _ := strconv.Atoi(m[2])
				drop(k, c.Tags(k)[i])
			default:
				continue
			}
			changed = true
			break // the indexes of the other warnings are stale now
		}
		if !changed {
			return
		}
	}
}

// Slug makes an organization slug of a name: lower-case ASCII letters and
// digits, every other run of characters a single dash ("Marrowgate Grid (North
// / East)" → "marrowgate-grid-north-east").
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > 100 {
		s = strings.TrimRight(s[:100], "-")
	}
	return s
}

// resolvedAfter is end − start as the library writes durations, or "" when
// either is unknown, end is not after start, or the span is not plausible
// (over a year).
func resolvedAfter(start, end time.Time) string {
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return ""
	}
	m := int(end.Sub(start).Minutes())
	if m < 1 || m > 366*1440 {
		return ""
	}
	return ilgraph.FormatDuration(m)
}
