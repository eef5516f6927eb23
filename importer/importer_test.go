package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

const fixtures = "testdata/postmortems"

func newTestTagger(t *testing.T) *Tagger {
	t.Helper()
	seeds := corpus.Seeds(t)
	var cases []ilgraph.Case
	for _, c := range corpus.Cases(t, filepath.Join(seeds, "cases")) {
		cases = append(cases, *c)
	}
	tg, err := NewTagger(corpus.Vocab(t, filepath.Join(seeds, "vocab.json")), cases)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestParsePostmortem(t *testing.T) {
	tests := []struct {
		file                        string
		key, date, kind, resolved   string
		titlePrefix, summaryContain string
		categories                  []string
	}{
		{"5f3e9a10-7c21-4b8e-9d44-0a6b2c1e7f01.md", "5f3e9a107c214b8e9d440a6b2c1e7f01", "2023-03-14", "incident", "2h 35m",
			"Pebblestack: a load balancer rule change", "A routing rule pushed to the load balancers in front of Pebblestack CI sent all runner traffic to a retired pool, so no build could start for two and a half hours.\n\nPebblestack is a fictional",
			[]string{"config-change", "cloud"}},
		{"8a0c44d2-1b9f-4e60-b7a3-5d2e8f9c3a17.md", "8a0c44d21b9f4e60b7a35d2e8f9c3a17", "2022-11-02", "incident", "5h 30m",
			"Credential stuffing attack", "A botnet sent millions", []string{"security"}},
		// The older shape: no uuid (the file name is the key), no title (the
		// first sentence is), no start time (the publication date is).
		{"3c7d1e5b9a2f4c6d.md", "3c7d1e5b9a2f4c6d", "2019-06-21", "published", "",
			"A failed disk controller in the storage array behind Orchard Lane Mail's mailbox servers corrupted the index of several mailboxes;", "delivery queues backed up", []string{"hardware"}},
		{"d41f02b7-6e38-4a95-8c1d-2b7e0f9a6c54.md", "d41f02b76e384a958c1d2b7e0f9a6c54", "2024-02-29", "incident", "6h 30m",
			"Kettleburn Games matchmaking stopped", "date routine", []string{"time", "undescriptive"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(fixtures, tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, p := ParsePostmortem(path, data)
			if p != nil {
				t.Fatalf("problem: %v", p)
			}
			if r.Key != tt.key || r.Date != tt.date || r.DateKind != tt.kind || r.ResolvedAfter != tt.resolved {
				t.Errorf("key %q date %q (%s) resolved %q, want %q %q (%s) %q", r.Key, r.Date, r.DateKind, r.ResolvedAfter, tt.key, tt.date, tt.kind, tt.resolved)
			}
			if !strings.HasPrefix(r.Title, tt.titlePrefix) || !strings.Contains(r.Summary, tt.summaryContain) {
				t.Errorf("title %q, summary %q", r.Title, r.Summary)
			}
			if !slices.Equal(r.Categories, tt.categories) || r.URL == "" || r.Org == "" {
				t.Errorf("categories %v, url %q, org %q", r.Categories, r.URL, r.Org)
			}
		})
	}
}

// TestBadPostmortems: each bad file is reported with its file, its line and
// what is wrong, and the good files are still read.
func TestBadPostmortems(t *testing.T) {
	recs, probs, err := ReadPostmortems([]string{fixtures})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Errorf("read %d records, want the 4 good files", len(recs))
	}
	want := map[string]string{
		"0e1f2a3b4c5d6e7f.md:1: no front matter":                                                 "",
		"6b2a9c8d-3e4f-4a5b-9c6d-7e8f9a0b1c2d.md:4: invalid YAML in the front matter":            "",
		"9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a.md:5: no date: start_time and source_published_at": "",
	}
	if len(probs) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(probs), len(want), probs)
	}
	for _, p := range probs {
		got := strings.TrimPrefix(p.Error(), fixtures+string(filepath.Separator))
		found := false
		for w := range want {
			found = found || strings.HasPrefix(got, w)
		}
		if !found {
			t.Errorf("unexpected problem %q", got)
		}
	}
	for _, tt := range []struct{ name, data, want string }{
		{"unclosed.md", "---\ncompany: X\n", "unclosed.md:1: the front matter is not closed"},
		{"empty.md", "", "empty.md:1: no front matter"},
		{"bad-time.md", "---\nuuid: abcdef0123\ncompany: X\nstart_time: \"yesterday\"\n---\nbody", `bad-time.md:4: start_time: "yesterday" is not a time`},
		{"no-company.md", "---\nuuid: abcdef0123\nstart_time: 2020-01-01\n---\nbody", "no-company.md:1: company is empty"},
		{"no-text.md", "---\nuuid: abcdef0123\ncompany: X\nstart_time: 2020-01-01\n---\n", "no-text.md:6: no text"},
		{"not-hex.md", "---\nuuid: not-a-uuid\ncompany: X\nstart_time: 2020-01-01\n---\nbody", `not-hex.md:2: uuid "not-a-uuid" is not a uuid`},
		{"latin1.md", "---\ncompany: \xe9\n---\n", "latin1.md:1: invalid UTF-8"},
	} {
		_, p := ParsePostmortem(tt.name, []byte(tt.data))
		if p == nil || !strings.HasPrefix(p.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q…", tt.name, p, tt.want)
		}
	}
}

