package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/suggest"
)

// MarkdownPrefix is the id prefix of cases imported from teams' own
// Markdown post-mortems.
const MarkdownPrefix = "MD"

// MaxMarkdownBytes is the largest Markdown post-mortem ilgraph import
// markdown reads: 1 MiB. The longest text field a case holds is 100,000
// characters (loader.MaxTextLen); a document ten times that is not one
// post-mortem, and it is refused before it is read.
const MaxMarkdownBytes = 1 << 20

// The sections of a post-mortem a heading can name (MarkdownHeadings).
const (
	SecSummary    = "summary"
	SecImpact     = "impact"
	SecSymptoms   = "symptoms"
	SecRootCause  = "root_cause"
	SecTrigger    = "trigger"
	SecResolution = "resolution"
	SecDetection  = "detection"
	SecActions    = "action_items"
	SecLessons    = "lessons"
	SecTimeline   = "timeline"
)

// MarkdownHeadings maps a heading, normalised (normHeading: lower case,
// numbering, emphasis, a trailing colon and a parenthesis removed, a
// leading "incident" or "장애" dropped), to the section it names.
// docs/import.md has this table; a heading not in it is an unknown section.
var MarkdownHeadings = map[string]string{}

func init() {
	for sec, names := range map[string][]string{
		SecSummary: {"summary", "overview", "executive summary", "what happened", "description", "tl;dr", "tldr",
			"요약", "개요", "사건 개요", "개요 및 요약", "무슨 일이 있었나", "발생 내용", "내용"},
		SecImpact: {"impact", "customer impact", "user impact", "business impact", "impact assessment", "scope",
			"영향", "영향 범위", "영향도", "고객 영향", "피해", "피해 범위"},
		SecSymptoms: {"symptoms", "what users saw", "user-visible symptoms", "증상", "현상", "장애 현상"},
		SecRootCause: {"root cause", "root causes", "root cause analysis", "rca", "cause", "causes", "why it happened",
			"contributing factors", "contributing factor", "근본 원인", "원인", "원인 분석", "근본 원인 분석", "발생 원인", "기여 요인"},
		SecTrigger: {"trigger", "triggers", "트리거", "촉발 요인", "계기"},
		SecResolution: {"resolution", "mitigation", "remediation", "recovery", "fix", "the fix", "how we fixed it", "response",
			"resolution and recovery", "mitigation and resolution", "해결", "복구", "조치", "완화", "대응", "해결 방법", "조치 내용", "복구 조치", "대응 및 복구"},
		SecDetection: {"detection", "how we noticed", "how it was detected", "how we detected it", "discovery",
			"탐지", "감지", "인지", "발견", "탐지 및 인지"},
		SecActions: {"action items", "action item", "follow-ups", "follow ups", "followups", "follow-up actions", "follow-up items",
			"next steps", "corrective actions", "preventive actions", "prevention", "todo", "to do",
			"조치 항목", "후속 조치", "후속 작업", "재발 방지", "재발 방지 대책", "개선 사항", "개선 과제", "향후 계획", "액션 아이템"},
		SecLessons: {"lessons learned", "lessons", "lessons learnt", "what went well", "what went wrong", "where we got lucky",
			"takeaways", "learnings", "교훈", "배운 점", "잘된 점", "잘한 점", "잘못된 점", "아쉬운 점", "운이 좋았던 점", "회고"},
		SecTimeline: {"timeline", "chronology", "sequence of events", "timeline of events", "detailed timeline",
			"타임라인", "경과", "시간대별 경과", "진행 경과", "시간순 경과", "장애 경과", "타임 라인"},
	} {
		for _, n := range names {
			MarkdownHeadings[n] = sec
		}
	}
}

// markdownMeta maps a field name of a "Name: value" line (normalised as
// headings are) to the record field it gives.
var markdownMeta = map[string]string{
	"date": "date", "incident date": "date", "date of incident": "date", "날짜": "date", "일자": "date",
	"발생일": "date", "발생 일시": "date", "발생일시": "date", "일시": "date",
	"organization": "org", "organisation": "org", "org": "org", "company": "org", "team": "org",
	"조직": "org", "회사": "org", "팀": "org",
	"severity": "severity", "sev": "severity", "심각도": "severity", "등급": "severity",
	"id": "id", "case id": "id",
	"org slug": "org_slug", "orgslug": "org_slug", "organization slug": "org_slug", "조직 슬러그": "org_slug",
	// Read and set aside: they say nothing a case field holds.
	"authors": "", "author": "", "owner": "", "owners": "", "status": "", "reviewers": "", "last updated": "",
	"작성자": "", "상태": "", "담당자": "",
}

