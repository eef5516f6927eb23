package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

const mdFixtures = "testdata/markdown"

func TestSectionOf(t *testing.T) {
	for heading, want := range map[string]string{
		"Summary": SecSummary, "## Summary": SecSummary, "EXECUTIVE SUMMARY": SecSummary, "Incident summary": SecSummary,
		"What happened": SecSummary, "1. Overview": SecSummary, "요약": SecSummary, "사건 개요": SecSummary,
		"Impact": SecImpact, "Customer impact:": SecImpact, "영향 범위": SecImpact,
		"Root Causes": SecRootCause, "Root cause analysis": SecRootCause, "**Contributing factors**": SecRootCause,
		"근본 원인": SecRootCause, "원인": SecRootCause, "Trigger": SecTrigger, "트리거": SecTrigger,
		"Resolution": SecResolution, "Mitigation": SecResolution, "Remediation": SecResolution, "해결": SecResolution,
		"복구": SecResolution, "Detection": SecDetection, "How we noticed": SecDetection, "탐지": SecDetection, "감지": SecDetection,
		"Action Items": SecActions, "Follow-ups": SecActions, "III. Follow-up actions": SecActions, "조치 항목": SecActions,
		"후속 조치": SecActions, "Lessons Learned": SecLessons, "Lessons": SecLessons, "What went wrong": SecLessons,
		"교훈": SecLessons, "Timeline": SecTimeline, "Timeline (UTC)": SecTimeline, "TIMELINE (all times KST)": SecTimeline,
		"타임라인": SecTimeline, "경과": SecTimeline, "장애 타임라인": SecTimeline, "Outage timeline": SecTimeline,
		"Root cause and trigger": SecRootCause, "Detection & response": SecDetection, "해결 및 복구": SecResolution,
		// Unknown: kept as summary text.
		"Supporting information": "", "Background": "", "Root cause and the weather": "", "Appendix": "", "": "",
	} {
		if got := SectionOf(heading); got != want {
			t.Errorf("SectionOf(%q) = %q, want %q", heading, got, want)
		}
	}
}

