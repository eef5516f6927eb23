package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/suggest"
)

const issreFixtures = "testdata/issre22/anomaly_collection"

// lineOf is the 1-based line of the first occurrence of s in file: where a
// record's key stands, computed from the fixture rather than written down.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		t.Fatalf("%s: no %q", file, s)
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

func readISSREFixtures(t *testing.T) ([]*ISSRERecord, loader.Problems) {
	t.Helper()
	recs, probs, err := ReadISSRE22([]string{issreFixtures})
	if err != nil {
		t.Fatal(err)
	}
	return recs, probs
}

// TestReadISSRE22 reads the fixture collection: the providers come from
// the folders, dates from MM/DD/YYYY, the labels are normalised and mapped
// only where the table is certain, durations and mitigation labels are
// carried over, and links off the provider's site make the provider's
// history the official source.
func TestReadISSRE22(t *testing.T) {
	recs, _ := readISSREFixtures(t)
	byKey := map[string]*ISSRERecord{}
	var keys []string
	for _, r := range recs {
		byKey[r.Key] = r
		keys = append(keys, r.Key)
	}
	want := []string{"aws-1", "aws-2", "azure-20170512-1", "azure-20170512-2", "azure-20170601-1", "google-GCX-#19001", "gcnet-19002"}
	if !slices.Equal(keys, want) {
		t.Fatalf("read %v, want %v", keys, want)
	}
	tests := []struct {
		key, provider, date, mapped, resolved, detected string
		labels, any, remediation                        []string
		sources                                         []ilgraph.Source
	}{
		{"aws-1", "AWS", "2019-07-14", "power-cooling", "2h 28m", "4m",
			[]string{"external causes/hardware failures/power outage"}, []string{"power-cooling"}, []string{"restore power", "restart instances"},
			[]ilgraph.Source{{URL: "https://aws.amazon.com/message/QB1001/", Kind: "official-status"}}},
		// Two labels that map to different terms: no certain root cause.
		{"aws-2", "AWS", "2020-03-02", "", "2h 5m", "",
			[]string{"internal causes/software bugs/config", "external causes/insufficient resource/network"}, []string{"config-change", "capacity"}, []string{"roll back configuration change"},
			[]ilgraph.Source{{URL: "https://aws.amazon.com/message/QB1002/", Kind: "official-status"}}},
		// "Software Bugs" evens out; the link is a PDF print kept with the study.
		{"azure-20170512-1", "Azure", "2017-05-12", "config-change", "4h 33m", "0m",
			[]string{"internal causes/software bugs/config"}, []string{"config-change"}, []string{"roll back configuration"},
			[]ilgraph.Source{{URL: ISSREProviders["azure"].History, Kind: "official-status"}, {URL: "https://github.com/IntelligentDDS/Post-mortems-Analysis/blob/master/raw-public/azure/meta_pdf/2017.05.01-05.31.pdf", Kind: "copy"}}},
		// An unmapped label, no duration, no mitigation.
		{"azure-20170512-2", "Azure", "2017-05-12", "", "", "",
			[]string{"internal causes/software bugs/payload flood"}, nil, nil,
			[]ilgraph.Source{{URL: "https://status.azure.com/en-us/status/history/", Kind: "official-status"}}},
		// "softwares bugs" evens out.
		{"azure-20170601-1", "Azure", "2017-06-01", "deployment", "1h 8m", "6m",
			[]string{"internal causes/software bugs/code change"}, []string{"deployment"}, []string{"roll back deployment"},
			[]ilgraph.Source{{URL: ISSREProviders["azure"].History, Kind: "official-status"}, {URL: "http://gitlab.example/anomalystudy/azure/20170601", Kind: "copy"}}},
		// link as a plain string.
		{"google-GCX-#19001", "Google", "2019-08-20", "deployment", "41m", "3m",
			[]string{"internal causes/software bugs/code change"}, []string{"deployment"}, []string{"rollback"},
			[]ilgraph.Source{{URL: "https://status.cloud.google.com/incident/storage/19001", Kind: "official-status"}}},
		// A bare {"layer-1": "unknown"} root cause.
		{"gcnet-19002", "Google", "2019-09-03", "", "25m", "",
			[]string{"unknown"}, nil, []string{"self heal"},
			[]ilgraph.Source{{URL: "https://status.cloud.google.com/incident/cloud-networking/19002", Kind: "official-status"}}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			r := byKey[tt.key]
			if r.Provider.Name != tt.provider || r.Org != r.Provider.Org || r.Date != tt.date || r.DateKind != "incident" {
				t.Errorf("provider %s org %q date %s (%s)", r.Provider.Name, r.Org, r.Date, r.DateKind)
			}
			if !slices.Equal(r.Labels, tt.labels) || r.Mapped != tt.mapped || !slices.Equal(r.MappedAny, tt.any) {
				t.Errorf("labels %q mapped %q any %q, want %q %q %q", r.Labels, r.Mapped, r.MappedAny, tt.labels, tt.mapped, tt.any)
			}
			if r.ResolvedAfter != tt.resolved || r.DetectedAfter != tt.detected || !slices.Equal(r.Remediation, tt.remediation) {
				t.Errorf("resolved %q detected %q remediation %q", r.ResolvedAfter, r.DetectedAfter, r.Remediation)
			}
			if !slices.Equal(r.Sources, tt.sources) {
				t.Errorf("sources %+v, want %+v", r.Sources, tt.sources)
			}
			if got := r.Pos.Line; got != lineOf(t, r.Pos.File, `"`+tt.key+`"`) {
				t.Errorf("line %d, want the key's line", got)
			}
			// The provider domain is always given; the mapped root cause when there is one.
			wantGiven := 1
			if tt.mapped != "" {
				wantGiven = 2
			}
			if len(r.Given) != wantGiven || r.Given[len(r.Given)-1].ID != r.Provider.Domain || r.Given[len(r.Given)-1].Confidence != ProviderConfidence {
				t.Errorf("given %+v", r.Given)
			}
		})
	}
	// Titles that do not name the provider get its name; others stay.
	if got := byKey["azure-20170512-1"].Title; got != "Microsoft Azure: Virtual Machines - Lakeshore North" {
		t.Errorf("title %q", got)
	}
	if got := byKey["google-GCX-#19001"].Title; got != "Google Cloud Storage Incident #19001" {
		t.Errorf("title %q", got)
	}
	// The summary holds the summary, the details (not twice when the
	// details repeat the summary) and the root-cause details when the
	// details do not already say them.
	if s := byKey["azure-20170512-1"].Summary; strings.Count(s, "a subset of customers in Lakeshore North") != 1 || !strings.Contains(s, "Root cause: Engineers identified") || !strings.Contains(s, "Mitigation: Engineers rolled back") {
		t.Errorf("summary %q", s)
	}
	if s := byKey["azure-20170601-1"].Summary; strings.Contains(s, "Root cause:") {
		t.Errorf("root-cause details the details already say were added: %q", s)
	}
}