// leadingNoise are words a heading may begin with that do not change which
// section it names ("Incident summary", "장애 타임라인").
var leadingNoise = []string{"incident ", "outage ", "the ", "장애 ", "사고 ", "사건 "}

var (
	headingNumber = regexp.MustCompile(`^(?:\d+(?:\.\d+)*[.)]?|[ivx]+[.)]|[a-z][.)])\s+`)
	headingParen  = regexp.MustCompile(`\s*[(（][^)）]*[)）]\s*$`)
	emphasis      = regexp.MustCompile("[*_`]+")
	headingSplit  = regexp.MustCompile(`\s*(?:&|/|,|\band\b|및)\s*`)
)

// normHeading is a heading's text as MarkdownHeadings and markdownMeta are
// keyed: lower case, emphasis, numbering ("2.", "IV."), a trailing colon
// and a trailing parenthesis ("(UTC)") removed, spaces collapsed.
func normHeading(s string) string {
	s = strings.ToLower(strings.TrimSpace(emphasis.ReplaceAllString(s, "")))
	s = headingNumber.ReplaceAllString(s, "")
	s = strings.TrimRight(s, " :：.")
	s = headingParen.ReplaceAllString(s, "")
	s = strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(strings.Fields(s), " ")
}

// SectionOf returns the section a heading names, or "" for an unknown one:
// the normalised heading as listed, or without a leading "incident"/"장애",
// or, for "Root cause and trigger", its first part when every part names a
// section.
func SectionOf(heading string) string {
	h := normHeading(heading)
	if h == "" {
		return ""
	}
	if s := MarkdownHeadings[h]; s != "" {
		return s
	}
	for _, w := range leadingNoise {
		if rest, ok := strings.CutPrefix(h, w); ok {
			if s := MarkdownHeadings[rest]; s != "" {
				return s
			}
		}
	}
	if parts := headingSplit.Split(h, -1); len(parts) > 1 {
		first := ""
		for i, p := range parts {
			s := MarkdownHeadings[p]
			if s == "" {
				return ""
			}
			if i == 0 {
				first = s
			}
		}
		return first
	}
	return ""
}

// metaOf reads "Name: value" as a metadata line: the field it gives ("" to
// set aside) and the value, and ok when Name is a metadata name.
func metaOf(s string) (field, value string, ok bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, ":：")
	if i <= 0 || i > 40 {
		return "", "", false
	}
	name := normHeading(s[:i])
	field, ok = markdownMeta[name]
	if !ok {
		return "", "", false
	}
	v := strings.TrimSpace(s[i+len(string([]rune(s[i:])[0])):])
	v = strings.TrimSpace(emphasis.ReplaceAllString(v, ""))
	return field, v, true
}

// mdBlock is a run of a document's lines under one heading.
type mdBlock struct {
	sec     string // a section, "" for the preamble, "?" for an unknown section
	heading string // as written
	level   int    // 1–6 for ATX and Setext headings, 7 for a label ("**Root cause:**", a table row)
	line    int
	lines   []string
}

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	atxNoSpace    = regexp.MustCompile(`^ {0,3}(#{1,6})([^#\s].*?)[ \t]*$`) // "#Summary": a heading only when it names a section
	setextLine    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	fenceLine     = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	listItem      = regexp.MustCompile(`^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$`)
	checkbox      = regexp.MustCompile(`^\[[ xX]\]\s*`)
	tableSep      = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	labelLine     = regexp.MustCompile(`^\s*(?:\*\*|__)?([^:：*_|#]{2,40}?)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*)$`)
	boldLine      = regexp.MustCompile(`^\s*(?:\*\*|__)([^*_]{2,60}?)[:：]?(?:\*\*|__)[:：]?\s*$`)
	brTag         = regexp.MustCompile(`(?i)<br\s*/?>`)
	thematicBreak = regexp.MustCompile(`^ {0,3}([-*_])(\s*[-*_]){2,}\s*$`)
)

