package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

// pmFile is a postmortems.app file written for these tests: the front
// matter lines given, then the body. Every company in them is made up.
func pmFile(front, body string) []byte {
	return []byte("---\nuuid: 1a2b3c4d-0000-4000-8000-000000000000\ncompany: Tansyford Rail\n" + front + "\n---\n\n" + body + "\n")
}

// dateRoutes are files whose date must be found at one place each, and
// files whose dates must all be refused.
var dateRoutes = []struct {
	name, front, body string
	date, kind, from  string // date "" : the file is skipped for no date
	refused           string // a refusal the report must give, if any
}{
	{"start time", "start_time: 2021-03-04T10:00:00Z\nsource_published_at: 2021-03-09", "On May 1, 2020 nothing happened.",
		"2021-03-04", DateIncident, FromStartTime, ""},
	{"publication", "start_time: \"\"\nsource_published_at: 2019-06-21T00:00:00Z", "The signal box lost power.",
		"2019-06-21", DatePublished, FromPublished, ""},
	{"text ISO", "url: https://tansyford.example/blog/2020/01/02/outage", "On 2023-07-20 between 12:17 and 12:30 UTC no tickets could be sold.",
		"2023-07-20", DateIncident, FromText, ""},
	{"text month day year", "", "On December 15th, 2021 at 00:17 UTC, a DNS change took the booking site down. It came back on December 16th, 2021.",
		"2021-12-15", DateIncident, FromText, ""},
	{"text abbreviated month, no comma", "", "The timetable feed broke on Feb. 28th 2018, at dawn.",
		"2018-02-28", DateIncident, FromText, ""},
	{"text day month year", "", "Platform displays went blank on 9 March 2020 for an hour.",
		"2020-03-09", DateIncident, FromText, ""},
	{"text in the second sentence", "", "Platform displays went blank. This was on Wednesday, 2023-01-25 at 09:15 UTC.",
		"2023-01-25", DateIncident, FromText, ""},
	{"the summary before the body", "summary: On January 15, 2022, at 9:00 AM ET, maintenance began.", "A planned outage occurred on February 9th, 2022.",
		"2022-01-15", DateIncident, FromText, ""},
	{"url year month day", "url: http://news.tansyford.example/archives/2017/02/10/signal-error", "A signal error stopped trains.",
		"2017-02-10", DateApproximate, FromURL, ""},
	{"url ISO day in a slug", "url: https://medium.example/tansyford/2013-09-17-outage-postmortem-586b19ae4307", "A double free crashed the ticket gates.",
		"2013-09-17", DateApproximate, FromURL, ""},
	{"url packed issue day", "url: https://magazine.example/magazine/2000/1113/6613068a.html", "Servers crashed.",
		"2000-11-13", DateApproximate, FromURL, ""},
	{"url month name slug", "url: https://tansyford.example/postmortem-on-the-outage-on-november-9th-2018/", "Bookings were read-only.",
		"2018-11-09", DateApproximate, FromURL, ""},
	{"url month-day-year, one reading", "url: https://tansyford.example/blog/manta-postmortem-7-27-2015", "A lock blocked every write.",
		"2015-07-27", DateApproximate, FromURL, ""},
	{"url year and month", "url: https://tansyford.example/2014/01/outage-post-mortem/", "Databases were wiped.",
		"2014-01-01", DateApproximate, FromURL, ""},
	{"url month name and year", "url: https://help.tansyford.example/view?name=Disruption-on-NA14-May-2016&language=en_US", "Power failed.",
		"2016-05-01", DateApproximate, FromURL, ""},
	{"archive capture", "url: https://tansyford.example/incident\narchive_url: https://web.archive.org/web/20220529044310if_/https://tansyford.example/incident", "Power failed.",
		"2022-05-29", DateApproximate, FromArchive, ""},
	// The Vasa case: a start time before 1960 is refused with its reason,
	// then the publication date is taken.
	{"start time before 1960", "start_time: 1628-08-10T12:00:00Z\nend_time: 1628-08-10T12:20:00Z\nsource_published_at: 2013-08-15T05:14:14Z", "The warship sank on August 10, 1628.",
		"2013-08-15", DatePublished, FromPublished, `start_time 1628-08-10 ("1628-08-10T12:00:00Z"): before 1960-01-01`},
	{"text date before 1960, then the url", "url: https://tansyford.example/2012/02/23/history", "The line opened on August 10, 1628, and the bridge fell.",
		"2012-02-23", DateApproximate, FromURL, `text 1628-08-10 ("August 10, 1628"): before 1960-01-01`},
	{"start time in the future", "start_time: 2999-01-01\nsource_published_at: 2020-05-05", "Power failed.",
		"2020-05-05", DatePublished, FromPublished, `start_time 2999-01-01 ("2999-01-01T00:00:00Z"): in the future`},
	{"no such day in the text", "url: https://tansyford.example/2011/07/", "The depot flooded on February 30, 2011.",
		"2011-07-01", DateApproximate, FromURL, `text "February 30, 2011": no such day`},
	// Refusals that leave no date.
	{"a day without a year", "url: https://tansyford.example/message/65649/", "On June 13, the service was unavailable from 9:16 PM to 11:16 PM PDT.",
		"", "", "", ""},
	{"a year alone", "url: https://tansyford.example/news/2012/demystifying-site-outages/", "A deploy upgraded live databases.",
		"", "", "", ""},
	{"month and day either way round", "url: https://tansyford.example/outage-3-4-2015", "Power failed.",
		"", "", "", `url "3-4-2015": month and day could be either way round`},
	{"two-digit years", "url: https://tansyford.example/post-mortem-outages-on-1-19-17-and-1-23-17-3f65cc6f693e", "A memory leak.",
		"", "", "", ""},
	{"a date only in a linked address", "url: https://tansyford.example/hack", "Money was diverted. See [this analysis](https://web.archive.org/web/20221226010429/https://example.org/2017/07/22/deep-dive/) and https://example.org/2016/05/04/x.",
		"", "", "", ""},
	{"a date only in the third sentence", "", "Power failed. Trains stopped. It was March 3, 2020.",
		"", "", "", ""},
}

