package importer

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
)

// The kinds of date a case may have (date_kind): the day of the incident,
// the day its report was published, or a day read from a URL or an archive
// capture, which is near the incident but may be neither.
const (
	DateIncident    = "incident"
	DatePublished   = "published"
	DateApproximate = "approximate"
)

// Where a postmortems.app file's date was found (DateFinding.From), in the
// order they are tried.
const (
	FromStartTime = "start_time"
	FromPublished = "source_published_at"
	FromText      = "text"
	FromURL       = "url"
	FromArchive   = "archive_url"
)

// DateFinding records how a record's date was found, for the import's
// report: the field it came from; what it was read from (for the text, the
// url and the archive_url the words or digits as they occur there, for
// start_time and source_published_at the time read, in RFC 3339); and the
// dates found before it and refused, each with why.
type DateFinding struct {
	From    string
	Stated  string
	Refused []string
}

// DateNote is the report line of a record whose date did not come plainly from
// its start_time: where it came from and what was refused; "" otherwise.
func (r *Record) DateNote() string {
	f := r.DateFound
	if f.From == "" || f.From == FromStartTime && len(f.Refused) == 0 {
		return ""
	}
	s := fmt.Sprintf("%s: date %s (%s) from %s %q", r.Pos, r.Date, r.DateKind, f.From, f.Stated)
	if len(f.Refused) > 0 {
		s += "; refused " + strings.Join(f.Refused, "; ")
	}
	return s
}

// dateSource is one place a date may be read from, in the order tried.
type dateSource struct {
	from, kind string
	find       func(string) (date time.Time, stated string, refused []string)
	text       string
}

// pickDate finds the date of a postmortems.app file: its start_time (the
// incident), else its source_published_at (the publication), else a full
// date stated in the first sentences of its summary or body (the incident),
// else a date in its url, else the day its archive_url was captured (both
// approximate). A date before loader.EarliestDate or after now is refused
// with a reason and the next place is tried. ok is false when no place
// gives a date.
func pickDate(start, published time.Time, summary, body, url, archive string, now time.Time) (date, kind string, f DateFinding, ok bool) {
	fixed := func(t time.Time, field string) func(string) (time.Time, string, []string) {
		return func(string) (time.Time, string, []string) {
			if t.IsZero() {
				return time.Time{}, "", nil
			}
			return t.UTC(), field, nil
		}
	}
	sources := []dateSource{
		{FromStartTime, DateIncident, fixed(start, start.UTC().Format(time.RFC3339)), ""},
		{FromPublished, DatePublished, fixed(published, published.UTC().Format(time.RFC3339)), ""},
		{FromText, DateIncident, proseDate, summary},
		{FromText, DateIncident, proseDate, body},
		{FromURL, DateApproximate, urlDate, url},
		{FromArchive, DateApproximate, archiveDate, archive},
	}
	for _, s := range sources {
		t, stated, refused := s.find(s.text)
		for _, r := range refused {
			f.Refused = append(f.Refused, s.from+" "+r)
		}
		if t.IsZero() {
			continue
		}
		if why := implausible(t, now); why != "" {
			f.Refused = append(f.Refused, fmt.Sprintf("%s %s (%q): %s", s.from, t.Format(ilgraph.DateLayout), stated, why))
			continue
		}
		f.From, f.Stated = s.from, stated
		return t.Format(ilgraph.DateLayout), s.kind, f, true
	}
	return "", "", f, false
}

// implausible says why t cannot be a case's date, or "".
func implausible(t, now time.Time) string {
	switch {
	case t.Before(loader.EarliestDate):
		return "before " + loader.EarliestDate.Format(ilgraph.DateLayout) + ", the earliest date a case may have"
	case t.After(now):
		return "in the future"
	}
	return ""
}

// day is the calendar day y-m-d, or the zero time when there is none
// (February 30).
func day(y, m, d int) time.Time {
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return time.Time{}
	}
	return t
}

const monthNames = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

