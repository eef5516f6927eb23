package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
)

// TextPrefix is the id prefix of cases imported from plain descriptions
// whose own id is not a case id.
const TextPrefix = "TX"

// textLine is one line of a text import: an incident described in words.
type textLine struct {
	ID          string `json:"id"`
	Org         string `json:"org"`
	Date        string `json:"date"`
	Title       string `json:"title"`
	Description string `json:"description"`
	URL         string `json:"url"`
}

// maxTextLine is the longest line a text import reads.
const maxTextLine = 4 << 20

// ReadText reads a JSON Lines file of {id, org, date, title, description,
// url}, one incident a line (blank lines are skipped). A line that cannot
// become a record is reported with its line number; the rest are returned.
func ReadText(path string) ([]*Record, loader.Problems, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", path)
	}
	defer f.Close()
	recs, probs := ParseText(path, f)
	return recs, probs, nil
}

// ParseText is ReadText on a reader; name is the file name for messages.
func ParseText(name string, r io.Reader) ([]*Record, loader.Problems) {
	var recs []*Record
	var probs loader.Problems
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxTextLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		pos := loader.Position{File: name, Line: n, Index: -1}
		rec, p := parseTextLine(line, pos)
		if p != nil {
			probs = append(probs, p)
			continue
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		msg := fmt.Sprintf("cannot read: %v", err)
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("a line is longer than %d bytes", maxTextLine)
		}
		probs = append(probs, &loader.Problem{Pos: loader.Position{File: name, Index: -1}, Msg: msg})
	}
	return recs, probs
}

func parseTextLine(line []byte, pos loader.Position) (*Record, *loader.Problem) {
	var t textLine
	if err := json.Unmarshal(line, &t); err != nil {
		msg := "invalid JSON: " + err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &loader.Problem{Pos: pos, Field: te.Field, Msg: fmt.Sprintf("want a string, got a JSON %s", te.Value)}
		}
		return nil, &loader.Problem{Pos: pos, Msg: msg}
	}
	id := strings.TrimSpace(t.ID)
	problem := func(field, format string, args ...any) *loader.Problem {
		return &loader.Problem{Pos: pos, CaseID: id, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	for _, f := range []struct{ name, v string }{{"id", id}, {"org", t.Org}, {"date", t.Date}, {"title", t.Title}, {"description", t.Description}} {
		if strings.TrimSpace(f.v) == "" {
			return nil, problem(f.name, "required")
		}
	}
	r := &Record{Pos: pos, SourceID: id, Org: strings.TrimSpace(t.Org), Title: strings.TrimSpace(t.Title),
		Summary: strings.TrimSpace(t.Description), URL: strings.TrimSpace(t.URL), DateKind: "incident"}
	if ilgraph.CaseIDPattern.MatchString(id) {
		r.ID = id
	} else {
		r.Key = hashKey(id)
	}
	d, err := textDate(t.Date)
	if err != nil {
		return nil, problem("date", "%v", err)
	}
	r.Date = d
	return r, nil
}

// textDate reads YYYY-MM-DD or an RFC 3339 time.
func textDate(s string) (string, error) {
	s = strings.TrimSpace(s)
	if _, err := time.Parse(ilgraph.DateLayout, s); err == nil {
		return s, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC().Format(ilgraph.DateLayout), nil
	}
	return "", fmt.Errorf("%q is not a date (want YYYY-MM-DD or RFC 3339)", ilgraph.Clip(s, 60))
}