// TestImportTagsMachineCases: every imported case is valid for the loader,
// machine-tagged, has exactly one root cause and a confidence in [0, 1] for
// every tag; the security category maps to the security domain.
func TestImportTagsMachineCases(t *testing.T) {
	tg := newTestTagger(t)
	recs, _, err := ReadPostmortems([]string{fixtures})
	if err != nil {
		t.Fatal(err)
	}
	res := tg.Import(recs, PostmortemPrefix)
	if len(res.Cases) != 4 || len(res.Skipped) != 0 {
		t.Fatalf("%d cases, skipped %v", len(res.Cases), res.Skipped)
	}
	vocab := corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json")).Index()
	byID := map[string]*ilgraph.Case{}
	for _, c := range res.Cases {
		byID[c.ID] = c
		if probs := loader.CheckCase(c, vocab, time.Now(), loader.Position{File: "x"}); len(probs) > 0 {
			t.Errorf("%s: %v", c.ID, probs)
		}
		if !c.MachineTagged() || c.Review.WrittenBy != "import" {
			t.Errorf("%s: not machine-tagged: %+v", c.ID, c.Review)
		}
		if c.RootCause == "" || len(c.TagConfidence.RootCause) != 1 {
			t.Errorf("%s: root cause %q, confidences %v", c.ID, c.RootCause, c.TagConfidence.RootCause)
		}
		scores := c.TagScores()
		if len(scores) != len(c.Features())-1 { // every tag but the organization
			t.Errorf("%s: %d confidences for %d tags", c.ID, len(scores), len(c.Features())-1)
		}
		for _, s := range scores {
			if s.Confidence <= 0 || s.Confidence > 1 {
				t.Errorf("%s: %s %s has confidence %v", c.ID, s.Kind, s.ID, s.Confidence)
			}
		}
		if len(c.Sources) != 1 || c.Sources[0].Kind != "official" || c.Sources[0].URL != c.URL {
			t.Errorf("%s: sources %+v", c.ID, c.Sources)
		}
		if ws := loader.CheckTagging(c, loader.Position{}); len(ws) > 0 {
			for _, w := range ws {
				if removable[w.Rule] || w.Rule == "full-and-partial-outage" {
					t.Errorf("%s: tidy left %v", c.ID, w)
				}
			}
		}
	}
	// Ids: PM- and the decimal value of the uuid's first seven hex digits.
	bank := byID["PM-144753741"] // uuid 8a0c44d2-…: 0x8a0c44d = 144753741
	if bank == nil || bank.Org != "Brindlewood Bank" {
		t.Fatalf("no case PM-144753741 for the bank: %v", byID)
	}
	if !slices.Contains(bank.Domain, "security") || bank.TagConfidence.Domain["security"] < CategoryConfidence {
		t.Errorf("the security category did not map: domains %v %v", bank.Domain, bank.TagConfidence.Domain)
	}
	if bank.Sources[0].Archived != "https://archive.example/brindlewood-2022" || bank.Timeline.ResolvedAfter != "5h 30m" {
		t.Errorf("bank: %+v %+v", bank.Sources, bank.Timeline)
	}
	if bank.OrgSlug != "brindlewood-bank" || bank.Date != "2022-11-02" {
		t.Errorf("bank: %s %s", bank.OrgSlug, bank.Date)
	}
}

