package loader_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
)

// ruleCase is a small fictional case that breaks no tagging rule; each test
// changes one thing.
func ruleCase() *ilgraph.Case {
	return &ilgraph.Case{
		ID: "ILG-9500", Org: "Quillmoor", OrgSlug: "quillmoor", Date: "2024-03-02",
		Title:        ilgraph.Text{En: "A bad release of the Quillmoor billing worker stopped invoices", Ko: "Quillmoor 청구 워커의 잘못된 배포로 청구서 발행이 멈췄다"},
		Summary:      ilgraph.Text{En: "Quillmoor shipped a worker build that crashed on start.", Ko: "Quillmoor 가 시작하자마자 죽는 워커 빌드를 배포했다."},
		Impact:       ilgraph.Impact{Scope: "Invoice generation for every customer"},
		RootCause:    "deployment",
		Components:   []string{"background-jobs"},
		Symptoms:     []string{"processing-backlog"},
		Contributing: []string{"insufficient-testing"},
		Domain:       []string{"payments"},
	}
}

// rulesBroken returns the ids of the rules c breaks, and each message.
func rulesBroken(c *ilgraph.Case) ([]string, []string) {
	var ids, msgs []string
	for _, p := range loader.CheckTagging(c, loader.Position{File: "f.json", Line: 1, Index: -1}) {
		ids = append(ids, p.Rule)
		msgs = append(msgs, p.Error())
	}
	return ids, msgs
}

func TestTaggingRules(t *testing.T) {
	if ids, msgs := rulesBroken(ruleCase()); len(ids) != 0 {
		t.Fatalf("the clean fixture breaks %v: %v", ids, msgs)
	}
	tests := []struct {
		name   string
		change func(c *ilgraph.Case)
		rule   string // "" when no rule may fire
		field  string
	}{
		{"saas next to payments", func(c *ilgraph.Case) { c.Domain = []string{"saas", "payments"} }, "saas-with-specific-domain", "domain[0]"},
		{"saas next to developer-tools", func(c *ilgraph.Case) { c.Domain = []string{"developer-tools", "saas"} }, "saas-with-specific-domain", "domain[1]"},
		{"saas alone", func(c *ilgraph.Case) { c.Domain = []string{"saas", "database"} }, "", ""},

		{"full and partial outage", func(c *ilgraph.Case) { c.Symptoms = []string{"full-outage", "partial-outage"} }, "full-and-partial-outage", "symptoms[1]"},

		{"full outage of one region (impact)", func(c *ilgraph.Case) {
			c.Symptoms = []string{"full-outage"}
			c.Impact.Scope = "Every service in one region was unavailable"
		}, "full-outage-but-partial-scope", "symptoms[0]"},
		{"full outage for some customers (title)", func(c *ilgraph.Case) {
			c.Symptoms = []string{"high-error-rate", "full-outage"}
			c.Title.En = "Invoices stopped for some customers"
		}, "full-outage-but-partial-scope", "symptoms[1]"},
		{"full outage in a single data centre", func(c *ilgraph.Case) {
			c.Symptoms = []string{"full-outage"}
			c.Impact.Region = "A single data centre in Frankfurt"
		}, "full-outage-but-partial-scope", "symptoms[0]"},
		{"full outage, Korean impact", func(c *ilgraph.Case) {
			c.Symptoms = []string{"full-outage"}
			c.Impact.Users = "일부 고객의 청구서"
		}, "full-outage-but-partial-scope", "symptoms[0]"},
		{"full outage rolled out one region at a time", func(c *ilgraph.Case) {
			c.Symptoms = []string{"full-outage"}
			c.Impact.Scope = "Every region, after a change rolled out one region at a time"
		}, "", ""},
		{"full outage, one region only in the summary", func(c *ilgraph.Case) {
			c.Symptoms = []string{"full-outage"}
			c.Summary.En = "The control plane is highly available within one region."
		}, "", ""},

		{"the provider without its domain", func(c *ilgraph.Case) { c.Org, c.OrgSlug = "Amazon Web Services", "amazon-web-services" }, "provider-domain-missing", "domain"},
		{"a provider named in a dependency failure's title", func(c *ilgraph.Case) {
			c.RootCause = "dependency-failure"
			c.Title.En = "A Cloudflare outage took the Quillmoor checkout down"
			c.Domain = []string{"payments", "edge-cdn"}
		}, "provider-domain-missing", "domain"},
		{"a provider named in another cause's title", func(c *ilgraph.Case) {
			c.Title.En = "A bad release of the Quillmoor worker on Google Cloud stopped invoices"
		}, "", ""},
		{"a provider domain nothing names", func(c *ilgraph.Case) { c.Domain = []string{"payments", "aws"} }, "provider-domain-unsupported", "domain[1]"},
		{"a provider domain the summary names", func(c *ilgraph.Case) {
			c.Domain = []string{"payments", "aws"}
			c.Summary.En += " The worker's queue, in Amazon SQS, filled up."
		}, "", ""},
		{"a provider's own case", func(c *ilgraph.Case) {
			c.Org, c.OrgSlug = "Cloudflare", "cloudflare"
			c.Domain = []string{"cloudflare", "edge-cdn"}
		}, "", ""},

		{"latent-bug with software-bug", func(c *ilgraph.Case) {
			c.RootCause = "software-bug"
			c.Contributing = []string{"alerting-gap", "latent-bug"}
		}, "factor-restates-cause", "contributing[1]"},
		{"latent-bug with dns", func(c *ilgraph.Case) {
			c.RootCause = "dns"
			c.Contributing = []string{"latent-bug"}
		}, "", ""},

		{"an attack without the security domain", func(c *ilgraph.Case) { c.RootCause = "security" }, "security-cause-without-domain", "domain"},

		{"messaging for a broker", func(c *ilgraph.Case) {
			c.Components = []string{"message-broker"}
			c.Domain = []string{"messaging"}
		}, "messaging-for-broker", "domain[0]"},
		{"messaging for a chat product with a broker", func(c *ilgraph.Case) {
			c.Components = []string{"message-broker"}
			c.Domain = []string{"messaging"}
			c.Summary.En += " Chat messages were delayed."
		}, "", ""},

		{"no symptom", func(c *ilgraph.Case) { c.Symptoms = nil }, "symptom-and-domain-required", "symptoms"},
		{"no domain", func(c *ilgraph.Case) { c.Domain = nil }, "symptom-and-domain-required", "domain"},

		{"Korean title, no Korean summary", func(c *ilgraph.Case) { c.Summary.Ko = "" }, "korean-incomplete", "summary.ko"},
		{"Korean summary, no Korean title", func(c *ilgraph.Case) { c.Title.Ko = "" }, "korean-incomplete", "title.ko"},
		{"no Korean at all", func(c *ilgraph.Case) { c.Title.Ko, c.Summary.Ko = "", "" }, "", ""},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.rule] = true
		t.Run(tt.name, func(t *testing.T) {
			c := ruleCase()
			tt.change(c)
			ids, msgs := rulesBroken(c)
			if tt.rule == "" {
				if len(ids) > 0 {
					t.Errorf("broke %v, want none: %v", ids, msgs)
				}
				return
			}
			if !slices.Equal(ids, []string{tt.rule}) {
				t.Fatalf("broke %v, want [%s]: %v", ids, tt.rule, msgs)
			}
			want := `f.json:1: case ILG-9500: field "` + tt.field + `": rule ` + tt.rule + ": "
			if !strings.HasPrefix(msgs[0], want) {
				t.Errorf("message %q, want it to start %q", msgs[0], want)
			}
			if !strings.Contains(msgs[0], "; ") {
				t.Errorf("message %q says what is wrong but not what to do", msgs[0])
			}
		})
	}
	for _, r := range loader.TaggingRules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test", r.ID)
		}
	}
}

