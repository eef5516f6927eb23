package mcpserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/suggest"
)

// Limits of tool arguments, the JSON API's and GraphQL's.
const (
	maxIDLength = 200 // a case id or a term id
)

// kinds and weightKeys are the values the kinds argument and the keys the
// weights argument take, from the kind table so that a new kind is never
// left out.
var (
	kinds      = enum(ilgraph.AllKinds)
	weightKeys = enum(ilgraph.WeightKeys)
)

// grades are the values judge_similar's grade takes: the keys of the grade
// table (ilgraph.Grades), lowest first.
var grades = func() []any {
	out := make([]any, len(ilgraph.Grades))
	for i, g := range ilgraph.Grades {
		out[i] = g.Key()
	}
	return out
}()

func enum(ks []ilgraph.Kind) []any {
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// defaults are a tool's defaults of its numeric arguments, by name: the
// core's (explore.Default…), except where a tool chooses its own.
type defaults map[string]int

// limit adds the API's limits to an inferred input schema, by argument
// name, so that a client sees them and the SDK refuses values beyond them
// before a tool runs; and the tool's defaults. Both are the core's
// constants, and each argument's description says them: "(0 to 100,
// default 20)".
func limit(s *jsonschema.Schema, defs defaults) {
	f := func(v float64) *float64 { return &v }
	for name, p := range s.Properties {
		switch name {
		case "query":
			p.MaxLength = jsonschema.Ptr(ilgraph.MaxTextQuery)
		case "text":
			p.MaxLength = jsonschema.Ptr(suggest.MaxTextChars)
		case "lang":
			p.Enum = []any{"en", "ko"}
		case "per_kind":
			p.Minimum, p.Maximum = f(1), f(explore.MaxSuggestPerKind)
		case "min_confidence":
			p.Minimum, p.Maximum = f(0), f(1)
		case "id", "match", "root_cause", "org", "cursor":
			p.MaxLength = jsonschema.Ptr(maxIDLength)
		case "from", "to":
			p.Pattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
		case "limit":
			p.Minimum, p.Maximum = f(0), f(explore.MaxPageSize)
		case "cooccurring":
			p.Minimum, p.Maximum = f(0), f(explore.MaxCooccurring)
		case "k":
			p.Minimum, p.Maximum = f(1), f(explore.MaxSimilarK)
		case "min_score":
			p.Minimum, p.Maximum = f(0), f(1)
		case "depth":
			p.Minimum, p.Maximum = f(1), f(4)
		case "nodes":
			p.Minimum, p.Maximum = f(1), f(ilgraph.MaxDrawingNodes)
		case "sort":
			p.Enum = []any{"date_desc", "date_asc", "id_asc", "id_desc", "relevance"}
		case "weights":
			p.AdditionalProperties = &jsonschema.Schema{Type: "number", Minimum: f(0), Maximum: f(ilgraph.MaxWeight)}
			p.PropertyNames = &jsonschema.Schema{Type: "string", Enum: weightKeys}
		case "kind":
			p.Description += ": " + kindNames(ilgraph.AllKinds, "or")
		case "grade":
			p.Enum = grades
			p.Description += ": " + gradeNames("or")
		case "reason":
			p.MaxLength = jsonschema.Ptr(ilgraph.MaxJudgmentReason)
		}
		if p.Items != nil { // lists of ids
			p.MaxItems = jsonschema.Ptr(ilgraph.MaxFilterTerms)
			if p.Items.Type == "string" {
				p.Items.MaxLength = jsonschema.Ptr(maxIDLength)
			}
			if name == "kinds" {
				p.Items.Enum = kinds
			}
		}
		var says []string
		if p.Minimum != nil && p.Maximum != nil && p.Type != "object" {
			says = append(says, fmt.Sprintf("%g to %g", *p.Minimum, *p.Maximum))
		}
		if d, ok := defs[name]; ok {
			p.Default = json.RawMessage(strconv.Itoa(d))
			says = append(says, fmt.Sprintf("default %d", d))
		}
		if len(says) > 0 {
			p.Description += " (" + strings.Join(says, ", ") + ")"
		}
	}
	for name := range defs {
		if s.Properties[name] == nil {
			panic(fmt.Sprintf("mcpserver: a default for %s, which the tool does not take", name))
		}
	}
}