func TestPostmortemDateRoutes(t *testing.T) {
	for _, tt := range dateRoutes {
		t.Run(tt.name, func(t *testing.T) {
			r, p := ParsePostmortem("route.md", pmFile(tt.front, tt.body))
			if tt.date == "" {
				if p == nil || !strings.Contains(p.Msg, "no date") {
					t.Fatalf("got %+v, %v; want skipped for no date", r, p)
				}
				if tt.refused != "" && !strings.Contains(p.Msg, tt.refused) {
					t.Errorf("problem %q does not say %q", p.Msg, tt.refused)
				}
				return
			}
			if p != nil {
				t.Fatalf("problem: %v", p)
			}
			if r.Date != tt.date || r.DateKind != tt.kind || r.DateFound.From != tt.from {
				t.Errorf("date %s (%s) from %s, want %s (%s) from %s", r.Date, r.DateKind, r.DateFound.From, tt.date, tt.kind, tt.from)
			}
			note := r.DateNote()
			if tt.refused != "" && !strings.Contains(note, tt.refused) {
				t.Errorf("note %q does not say %q", note, tt.refused)
			}
			if (note == "") != (tt.from == FromStartTime && tt.refused == "") {
				t.Errorf("note %q for a date from %s", note, tt.from)
			}
			checkStated(t, "route.md", r, pmFile(tt.front, tt.body))
		})
	}
}

// checkStated checks a recovered date against what it says it was read
// from, without the importer's parsing: the stated words must occur in the
// file (spaces aside), and reading them with the standard library's own
// layouts must give the same day.
func checkStated(t *testing.T, name string, r *Record, file []byte) {
	t.Helper()
	f := r.DateFound
	if f.From == FromStartTime || f.From == FromPublished {
		if tm, err := time.Parse(time.RFC3339, f.Stated); err != nil || tm.Format(ilgraph.DateLayout) != r.Date {
			t.Errorf("%s: %s %q does not give %s", name, f.From, f.Stated, r.Date)
		}
		return
	}
	flat := strings.Join(strings.Fields(string(file)), " ")
	if f.Stated == "" || !strings.Contains(flat, f.Stated) {
		t.Errorf("%s: %q (from %s) is not in the file", name, f.Stated, f.From)
	}
	if got := readStated(f.Stated); got != r.Date {
		t.Errorf("%s: %q (from %s) reads as %q, the importer made %s", name, f.Stated, f.From, got, r.Date)
	}
}

