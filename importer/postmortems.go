package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
)

// PostmortemPrefix is the id prefix of cases imported from postmortems.app.
const PostmortemPrefix = "PM"

// postmortemFront is the YAML front matter of a postmortems.app file. Times
// are read as any value: the collection writes them as timestamps, dates,
// or "" for unknown.
type postmortemFront struct {
	UUID              string   `yaml:"uuid"`
	URL               string   `yaml:"url"`
	ArchiveURL        string   `yaml:"archive_url"`
	Title             string   `yaml:"title"`
	StartTime         any      `yaml:"start_time"`
	EndTime           any      `yaml:"end_time"`
	Categories        []string `yaml:"categories"`
	Keywords          []string `yaml:"keywords"`
	Company           string   `yaml:"company"`
	Product           string   `yaml:"product"`
	SourcePublishedAt any      `yaml:"source_published_at"`
	Summary           string   `yaml:"summary"`
}

// ReadPostmortems reads the postmortems.app files among paths: a folder
// stands for the *.md files directly in it (the collection's data/ folder),
// a file for itself. Files that cannot become a record are reported, the
// rest returned in name order.
func ReadPostmortems(paths []string) ([]*Record, loader.Problems, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", p)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		md, err := filepath.Glob(filepath.Join(p, "*.md"))
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot list", p)
		}
		files = append(files, md...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "no *.md files in %s (give the collection's data/ folder)", strings.Join(paths, ", "))
	}
	var recs []*Record
	var probs loader.Problems
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			probs = append(probs, &loader.Problem{Pos: loader.Position{File: f, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		r, p := ParsePostmortem(f, data)
		if p != nil {
			probs = append(probs, p)
			continue
		}
		recs = append(recs, r)
	}
	return recs, probs, nil
}

// ParsePostmortem reads one postmortems.app Markdown file: YAML front
// matter between two "---" lines, then the Markdown body. A problem names
// the file and the line.
func ParsePostmortem(name string, data []byte) (*Record, *loader.Problem) {
	at := func(line int, format string, args ...any) *loader.Problem {
		return &loader.Problem{Pos: loader.Position{File: name, Line: line, Index: -1}, Msg: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(data) {
		return nil, at(1, "invalid UTF-8 (the file must be UTF-8)")
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if strings.TrimRight(lines[0], " \t") != "---" {
		return nil, at(1, "no front matter: a postmortems.app file begins with a line \"---\", then YAML, then another \"---\"")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, at(1, "the front matter is not closed: no second \"---\" line")
	}
	front := strings.Join(lines[1:end], "\n")
	body := strings.TrimSpace(strings.Join(lines[end+1:], "\n"))
	// keyLine is the file line of a top-level key of the front matter.
	keyLine := func(key string) int {
		for i := 1; i < end; i++ {
			if strings.HasPrefix(lines[i], key+":") {
				return i + 1
			}
		}
		return 1
	}

	var fm postmortemFront
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		line, msg := 1, err.Error()
		var ye yaml.Error
		if errors.As(err, &ye) {
			msg = ye.GetMessage()
			if tok := ye.GetToken(); tok != nil && tok.Position != nil {
				line = tok.Position.Line + 1 // the front matter starts on line 2
			}
		}
		return nil, at(line, "invalid YAML in the front matter: %s", msg)
	}

	r := &Record{Pos: loader.Position{File: name, Line: 1, Index: -1}, Categories: fm.Categories, URL: strings.TrimSpace(fm.URL), Archived: strings.TrimSpace(fm.ArchiveURL)}
	r.SourceID = strings.TrimSpace(fm.UUID)
	if r.SourceID == "" {
		r.SourceID = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	if r.Key = hexKey(r.SourceID); r.Key == "" {
		return nil, at(keyLine("uuid"), "uuid %q is not a uuid or hex id (nor is the file name) to make a case id of", ilgraph.Clip(r.SourceID, 60))
	}
	r.Org = strings.TrimSpace(fm.Company)
	if r.Org == "" {
		return nil, at(keyLine("company"), "company is empty: the case's organization comes from it")
	}

	times := map[string]time.Time{}
	for key, v := range map[string]any{"start_time": fm.StartTime, "end_time": fm.EndTime, "source_published_at": fm.SourcePublishedAt} {
		t, err := frontTime(v)
		if err != nil {
			return nil, at(keyLine(key), "%s: %v", key, err)
		}
		times[key] = t
	}
	date, kind, found, ok := pickDate(times["start_time"], times["source_published_at"], fm.Summary, body, r.URL, r.Archived, time.Now())
	if !ok {
		msg := "no date: start_time and source_published_at are both missing or empty, and no date is stated in the first sentences of the summary or body, in the url or in the archive_url"
		if len(found.Refused) > 0 {
			msg += "; refused " + strings.Join(found.Refused, "; ")
		}
		return nil, at(keyLine("start_time"), "%s", msg)
	}
	r.Date, r.DateKind, r.DateFound = date, kind, found
	r.ResolvedAfter = resolvedAfter(times["start_time"], times["end_time"])

	summary := strings.TrimSpace(fm.Summary)
	switch {
	case summary != "" && body != "" && body != summary:
		r.Summary = summary + "\n\n" + body
	case summary != "":
		r.Summary = summary
	default:
		r.Summary = body
	}
	r.Title = strings.TrimSpace(fm.Title)
	if r.Title == "" {
		r.Title = fallbackTitle(r.Org, r.Summary)
	}
	if r.Title == "" || r.Summary == "" {
		return nil, at(end+2, "no text: the file has neither a summary nor a body")
	}
	return r, nil
}

// frontTime reads a time of the front matter: a YAML timestamp, an RFC 3339
// or YYYY-MM-DD string, or "" / null for unknown (the zero time).
func frontTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return x, nil
	case string:
		x = strings.TrimSpace(x)
		if x == "" {
			return time.Time{}, nil
		}
		for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", ilgraph.DateLayout} {
			if t, err := time.Parse(l, x); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a time (want RFC 3339 or YYYY-MM-DD)", ilgraph.Clip(x, 60))
	}
	return time.Time{}, fmt.Errorf("want a time, got %T", v)
}

var (
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdEmphasis = regexp.MustCompile("[*_`#>]+")
	sentence   = regexp.MustCompile(`^(.+?[.!?])(?:\s|$)`)
)

// fallbackTitle makes a title of the first sentence of text (at most 200
// characters), for files
// without one, prefixed with the organization when the sentence does not
// name it.
func fallbackTitle(org, text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	first = mdEmphasis.ReplaceAllString(mdLink.ReplaceAllString(first, "$1"), "")
	first = strings.Join(strings.Fields(first), " ")
	if m := sentence.FindStringSubmatch(first); m != nil {
		first = m[1]
	}
	if first == "" {
		return ""
	}
	if !strings.Contains(strings.ToLower(first), strings.ToLower(org)) {
		first = org + ": " + first
	}
	return ilgraph.Clip(first, 200)
}
