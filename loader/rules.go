package loader

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// A TaggingRule is one of the tagging rules of docs/vocabulary.md that a
// program can check without judgment. The loader reports what breaks one as
// a warning (or, with Options.Strict, as a problem that stops the load).
type TaggingRule struct {
	// ID names the rule in messages ("saas-with-specific-domain").
	ID string
	// Doc says in one line what the rule asks (docs/vocabulary.md lists them).
	Doc   string
	check func(c *ilgraph.Case) []finding
}

// finding is one place where a case breaks a rule: the field, what is wrong
// and what to do about it.
type finding struct{ field, msg, fix string }

// TaggingRules are the checked rules, in the order they are reported.
var TaggingRules = []TaggingRule{
	{ID: "saas-with-specific-domain", Doc: "`saas` is not used next to a more specific topical domain (`developer-tools`, `email`, `messaging`, `payments`).", check: checkSaaS},
	{ID: "full-and-partial-outage", Doc: "`full-outage` and `partial-outage` are not both tagged: the service was down for essentially everyone, or for a subset.", check: checkFullAndPartial},
	{ID: "full-outage-but-partial-scope", Doc: "`full-outage` is not tagged when the case's title or impact says the outage hit one region, one availability zone, one data centre or some customers or users.", check: checkFullOutageScope},
	{ID: "provider-domain-missing", Doc: "A provider domain (`aws`, `gcp`, `azure`, `cloudflare`) is tagged when the organization is that provider, or when the root cause is `dependency-failure` and the title names that provider.", check: checkProviderMissing},
	{ID: "provider-domain-unsupported", Doc: "A provider domain is not tagged when neither the organization nor any text of the case names that provider or one of its products.", check: checkProviderUnsupported},
	{ID: "factor-restates-cause", Doc: "No contributing factor only restates the root cause (`latent-bug` with the root cause `software-bug`).", check: checkRestates},
	{ID: "security-cause-without-domain", Doc: "A case whose root cause is `security` (an attack) carries the `security` domain.", check: checkSecurityDomain},
	{ID: "messaging-for-broker", Doc: "`messaging` is not tagged on a case whose texts never mention chat or a messaging app but that has the `message-broker` component: a broker is a component, not the messaging domain.", check: checkMessaging},
	{ID: "symptom-and-domain-required", Doc: "Every case has at least one symptom and at least one domain.", check: checkRequiredKinds},
	{ID: "korean-incomplete", Doc: "A case with a Korean title has a Korean summary, and one with a Korean summary has a Korean title.", check: checkKorean},
}

// CheckTagging runs every tagging rule over a case (one that passed
// ValidateCase) and returns what it breaks, located at pos.
func CheckTagging(c *ilgraph.Case, pos Position) Problems {
	var out Problems
	for _, r := range TaggingRules {
		for _, f := range r.check(c) {
			msg := f.msg
			if f.fix != "" {
				msg += "; " + f.fix
			}
			out = append(out, &Problem{Pos: pos, CaseID: c.ID, Field: f.field, Rule: r.ID, Msg: msg})
		}
	}
	return out
}

func has(list []string, id string) bool { return slices.Contains(list, id) }

func checkSaaS(c *ilgraph.Case) []finding {
	i := slices.Index(c.Domain, "saas")
	if i < 0 {
		return nil
	}
	var specific []string
	for _, d := range []string{"developer-tools", "email", "messaging", "payments"} {
		if has(c.Domain, d) {
			specific = append(specific, d)
		}
	}
	if len(specific) == 0 {
		return nil
	}
	return []finding{{fmt.Sprintf("domain[%d]", i), fmt.Sprintf("\"saas\" next to the more specific domain %s", quoteAll(specific)), `remove "saas"`}}
}

func checkFullAndPartial(c *ilgraph.Case) []finding {
	if !has(c.Symptoms, "full-outage") || !has(c.Symptoms, "partial-outage") {
		return nil
	}
	return []finding{{fmt.Sprintf("symptoms[%d]", slices.Index(c.Symptoms, "partial-outage")),
		`both "full-outage" and "partial-outage"`, "keep the one the report supports: full-outage only if essentially every user was cut off"}}
}

