package loader

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
)

// Parsed is one case read from an input, with where it was found.
type Parsed struct {
	Case *ilgraph.Case
	Pos  Position
}

// lineReader counts the offsets of newlines as bytes pass through, so that a
// decoder offset can be turned into a line number without holding the input.
type lineReader struct {
	r     io.Reader
	n     int64
	nl    []int64 // offsets of '\n'
	first []byte  // the first bytes read, to look for a byte-order mark
}

func (lr *lineReader) Read(p []byte) (int, error) {
	n, err := lr.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			lr.nl = append(lr.nl, lr.n+int64(i))
		}
	}
	if len(lr.first) < 3 {
		lr.first = append(lr.first, p[:min(n, 3-len(lr.first))]...)
	}
	lr.n += int64(n)
	return n, err
}

// line returns the 1-based line of a byte offset.
func (lr *lineReader) line(off int64) int {
	return sort.Search(len(lr.nl), func(i int) bool { return lr.nl[i] >= off }) + 1
}

// ParseFile reads the cases in the file at path; see Parse.
func ParseFile(path string, fn func(Parsed) error) Problems {
	f, err := os.Open(path)
	if err != nil {
		return Problems{{Pos: Position{File: path, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)}}
	}
	defer f.Close()
	return Parse(path, f, fn)
}

// Parse reads cases from r, which holds one case object, an array of case
// objects, or a stream of case objects (JSON Lines). It streams: each case is
// decoded, handed to fn and dropped. Problems of syntax and type are
// returned with the line (and array index) where they occur; a syntax error
// ends the file, a bad case does not. fn's error stops the parse and is
// returned as a problem of the file.
func Parse(name string, r io.Reader, fn func(Parsed) error) Problems {
	lr := &lineReader{r: r}
	br := bufio.NewReaderSize(lr, 64<<10)
	var probs Problems
	fileProblem := func(off int64, msg string) {
		probs = append(probs, &Problem{Pos: Position{File: name, Line: lr.line(off), Index: -1}, Msg: msg})
	}

	head, _ := br.Peek(3)
	if bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}) {
		fileProblem(0, "file starts with a UTF-8 byte-order mark; save it as UTF-8 without one")
		return probs
	}
	first, skipped, err := peekNonSpace(br)
	if err == io.EOF {
		fileProblem(0, "file is empty: want a case object, an array of cases, or JSON Lines")
		return probs
	} else if err != nil {
		fileProblem(0, fmt.Sprintf("cannot read: %v", err))
		return probs
	}

	dec := json.NewDecoder(br)
	// Decoder offsets count from after the skipped leading white space.
	abs := func(off int64) int64 { return skipped + off }
	inArray := first == '['
	if inArray {
		if _, err := dec.Token(); err != nil {
			fileProblem(abs(0), syntaxMessage(err))
			return probs
		}
	} else if first != '{' {
		fileProblem(0, fmt.Sprintf("file starts with %q: want a case object, an array of cases, or JSON Lines", string(first)))
		return probs
	}

	for index := 0; ; index++ {
		if inArray && !dec.More() {
			if _, err := dec.Token(); err != nil {
				fileProblem(endOffset(lr, abs(dec.InputOffset()), err), syntaxMessage(err))
			} else if _, err := dec.Token(); err != io.EOF {
				fileProblem(abs(dec.InputOffset()), "unexpected data after the closing ']' of the array")
			}
			return probs
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF && !inArray {
			return probs
		} else if err != nil {
			off := abs(dec.InputOffset())
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = abs(se.Offset)
			}
			off = endOffset(lr, off, err)
			msg := syntaxMessage(err)
			if inArray {
				msg = fmt.Sprintf("array element [%d]: %s", index, msg)
			}
			fileProblem(off, msg)
			return probs
		}
		start := abs(dec.InputOffset()) - int64(len(raw))
		pos := Position{File: name, Line: lr.line(start), Index: index}
		if !inArray && index == 0 && !dec.More() {
			pos.Index = -1 // a file with one lone object
		}
		c, p := decodeCase(raw, pos, lr, start)
		if p != nil {
			probs = append(probs, p)
			continue
		}
		if err := fn(Parsed{Case: c, Pos: pos}); err != nil {
			probs = append(probs, &Problem{Pos: pos, CaseID: c.ID, Msg: err.Error()})
			return probs
		}
	}
}

// peekNonSpace skips white space and returns the next byte (not consumed)
// and how many bytes it skipped.
func peekNonSpace(br *bufio.Reader) (byte, int64, error) {
	var n int64
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, n, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
			n++
		default:
			return b[0], n, nil
		}
	}
}

// endOffset places an unexpected end of input at the end of the input.
func endOffset(lr *lineReader, off int64, err error) int64 {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return lr.n
	}
	return off
}

func syntaxMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON: " + se.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "invalid JSON: the input ends in the middle of a value (truncated?)"
	}
	return "invalid JSON: " + err.Error()
}

// decodeCase turns one raw JSON value into a Case, or a problem located in
// the file.
func decodeCase(raw json.RawMessage, pos Position, lr *lineReader, start int64) (*ilgraph.Case, *Problem) {
	if !utf8.Valid(raw) {
		off := start + int64(firstInvalidUTF8(raw))
		pos.Line = lr.line(off)
		return nil, &Problem{Pos: pos, CaseID: peekID(raw), Msg: "invalid UTF-8 (the file must be UTF-8)"}
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, &Problem{Pos: pos, Msg: fmt.Sprintf("a case must be a JSON object, not %s", jsonKind(raw))}
	}
	var c ilgraph.Case
	if err := json.Unmarshal(raw, &c); err != nil {
		p := &Problem{Pos: pos, CaseID: peekID(raw)}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			p.Field = te.Field
			p.Msg = fmt.Sprintf("want %s, got a JSON %s", goTypeName(te.Type.String()), te.Value)
			pos.Line = lr.line(start + te.Offset)
			p.Pos = pos
		} else {
			p.Msg = err.Error()
		}
		return nil, p
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, &Problem{Pos: pos, CaseID: c.ID, Msg: err.Error()}
	}
	c.Raw = buf.Bytes()
	return &c, nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}

// peekID returns the case's id if it can be read, for error messages.
func peekID(raw json.RawMessage) string {
	var v struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	if s, ok := v.ID.(string); ok && len(s) < 40 {
		return s
	}
	return ""
}

func jsonKind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func goTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "ilgraph."), strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "json.RawMessage":
		return "a JSON value"
	}
	return t
}

// ParseCase parses one case's JSON as a load parses a file's (no check of
// the vocabulary or the tagging rules: for a case that was checked when it
// was written, such as a revision of the change feed).
func ParseCase(data []byte) (*ilgraph.Case, error) {
	var c *ilgraph.Case
	probs := Parse(BodyName, bytes.NewReader(data), func(p Parsed) error {
		if c != nil {
			return ilgraph.Errorf(ilgraph.EINVALID, "want one case, not several")
		}
		c = p.Case
		return nil
	})
	if len(probs) > 0 {
		return nil, problemsError(probs)
	}
	if c == nil {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "want one case: a JSON object")
	}
	return c, nil
}
