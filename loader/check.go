package loader

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// checkParsed validates one parsed case on its own as a load does: the
// format's rules (ValidateCase), then, for a case without other problems,
// the tagging rules, which are problems with strict and warnings without.
func checkParsed(p Parsed, index map[ilgraph.Kind]map[string]bool, now time.Time, strict bool) (probs, warnings Problems) {
	for _, fp := range ValidateCase(p.Case, index, now) {
		probs = append(probs, &Problem{Pos: p.Pos, CaseID: p.Case.ID, Field: fp.field, Msg: fp.msg})
	}
	if len(probs) > 0 {
		return probs, nil
	}
	ws := CheckTagging(p.Case, p.Pos)
	if strict {
		return ws, nil
	}
	return nil, ws
}

// BodyName is the file name the problems of a case given to CheckCaseJSON
// are located in.
const BodyName = "request body"

// CheckCaseJSON validates one case given as JSON (a write through the
// core) exactly as `ilgraph load --strict` validates a file holding only
// it: the same parse, the same rules and tagging rules, and its related
// and recurrence_of cases must be in the graph. It returns the case, with
// Raw compacted as a load stores it, when there is no problem; otherwise
// the Problems, each naming its field. The vocabulary is the graph's.
func CheckCaseJSON(ctx context.Context, db *graph.DB, data []byte, now time.Time) (*ilgraph.Case, Problems, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, Problems{{Pos: Position{File: BodyName, Line: 1, Index: -1}, Msg: "want one case: a JSON object"}}, nil
	}
	vocab, err := db.Vocabulary(ctx)
	if err != nil {
		return nil, nil, err
	}
	index := vocab.Index()
	var (
		cases []Parsed
		probs Problems
	)
	parseProbs := Parse(BodyName, bytes.NewReader(trimmed), func(p Parsed) error {
		cases = append(cases, p)
		if len(cases) > 1 {
			return ilgraph.Errorf(ilgraph.EINVALID, "want one case, not several")
		}
		ps, _ := checkParsed(p, index, now, true)
		probs = append(probs, ps...)
		return nil
	})
	probs = append(probs, parseProbs...)
	if len(parseProbs) == 0 && len(cases) == 1 {
		// As a load does, the links of a case with other problems too.
		c := cases[0]
		key := caseKey{c.Pos.File, c.Pos.Index}
		seen := []seenCase{{key: key, pos: c.Pos, id: c.Case.ID, related: c.Case.Related, recur: c.Case.RecurrenceOf}}
		lp, err := checkLinks(ctx, db, seen, map[caseKey]bool{key: len(probs) > 0})
		if err != nil {
			return nil, nil, err
		}
		probs = append(probs, lp...)
	}
	if len(probs) > 0 {
		sortProblems(probs)
		return nil, probs, nil
	}
	if len(cases) != 1 {
		return nil, Problems{{Pos: Position{File: BodyName, Line: 1, Index: -1}, Msg: "want one case: a JSON object"}}, nil
	}
	return cases[0].Case, nil, nil
}

// Validator is the core's validator of cases given to writes
// (explore.CaseValidator): CheckCaseJSON over a graph.
type Validator struct {
	DB  *graph.DB
	Now func() time.Time // default time.Now
}

// ValidateCase returns the case data holds, or an EINVALID *ilgraph.Error
// whose Problems are CheckCaseJSON's, each with its field.
func (v Validator) ValidateCase(ctx context.Context, data []byte) (*ilgraph.Case, error) {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	c, probs, err := CheckCaseJSON(ctx, v.DB, data, now())
	if err != nil {
		return nil, err
	}
	if len(probs) == 0 {
		return c, nil
	}
	return nil, problemsError(probs)
}

// problemsError is the EINVALID error of a case with problems: its message
// lists them as a load prints them (without the place, which is the
// request), and Problems has them one by one.
func problemsError(probs Problems) *ilgraph.Error {
	e := &ilgraph.Error{Code: ilgraph.EINVALID}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s) in the case; nothing was written", len(probs))
	for i, p := range probs {
		e.Problems = append(e.Problems, ilgraph.InputProblem{Field: p.Field, Rule: p.Rule, Message: p.Msg})
		if i < maxShown {
			b.WriteString("; ")
			if p.Field != "" {
				fmt.Fprintf(&b, "field %q: ", p.Field)
			}
			if p.Rule != "" {
				fmt.Fprintf(&b, "rule %s: ", p.Rule)
			}
			b.WriteString(p.Msg)
		}
	}
	e.Message = b.String()
	return e
}