func readFixture(t *testing.T, name, org string) *Record {
	t.Helper()
	path := filepath.Join(mdFixtures, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, p := ParseMarkdown(path, data, org)
	if p != nil {
		t.Fatalf("%s: %v", name, p)
	}
	return r
}

// filled is the case a record's Fill gives, with the record's fields.
func filled(r *Record) *ilgraph.Case {
	c := &ilgraph.Case{Title: ilgraph.Text{En: r.Title}, Summary: ilgraph.Text{En: r.Summary}}
	c.Timeline.ResolvedAfter = r.ResolvedAfter
	r.Fill(c)
	return c
}

// span is end − start, both "15:04" on one day (a day later when end is
// earlier), as the library writes durations.
func span(t *testing.T, start, end string) string {
	t.Helper()
	a, err1 := time.Parse("15:04", start)
	b, err2 := time.Parse("15:04", end)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if b.Before(a) {
		b = b.Add(24 * time.Hour)
	}
	return ilgraph.FormatDuration(int(b.Sub(a).Minutes()))
}

func TestParseMarkdownFixtures(t *testing.T) {
	t.Run("google-sre", func(t *testing.T) {
		r := readFixture(t, "google-sre.md", "Quarrybank Systems")
		c := filled(r)
		if r.Org != "Quarrybank Systems" || r.Date != "2023-06-07" || r.Title != "Ledgerline Payments API Postmortem (incident #214)" || r.Lang != "en" {
			t.Errorf("org %q date %q title %q lang %q", r.Org, r.Date, r.Title, r.Lang)
		}
		// Start 14:01 (the first entry), detected 14:06 (the alert pages),
		// resolved 14:49 (the last entry saying so).
		if c.Timeline.DetectedAfter != span(t, "14:01", "14:06") || c.Timeline.ResolvedAfter != span(t, "14:01", "14:49") {
			t.Errorf("timeline %+v", c.Timeline)
		}
		if !strings.HasPrefix(c.Summary.En, "The Ledgerline payments API returned errors") || !strings.Contains(c.Summary.En, "### Supporting information\n\nDashboards") {
			t.Errorf("summary (with the unknown section) %q", c.Summary.En)
		}
		for _, not := range []string{"Authors", "Status", "Root Causes", "14:44", "Action Item"} {
			if strings.Contains(c.Summary.En, not) {
				t.Errorf("summary has %q: %q", not, c.Summary.En)
			}
		}
		if !strings.HasPrefix(c.Trigger.En, "Root Causes\nA configuration change meant for the staging") || !strings.Contains(c.Trigger.En, "Trigger\nThe deploy of configuration revision 8812") {
			t.Errorf("trigger %q", c.Trigger.En)
		}
		if !strings.HasPrefix(c.Impact.Scope, "Roughly 61% of payment requests") || strings.Contains(c.Impact.Scope, "\n") {
			t.Errorf("impact %q", c.Impact.Scope)
		}
		if c.Detection.En != "The error-rate alert on the payments API paged the on-call engineer at 14:06 UTC." {
			t.Errorf("detection %q", c.Detection.En)
		}
		wantItems(t, "remediation", c.Remediation, "Rolled back configuration revision 8812 on the database proxy.", "Restarted the API workers to drop the queued requests.")
		// The table's header row is not an action item; the first column is.
		wantItems(t, "action items", c.ActionItems, "Show the target environment in every configuration review",
			"Add a canary stage for database proxy configuration", "Alert when the connection pool is saturated for one minute")
		for _, sub := range []string{"What went well\n- The alert fired", "What went wrong\n", "Where we got lucky\n"} {
			if !strings.Contains(c.Lessons.En, sub) {
				t.Errorf("lessons lack %q: %q", sub, c.Lessons.En)
			}
		}
	})
	t.Run("variant", func(t *testing.T) {
		r := readFixture(t, "variant.md", "Quarrybank Systems")
		c := filled(r)
		// Front matter: title, organization (over --org), severity.
		if r.Org != "Pallwick Books" || r.Title != "Order confirmation emails delayed at Pallwick Books" || c.Severity != "sev2" || r.Date != "2024-03-11" {
			t.Errorf("org %q title %q severity %q date %q", r.Org, r.Title, c.Severity, r.Date)
		}
		if c.Timeline.DetectedAfter != span(t, "02:05", "04:52") || c.Timeline.ResolvedAfter != span(t, "02:05", "05:40") {
			t.Errorf("timeline %+v", c.Timeline)
		}
		// Setext headings; "What happened" is summary too; the code block's
		// "# not a heading" stays in the unknown section it belongs to.
		if !strings.HasPrefix(c.Summary.En, "Between 02:10 and 05:40 UTC") || !strings.Contains(c.Summary.En, "A deploy of the email sender service") ||
			!strings.Contains(c.Summary.En, "### Appendix: consumer configuration\n\n```\n# not a heading") {
			t.Errorf("summary %q", c.Summary.En)
		}
		if !strings.Contains(c.Trigger.En, "Root cause analysis\nThe session timeout") || !strings.Contains(c.Trigger.En, "Contributing factors\n- No alert on consumer lag") {
			t.Errorf("trigger %q", c.Trigger.En)
		}
		wantItems(t, "remediation", c.Remediation, "Reverted the email sender deploy.", "Scaled the email sender workers from 6 to 12 to drain the backlog.")
		wantItems(t, "action items", c.ActionItems, "Alert on consumer lag above 100,000 messages", "Add the session timeout to the load test", "Document the rebalance behaviour in the runbook")
		if !strings.HasPrefix(c.Detection.En, "A customer reported") || c.Lessons.En == "" || c.Impact.Scope == "" {
			t.Errorf("detection %q lessons %q impact %q", c.Detection.En, c.Lessons.En, c.Impact.Scope)
		}
	})
	t.Run("korean", func(t *testing.T) {
		r := readFixture(t, "korean.md", "")
		c := filled(r)
		if r.Org != "한빛페이" || c.OrgSlug != "hanbit-pay" || r.Date != "2024-02-06" || c.Severity != "sev1" || r.Lang != "ko" {
			t.Errorf("org %q slug %q date %q severity %q lang %q", r.Org, c.OrgSlug, r.Date, c.Severity, r.Lang)
		}
		// Korean text is in the Korean fields; the title and summary also in
		// the English ones, which the loader requires.
		if c.Title.Ko != "결제 승인 지연 장애 보고서" || c.Title.En != c.Title.Ko || !strings.HasPrefix(c.Summary.Ko, "2024년 2월 6일 오후") || c.Summary.En != c.Summary.Ko {
			t.Errorf("title %+v summary %+v", c.Title, c.Summary)
		}
		for name, x := range map[string]ilgraph.Text{"trigger": c.Trigger, "detection": c.Detection, "lessons": c.Lessons} {
			if x.En != "" || x.Ko == "" {
				t.Errorf("%s: %+v", name, x)
			}
		}
		if !strings.Contains(c.Trigger.Ko, "근본 원인\n내부 게이트웨이") || !strings.Contains(c.Trigger.Ko, "트리거\n2024년") {
			t.Errorf("trigger %q", c.Trigger.Ko)
		}
		if len(c.Remediation) != 2 || c.Remediation[0].Text.Ko != "인증서를 수동으로 갱신하고 게이트웨이를 재시작했다." || c.Remediation[0].Text.En != "" || len(c.ActionItems) != 2 {
			t.Errorf("remediation %+v action items %+v", c.Remediation, c.ActionItems)
		}
		if c.Timeline.DetectedAfter != span(t, "14:00", "14:07") || c.Timeline.ResolvedAfter != span(t, "14:00", "15:20") {
			t.Errorf("timeline %+v", c.Timeline)
		}
	})
	t.Run("no headings", func(t *testing.T) {
		r := readFixture(t, "no-headings.md", "")
		c := filled(r)
		data, _ := os.ReadFile(filepath.Join(mdFixtures, "no-headings.md"))
		_, body, _ := strings.Cut(string(data), "Organization: Thistledown Health\n")
		// Everything but the two metadata lines is the summary, as written.
		if r.Org != "Thistledown Health" || r.Date != "2024-01-09" || c.Summary.En != strings.TrimSpace(body) {
			t.Errorf("org %q date %q summary %q", r.Org, r.Date, c.Summary.En)
		}
		if r.Title != "On the morning of January 9 the appointment booking site of Thistledown Health was unavailable for about two hours." {
			t.Errorf("title %q", r.Title)
		}
		if !c.Trigger.IsZero() || c.Remediation != nil || c.Timeline != (ilgraph.Timeline{}) {
			t.Errorf("sections from nowhere: %+v", c)
		}
	})
	t.Run("only a timeline", func(t *testing.T) {
		r := readFixture(t, "timeline-only.md", "Quarrybank Systems")
		c := filled(r)
		data, _ := os.ReadFile(filepath.Join(mdFixtures, "timeline-only.md"))
		_, entries, _ := strings.Cut(string(data), "## Timeline\n")
		if r.Date != "2024-05-02" || c.Summary.En != strings.TrimSpace(entries) {
			t.Errorf("date %q summary %q", r.Date, c.Summary.En)
		}
		if r.Title != "Quarrybank Systems: DNS change for the internal service zone pushed by automation" {
			t.Errorf("title %q", r.Title)
		}
		if c.Timeline.DetectedAfter != span(t, "09:14", "09:21") || c.Timeline.ResolvedAfter != span(t, "09:14", "10:02") {
			t.Errorf("timeline %+v", c.Timeline)
		}
	})
	t.Run("bold lines and labels for headings", func(t *testing.T) {
		r := readFixture(t, "bold-labels.md", "")
		c := filled(r)
		if r.Org != "Fernhollow Outfitters" || r.Date != "2023-08-14" || r.Title != "Post-incident review: checkout latency at Fernhollow Outfitters" {
			t.Errorf("org %q date %q title %q", r.Org, r.Date, r.Title)
		}
		// "#Summary" (no space) is a heading because it names a section.
		if !strings.Contains(c.Summary.En, "\n\nCheckout pages on the Fernhollow") || strings.Contains(c.Summary.En, "Summary") || strings.Contains(c.Summary.En, "Date") {
			t.Errorf("summary %q", c.Summary.En)
		}
		if !strings.HasPrefix(c.Trigger.En, "The widget's query") || !strings.HasPrefix(c.Impact.Scope, "about 30% of checkouts") {
			t.Errorf("trigger %q impact %q", c.Trigger.En, c.Impact.Scope)
		}
		wantItems(t, "remediation", c.Remediation, "we disabled the recommendation widget with its feature flag and added the missing index.")
		wantItems(t, "action items", c.ActionItems, "Require a query plan review for new queries on the orders table", "Add a latency alert for the checkout page")
		if c.Timeline.DetectedAfter != span(t, "10:12", "10:48") || c.Timeline.ResolvedAfter != span(t, "10:12", "11:15") {
			t.Errorf("timeline %+v", c.Timeline)
		}
	})
	t.Run("a table", func(t *testing.T) {
		r := readFixture(t, "table.md", "")
		c := filled(r)
		if r.Org != "Brambleway Rail" || r.Date != "2023-11-20" || c.Severity != "sev2" || r.Title != "Brambleway Rail ticketing outage" {
			t.Errorf("org %q date %q severity %q title %q", r.Org, r.Date, c.Severity, r.Title)
		}
		if c.Summary.En != "The ticket sales website and app were unavailable for 95 minutes after a certificate on the load balancer expired." {
			t.Errorf("summary %q (the table's header row must not be in it)", c.Summary.En)
		}
		wantItems(t, "remediation", c.Remediation, "Issued and installed a new certificate", "Restarted the load balancer listeners")
		wantItems(t, "action items", c.ActionItems, "Monitor certificate expiry dates", "Automate renewal with the certificate manager")
		if !strings.HasPrefix(c.Trigger.En, "The TLS certificate") || !strings.HasPrefix(c.Detection.En, "Customers reported") || !strings.HasPrefix(c.Impact.Scope, "Customers across") {
			t.Errorf("trigger %q detection %q impact %q", c.Trigger.En, c.Detection.En, c.Impact.Scope)
		}
		if c.Timeline.DetectedAfter != span(t, "07:05", "07:25") || c.Timeline.ResolvedAfter != span(t, "07:05", "08:40") {
			t.Errorf("timeline %+v", c.Timeline)
		}
	})
}

func wantItems(t *testing.T, name string, got []ilgraph.Item, want ...string) {
	t.Helper()
	var texts []string
	for _, it := range got {
		texts = append(texts, it.Text.En)
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("%s: %q, want %q", name, texts, want)
	}
}

// TestMarkdownShapes: smaller shapes the fixtures do not show.
func TestMarkdownShapes(t *testing.T) {
	parse := func(doc string) *ilgraph.Case {
		t.Helper()
		r, p := ParseMarkdown("shape.md", []byte(doc), "Org")
		if p != nil {
			t.Fatal(p)
		}
		return filled(r)
	}
	// Setext headings one after another; a CRLF file with a byte-order mark.
	c := parse("\uFEFFOutage of the shop, 2020-01-01\r\n===\r\nSummary\r\n---\r\nThe shop was down.\r\n\r\nDate: 2021-01-01 (inside a section: text)\r\n")
	if c.Title.En != "Outage of the shop, 2020-01-01" || c.Summary.En != "The shop was down.\n\nDate: 2021-01-01 (inside a section: text)" {
		t.Errorf("setext: title %q summary %q", c.Title.En, c.Summary.En)
	}
	// A table inside a known section is its text, even when a row's first
	// cell names a section or a metadata field.
	c = parse("# T\nDate: 2020-01-01\n\n## Impact\n\n| Region | Detection |\n|---|---|\n| EU | 5 min |\n\n## Summary\nDown.\n")
	if !strings.Contains(c.Impact.Scope, "| EU | 5 min |") || c.Detection.En != "" || c.Summary.En != "Down." {
		t.Errorf("table in a section: impact %q detection %q summary %q", c.Impact.Scope, c.Detection.En, c.Summary.En)
	}
	// An unknown heading under a known section belongs to it; at the same
	// level it is a section of its own, kept in the summary.
	c = parse("# T\nDate: 2020-01-01\n\n## Lessons\nA.\n### Notes\nB.\n## Notes\nC.\n")
	if c.Lessons.En != "A.\n### Notes\nB." || c.Summary.En != "### Notes\n\nC." {
		t.Errorf("unknown headings: lessons %q summary %q", c.Lessons.En, c.Summary.En)
	}
	// Nested list items and continuation lines join their item.
	c = parse("# T\nDate: 2020-01-01\n\nDown.\n\n## Action items\n1. Add alerts\n   for the queue\n   - and the disk\n2. Write a runbook\n")
	wantItems(t, "nested", c.ActionItems, "Add alerts for the queue; and the disk", "Write a runbook")
	// A long impact stays in the summary, under its heading.
	long := strings.Repeat("Many users saw errors. ", 100)
	c = parse("# T\nDate: 2020-01-01\n\n## Impact\n" + long + "\n")
	if c.Impact.Scope != "" || !strings.HasPrefix(c.Summary.En, "### Impact\n\nMany users") {
		t.Errorf("long impact: scope %q summary %q", ilgraph.Clip(c.Impact.Scope, 40), ilgraph.Clip(c.Summary.En, 40))
	}
}

// TestMarkdownTimeline: entries with and without dates, in lists, tables
// and paragraphs; 12-hour and Korean times; a day passes when a time goes
// back without a new date.
func TestMarkdownTimeline(t *testing.T) {
	for _, tt := range []struct {
		name, doc                string
		date, detected, resolved string
	}{
		{"midnight", "# T\nDate: 2022-08-01\n\n## Timeline\n- 23:50 deploy\n- 23:58 alert fired\n- 00:35 service restored\n", "2022-08-01", span(t, "23:50", "23:58"), span(t, "23:50", "00:35")},
		{"am/pm", "# T\n\n## Timeline\n**March 3, 2021**\n\n11:40 am config pushed\n\n12:10 pm customers reported errors\n\n1:05 PM mitigated\n", "2021-03-03", span(t, "11:40", "12:10"), span(t, "11:40", "13:05")},
		{"korean times", "# T\n\n## 경과\n- 2023년 9월 1일 오전 9:10 배포\n- 오전 9:30 알림 발생\n- 오후 1:00 복구 완료\n", "2023-09-01", span(t, "09:10", "09:30"), span(t, "09:10", "13:00")},
		{"table", "# T\n\n## Timeline\n| Time (UTC) | Event |\n|---|---|\n| 2020-02-02 10:00 | change |\n| 2020-02-02 10:30 | paged |\n| 2020-02-02 12:00 | resolved |\n", "2020-02-02", span(t, "10:00", "10:30"), span(t, "10:00", "12:00")},
		{"days apart", "# T\n\n## Timeline\n### 2019-04-10\n- 22:00 disk fills\n### 2019-04-11\n- 06:00 noticed by staff\n- 07:00 recovered\n", "2019-04-10", "8h", "9h"},
		{"one entry: no span", "# T\n\n## Timeline\n- 2018-05-05 10:00 something happened\n", "2018-05-05", "", ""},
		{"no resolution word: the last entry", "# T\n\n## Timeline\n- 2018-05-05 10:00 a\n- 2018-05-05 10:20 b\n", "2018-05-05", "", "20m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, p := ParseMarkdown(tt.name+".md", []byte(tt.doc), "Org")
			if p != nil {
				t.Fatal(p)
			}
			c := filled(r)
			if r.Date != tt.date || c.Timeline.DetectedAfter != tt.detected || c.Timeline.ResolvedAfter != tt.resolved {
				t.Errorf("date %q detected %q resolved %q, want %q %q %q", r.Date, c.Timeline.DetectedAfter, c.Timeline.ResolvedAfter, tt.date, tt.detected, tt.resolved)
			}
		})
	}
}