// TestBadISSRE22: a malformed record is reported with its file, its line,
// its key and the field; a file that is not JSON with the line of the
// fault; a repeated key as a duplicate. The rest are still read.
func TestBadISSRE22(t *testing.T) {
	_, probs := readISSREFixtures(t)
	az1 := filepath.Join(issreFixtures, "Azure", "azure-2017.05.01-05.31.json")
	az2 := filepath.Join(issreFixtures, "Azure", "azure-2017.05.20-06.10.json")
	gcx := filepath.Join(issreFixtures, "Google", "GCX.json")
	broken := filepath.Join(issreFixtures, "Google", "broken.json")
	at := func(file, key string) string { return file + ":" + strconv.Itoa(lineOf(t, file, `"`+key+`"`)) + ": " }
	want := []string{
		at(az1, "azure-20170519-1") + `field "time": record azure-20170519-1: want a string, got a JSON number`,
		at(az1, "azure-20170523-1") + `field "root cause.label": record azure-20170523-1: want a list, got a JSON string`,
		at(az2, "azure-20170512-2") + "record azure-20170512-2: duplicate: the same key was read at " + strings.TrimSuffix(at(az1, "azure-20170512-2"), ": ") + "; the first is imported",
		broken + ":" + strconv.Itoa(lineOf(t, broken, ",,")) + ": invalid JSON: invalid character ','",
		at(gcx, "google-GCX-#19003") + `field "time": record google-GCX-#19003: "2019-09-17" is not a date MM/DD/YYYY`,
	}
	if len(probs) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(probs), len(want), probs)
	}
	for _, p := range probs {
		if !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(p.Error(), w) }) {
			t.Errorf("unexpected problem %q", p.Error())
		}
	}
	for _, tt := range []struct{ name, data, want string }{
		{"x/Other/a.json", `{}`, "x/Other/a.json:1: cannot tell the provider"},
		{"x/AWS/list.json", `[{"title": "a"}]`, "x/AWS/list.json:1: want a JSON object of records by key"},
		{"x/AWS/no-time.json", "{\n\"aws-9\": {\"title\": \"t\", \"link\": [\"https://aws.amazon.com/message/1/\"], \"summary\": \"s\"}}", `x/AWS/no-time.json:2: field "time": record aws-9: required`},
		{"x/AWS/no-link.json", `{"aws-9": {"title": "t", "time": "01/02/2020", "summary": "s"}}`, `x/AWS/no-link.json:1: field "link": record aws-9: required`},
		{"x/AWS/bad-link.json", `{"aws-9": {"title": "t", "time": "01/02/2020", "summary": "s", "link": ["aws.amazon.com/x"]}}`, `x/AWS/bad-link.json:1: field "link[0]": record aws-9: "aws.amazon.com/x" is not an http(s) URL`},
		{"x/AWS/no-text.json", `{"aws-9": {"title": "", "time": "01/02/2020", "summary": " ", "link": "https://aws.amazon.com/x"}}`, `x/AWS/no-text.json:1: field "summary": record aws-9: no text`},
		{"x/AWS/record.json", `{"aws-9": "text"}`, `x/AWS/record.json:1: record aws-9: want an object, got a JSON string`},
		{"x/AWS/cut.json", `{"aws-9": {"title": "t"`, "x/AWS/cut.json:1: invalid JSON"},
		{"x/AWS/latin1.json", "{\"aws-9\": \"\xe9\"}", "x/AWS/latin1.json:1: invalid UTF-8"},
	} {
		recs, ps := ParseISSRE22(tt.name, []byte(tt.data))
		if len(recs) != 0 || len(ps) != 1 || !strings.HasPrefix(ps[0].Error(), tt.want) {
			t.Errorf("%s: %d records, problems %v, want %q…", tt.name, len(recs), ps, tt.want)
		}
	}
}