// partialScope finds words saying an outage was limited to part of a
// service. Each alternative names the part outright; vaguer words ("many
// users", "a region") are left alone.
var partialScope = regexp.MustCompile(`(?i)\b(?:one|a single|single|only one) (?:(?:us|eu|european|asian|east|west|north|south|[a-z]+-[a-z]+-\d) )?(?:region|availability zone|az|data ?cent(?:er|re)|datacent(?:er|re)|cell|shard)\b|\b(?:some|a subset of|a small number of|a portion of|a fraction of|a minority of) (?:of )?(?:our |the )?(?:customers|users|regions|tenants)\b|일부 (?:고객|사용자|이용자|리전)|(?:한|단일) (?:리전|데이터센터|데이터 센터|가용 영역)`)

func checkFullOutageScope(c *ilgraph.Case) []finding {
	i := slices.Index(c.Symptoms, "full-outage")
	if i < 0 {
		return nil
	}
	// The title and the impact say what was hit; a summary also describes
	// architecture and history ("highly available within one data centre",
	// "rolled out one region at a time"), so it is not read.
	for _, t := range []struct{ field, text string }{
		{"title.en", c.Title.En}, {"title.ko", c.Title.Ko},
		{"impact.scope", c.Impact.Scope}, {"impact.users", c.Impact.Users}, {"impact.region", c.Impact.Region},
	} {
		if m := partialScopeIn(t.text); m != "" {
			return []finding{{fmt.Sprintf("symptoms[%d]", i), fmt.Sprintf("\"full-outage\" while %s says %q", t.field, m),
				"if only part of the service or its users was down, tag partial-outage instead"}}
		}
	}
	return nil
}

// partialScopeIn returns the first phrase of text that limits an outage to
// a part, skipping "one region at a time".
func partialScopeIn(text string) string {
	for _, loc := range partialScope.FindAllStringIndex(text, -1) {
		if strings.HasPrefix(text[loc[1]:], " at a time") {
			continue
		}
		return text[loc[0]:loc[1]]
	}
	return ""
}

// provider describes one provider domain: the organization slugs that are
// the provider, its name as a title would write it (narrow), and every name
// of it or its products that shows a case's text talks about it (broad).
type provider struct {
	domain string
	orgs   []string
	name   *regexp.Regexp
	any    *regexp.Regexp
}

var providers = []provider{
	{"aws", []string{"amazon-web-services", "aws"},
		regexp.MustCompile(`\bAWS\b|(?i:\bamazon web services\b)`),
		regexp.MustCompile(`\bAWS\b|\bEC2\b|\bS3\b|\bEBS\b|\bRDS\b|\bELB\b|(?i:\bamazon\b|\bdynamodb\b|\bkinesis\b|\blambda\b|\bcloudfront\b|\broute ?53\b|\bus-east-1\b)`)},
	{"gcp", []string{"google-cloud", "google-cloud-platform", "gcp"},
		regexp.MustCompile(`\bGCP\b|(?i:\bgoogle cloud\b)`),
		regexp.MustCompile(`\bGCP\b|\bGCE\b|\bGKE\b|(?i:\bgoogle\b)`)},
	{"azure", []string{"microsoft-azure", "azure"},
		regexp.MustCompile(`(?i:\bazure\b)`),
		regexp.MustCompile(`(?i:\bazure\b|\bmicrosoft\b)`)},
	{"cloudflare", []string{"cloudflare"},
		regexp.MustCompile(`(?i:\bcloudflare\b)`),
		regexp.MustCompile(`(?i:\bcloudflare\b)`)},
}

func checkProviderMissing(c *ilgraph.Case) []finding {
	var out []finding
	for _, p := range providers {
		if has(c.Domain, p.domain) {
			continue
		}
		switch {
		case has(p.orgs, c.OrgSlug):
			out = append(out, finding{"domain", fmt.Sprintf("the organization %q is %s, but the domain %q is missing", c.OrgSlug, p.domain, p.domain), fmt.Sprintf("add %q", p.domain)})
		case c.RootCause == "dependency-failure" && p.name.MatchString(c.Title.En):
			out = append(out, finding{"domain", fmt.Sprintf("the root cause is dependency-failure and the title names %s (%q), but the domain %q is missing", p.domain, p.name.FindString(c.Title.En), p.domain),
				fmt.Sprintf("add %q if the report names that provider's failure as the cause", p.domain)})
		}
	}
	return out
}