// TestBadMarkdown: each badly formed document gives a clear error naming
// the file, the line where there is one, and what to do.
func TestBadMarkdown(t *testing.T) {
	for _, tt := range []struct{ name, doc, want string }{
		{"empty.md", "", "empty.md:1: no organization"},
		{"blank.md", "\n\n   \n", "blank.md:1: no organization"},
		{"no-org.md", "# Outage\nDate: 2020-01-01\n\nThe site was down.", `no-org.md:1: no organization: the document has no "Organization:" line and no --org was given`},
		{"no-date.md", "Organization: X\n\nThe site was down for an hour after a bad deploy.", `no-date.md:1: no date: no "Date:" line, no dated timeline entry and no date in the title`},
		{"bad-date.md", "# Outage\nOrganization: X\nDate: last tuesday\n\ntext", `bad-date.md:3: date "last tuesday" is not a date`},
		{"not-a-day.md", "# Outage\nOrganization: X\nDate: 2023-02-30\n\ntext", `not-a-day.md:3: date "2023-02-30" is not a date`},
		{"no-text.md", "# Outage\nOrganization: X\nDate: 2020-01-01\n\n## Summary\n\n## Impact\n", "no-text.md:1: no text"},
		{"latin1.md", "# Caf\xe9\n", "latin1.md:1: invalid UTF-8"},
		{"unclosed.md", "---\norg: X\n# Title\n", "unclosed.md:1: the front matter is not closed"},
		{"korean-org.md", "# 장애\n조직: 한빛페이\n날짜: 2024-01-01\n\n## 요약\n결제가 멈췄다.", `korean-org.md:2: organization "한빛페이" has no Latin letter or digit to make its slug of: add an "Org slug:" line`},
	} {
		_, p := ParseMarkdown(tt.name, []byte(tt.doc), "")
		if p == nil || !strings.HasPrefix(p.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q…", tt.name, p, tt.want)
		}
	}
	// The date line gives the date even in a document without headings, and
	// the title's date serves when nothing else does.
	if r, p := ParseMarkdown("t.md", []byte("# 2021-07-04 outage of the shop\n\nThe shop was down."), "X"); p != nil || r.Date != "2021-07-04" {
		t.Errorf("title date: %v %v", r, p)
	}
}

