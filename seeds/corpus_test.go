// Package seeds_test checks the seed corpus itself: that every case is
// complete and sourced, that the vocabulary is documented and used, and
// that the corpus report is current.
package seeds_test

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

func TestEveryCaseIsCompleteAndSourced(t *testing.T) {
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	if len(cases) < 60 {
		t.Errorf("the seed corpus has %d cases, want at least 60", len(cases))
	}
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			if !strings.HasPrefix(c.ID, "IL-") && !strings.HasPrefix(c.ID, "ILG-") {
				t.Errorf("id %s: seed ids are the library's IL- or our ILG- range", c.ID)
			}
			file := filepath.Join(corpus.Seeds(t), "cases", c.ID+".json")
			if _, err := os.Stat(file); err != nil {
				t.Errorf("case %s is not in a file named after it", c.ID)
			}
			if len(c.Sources) == 0 {
				t.Error("no source")
			}
			for _, s := range c.Sources {
				u, err := url.Parse(s.URL)
				if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
					t.Errorf("source %q is not a URL", s.URL)
				}
				if s.Kind != "official-status" && s.Kind != "official-blog" {
					t.Errorf("source %s: kind %q, want official-status or official-blog", s.URL, s.Kind)
				}
			}
			// Contributing factors and mechanisms may be none (docs/vocabulary.md):
			// a report that names no factor gets none, rather than a guessed one.
			if c.Date == "" || c.RootCause == "" || len(c.Components) == 0 || len(c.Symptoms) == 0 || len(c.Domain) == 0 {
				t.Errorf("missing date, root cause, component, symptom or domain")
			}
			for name, text := range map[string]ilgraph.Text{"title": c.Title, "summary": c.Summary, "trigger": c.Trigger, "detection": c.Detection, "symptoms_text": c.SymptomsText, "lessons": c.Lessons} {
				if strings.TrimSpace(text.En) == "" {
					t.Errorf("%s.en is empty", name)
				}
			}
			if len(c.Remediation) == 0 || len(c.ActionItems) == 0 {
				t.Error("no remediation or no action item")
			}
			if c.Impact.Scope == "" || c.Impact.Region == "" {
				t.Error("impact scope or region missing")
			}
			for _, r := range append(append([]string{}, c.Related...), c.RecurrenceOf) {
				if r != "" && !ids[r] {
					t.Errorf("links to %s, which the corpus lacks", r)
				}
			}
			// Issue #14: every case in both languages, every text of it.
			if !c.Bilingual() {
				t.Error("some text is in English only (title, summary, trigger, detection, symptoms text, lessons, remediation and action items all need Korean)")
			}
		})
	}
}

// TestVocabularyIsUsedOrReserved: every term is documented in
// docs/vocabulary.md, and is either used by a seed case or listed there as
// reserved (and a reserved term is really unused).
func TestVocabularyIsUsedOrReserved(t *testing.T) {
	seeds := corpus.Seeds(t)
	v := corpus.Vocab(t, filepath.Join(seeds, "vocab.json"))
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	doc, err := os.ReadFile(filepath.Join(corpus.Root(t), "docs", "vocabulary.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	_, reservedPart, ok := strings.Cut(text, "## Reserved terms")
	if !ok {
		t.Fatal("docs/vocabulary.md has no Reserved terms section")
	}
	reserved := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| (\\w+) \\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(reservedPart, -1) {
		reserved[m[1]+":"+m[2]] = true
	}
	used := map[string]bool{}
	for _, c := range cases {
		for _, f := range c.Features() {
			used[string(f.Kind)+":"+f.ID] = true
		}
	}
	for _, k := range ilgraph.VocabKinds {
		section := sectionOf(text, "## "+string(k))
		for _, term := range v.Kinds[k] {
			key := string(k) + ":" + term.ID
			if !strings.Contains(section, "| `"+term.ID+"` |") {
				t.Errorf("%s is not in the %s table of docs/vocabulary.md", key, k)
			}
			if term.Ko == "" || term.Description == "" {
				t.Errorf("%s lacks a Korean label or a description", key)
			}
			switch {
			case used[key] && reserved[key]:
				t.Errorf("%s is used by a case but listed as reserved", key)
			case !used[key] && !reserved[key]:
				t.Errorf("%s is used by no case and not listed as reserved", key)
			}
			delete(reserved, key)
		}
	}
	for key := range reserved {
		t.Errorf("reserved term %s is not in the vocabulary", key)
	}
}

func sectionOf(text, heading string) string {
	_, rest, ok := strings.Cut(text, heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		return rest[:i]
	}
	return rest
}

// TestSeedsPassStrict: every seed case keeps the tagging rules a program
// can check (ilgraph load --check --strict seeds/ passes).
func TestSeedsPassStrict(t *testing.T) {
	for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
		for _, p := range loader.CheckTagging(c, loader.Position{}) {
			t.Errorf("%s: %v", c.ID, p)
		}
	}
}
