package loader

import (
	"fmt"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// Position locates a case in an input file.
type Position struct {
	File  string
	Line  int // 1-based line where the value starts; 0 when unknown
	Index int // position in a top-level array, or the value's number in a stream of values; -1 for a lone object
}

func (p Position) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Index >= 0 {
		fmt.Fprintf(&b, " [%d]", p.Index)
	}
	return b.String()
}

// Problem is one thing wrong with the input, located as precisely as the
// input allows.
type Problem struct {
	Pos    Position
	CaseID string // empty when the case's id could not be read
	Field  string // the field at fault, dotted for nested fields ("timeline.resolved_after"); empty for whole-file problems
	Rule   string // for a broken tagging rule (see TaggingRules), its id; empty for other problems
	Msg    string
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Pos.String())
	b.WriteString(": ")
	if p.CaseID != "" {
		fmt.Fprintf(&b, "case %s: ", p.CaseID)
	}
	if p.Field != "" {
		fmt.Fprintf(&b, "field %q: ", p.Field)
	}
	if p.Rule != "" {
		fmt.Fprintf(&b, "rule %s: ", p.Rule)
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is the list of problems found in a load's input. As an error it
// carries the code EINVALID.
type Problems []*Problem

// maxShown bounds how many problems Error prints; the rest are counted.
const maxShown = 50

func (ps Problems) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s) in the input; nothing was written", len(ps))
	for i, p := range ps {
		if i == maxShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(ps)-maxShown)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap lets errors.As find the EINVALID code.
func (ps Problems) Unwrap() error {
	return ilgraph.Errorf(ilgraph.EINVALID, "%d invalid input(s)", len(ps))
}