// TestMarkdownSizeLimit: a 5 MB document (generated, not committed) is
// refused before it is read, with the limit named; the good files beside
// it are still read. A document under the limit whose summary is longer
// than a case's text may be is the loader's error, naming the field.
func TestMarkdownSizeLimit(t *testing.T) {
	dir := t.TempDir()
	var big bytes.Buffer
	big.WriteString("# A very long post-mortem\nDate: 2022-02-02\nOrganization: X\n\n## Summary\n\n")
	for big.Len() < 5<<20 {
		big.WriteString("The database failed over and the queue backed up while the team investigated the alerts.\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "huge.md"), big.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(mdFixtures, "table.md"))
	if err := os.WriteFile(filepath.Join(dir, "table.md"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := ReadMarkdown([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "huge.md") + ": " + "5242" // the size, then the limit
	if len(recs) != 1 || len(probs) != 1 || !strings.HasPrefix(probs[0].Error(), want) || !strings.Contains(probs[0].Error(), "more than the limit of 1048576 (1 MiB) for one post-mortem") {
		t.Fatalf("records %d, problems %v", len(recs), probs)
	}
	// Under the limit, over the loader's 100,000 characters of summary.
	doc := big.Bytes()[:MaxMarkdownBytes-1]
	r, p := ParseMarkdown("long.md", doc, "")
	if p != nil {
		t.Fatal(p)
	}
	res := newTestTagger(t).Import([]*Record{r}, MarkdownPrefix)
	if len(res.Cases) != 0 || len(res.Skipped) == 0 || !strings.Contains(res.Skipped[0].Error(), `field "summary.en"`) || !strings.Contains(res.Skipped[0].Error(), "more than the limit of 100000") {
		t.Errorf("a 1 MiB summary: cases %d, skipped %v", len(res.Cases), res.Skipped)
	}
}

// TestMarkdownIDs: files of one name in two sub-folders get two ids, from
// their paths under the folder given; a file given by itself, from its name.
func TestMarkdownIDs(t *testing.T) {
	dir := t.TempDir()
	doc, _ := os.ReadFile(filepath.Join(mdFixtures, "table.md"))
	for _, sub := range []string{"2023", "2024"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "outage.md"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recs, probs, err := ReadMarkdown([]string{dir, filepath.Join(mdFixtures, "table.md")}, "")
	if err != nil || len(probs) > 0 || len(recs) != 3 {
		t.Fatal(err, probs, len(recs))
	}
	res := newTestTagger(t).Import(recs, MarkdownPrefix)
	if len(res.Cases) != 3 || len(res.Skipped) > 0 || len(res.Notes) > 0 {
		t.Fatalf("%d cases, skipped %v, notes %v", len(res.Cases), res.Skipped, res.Notes)
	}
	for i, name := range []string{"2023/outage", "2024/outage", "table"} {
		want, _ := shortID(MarkdownPrefix, hashKey("brambleway-rail/"+name), 0)
		if recs[i].ID != want {
			t.Errorf("%s: id %s, want %s", recs[i].Pos.File, recs[i].ID, want)
		}
	}
}

// TestMarkdownImport: every fixture becomes a valid, machine-tagged case
// without a tagging warning (so that load --strict takes it), with a
// confidence for every tag; ids come from the organization and the file
// name, so they stay the same from one run to the next.
func TestMarkdownImport(t *testing.T) {
	recs, probs, err := ReadMarkdown([]string{mdFixtures}, "Quarrybank Systems")
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	files, _ := filepath.Glob(filepath.Join(mdFixtures, "*.md"))
	if len(recs) != len(files) || len(files) < 6 {
		t.Fatalf("%d records from %d files", len(recs), len(files))
	}
	res := newTestTagger(t).Import(recs, MarkdownPrefix)
	if len(res.Cases) != len(recs) || len(res.Skipped) > 0 {
		t.Fatalf("%d cases, skipped %v", len(res.Cases), res.Skipped)
	}
	vocab := corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json")).Index()
	for i, c := range res.Cases {
		r := recs[i]
		if probs := loader.CheckCase(c, vocab, time.Now(), loader.Position{File: "x"}); len(probs) > 0 {
			t.Errorf("%s: %v", c.ID, probs)
		}
		if ws := loader.CheckTagging(c, loader.Position{}); len(ws) > 0 {
			t.Errorf("%s (%s): tagging warnings %v", c.ID, r.Pos.File, ws)
		}
		if !c.MachineTagged() || c.RootCause == "" || len(c.TagScores()) != len(c.Features())-1 {
			t.Errorf("%s: machine-tagged %v, root cause %q, %d confidences for %d tags", c.ID, c.MachineTagged(), c.RootCause, len(c.TagScores()), len(c.Features())-1)
		}
		slug := c.OrgSlug
		want, _ := shortID(MarkdownPrefix, hashKey(slug+"/"+strings.TrimSuffix(filepath.Base(r.Pos.File), ".md")), 0)
		if c.ID != want {
			t.Errorf("%s: id %s, want %s", r.Pos.File, c.ID, want)
		}
	}
}

// FuzzParseMarkdown: any bytes give a record or a problem, never a panic;
// a record always has an organization, a date, a title and a summary, and
// its Fill leaves the case's texts within what the loader checks.
func FuzzParseMarkdown(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(mdFixtures, "*.md"))
	for _, name := range files {
		data, _ := os.ReadFile(name)
		f.Add(data)
	}
	f.Add([]byte("## Timeline\n- 2024-01-01 23:59 a\n- 00:01 b resolved\n"))
	f.Add([]byte("| Summary | x<br>y |\n| Date | 2020-01-01 |"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, p := ParseMarkdown("f.md", data, "Org")
		if (r == nil) == (p == nil) {
			t.Fatalf("record %v and problem %v", r, p)
		}
		if r == nil {
			return
		}
		if r.Org == "" || r.Title == "" || strings.TrimSpace(r.Summary) == "" {
			t.Fatalf("record without org, title or summary: %+v", r)
		}
		if _, err := time.Parse(ilgraph.DateLayout, r.Date); err != nil {
			t.Fatalf("date %q", r.Date)
		}
		c := filled(r)
		for _, d := range []string{c.Timeline.DetectedAfter, c.Timeline.ResolvedAfter} {
			if _, err := ilgraph.ParseDuration(d); d != "" && err != nil {
				t.Fatalf("duration %q: %v", d, err)
			}
		}
		for _, it := range append(c.Remediation, c.ActionItems...) {
			if strings.TrimSpace(it.Text.En+it.Text.Ko) == "" {
				t.Fatalf("empty item in %+v", c)
			}
		}
	})
}

// BenchmarkParseMarkdown parses a post-mortem of just under the size limit
// (1 MiB of the Google SRE fixture's sections repeated).
func BenchmarkParseMarkdown(b *testing.B) {
	one, err := os.ReadFile(filepath.Join(mdFixtures, "google-sre.md"))
	if err != nil {
		b.Fatal(err)
	}
	var doc bytes.Buffer
	for doc.Len()+len(one) < MaxMarkdownBytes {
		doc.Write(one)
	}
	b.SetBytes(int64(doc.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, p := ParseMarkdown("bench.md", doc.Bytes(), "Org"); p != nil {
			b.Fatal(p)
		}
	}
}

// TestMarkdownHeadingDocs: every heading the table in docs/import.md names
// is read as the section the table says ("Root cause(s)" as "Root cause"
// and "Root causes"; "재발 방지 (대책)" with and without its parenthesis).
func TestMarkdownHeadingDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{"summary": SecSummary, "impact": SecImpact, "symptoms": SecSymptoms, "root cause": SecRootCause,
		"trigger": SecTrigger, "resolution": SecResolution, "detection": SecDetection, "action items": SecActions,
		"lessons": SecLessons, "timeline": SecTimeline}
	_, table, ok := strings.Cut(string(doc), "| section | English headings | Korean headings | becomes |")
	if !ok {
		t.Fatal("docs/import.md has no heading table")
	}
	rows := 0
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := tableCells(line)
		if cells == nil {
			break
		}
		sec, ok := sections[cells[0]]
		if !ok {
			t.Errorf("the table names no section %q", cells[0])
			continue
		}
		rows++
		for _, name := range strings.Split(cells[1]+", "+cells[2], ", ") {
			var forms []string
			switch {
			case strings.HasSuffix(name, "(s)"):
				base := strings.TrimSuffix(name, "(s)")
				forms = []string{base, base + "s"}
			case strings.Contains(name, "/"): // Corrective/Preventive actions
				pre, post, _ := strings.Cut(name, "/")
				_, rest, _ := strings.Cut(post, " ")
				forms = []string{pre + " " + rest, post}
			case strings.Contains(name, " ("):
				base, extra, _ := strings.Cut(name, " (")
				forms = []string{base, base + " " + strings.TrimSuffix(extra, ")")}
			default:
				forms = []string{name}
			}
			for _, f := range forms {
				if got := SectionOf(f); got != sec {
					t.Errorf("docs: %q is listed as %s, but SectionOf gives %q", f, sec, got)
				}
			}
		}
	}
	if rows != len(sections) {
		t.Errorf("%d rows, want one per section (%d)", rows, len(sections))
	}
}