// tableCells splits a table row ("| a | b |") into its trimmed cells, or
// nil when the line is not a row.
func tableCells(s string) []string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "|") || len(t) < 2 {
		return nil
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|")
	cells := strings.Split(t, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// mdDoc is a parsed post-mortem.
type mdDoc struct {
	title    string
	meta     map[string]string // date, org, org_slug, severity, id
	metaLine map[string]int
	blocks   []*mdBlock
}

// parseMarkdownDoc splits lines into the title, metadata and blocks. first
// is the file line of lines[0].
func parseMarkdownDoc(lines []string, first int) *mdDoc {
	d := &mdDoc{meta: map[string]string{}, metaLine: map[string]int{}}
	cur := &mdBlock{line: first}
	d.blocks = append(d.blocks, cur)
	content := false // any text seen (after the title)
	start := func(sec, heading string, level, line int) {
		cur = &mdBlock{sec: sec, heading: heading, level: level, line: line}
		d.blocks = append(d.blocks, cur)
		content = true
	}
	setMeta := func(field, v string, line int) {
		if field != "" && v != "" && d.meta[field] == "" {
			d.meta[field], d.metaLine[field] = v, line
		}
	}
	// heading handles a heading of the given level: metadata, the title, a
	// section, or an unknown heading (a section of its own, or part of the
	// known section it is under).
	heading := func(text string, level, line int, raw string) {
		if f, v, ok := metaOf(text); ok && (cur.sec == "" || cur.sec == "?") {
			setMeta(f, v, line)
			return
		}
		sec := SectionOf(text)
		switch {
		case sec != "":
			start(sec, text, level, line)
		case d.title == "" && !content && level == 1:
			d.title = strings.TrimSpace(emphasis.ReplaceAllString(text, ""))
		case cur.sec != "" && cur.sec != "?" && level > cur.level:
			cur.lines = append(cur.lines, raw)
		default:
			start("?", text, level, line)
		}
	}
	inFence := ""
	for i := 0; i < len(lines); i++ {
		line, n := lines[i], first+i
		if inFence != "" {
			cur.lines = append(cur.lines, line)
			if strings.HasPrefix(strings.TrimSpace(line), inFence) {
				inFence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			inFence = m[1]
			cur.lines = append(cur.lines, line)
			content = true
			continue
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			heading(m[2], len(m[1]), n, line)
			continue
		}
		if m := atxNoSpace.FindStringSubmatch(line); m != nil && SectionOf(m[2]) != "" {
			heading(m[2], len(m[1]), n, line)
			continue
		}
		trimmed := strings.TrimSpace(line)
		// Setext: a single line of text under "===" or "---", after a blank
		// line or another heading.
		if trimmed != "" && i+1 < len(lines) && setextLine.MatchString(lines[i+1]) &&
			(i == 0 || strings.TrimSpace(lines[i-1]) == "" || setextLine.MatchString(lines[i-1]) || atxHeading.MatchString(lines[i-1])) &&
			!listItem.MatchString(line) && tableCells(line) == nil {
			level := 1
			if strings.Contains(lines[i+1], "-") {
				level = 2
			}
			heading(trimmed, level, n, line)
			i++
			continue
		}
		if thematicBreak.MatchString(line) {
			continue
		}
		// A table row whose first cell names a section or a metadata field:
		// the document is a form laid out as a table.
		if cells := tableCells(line); len(cells) >= 2 {
			if tableSep.MatchString(line) {
				cur.lines = append(cur.lines, line)
				continue
			}
			// Only outside the known sections, or in a form already begun:
			// a table within a section is that section's text.
			form := cur.sec == "" || cur.sec == "?" || cur.level == 7
			if f, _, ok := metaOf(cells[0] + ":"); ok && form {
				setMeta(f, strings.TrimSpace(emphasis.ReplaceAllString(strings.Join(cells[1:], " "), "")), n)
				continue
			}
			if sec := SectionOf(cells[0]); sec != "" && form {
				start(sec, cells[0], 7, n)
				// A cell's lines are split by <br>: each a list item.
				parts := brTag.Split(strings.TrimSpace(strings.Join(cells[1:], " ")), -1)
				for _, p := range parts {
					if p = strings.TrimSpace(p); p != "" && len(parts) > 1 && !listItem.MatchString(p) {
						p = "- " + p
					}
					if p != "" {
						cur.lines = append(cur.lines, p)
					}
				}
				continue
			}
			// The header row of a form table ("| Field | Value |") says nothing.
			if form && i+2 < len(lines) && tableSep.MatchString(lines[i+1]) {
				if next := tableCells(lines[i+2]); len(next) >= 2 {
					_, _, meta := metaOf(next[0] + ":")
					if meta || SectionOf(next[0]) != "" {
						i++
						continue
					}
				}
			}
		}
		if trimmed != "" && !listItem.MatchString(line) && tableCells(line) == nil {
			// A bold line naming a section ("**Root cause**"), or a label
			// ("Root cause: a config push…"), in a document without headings.
			var m []string
			if strings.HasPrefix(trimmed, "**") || strings.HasPrefix(trimmed, "__") {
				m = boldLine.FindStringSubmatch(line)
			}
			if m != nil && SectionOf(m[1]) != "" {
				start(SectionOf(m[1]), m[1], 7, n)
				continue
			}
			m = nil
			if strings.ContainsAny(line, ":：") { // only a line with a colon holds a label
				m = labelLine.FindStringSubmatch(line)
			}
			if m != nil {
				if f, v, ok := metaOf(m[1] + ":" + m[2]); ok && (cur.sec == "" || cur.sec == "?") {
					setMeta(f, v, n)
					continue
				}
				if sec := SectionOf(m[1]); sec != "" && cur.sec != SecTimeline {
					start(sec, m[1], 7, n)
					if rest := strings.TrimSpace(m[2]); rest != "" {
						cur.lines = append(cur.lines, rest)
					}
					continue
				}
			}
		}
		cur.lines = append(cur.lines, line)
		if trimmed != "" {
			content = true
		}
	}
	return d
}

// blockText is a block's lines as text: trimmed, runs of blank lines made
// one.
func blockText(lines []string) string {
	var out []string
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// mdItems reads a block as list entries: each top-level list item (with
// its continuation and nested items), each table row but the header (its
// first non-empty cell), each paragraph otherwise. Checkboxes and headings
// are dropped.
func mdItems(lines []string) []string {
	var items []string
	cur := -1 // index in items of the entry being continued, -1 for none
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			cur = -1
			continue
		case atxHeading.MatchString(l) || thematicBreak.MatchString(l) || fenceLine.MatchString(l):
			cur = -1
			continue
		}
		if cells := tableCells(l); cells != nil {
			cur = -1
			if tableSep.MatchString(l) || i+1 < len(lines) && tableSep.MatchString(lines[i+1]) {
				continue
			}
			for _, c := range cells {
				if c = strings.TrimSpace(emphasis.ReplaceAllString(c, "")); c != "" {
					items = append(items, c)
					break
				}
			}
			continue
		}
		if m := listItem.FindStringSubmatch(l); m != nil {
			text := strings.TrimSpace(checkbox.ReplaceAllString(strings.TrimSpace(m[2]), ""))
			if len(m[1]) >= 2 && cur >= 0 {
				items[cur] += "; " + text
				continue
			}
			items = append(items, text)
			cur = len(items) - 1
			continue
		}
		if cur >= 0 {
			items[cur] += " " + t
			continue
		}
		items = append(items, t)
		cur = len(items) - 1
	}
	out := items[:0]
	for _, it := range items {
		it = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(it, "**", ""), "__", ""))
		if it != "" {
			out = append(out, it)
		}
	}
	return out
}

