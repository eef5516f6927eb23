package resolvers

import "github.com/ilgraph/ilgraph"

// fieldNames are the GraphQL names of the core's field keys
// (ilgraph.Field…): an error about an input names the argument or the input
// field as a GraphQL query writes it.
var fieldNames = withKindFields(map[string]string{
	ilgraph.FieldPageSize:           "first",
	ilgraph.FieldPageCursor:         "after",
	ilgraph.FieldSort:               "sort",
	ilgraph.FieldText:               "filter.text",
	ilgraph.FieldKind:               "kind",
	ilgraph.FieldSimilarK:           "k",
	ilgraph.FieldSimilarMinScore:    "minScore",
	ilgraph.FieldProfile:            "profile",
	ilgraph.FieldSuggestText:        "text",
	ilgraph.FieldLang:               "lang",
	ilgraph.FieldFacetTop:           "top",
	ilgraph.FieldCooccurringSize:    "first",
	ilgraph.FieldBreakdownTop:       "top",
	ilgraph.FieldLiftBase:           "liftBase",
	ilgraph.FieldLiftBaseFilter:     "base",
	ilgraph.FieldMinCount:           "minCount",
	ilgraph.FieldMinSupport:         "minSupport",
	ilgraph.FieldNeighbourhoodDepth: "depth",
	ilgraph.FieldNeighbourhoodNodes: "limit",
	ilgraph.FieldConnectionHops:     "maxHops",
	ilgraph.FieldConnectionCount:    "limit",
	ilgraph.FieldFilter:             "filter",
	ilgraph.FieldFilterExcludeOrgs:  "filter.excludeOrgs",
	ilgraph.FieldFilterDateFrom:     "filter.dateFrom",
	ilgraph.FieldFilterDateTo:       "filter.dateTo",
	ilgraph.FieldFilterTextMode:     "filter.textMode",
	ilgraph.FieldFilterTextFields:   "filter.textFields",
	ilgraph.FieldVersion:            "version",
	ilgraph.FieldRestoreFrom:        "from",
	ilgraph.FieldJudgmentMatch:      "match",
	ilgraph.FieldJudgmentGrade:      "grade",
	ilgraph.FieldJudgmentReason:     "reason",
	ilgraph.FieldReviewDecisions:    "decisions",
	ilgraph.FieldReviewAdd:          "add",
})

// withKindFields adds the names of every kind's terms in a filter and a
// profile: the keys follow the kind table's Field and ProfileField, which
// are CaseFilter's and ProfileInput's input fields, so each is its own name.
func withKindFields(names map[string]string) map[string]string {
	for _, info := range ilgraph.Kinds {
		for _, key := range []string{ilgraph.FieldFilterTerms(info.Kind, ""), ilgraph.FieldFilterTerms(info.Kind, ilgraph.MatchAnyOf),
			ilgraph.FieldFilterTerms(info.Kind, ilgraph.MatchAllOf), ilgraph.FieldProfileTerms(info.Kind)} {
			names[key] = key
		}
	}
	return names
}

// errorMessage is the message a GraphQL client reads for one of the core's
// errors.
func errorMessage(e *ilgraph.Error) string { return e.MessageIn(fieldNames) }