// TestISSRELabelMap: every term of the table is a root cause of the
// vocabulary; a record's root cause is mapped only when every label maps,
// and to one term.
func TestISSRELabelMap(t *testing.T) {
	v := corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json"))
	for label, rc := range ISSRERootCauseMap {
		if !v.Has(ilgraph.KindRootCause, rc) {
			t.Errorf("%s maps to %q, not a root cause of the vocabulary", label, rc)
		}
	}
	for _, tt := range []struct {
		labels []string
		want   string
	}{
		{[]string{"external causes/hardware failures/power outage"}, "power-cooling"},
		{[]string{"external causes/insufficient resource/cpu"}, "capacity"},
		{[]string{"external causes/insufficient resource"}, "capacity"},
		{[]string{"external causes/hardware failures/power outage", "external causes/hardware failures/cooling system"}, "power-cooling"},
		{[]string{"external causes/hardware failures/power outage", "internal causes/software bugs"}, ""},
		{[]string{"internal causes/software bugs/config", "internal causes/software bugs/code change"}, ""},
		{[]string{"external causes/hardware failures/network"}, ""},
		{[]string{"external causes/hardware failures"}, ""},
		{[]string{"unknown"}, ""},
		{nil, ""},
	} {
		if got := MapISSRELabels(tt.labels); got != tt.want {
			t.Errorf("MapISSRELabels(%q) = %q, want %q", tt.labels, got, tt.want)
		}
	}
	cool, fire := "Cooling Systems", "fire supression system"
	l1, l2 := "External Causes", "hardware  failures"
	if got := (issreLabel{L1: &l1, L2: &l2, L3: &cool}).String(); got != "external causes/hardware failures/cooling system" {
		t.Errorf("label %q", got)
	}
	if got := MapISSRELabel((issreLabel{L1: &l1, L2: &l2, L3: &fire}).String()); got != "power-cooling" {
		t.Errorf("fire suppression maps to %q", got)
	}
}