// isKorean reports whether at least 30% of the letters of s are Hangul.
func isKorean(s string) bool {
	var hangul, letters int
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Hangul, r) {
				hangul++
			}
		}
	}
	return letters > 0 && hangul*10 >= letters*3
}

// bilingual puts s in the Korean or the English half of a text.
func bilingual(s string) ilgraph.Text {
	if isKorean(s) {
		return ilgraph.Text{Ko: s}
	}
	return ilgraph.Text{En: s}
}

// --- dates and times -------------------------------------------------------

var (
	months   = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	datePats = []*regexp.Regexp{
		regexp.MustCompile(`(?:^|[^\d])(\d{4})[-/.]\s?(\d{1,2})[-/.]\s?(\d{1,2})(?:[^\d]|$)`),
		regexp.MustCompile(`(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일`),
		regexp.MustCompile(`(?i)\b` + months + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`),
		regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+` + months + `\.?,?\s+(\d{4})\b`),
	}
	clockPats = []*regexp.Regexp{
		regexp.MustCompile(`(?i)(오전|오후)?\s*(?:^|[^\d:])(\d{1,2}):(\d{2})(?::\d{2})?\s*(am|pm|a\.m\.|p\.m\.)?`),
		regexp.MustCompile(`(오전|오후)?\s*(\d{1,2})시\s*(?:(\d{1,2})분)?`),
	}
	resolvedWords = regexp.MustCompile(`(?i)\b(resolved|recovered|restored|mitigated|fixed|back to normal|all clear|closed|ended|fully operational|recovery complete)\b|해결|복구|정상화|정상|종료|완화`)
	detectedWords = regexp.MustCompile(`(?i)\b(alert|alerts|alerted|alerting|paged|page|pages|detected|noticed|reported|on-call|pager)\b|탐지|감지|알림|알람|인지|발견|신고`)
)

