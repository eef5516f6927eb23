package admission

// Classes is the cost class of every kind of request, for every front door,
// in one table so that the same question costs the same slot wherever it
// comes in. Keys:
//
//   - GraphQL: "Type.field" — an operation takes the class of its most
//     expensive field; a field of a result not listed here is a lookup
//     (a field of something already fetched), and every field of Query is
//     listed (a test checks it), so a new root field cannot become a lookup
//     by being forgotten;
//   - the JSON API: "GET " and the route's pattern;
//   - MCP: "mcp " and the tool's name.
//
// docs/operations.md shows the same table (a test compares them).
var Classes = map[string]Class{
	// GraphQL root fields.
	"Query.case":               Lookup,
	"Query.term":               Lookup,
	"Query.vocabulary":         Lookup,
	"Query.similarityDefaults": Lookup,
	"Query.suggestCutoffs":     Lookup,
	"Query.cases":              List,
	"Query.sharedWith":         List,
	"Query.sameRootCause":      List,
	"Query.neighbourhood":      List,
	"Query.similarCases":       Similarity,
	"Query.similarToProfile":   Similarity,
	"Query.similarToText":      Similarity,
	"Query.explainSimilarity":  Similarity,
	"Query.suggest":            Similarity,
	"Query.cooccurrence":       Aggregate,
	"Query.connections":        Aggregate,
	"Query.stats":              Aggregate,
	"Query.breakdown":          Aggregate,
	"Query.caseHistory":        Lookup,
	"Query.similarJudgments":   Lookup,
	// Changes: one validation and one write transaction each.
	"Mutation.createCase":  List,
	"Mutation.updateCase":  List,
	"Mutation.deleteCase":  List,
	"Mutation.restoreCase": List,
	// Judgments of similar cases: one write transaction each.
	"Mutation.judgeSimilar":     List,
	"Mutation.withdrawJudgment": List,
	"Mutation.hideSimilar":      List,
	"Mutation.unhideSimilar":    List,
	// GraphQL fields of results that ask the store again.
	"Case.sameRootCause":    List,
	"Case.related":          List,
	"Case.recurrences":      List,
	"Case.history":          List,
	"Term.cases":            List,
	"Case.similar":          Similarity,
	"CaseConnection.facets": Aggregate, // counts over every case the filter selects
	"Term.cooccurring":      Aggregate,

	// The JSON API.
	"GET /cases/{id}":                             Lookup,
	"GET /vocab":                                  Lookup,
	"GET /cases":                                  List,
	"GET /cases/{id}/same-root-cause":             List,
	"GET /cases/{id}/similar":                     Similarity,
	"GET /suggest":                                Similarity,
	"GET /topics/{kind}/{id}":                     Aggregate, // its co-occurring terms, as Term.cooccurring
	"GET /cases/{id}/history":                     Lookup,
	"POST /cases":                                 List,
	"PUT /cases/{id}":                             List,
	"DELETE /cases/{id}":                          List,
	"POST /cases/{id}/restore":                    List,
	"GET /cases/{id}/judgments":                   Lookup,
	"PUT /cases/{id}/similar/{match}/judgment":    List,
	"DELETE /cases/{id}/similar/{match}/judgment": List,
	"PUT /cases/{id}/similar/{match}/hidden":      List,
	"DELETE /cases/{id}/similar/{match}/hidden":   List,

	// MCP tools.
	"mcp get_incident":        Lookup,
	"mcp vocab":               Lookup,
	"mcp search_incidents":    List,
	"mcp list_incidents":      List,
	"mcp same_root_cause":     List,
	"mcp graph_neighbourhood": List,
	"mcp similar_incidents":   Similarity,
	"mcp match_incident":      Similarity,
	"mcp suggest_terms":       Similarity,
	"mcp get_topic":           Aggregate,

	// The review of machine-tagged cases: the queue runs the suggestion
	// engine over every case of its page, as Query.suggest does once; a
	// review is one validation and one write transaction.
	"Query.reviewQueue":       Similarity,
	"Mutation.reviewCase":     List,
	"GET /review-queue":       Similarity,
	"POST /cases/{id}/review": List,

	// Judgments of similar cases: one write transaction each, as the
	// mutations and routes that make them.
	"mcp judge_similar":     List,
	"mcp withdraw_judgment": List,
	"mcp hide_similar":      List,
	"mcp unhide_similar":    List,
}

// ClassOf is the class of a table key; it panics for a key the table does
// not hold, so that a front door that registers a route or tool without
// classifying it fails at start (and in its tests), not under load.
func ClassOf(key string) Class {
	c, ok := Classes[key]
	if !ok {
		panic("admission: no cost class for " + key + " (add it to admission.Classes)")
	}
	return c
}