// month is the number of a month name or its abbreviation, 0 if none.
func month(name string) int {
	name = strings.ToLower(name)
	for i, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(name, m) {
			return i + 1
		}
	}
	return 0
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// A date stated in prose: 2023-07-20, December 15th, 2021, Feb. 28 2018,
// 9 March 2020. A day without a year (June 13) is no date.
var (
	textISO = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	textMDY = regexp.MustCompile(`(?i)\b(` + monthNames + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	textDMY = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthNames + `)\.?,?\s+(\d{4})\b`)
	bareURL = regexp.MustCompile(`https?://\S+`)
	// sentenceEnd ends a sentence: a stop, then space and a capital or the
	// end (so "Feb. 28" and "2.5 hours" go on).
	sentenceEnd = regexp.MustCompile(`[.!?]\s+[A-Z"'(\[]`)
)

// textSentences is how many first sentences of a text may state its date.
const textSentences = 2

// firstSentences is the first n sentences of a Markdown text, as plain
// words: links become their text and bare URLs are dropped, so that a date
// in a linked address is not read as the text's.
func firstSentences(text string, n int) string {
	para, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	para = bareURL.ReplaceAllString(mdLink.ReplaceAllString(para, "$1"), "")
	para = strings.Join(strings.Fields(para), " ")
	end := len(para)
	if locs := sentenceEnd.FindAllStringIndex(para, n); len(locs) == n {
		end = locs[n-1][0] + 1
	}
	return para[:end]
}

// proseDate is the first full date stated in the first sentences of text.
func proseDate(text string) (time.Time, string, []string) {
	s := firstSentences(text, textSentences)
	best, stated, at := time.Time{}, "", len(s)+1
	var refused []string
	try := func(re *regexp.Regexp, ymd func([]string) (int, int, int)) {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if m[0] >= at {
				return
			}
			var groups []string
			for i := 2; i < len(m); i += 2 {
				groups = append(groups, s[m[i]:m[i+1]])
			}
			y, mo, d := ymd(groups)
			if t := day(y, mo, d); !t.IsZero() {
				best, stated, at = t, s[m[0]:m[1]], m[0]
				return
			}
			refused = append(refused, fmt.Sprintf("%q: no such day", s[m[0]:m[1]]))
		}
	}
	try(textISO, func(g []string) (int, int, int) { return atoi(g[0]), atoi(g[1]), atoi(g[2]) })
	try(textMDY, func(g []string) (int, int, int) { return atoi(g[2]), month(g[0]), atoi(g[1]) })
	try(textDMY, func(g []string) (int, int, int) { return atoi(g[2]), month(g[1]), atoi(g[0]) })
	return best, stated, refused
}

// Dates in a URL's path, most precise first. sep is what may stand
// around a date in a path: a slash, a dash or underscore of a slug, a dot
// before an extension, a query.
const sep = `[/_.&?#-]`