// findDate returns the earliest date in s (YYYY-MM-DD, 2023/03/14,
// 2023. 3. 14., 2023년 3월 14일, March 14, 2023, 14 March 2023) and where
// where it starts and ends, or "" and -1, -1.
func findDate(s string) (string, int, int) {
	best, at, end := "", -1, -1
	for i, re := range datePats {
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		g := func(k int) string { return s[m[2*k]:m[2*k+1]] }
		var y, mo, d int
		switch i {
		case 0, 1:
			y, _ = strconv.Atoi(g(1))
			mo, _ = strconv.Atoi(g(2))
			d, _ = strconv.Atoi(g(3))
		case 2:
			mo = monthNum(g(1))
			d, _ = strconv.Atoi(g(2))
			y, _ = strconv.Atoi(g(3))
		case 3:
			d, _ = strconv.Atoi(g(1))
			mo = monthNum(g(2))
			y, _ = strconv.Atoi(g(3))
		}
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if t.Year() != y || int(t.Month()) != mo || t.Day() != d {
			continue // not a calendar date (2023-02-30)
		}
		if at < 0 || m[2] < at {
			best, at, end = t.Format(ilgraph.DateLayout), m[2], m[1]
			if i == 0 {
				end = m[7] // the pattern takes the character after the date too
			}
		}
	}
	return best, at, end
}

func monthNum(s string) int {
	return strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(s[:3]))/3 + 1
}

// findClock returns the first time of day in s, in minutes after midnight.
func findClock(s string) (int, bool) {
	for i, re := range clockPats {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[3] != "" {
			mins, _ = strconv.Atoi(m[3])
		}
		ampm := strings.ToLower(strings.ReplaceAll(m[1], ".", ""))
		if i == 0 && m[4] != "" {
			ampm = strings.ToLower(strings.ReplaceAll(m[4], ".", ""))
		}
		switch ampm {
		case "pm", "오후":
			if h < 12 {
				h += 12
			}
		case "am", "오전":
			if h == 12 {
				h = 0
			}
		}
		if h > 23 || mins > 59 {
			continue
		}
		return h*60 + mins, true
	}
	return 0, false
}

// timelineEntry is one line of a timeline that begins with a time.
type timelineEntry struct {
	at   time.Time
	text string
}

// entryPrefix is how far into a timeline line its time may start.
const entryPrefix = 48

// readTimeline reads a timeline block: every line (list item, table row,
// paragraph line, day heading) whose first 48 bytes hold a time of day is
// an entry, at that time on the date last given (on the line or a line
// before it; day if none); a time earlier than the one before it without a
// new date is on the next day. It returns the entries and the first date
// the timeline gives.
func readTimeline(lines []string, day string) ([]timelineEntry, string) {
	var entries []timelineEntry
	firstDate := ""
	cur, _ := time.Parse(ilgraph.DateLayout, day)
	if cur.IsZero() {
		cur = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // only the spans between entries are used
	}
	var prev time.Time
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if m := listItem.FindStringSubmatch(t); m != nil {
			t = m[2]
		}
		if cells := tableCells(t); cells != nil {
			if tableSep.MatchString(t) {
				continue
			}
			t = strings.Join(cells, " ")
		}
		t = strings.TrimLeft(strings.TrimSpace(emphasis.ReplaceAllString(t, "")), "# ")
		head := t
		if len(head) > entryPrefix {
			head = head[:entryPrefix]
			for !utf8.ValidString(head) {
				head = head[:len(head)-1]
			}
		}
		newDate := false
		if d, at, end := findDate(head); at >= 0 {
			if firstDate == "" {
				firstDate = d
			}
			cur, _ = time.Parse(ilgraph.DateLayout, d)
			newDate = true
			head = head[:at] + " " + head[end:] // the date's digits are not a time of day
		}
		mins, ok := findClock(head)
		if !ok {
			if newDate {
				prev = time.Time{} // a day heading: the times below are on it
			}
			continue
		}
		at := cur.Add(time.Duration(mins) * time.Minute)
		if !newDate && !prev.IsZero() && at.Before(prev) {
			at = at.Add(24 * time.Hour)
			cur = cur.AddDate(0, 0, 1)
		}
		prev = at
		entries = append(entries, timelineEntry{at: at, text: t})
	}
	return entries, firstDate
}