// TestEveryRuleIsDocumented: docs/vocabulary.md lists every checked rule
// by its id, in its "Checked by the loader" section.
func TestEveryRuleIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "vocabulary.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Checked by the loader\n")
	if !ok {
		t.Fatal(`docs/vocabulary.md has no "Checked by the loader" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, r := range loader.TaggingRules {
		if r.ID == "" || r.Doc == "" {
			t.Errorf("rule %q has no id or no doc", r.ID)
		}
		if !strings.Contains(section, "| `"+r.ID+"` |") {
			t.Errorf("rule %s is not in the table of docs/vocabulary.md", r.ID)
		}
	}
}

// TestTagConfidenceChecked: tag_confidence may name only the case's own
// tags, with confidences between 0 and 1.
func TestTagConfidenceChecked(t *testing.T) {
	vocab := map[ilgraph.Kind]map[string]bool{
		ilgraph.KindRootCause: {"deployment": true, "capacity": true}, ilgraph.KindComponent: {"background-jobs": true},
		ilgraph.KindSymptom: {"processing-backlog": true}, ilgraph.KindContributing: {"insufficient-testing": true},
		ilgraph.KindDomain: {"payments": true},
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := ruleCase()
	c.TagConfidence = &ilgraph.TagConfidence{
		RootCause:  map[string]float64{"deployment": 0.61},
		Components: map[string]float64{"background-jobs": 1},
		Domain:     map[string]float64{"payments": 0},
	}
	if ps := loader.CheckCase(c, vocab, now, loader.Position{File: "f"}); len(ps) > 0 {
		t.Fatalf("a good tag_confidence: %v", ps)
	}
	c.TagConfidence.RootCause["capacity"] = 0.3
	c.TagConfidence.Symptoms = map[string]float64{"processing-backlog": 1.5}
	var got []string
	for _, p := range loader.CheckCase(c, vocab, now, loader.Position{File: "f"}) {
		got = append(got, p.Field+": "+p.Msg)
	}
	want := []string{
		`tag_confidence.root_cause.capacity: "capacity" is not one of the case's root cause tags`,
		`tag_confidence.symptoms.processing-backlog: 1.5 is not a confidence between 0 and 1`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestReviewDecisionsChecked: the record of a review (review.decisions)
// is checked for its form, entry by entry, without looking its terms up.
func TestReviewDecisionsChecked(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	vocab := map[ilgraph.Kind]map[string]bool{
		ilgraph.KindRootCause: {"deployment": true}, ilgraph.KindComponent: {"background-jobs": true},
		ilgraph.KindSymptom: {"processing-backlog": true}, ilgraph.KindContributing: {"insufficient-testing": true},
		ilgraph.KindDomain: {"payments": true},
	}
	conf := func(x float64) *float64 { return &x }
	problems := func(r ilgraph.Review) []string {
		c := ruleCase()
		c.Review = r
		var got []string
		for _, p := range loader.CheckCase(c, vocab, now, loader.Position{File: "f"}) {
			got = append(got, p.Field+": "+p.Msg)
		}
		return got
	}
	t.Run("a good record has no problem", func(t *testing.T) {
		r := ilgraph.Review{WrittenBy: "import", ReviewedAt: "2025-12-01T10:00:00Z", ReviewedBy: "rita", Decisions: []ilgraph.ReviewDecision{
			{Kind: ilgraph.KindRootCause, Term: "capacity", Confidence: conf(0.4), Decision: ilgraph.DecisionReplace, With: "deployment"},
			{Kind: ilgraph.KindComponent, Term: "background-jobs", Confidence: conf(1), Decision: ilgraph.DecisionAccept},
			{Kind: ilgraph.KindSymptom, Term: "a-term-since-removed", Decision: ilgraph.DecisionReject},
			{Kind: ilgraph.KindMechanism, Term: "fleet-fan-out", Decision: ilgraph.DecisionAdd},
		}}
		if got := problems(r); len(got) > 0 {
			t.Errorf("got %q, want no problem", got)
		}
	})
	t.Run("each fault names its entry's field", func(t *testing.T) {
		r := ilgraph.Review{WrittenBy: "import", Decisions: []ilgraph.ReviewDecision{
			{Kind: ilgraph.KindMechanism, Term: "fleet-fan-out", Decision: ilgraph.DecisionAccept},
			{Kind: ilgraph.KindComponent, Term: "Not An Id", Decision: "maybe", With: "x"},
			{Kind: ilgraph.KindRootCause, Term: "capacity", Decision: ilgraph.DecisionReplace, Confidence: conf(1.5)},
			{Kind: ilgraph.KindOrg, Term: "acme", Decision: ilgraph.DecisionAdd, Confidence: conf(0.5)},
		}}
		want := []string{
			`review.decisions: a record of a review needs review.reviewed_at, when the review was made`,
			`review.decisions[0].kind: "mechanism" is not a kind a machine tags (root_cause, component, symptom, contributing, domain)`,
			`review.decisions[1].term: "Not An Id" is not a term id`,
			`review.decisions[1].decision: "maybe" is not one of accept, reject, replace, add`,
			`review.decisions[1].with: only a replacement names a term to replace with`,
			`review.decisions[2].with: "" is not a term id: a replacement names the term that replaced the suggestion`,
			`review.decisions[2].confidence: 1.5 is not a confidence between 0 and 1`,
			`review.decisions[3].kind: "org" is not a kind of the vocabulary`,
			`review.decisions[3].confidence: a tag the reviewer added has no machine confidence`,
		}
		if got := problems(r); !slices.Equal(got, want) {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

func TestMachineTagged(t *testing.T) {
	for _, tt := range []struct {
		review ilgraph.Review
		want   bool
	}{
		{ilgraph.Review{WrittenBy: "import"}, true},
		{ilgraph.Review{WrittenBy: "import", ReviewedAt: " "}, true},
		{ilgraph.Review{WrittenBy: "import", ReviewedAt: "2026-01-05", ReviewedBy: "a reviewer"}, false},
		{ilgraph.Review{WrittenBy: "analyst"}, false},
		{ilgraph.Review{}, false},
	} {
		c := ruleCase()
		c.Review = tt.review
		if got := c.MachineTagged(); got != tt.want {
			t.Errorf("%+v: MachineTagged %v, want %v", tt.review, got, tt.want)
		}
	}
}
