package ilgraph

import (
	"errors"
	"fmt"
)

// Error codes. They are mapped once, at the edge, to GraphQL extensions.code
// and to process exit codes.
const (
	ECONFLICT = "conflict"
	// EUNAUTHORIZED: the request carries no valid credentials (HTTP 401).
	EUNAUTHORIZED = "unauthorized"
	// EFORBIDDEN: the credentials are valid but their role may not do this
	// (HTTP 403).
	EFORBIDDEN   = "forbidden"
	EINTERNAL    = "internal"
	EINVALID     = "invalid"
	ENOTFOUND    = "not_found"
	EUNAVAILABLE = "unavailable"
	ETIMEOUT     = "timeout"
	ELIMIT       = "limit"
)

// Field keys name the input an error is about without speaking any front
// door's protocol: the core sets one on an *Error (FieldErrorf), and each
// front door (GraphQL, the JSON API, MCP, the command line) names it as its
// users write it — first or limit, minScore or min_score — with one map
// from key to name (see MessageIn). A door without a name for a key shows
// the key.
const (
	FieldPageSize           = "page.size"        // how many items a page of a list holds
	FieldPageCursor         = "page.cursor"      // where a page of a list starts
	FieldSort               = "sort"             // a case list's order
	FieldText               = "filter.text"      // a case list's full-text query
	FieldKind               = "kind"             // a kind of term
	FieldSimilarK           = "similar.k"        // how many similar cases
	FieldSimilarMinScore    = "similar.minScore" // the lowest score a similar case may have
	FieldProfile            = "profile"          // the features of an incident that is not a stored case
	FieldSuggestText        = "suggest.text"     // the free text terms are suggested for
	FieldLang               = "lang"             // the language of a free text
	FieldFacetTop           = "facets.top"       // how many terms of each kind a facet list holds
	FieldCooccurringSize    = "cooccurring.size" // how many co-occurring terms of a kind
	FieldBreakdownTop       = "breakdown.top"    // how many terms of a kind a breakdown keeps
	FieldLiftBase           = "cooccurrence.liftBase"
	FieldLiftBaseFilter     = "cooccurrence.base"
	FieldMinCount           = "cooccurrence.minCount"
	FieldMinSupport         = "cooccurrence.minSupport"
	FieldNeighbourhoodDepth = "neighbourhood.depth" // how many hops a neighbourhood reaches
	FieldNeighbourhoodNodes = "neighbourhood.nodes" // how many nodes a neighbourhood may draw
	FieldConnectionHops     = "connections.maxHops" // how long a connection between two cases may be
	FieldConnectionCount    = "connections.limit"   // how many connections
	// A case filter's parts; the key of its terms of a kind is
	// FieldFilterTerms's, and of a profile's, FieldProfileTerms's.
	FieldFilter            = "filter" // the filter as a whole
	FieldFilterExcludeOrgs = "filter.excludeOrgs"
	FieldFilterDateFrom    = "filter.dateFrom"
	FieldFilterDateTo      = "filter.dateTo"
	FieldFilterTextMode    = "filter.textMode"
	FieldFilterTextFields  = "filter.textFields"
	FieldVersion           = "case.version"     // the version of a case a write read (JSON API: If-Match)
	FieldRestoreFrom       = "case.restoreFrom" // the earlier version of a case a restore writes again
	FieldJudgmentMatch     = "judgment.match"   // the similar case a judgment or a hiding is about
	FieldJudgmentGrade     = "judgment.grade"   // how relevant a judge found the match
	FieldJudgmentReason    = "judgment.reason"  // why, in a sentence
	FieldReviewDecisions   = "review.decisions" // a review's decisions on a case's machine-suggested tags
	FieldReviewAdd         = "review.add"       // the tags a review adds
)

// Term list matches: the key of a filter's any-of or all-of list of a kind
// (FieldFilterTerms).
const (
	MatchAnyOf = "anyOf"
	MatchAllOf = "allOf"
)