// timelineSpans returns detected_after and resolved_after from a
// timeline's entries: the first entry is the start; detection is the first
// later entry whose words say it was detected (alert, paged, noticed, 탐지,
// 알림 …); resolution the last entry whose words say it ended (resolved,
// restored, mitigated, 복구, 해결 …), or the last entry.
func timelineSpans(entries []timelineEntry) (detected, resolved string) {
	if len(entries) < 2 {
		return "", ""
	}
	start := entries[0].at
	for _, e := range entries[1:] {
		if detectedWords.MatchString(e.text) {
			detected = resolvedAfter(start, e.at)
			break
		}
	}
	end := entries[len(entries)-1].at
	for i := len(entries) - 1; i > 0; i-- {
		if resolvedWords.MatchString(entries[i].text) {
			end = entries[i].at
			break
		}
	}
	return detected, resolvedAfter(start, end)
}

// --- reading ---------------------------------------------------------------

// ReadMarkdown reads the Markdown post-mortems among paths: a folder stands
// for the *.md and *.markdown files in it and its sub-folders (hidden ones
// left out), a file for itself. org is the organization of a document that
// names none. Files that cannot become a record are reported; the rest are
// returned in path order.
func ReadMarkdown(paths []string, org string) ([]*Record, loader.Problems, error) {
	var files []string
	rel := map[string]string{} // file -> its name in its source id
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", p)
		}
		if !info.IsDir() {
			files = append(files, p)
			rel[p] = filepath.Base(p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path != p && strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(path)); !e.IsDir() && (ext == ".md" || ext == ".markdown") {
				files = append(files, path)
				if r, err := filepath.Rel(p, path); err == nil {
					rel[path] = filepath.ToSlash(r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot list", p)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "no *.md or *.markdown files in %s", strings.Join(paths, ", "))
	}
	var recs []*Record
	var probs loader.Problems
	for _, f := range files {
		at := loader.Position{File: f, Index: -1}
		info, err := os.Stat(f)
		if err != nil {
			probs = append(probs, &loader.Problem{Pos: at, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		if info.Size() > MaxMarkdownBytes {
			probs = append(probs, &loader.Problem{Pos: at, Msg: fmt.Sprintf("%d bytes, more than the limit of %d (1 MiB) for one post-mortem: split it, or cut what is not the post-mortem", info.Size(), MaxMarkdownBytes)})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			probs = append(probs, &loader.Problem{Pos: at, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		r, p := ParseMarkdown(f, data, org)
		if p != nil {
			probs = append(probs, p)
			continue
		}
		if r.ID == "" && rel[f] != "" {
			// Two folders of one organization may hold files of one name
			// (2023/outage.md, 2024/outage.md): the path under the folder
			// given tells them apart.
			slug, _, _ := strings.Cut(r.SourceID, "/")
			r.SourceID = slug + "/" + strings.TrimSuffix(rel[f], filepath.Ext(rel[f]))
			r.Key = hashKey(r.SourceID)
		}
		recs = append(recs, r)
	}
	return recs, probs, nil
}

// ParseMarkdown reads one post-mortem: optional front matter ("---" lines
// around "name: value" lines), a title heading, metadata lines ("Date:",
// "Organization:", "Severity:"), then sections recognised by their headings
// (MarkdownHeadings). org is the organization when the document names none.
// A problem names the file and the line.
func ParseMarkdown(name string, data []byte, org string) (*Record, *loader.Problem) {
	at := func(line int, format string, args ...any) *loader.Problem {
		return &loader.Problem{Pos: loader.Position{File: name, Line: line, Index: -1}, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxMarkdownBytes {
		return nil, at(0, "%d bytes, more than the limit of %d (1 MiB) for one post-mortem: split it, or cut what is not the post-mortem", len(data), MaxMarkdownBytes)
	}
	if !utf8.Valid(data) {
		return nil, at(1, "invalid UTF-8 (the file must be UTF-8)")
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")

	// Front matter: its "name: value" lines are metadata like any other.
	first := 1
	var front []string
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		end := -1
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, at(1, "the front matter is not closed: no second \"---\" line")
		}
		front, lines, first = lines[1:end], lines[end+1:], end+2
	}
	d := parseMarkdownDoc(lines, first)
	for i, l := range front {
		key, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if normHeading(key) == "title" && d.title == "" {
			d.title = v
			continue
		}
		if f, _, ok := metaOf(key + ":"); ok && f != "" && v != "" {
			d.meta[f], d.metaLine[f] = v, i+2 // front matter wins over the body
		}
	}

	// Sections to fields.
	type part struct{ heading, text string }
	texts := map[string][]part{}
	var summary []string
	var tlLines []string
	impact := ""
	for _, b := range d.blocks {
		t := blockText(b.lines)
		switch b.sec {
		case "":
			if t != "" {
				summary = append(summary, t)
			}
		case "?":
			if t != "" {
				summary = append(summary, "### "+strings.TrimSpace(b.heading)+"\n\n"+t)
			}
		case SecSummary:
			if t != "" {
				summary = append(summary, t)
			}
		case SecTimeline:
			tlLines = append(tlLines, b.lines...)
		case SecImpact:
			flat := strings.Join(strings.Fields(t), " ")
			if impact == "" && utf8.RuneCountInString(flat) <= loader.MaxStringLen {
				impact = flat
			} else if t != "" {
				summary = append(summary, "### "+strings.TrimSpace(b.heading)+"\n\n"+t) // too long for impact.scope
			}
		default:
			if t != "" {
				texts[b.sec] = append(texts[b.sec], part{strings.TrimSpace(emphasis.ReplaceAllString(b.heading, "")), t})
			}
		}
	}
	r := &Record{Pos: loader.Position{File: name, Line: 1, Index: -1}, DateKind: "incident"}

	r.Org = strings.TrimSpace(d.meta["org"])
	if r.Org == "" {
		r.Org = strings.TrimSpace(org)
	}
	if r.Org == "" {
		return nil, at(1, "no organization: the document has no \"Organization:\" line and no --org was given")
	}
	orgSlug := Slug(d.meta["org_slug"])
	if orgSlug == "" && Slug(r.Org) == "" {
		line := d.metaLine["org"]
		if line == 0 {
			line = 1
		}
		return nil, at(line, "organization %q has no Latin letter or digit to make its slug of: add an \"Org slug:\" line (hanbit-pay)", ilgraph.Clip(r.Org, 60))
	}

	// The date: a "Date:" line, else the timeline's first date, else the title's.
	entries, tlDate := readTimeline(tlLines, "")
	metaDate, _, _ := findDate(d.meta["date"])
	titleDate, _, _ := findDate(d.title)
	switch {
	case d.meta["date"] != "" && metaDate == "":
		return nil, at(d.metaLine["date"], "date %q is not a date (want 2024-03-14, 2024/03/14, 2024년 3월 14일 or March 14, 2024)", ilgraph.Clip(d.meta["date"], 60))
	case metaDate != "":
		r.Date = metaDate
	case tlDate != "":
		r.Date = tlDate
	case titleDate != "":
		r.Date = titleDate
	default:
		return nil, at(1, "no date: no \"Date:\" line, no dated timeline entry and no date in the title")
	}
	if tlDate == "" && len(entries) > 0 {
		entries, _ = readTimeline(tlLines, r.Date)
	}
	detected, resolved := timelineSpans(entries)
	r.ResolvedAfter = resolved

	summaryText := strings.Join(summary, "\n\n")
	if summaryText == "" {
		// Only a timeline (or only sections a summary is not made of): the
		// timeline, else the other sections' text, is the summary.
		if t := blockText(tlLines); t != "" {
			summaryText = t
		} else {
			for _, sec := range []string{SecRootCause, SecTrigger, SecSymptoms, SecResolution, SecDetection, SecLessons, SecActions} {
				if len(texts[sec]) > 0 {
					summaryText = texts[sec][0].text
					break
				}
			}
			if summaryText == "" && impact != "" {
				summaryText = impact
			}
		}
	}
	if summaryText == "" {
		return nil, at(1, "no text: the document has no summary, no section with text and no timeline")
	}
	r.Title = d.title
	if r.Title == "" {
		r.Title = fallbackTitle(r.Org, plainFirstLine(summaryText))
	}
	if r.Title == "" {
		return nil, at(1, "no title: no heading and no sentence to make one of")
	}
	korean := isKorean(r.Title + " " + summaryText)
	r.Summary = summaryText

	if id := strings.TrimSpace(d.meta["id"]); ilgraph.CaseIDPattern.MatchString(id) {
		r.ID, r.SourceID = id, id
	} else {
		r.SourceID = cmpOr(orgSlug, Slug(r.Org)) + "/" + strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		r.Key = hashKey(r.SourceID)
	}
	severity := ""
	if m := sevPattern.FindStringSubmatch(strings.ToLower(d.meta["severity"])); m != nil {
		severity = "sev" + m[1]
	}

	// join is the text of the sections secs, each under its heading when
	// there are several ("What went well", "What went wrong").
	join := func(secs ...string) string {
		var ps []part
		for _, s := range secs {
			ps = append(ps, texts[s]...)
		}
		var out []string
		for _, p := range ps {
			if len(ps) > 1 {
				out = append(out, p.heading+"\n"+p.text)
			} else {
				out = append(out, p.text)
			}
		}
		return strings.Join(out, "\n\n")
	}
	trigger := join(SecRootCause, SecTrigger)
	tag := []string{r.Title, summaryText, trigger, impact, join(SecSymptoms), join(SecDetection)}
	r.TagText = strings.TrimSpace(strings.Join(tag, "\n\n"))
	if utf8.RuneCountInString(r.TagText) > suggest.MaxTextChars {
		r.TagText = string([]rune(r.TagText)[:suggest.MaxTextChars])
	}
	r.Lang = "en"
	if korean {
		r.Lang = "ko"
	}
	items := func(secs ...string) []ilgraph.Item {
		var out []ilgraph.Item
		for _, b := range d.blocks {
			for _, s := range secs {
				if b.sec == s {
					for _, it := range mdItems(b.lines) {
						out = append(out, ilgraph.Item{Text: bilingual(it)})
					}
				}
			}
		}
		return out
	}
	remediation, actions := items(SecResolution), items(SecActions)
	r.Fill = func(c *ilgraph.Case) {
		if orgSlug != "" {
			c.OrgSlug = orgSlug
		}
		if korean {
			// The loader requires an English title and summary, and the
			// review queue reads them: they hold the Korean text too until
			// a reviewer translates it.
			c.Title.Ko, c.Summary.Ko = c.Title.En, c.Summary.En
		}
		c.Trigger = bilingual(trigger)
		c.Detection = bilingual(join(SecDetection))
		c.SymptomsText = bilingual(join(SecSymptoms))
		c.Lessons = bilingual(join(SecLessons))
		c.Remediation, c.ActionItems = remediation, actions
		c.Impact.Scope = impact
		c.Timeline.DetectedAfter = detected
		c.Severity = severity
	}
	return r, nil
}

var sevPattern = regexp.MustCompile(`^\s*(?:sev(?:erity)?)?[\s-]*([0-5])\b`)

// leadingTime is a date and time a timeline entry begins with.
var leadingTime = regexp.MustCompile(`^[\d\-/.:T ]+(?:Z|UTC|KST|GMT)?\s*[-–—:]?\s*`)

// plainFirstLine is text's first paragraph, or for a list or a table its
// first line without the list marker, the pipes and a leading date and
// time: what a title is made of (its first sentence).
func plainFirstLine(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	m := listItem.FindStringSubmatch(first)
	cells := tableCells(first)
	if m == nil && cells == nil {
		para, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
		return strings.TrimLeft(para, "# ")
	}
	if m != nil {
		first = m[2]
	} else {
		first = strings.Join(cells, " ")
	}
	if t := leadingTime.ReplaceAllString(first, ""); t != "" {
		first = t
	}
	return first
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