var (
	urlHost = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*`)
	// /2017/02/10/
	urlYMDSlash = regexp.MustCompile(`/(\d{4})/(\d{2})/(\d{2})(?:` + sep + `|$)`)
	// /2013-09-17-outage, -2015-10-08-utc
	urlYMDDash = regexp.MustCompile(`(?:^|` + sep + `)(\d{4})-(\d{2})-(\d{2})(?:` + sep + `|$)`)
	// /2000/1113/ (a magazine's issue)
	urlYMDPacked = regexp.MustCompile(`/(\d{4})/(\d{2})(\d{2})(?:/|$)`)
	// on-november-9th-2018, january-18-2019
	urlMonthDY = regexp.MustCompile(`(?i)(?:^|` + sep + `)(` + monthNames + `)-(\d{1,2})(?:st|nd|rd|th)?-(\d{4})(?:` + sep + `|$)`)
	// postmortem-7-27-2015: month and day, when only one order is a day
	urlNumericDY = regexp.MustCompile(`(?:^|` + sep + `)(\d{1,2})-(\d{1,2})-(\d{4})(?:` + sep + `|$)`)
	// /2018/08/ (the first of the month)
	urlYM = regexp.MustCompile(`/(\d{4})/(\d{2})(?:/|$)`)
	// NA14-May-2016 (the first of the month)
	urlMonthY = regexp.MustCompile(`(?i)(?:^|` + sep + `)(` + monthNames + `)-(\d{4})(?:` + sep + `|$)`)
)

// urlDate is the date in a URL's path: a full day if one is written there,
// else the first of a month written there. A year alone is no date.
func urlDate(u string) (time.Time, string, []string) {
	path := urlHost.ReplaceAllString(strings.TrimSpace(u), "")
	if path == "" {
		return time.Time{}, "", nil
	}
	var refused []string
	type route struct {
		re  *regexp.Regexp
		ymd func([]string) [][3]int // the readings of a match; more than one is ambiguous
	}
	one := func(y, m, d int) [][3]int { return [][3]int{{y, m, d}} }
	routes := []route{
		{urlYMDSlash, func(g []string) [][3]int { return one(atoi(g[1]), atoi(g[2]), atoi(g[3])) }},
		{urlYMDDash, func(g []string) [][3]int { return one(atoi(g[1]), atoi(g[2]), atoi(g[3])) }},
		{urlYMDPacked, func(g []string) [][3]int { return one(atoi(g[1]), atoi(g[2]), atoi(g[3])) }},
		{urlMonthDY, func(g []string) [][3]int { return one(atoi(g[3]), month(g[1]), atoi(g[2])) }},
		{urlNumericDY, func(g []string) [][3]int {
			y, a, b := atoi(g[3]), atoi(g[1]), atoi(g[2])
			var rs [][3]int
			if !day(y, a, b).IsZero() {
				rs = append(rs, [3]int{y, a, b})
			}
			if a != b && !day(y, b, a).IsZero() {
				rs = append(rs, [3]int{y, b, a})
			}
			return rs
		}},
		{urlYM, func(g []string) [][3]int { return one(atoi(g[1]), atoi(g[2]), 1) }},
		{urlMonthY, func(g []string) [][3]int { return one(atoi(g[2]), month(g[1]), 1) }},
	}
	for _, r := range routes {
		for _, g := range r.re.FindAllStringSubmatch(path, -1) {
			stated := strings.Trim(g[0], "/_.&?#-")
			readings := r.ymd(g)
			switch {
			case len(readings) > 1:
				refused = append(refused, fmt.Sprintf("%q: month and day could be either way round", stated))
				continue
			case len(readings) == 0:
				refused = append(refused, fmt.Sprintf("%q: no such day", stated))
				continue
			}
			y, m, d := readings[0][0], readings[0][1], readings[0][2]
			if t := day(y, m, d); !t.IsZero() {
				return t, stated, refused
			}
			refused = append(refused, fmt.Sprintf("%q: no such day", stated))
		}
	}
	return time.Time{}, "", refused
}

// archiveTime is the capture time an Internet Archive address begins with:
// web.archive.org/web/20220529044310if_/…
var archiveTime = regexp.MustCompile(`web\.archive\.org/web/(\d{4})(\d{2})(\d{2})\d{0,6}`)

// archiveDate is the day an archive_url was captured.
func archiveDate(u string) (time.Time, string, []string) {
	m := archiveTime.FindStringSubmatch(u)
	if m == nil {
		return time.Time{}, "", nil
	}
	if t := day(atoi(m[1]), atoi(m[2]), atoi(m[3])); !t.IsZero() {
		return t, m[0][len("web.archive.org/web/"):], nil
	}
	return time.Time{}, "", []string{fmt.Sprintf("%q: no such day", m[0])}
}

// DateKinds counts cases by date_kind, for the import's report:
// "incident 180, published 11, approximate 25" (kinds in that order, then
// any other, "none" for an empty one); "" for no cases.
func DateKinds(cases []*ilgraph.Case) string {
	n := map[string]int{}
	for _, c := range cases {
		k := c.DateKind
		if k == "" {
			k = "none"
		}
		n[k]++
	}
	var parts []string
	for _, k := range []string{DateIncident, DatePublished, DateApproximate} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
			delete(n, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
	}
	return strings.Join(parts, ", ")
}