var (
	ordinal   = regexp.MustCompile(`(\d)(st|nd|rd|th)\b`)
	separator = regexp.MustCompile(`[-/,._]+`)
)

// readStated reads a stated date with time.Parse alone: the day it names,
// or the first of the month when it names a month; "" when none fits.
func readStated(s string) string {
	s = strings.TrimSpace(separator.ReplaceAllString(ordinal.ReplaceAllString(s, "$1"), " "))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 8 && !strings.Contains(s, " ") { // an archive capture, 20220529044310
		s = s[:8]
	}
	// Go's layouts want "Sep", not "Sept".
	s = regexp.MustCompile(`(?i)\bsept\b`).ReplaceAllString(s, "Sep")
	for _, l := range []string{"2006 01 02", "20060102", "2006 0102", "January 2 2006", "Jan 2 2006", "2 January 2006", "2 Jan 2006",
		"1 2 2006", "2006 01", "January 2006", "Jan 2006"} {
		if tm, err := time.Parse(l, titleCase(s)); err == nil {
			return tm.Format(ilgraph.DateLayout)
		}
	}
	return ""
}

// titleCase capitalizes each word (november → November), as time.Parse
// wants month names.
func titleCase(s string) string {
	w := strings.Fields(s)
	for i, x := range w {
		w[i] = strings.ToUpper(x[:1]) + strings.ToLower(x[1:])
	}
	return strings.Join(w, " ")
}

// TestRecoveredDatesAgainstTheirSource checks every date recovered from a
// real postmortems.app collection against its stated source, when the
// collection's data/ folder is named by ILGRAPH_POSTMORTEMS_DATA (it is
// not part of the project); the fixtures above are checked the same way
// always.
func TestRecoveredDatesAgainstTheirSource(t *testing.T) {
	dir := os.Getenv("ILGRAPH_POSTMORTEMS_DATA")
	if dir == "" {
		t.Skip("ILGRAPH_POSTMORTEMS_DATA is not set: no collection to check (the fixtures are checked in TestPostmortemDateRoutes)")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.md files in %s: %v", dir, err)
	}
	recovered := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, p := ParsePostmortem(f, data)
		if p != nil || r.DateFound.From == FromStartTime || r.DateFound.From == FromPublished {
			continue
		}
		recovered++
		checkStated(t, filepath.Base(f), r, data)
	}
	t.Logf("%d recovered dates checked against their source", recovered)
}

// TestDateKindSurvivesExport: an approximate date goes out in the import's
// JSON and comes back in a case the loader accepts.
func TestDateKindSurvivesExport(t *testing.T) {
	r, p := ParsePostmortem("route.md", pmFile("url: https://tansyford.example/2014/01/outage-post-mortem/", "Databases were wiped when an upgrade ran."))
	if p != nil {
		t.Fatal(p)
	}
	res := newTestTagger(t).Import([]*Record{r}, PostmortemPrefix)
	if len(res.Cases) != 1 {
		t.Fatalf("skipped %v", res.Skipped)
	}
	data, err := json.Marshal(Compact(res.Cases[0]))
	if err != nil {
		t.Fatal(err)
	}
	var back ilgraph.Case
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.DateKind != DateApproximate || back.Date != "2014-01-01" {
		t.Errorf("after export: date %s (%s), want 2014-01-01 (approximate): %s", back.Date, back.DateKind, data)
	}
	vocab := corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json")).Index()
	if probs := loader.CheckCase(&back, vocab, time.Now(), loader.Position{File: "x"}); len(probs) > 0 {
		t.Errorf("the loader refuses it: %v", probs)
	}
	if got := DateKinds(res.Cases); got != "approximate 1" {
		t.Errorf("DateKinds = %q", got)
	}
}