func checkProviderUnsupported(c *ilgraph.Case) []finding {
	var out []finding
	texts := []string{c.Org, c.Title.En, c.Summary.En, c.Trigger.En, c.Detection.En, c.SymptomsText.En, c.Lessons.En, c.Impact.Scope, c.Impact.Users, c.Impact.Region}
	for _, p := range providers {
		i := slices.Index(c.Domain, p.domain)
		if i < 0 || has(p.orgs, c.OrgSlug) {
			continue
		}
		named := false
		for _, t := range texts {
			named = named || p.any.MatchString(t)
		}
		if !named {
			out = append(out, finding{fmt.Sprintf("domain[%d]", i), fmt.Sprintf("%q, but neither the organization nor any English text of the case names %s or one of its products", p.domain, p.domain),
				fmt.Sprintf("remove %q unless the report names a failure of that provider as the cause (say so in the summary)", p.domain)})
		}
	}
	return out
}

// restatements lists, per root cause, the contributing factors that would
// only say the root cause again (rule 5 of docs/vocabulary.md).
var restatements = map[string][]string{
	"software-bug": {"latent-bug"},
}

func checkRestates(c *ilgraph.Case) []finding {
	var out []finding
	for _, f := range restatements[c.RootCause] {
		if i := slices.Index(c.Contributing, f); i >= 0 {
			out = append(out, finding{fmt.Sprintf("contributing[%d]", i), fmt.Sprintf("%q only restates the root cause %q", f, c.RootCause), fmt.Sprintf("remove %q", f)})
		}
	}
	return out
}

func checkSecurityDomain(c *ilgraph.Case) []finding {
	if c.RootCause != "security" || has(c.Domain, "security") {
		return nil
	}
	return []finding{{"domain", `the root cause is "security" but the domain "security" is missing`, `add "security"`}}
}

// chatWords are the words that show a case is about a chat or messaging
// product.
var chatWords = regexp.MustCompile(`(?i)\bchat|\bmessenger\b|\bmessaging (?:app|product|service|platform)|\bteam messaging\b|\binstant messag|\bdirect messages?\b|\bwhatsapp\b|\bSMS\b|채팅|메신저`)

func checkMessaging(c *ilgraph.Case) []finding {
	i := slices.Index(c.Domain, "messaging")
	if i < 0 || !has(c.Components, "message-broker") {
		return nil
	}
	for _, t := range []ilgraph.Text{c.Title, c.Summary, c.Trigger, c.SymptomsText, c.Lessons} {
		if chatWords.MatchString(t.En) || chatWords.MatchString(t.Ko) {
			return nil
		}
	}
	if chatWords.MatchString(c.Impact.Scope) || chatWords.MatchString(c.Impact.Users) {
		return nil
	}
	return []finding{{fmt.Sprintf("domain[%d]", i), `"messaging" on a case with the message-broker component whose texts never mention chat or a messaging app`,
		`remove "messaging" unless the product is one people chat or message with`}}
}

func checkRequiredKinds(c *ilgraph.Case) []finding {
	var out []finding
	if len(c.Symptoms) == 0 {
		out = append(out, finding{"symptoms", "no symptom", "tag what users or operators observed (one or more)"})
	}
	if len(c.Domain) == 0 {
		out = append(out, finding{"domain", "no domain", "tag the provider platform and the topical areas (one or more)"})
	}
	return out
}

func checkKorean(c *ilgraph.Case) []finding {
	hasTitle, hasSummary := strings.TrimSpace(c.Title.Ko) != "", strings.TrimSpace(c.Summary.Ko) != ""
	switch {
	case hasTitle && !hasSummary:
		return []finding{{"summary.ko", "the case has a Korean title but no Korean summary", "translate the summary"}}
	case hasSummary && !hasTitle:
		return []finding{{"title.ko", "the case has a Korean summary but no Korean title", "translate the title"}}
	}
	return nil
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