// FieldFilterTerms is the key of a filter's terms of kind k: "filter." and
// the kind's Field (filter.components), and with match (MatchAnyOf,
// MatchAllOf) the key of one of its lists (filter.components.anyOf). A kind
// a case has one of (KindInfo.One) has one list, keyed without match.
func FieldFilterTerms(k Kind, match string) string {
	info, _ := k.Info()
	key := "filter." + info.Field
	if match != "" && !info.One {
		key += "." + match
	}
	return key
}

// FieldProfileTerms is the key of a profile's terms of kind k: "profile."
// and the kind's ProfileField (profile.rootCause).
func FieldProfileTerms(k Kind) string {
	info, _ := k.Info()
	return "profile." + info.ProfileField
}

// FieldKeys lists every field key, for the front doors' tests of their
// names.
var FieldKeys = append([]string{FieldPageSize, FieldPageCursor, FieldSort, FieldText, FieldKind, FieldSimilarK,
	FieldSimilarMinScore, FieldProfile, FieldSuggestText, FieldLang, FieldFacetTop, FieldCooccurringSize,
	FieldBreakdownTop, FieldLiftBase, FieldLiftBaseFilter, FieldMinCount, FieldMinSupport,
	FieldNeighbourhoodDepth, FieldNeighbourhoodNodes, FieldConnectionHops, FieldConnectionCount,
	FieldFilter, FieldFilterExcludeOrgs, FieldFilterDateFrom, FieldFilterDateTo, FieldFilterTextMode, FieldFilterTextFields,
	FieldVersion, FieldRestoreFrom, FieldJudgmentMatch, FieldJudgmentGrade, FieldJudgmentReason, FieldReviewDecisions, FieldReviewAdd},
	kindFieldKeys()...)

// kindFieldKeys are the keys of every kind's terms in a filter and a
// profile, from the kind table.
func kindFieldKeys() []string {
	var out []string
	for _, info := range Kinds {
		out = append(out, FieldFilterTerms(info.Kind, ""), FieldProfileTerms(info.Kind))
		if !info.One {
			out = append(out, FieldFilterTerms(info.Kind, MatchAnyOf), FieldFilterTerms(info.Kind, MatchAllOf))
		}
	}
	return out
}

// Error is an application error with a code and a message safe to show a user.
type Error struct {
	Code string
	// Field is the key (Field…) of the input at fault, or "". When set,
	// Message says what is wrong with that input without naming it, as the
	// rest of a sentence that starts with its name: "must be from 1 to 100,
	// not 500".
	Field   string
	Message string
	// Problems lists, for an EINVALID case given to a write, every problem
	// the loader's validation found in it.
	Problems []InputProblem
	Err      error // the underlying cause, if any; never shown to users
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("ilgraph %s: %s: %v", e.Code, e.MessageIn(nil), e.Err)
	}
	return fmt.Sprintf("ilgraph %s: %s", e.Code, e.MessageIn(nil))
}

func (e *Error) Unwrap() error { return e.Err }

// MessageIn returns the message a user reads: with a field, "NAME MESSAGE",
// NAME being names[e.Field] (the key itself when names has none).
func (e *Error) MessageIn(names map[string]string) string {
	if e.Field == "" {
		return e.Message
	}
	return FieldName(e.Field, names) + " " + e.Message
}

// FieldName is a field key as a front door names it: names[key], or the key
// itself when names has none.
func FieldName(key string, names map[string]string) string {
	if name, ok := names[key]; ok {
		return name
	}
	return key
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an *Error about an input field (a Field… key); the
// message must not name the field (see Error.Field).
func FieldErrorf(code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with code and message that keeps err as its cause.
func WrapError(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err: the message of the
// first *Error in its chain, its field named by its key, or a generic text
// that hides internals.
func ErrorMessage(err error) string { return ErrorMessageIn(err, nil) }

// ErrorMessageIn is ErrorMessage with the field named as names says (see
// Error.MessageIn): what a front door shows.
func ErrorMessageIn(err error, names map[string]string) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.MessageIn(names)
	}
	return "internal error"
}