func TestShortIDAndCollisions(t *testing.T) {
	if id, ok := shortID("PM", "8a0c44d21b9f", 0); !ok || id != "PM-144753741" {
		t.Errorf("shortID = %s %v", id, ok)
	}
	if id, ok := shortID("PM", "fffffff", 0); !ok || id != "PM-268435455" || !ilgraph.CaseIDPattern.MatchString(id) {
		t.Errorf("the largest id %s is not a case id", id)
	}
	if _, ok := shortID("PM", "8a0c44d21b9f", 1); ok {
		t.Error("a second window from 12 hex digits")
	}
	tg := &Tagger{}
	a := &Record{Key: "0000001aaaaaaa", SourceID: "a"}
	b := &Record{Key: "0000001bbbbbbb", SourceID: "b"}
	c := &Record{Key: "0000001", SourceID: "c"} // sorts first, and has no second window
	given := &Record{ID: "PM-000000001", SourceID: "given"}
	res := &Result{}
	ok := tg.assignIDs([]*Record{b, a, c, given}, "PM", res)
	if given.ID != "PM-000000001" || !ok[given] {
		t.Errorf("a given id was not kept: %q", given.ID)
	}
	// c would take PM-000000001, which the given id has, and has no more
	// digits: skipped. a (sorted before b) takes its next window, and so does b.
	if ok[c] || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Msg, "no free case id") {
		t.Errorf("c: ok %v, skipped %v", ok[c], res.Skipped)
	}
	if a.ID != "PM-178956970" || b.ID != "PM-196852667" {
		t.Errorf("a %s, b %s", a.ID, b.ID)
	}
	if len(res.Notes) != 3 {
		t.Errorf("notes: %v", res.Notes)
	}
}

func TestTidy(t *testing.T) {
	c := &ilgraph.Case{
		Org: "Quillmoor", OrgSlug: "quillmoor", Title: ilgraph.Text{En: "Quillmoor billing stopped"},
		RootCause: "software-bug", Contributing: []string{"latent-bug", "alerting-gap"},
		Symptoms: []string{"full-outage", "partial-outage"}, Domain: []string{"saas", "payments", "aws"},
		TagConfidence: &ilgraph.TagConfidence{
			RootCause:    map[string]float64{"software-bug": 0.6},
			Contributing: map[string]float64{"latent-bug": 0.5, "alerting-gap": 0.5},
			Symptoms:     map[string]float64{"full-outage": 0.4, "partial-outage": 0.7},
			Domain:       map[string]float64{"saas": 0.5, "payments": 0.6, "aws": 0.5},
		},
	}
	tidy(c)
	if !slices.Equal(c.Contributing, []string{"alerting-gap"}) || !slices.Equal(c.Symptoms, []string{"partial-outage"}) || !slices.Equal(c.Domain, []string{"payments"}) {
		t.Errorf("after tidy: %v %v %v", c.Contributing, c.Symptoms, c.Domain)
	}
	if len(c.TagConfidence.Domain) != 1 || len(c.TagConfidence.Symptoms) != 1 || len(c.TagConfidence.Contributing) != 1 {
		t.Errorf("confidences of dropped tags kept: %+v", c.TagConfidence)
	}
}

func TestParseText(t *testing.T) {
	recs, probs, err := ReadText("testdata/text.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "TX-0001" || recs[1].ID != "" || recs[1].Key == "" || recs[1].Date != "2022-01-17" {
		t.Errorf("records: %+v", recs)
	}
	want := []string{
		`testdata/text.jsonl:4: case ticket-4472: field "date": "last tuesday" is not a date`,
		`testdata/text.jsonl:5: case ticket-4473: field "date": required`,
		`testdata/text.jsonl:6: invalid JSON`,
	}
	if len(probs) != len(want) {
		t.Fatalf("problems %v", probs)
	}
	for i, w := range want {
		if !strings.HasPrefix(probs[i].Error(), w) {
			t.Errorf("problem %q, want %q…", probs[i].Error(), w)
		}
	}
	res := newTestTagger(t).Import(recs, TextPrefix)
	if len(res.Cases) != 2 || len(res.Skipped) != 0 {
		t.Fatalf("cases %d, skipped %v", len(res.Cases), res.Skipped)
	}
	if id := res.Cases[1].ID; !strings.HasPrefix(id, "TX-") || !ilgraph.CaseIDPattern.MatchString(id) {
		t.Errorf("derived id %q", id)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Marrowgate Power Grid (North / East)": "marrowgate-power-grid-north-east",
		"incident.io":                          "incident-io",
		"  Brindlewood Bank ":                  "brindlewood-bank",
		"€€€":                                  "",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
