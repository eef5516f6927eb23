package resolvers

import "github.com/ilgraph/ilgraph"

// fieldNames are the GraphQL names of the core's field keys
// (ilgraph.Field…): an error about an input names the argument or the input
// field as a GraphQL query writes it.
var fieldNames = map[string]string{
	ilgraph.FieldPageSize:        "first",
	ilgraph.FieldPageCursor:      "after",
	ilgraph.FieldSort:            "sort",
	ilgraph.FieldText:            "filter.text",
	ilgraph.FieldKind:            "kind",
	ilgraph.FieldSimilarK:        "k",
	ilgraph.FieldSimilarMinScore: "minScore",
	ilgraph.FieldProfile:         "profile",
	ilgraph.FieldSuggestText:     "text",
	ilgraph.FieldLang:            "lang",
	ilgraph.FieldFacetTop:        "top",
	ilgraph.FieldCooccurringSize: "first",
	ilgraph.FieldBreakdownTop:    "top",
	ilgraph.FieldLiftBase:        "liftBase",
	ilgraph.FieldLiftBaseFilter:  "base",
	ilgraph.FieldMinCount:        "minCount",
	ilgraph.FieldMinSupport:      "minSupport",
}

// errorMessage is the message a GraphQL client reads for one of the core's
// errors.
func errorMessage(e *ilgraph.Error) string { return e.MessageIn(fieldNames) }