// TestImportISSRE22: every imported case is valid and breaks no tagging
// rule (it loads under --strict), is machine-tagged, has the provider
// domain with confidence 1, the mapped root cause where the labels give one
// for certain (with at least LabelConfidence), and the engine's best root
// cause elsewhere.
func TestImportISSRE22(t *testing.T) {
	tg := newTestTagger(t)
	recs, _ := readISSREFixtures(t)
	plain := make([]*Record, len(recs))
	for i, r := range recs {
		plain[i] = r.Record
	}
	res := tg.Import(plain, ISSREPrefix)
	if len(res.Cases) != len(recs) || len(res.Skipped) != 0 {
		t.Fatalf("%d cases of %d records, skipped %v", len(res.Cases), len(recs), res.Skipped)
	}
	vocab := corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json")).Index()
	for i, c := range res.Cases {
		r := recs[i]
		if c.ID != r.ID || !strings.HasPrefix(c.ID, "IS-") || !ilgraph.CaseIDPattern.MatchString(c.ID) {
			t.Errorf("%s: id %q", r.Key, c.ID)
		}
		if probs := loader.CheckCase(c, vocab, time.Now(), loader.Position{File: "x"}); len(probs) > 0 {
			t.Errorf("%s: %v", r.Key, probs)
		}
		if ws := loader.CheckTagging(c, loader.Position{}); len(ws) > 0 {
			t.Errorf("%s: breaks tagging rules: %v", r.Key, ws)
		}
		if !c.MachineTagged() || c.OrgSlug != Slug(r.Provider.Org) {
			t.Errorf("%s: machine-tagged %v, org %s", r.Key, c.MachineTagged(), c.OrgSlug)
		}
		if !slices.Contains(c.Domain, r.Provider.Domain) || c.TagConfidence.Domain[r.Provider.Domain] != ProviderConfidence {
			t.Errorf("%s: domains %v %v", r.Key, c.Domain, c.TagConfidence.Domain)
		}
		if len(c.Remediation) != len(r.Remediation) || c.Timeline.ResolvedAfter != r.ResolvedAfter || c.Timeline.DetectedAfter != r.DetectedAfter {
			t.Errorf("%s: remediation %v timeline %+v", r.Key, c.Remediation, c.Timeline)
		}
		if c.URL != c.Sources[0].URL || c.Sources[0].Kind != "official-status" {
			t.Errorf("%s: url %q sources %+v", r.Key, c.URL, c.Sources)
		}
		// The engine's reading, computed here on its own.
		sug, err := tg.engine.Suggest(suggest.ImportText(r.Title, r.Summary), "en", "")
		if err != nil {
			t.Fatal(err)
		}
		best := sug.Top(ilgraph.KindRootCause, 1, 0)
		switch {
		case r.Mapped != "":
			if c.RootCause != r.Mapped || c.TagConfidence.RootCause[r.Mapped] < LabelConfidence {
				t.Errorf("%s: root cause %s (%v), want the mapped %s", r.Key, c.RootCause, c.TagConfidence.RootCause, r.Mapped)
			}
		case len(best) > 0:
			if c.RootCause != best[0].ID || c.TagConfidence.RootCause[c.RootCause] != best[0].Confidence {
				t.Errorf("%s: root cause %s, want the engine's %s", r.Key, c.RootCause, best[0].ID)
			}
		}
		if len(c.Symptoms) == 0 {
			t.Errorf("%s: no symptom", r.Key)
		}
	}
	// The output writes remediation and the timeline.
	out, err := json.Marshal(Compact(res.Cases[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"remediation":[{"text":{"en":"restore power"}},{"text":{"en":"restart instances"}}]`)) || !bytes.Contains(out, []byte(`"timeline":{"detected_after":"4m","resolved_after":"2h 28m"}`)) {
		t.Errorf("output: %s", out)
	}
}

// TestRootCauseAgreement: the counts are those of asking the engine record
// by record, here by brute force.
func TestRootCauseAgreement(t *testing.T) {
	tg := newTestTagger(t)
	recs, _ := readISSREFixtures(t)
	got, err := tg.RootCauseAgreement(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*ISSREAgreement{"all": {Provider: "all"}}
	for _, r := range recs {
		if want[r.Provider.Name] == nil {
			want[r.Provider.Name] = &ISSREAgreement{Provider: r.Provider.Name}
		}
		sug, err := tg.engine.Suggest(suggest.ImportText(r.Title, r.Summary), "en", "")
		if err != nil {
			t.Fatal(err)
		}
		var top []string
		for _, s := range sug.Top(ilgraph.KindRootCause, 3, 0) {
			top = append(top, s.ID)
		}
		for _, a := range []*ISSREAgreement{want[r.Provider.Name], want["all"]} {
			a.Records++
			if len(r.MappedAny) > 0 {
				a.Partly++
				for _, m := range r.MappedAny {
					if slices.Contains(top, m) {
						a.PartlyTop3++
						break
					}
				}
			}
			if r.Mapped != "" {
				a.Labelled++
				if len(top) > 0 && top[0] == r.Mapped {
					a.Top1++
				}
				if slices.Contains(top, r.Mapped) {
					a.Top3++
				}
			}
		}
	}
	if len(got) != 4 || got[3].Provider != "all" {
		t.Fatalf("rows %+v", got)
	}
	for _, g := range got {
		if g != *want[g.Provider] {
			t.Errorf("%s: %+v, want %+v", g.Provider, g, *want[g.Provider])
		}
	}
	if got[3].Labelled != 4 || got[3].Partly != 5 {
		t.Errorf("labelled %d, partly %d: the fixtures have 4 records mapped for certain and 5 with a mapped label", got[3].Labelled, got[3].Partly)
	}
}

// TestTidyAddsSecurityDomain: a machine-chosen security root cause gets the
// security domain the rule security-cause-without-domain asks for, with the
// root cause's confidence, and the case no longer breaks the rule.
func TestTidyAddsSecurityDomain(t *testing.T) {
	c := &ilgraph.Case{
		Org: "Amazon Web Services", OrgSlug: "amazon-web-services", Title: ilgraph.Text{En: "AWS: a DDoS attack on the DNS service"},
		RootCause: "security", Symptoms: []string{"high-error-rate"}, Domain: []string{"aws"},
		TagConfidence: &ilgraph.TagConfidence{
			RootCause: map[string]float64{"security": 0.42},
			Symptoms:  map[string]float64{"high-error-rate": 0.6},
			Domain:    map[string]float64{"aws": 1},
		},
	}
	tidy(c)
	if !slices.Equal(c.Domain, []string{"aws", "security"}) || c.TagConfidence.Domain["security"] != 0.42 {
		t.Errorf("domains %v %v", c.Domain, c.TagConfidence.Domain)
	}
	for _, w := range loader.CheckTagging(c, loader.Position{}) {
		t.Errorf("still breaks %v", w)
	}
}
