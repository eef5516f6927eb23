package resolvers

import (
	"context"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// docLimits refuses documents over the per-document limits — tokens,
// fields, aliases, directives — before they are validated or run, with one LIMIT
// error. Without them a 1 MB document of unknown fields answered 40,000
// validation errors (6.5 MB), and 20,000 repeated directives 3.4 MB.
//
// It runs before gqlgen parses (an OperationParameterMutator, after the
// persisted-query extension has filled the query in). A document in the
// query cache has passed already. Otherwise it parses the document with
// the token limit, counts, and validates it as gqlgen would; a valid
// document goes into the query cache, so gqlgen does not parse it again.
// An invalid one is left to gqlgen, whose errors the transport caps
// (capErrors).
//
// The field limit is there because validation is quadratic in the fields
// of a selection set (OverlappingFieldsCanBeMerged compares them pairwise):
// 10,000 repeated __typename, 100 KB under the token limit, took gqlparser
// 6 to 16 s to validate; 1,000 took 60 ms, 500 case(id:) lookups 35 ms.
type docLimits struct {
	schema     *ast.Schema
	cache      graphql.Cache[*ast.QueryDocument]
	tokens     int
	fields     int
	aliases    int
	directives int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = docLimits{}

func (docLimits) ExtensionName() string                   { return "DocumentLimits" }
func (docLimits) Validate(graphql.ExecutableSchema) error { return nil }

func limitError(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": "LIMIT"}
	return err
}

func (l docLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" {
		return nil
	}
	if _, ok := l.cache.Get(ctx, p.Query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, l.tokens)
	if err != nil {
		var gerr *gqlerror.Error
		if errors.As(err, &gerr) && strings.HasPrefix(gerr.Message, "exceeded token limit") {
			return limitError("the document has more than %d tokens, the limit", l.tokens)
		}
		return nil // a syntax error: gqlgen reports it as it parses
	}
	fields, aliases, directives := countDocument(doc)
	if fields > l.fields {
		return limitError("the document selects %d fields, more than the limit of %d", fields, l.fields)
	}
	if aliases > l.aliases {
		return limitError("the document has %d aliases, more than the limit of %d", aliases, l.aliases)
	}
	if directives > l.directives {
		return limitError("the document has %d directives, more than the limit of %d", directives, l.directives)
	}
	if len(doc.Operations) > 0 && len(validator.ValidateWithRules(l.schema, doc, rules.NewDefaultRules())) == 0 {
		l.cache.Add(ctx, p.Query, doc)
	}
	return nil
}

// countDocument counts the fields, aliases and directives written in a
// document: in every operation and fragment definition, fragments not
// expanded.
func countDocument(doc *ast.QueryDocument) (fields, aliases, directives int) {
	var walk func(set ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				fields++
				if s.Alias != "" && s.Alias != s.Name {
					aliases++
				}
				directives += len(s.Directives)
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				directives += len(s.Directives)
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				directives += len(s.Directives)
			}
		}
	}
	for _, op := range doc.Operations {
		directives += len(op.Directives)
		for _, v := range op.VariableDefinitions {
			directives += len(v.Directives)
		}
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		directives += len(f.Directives)
		walk(f.SelectionSet)
	}
	return fields, aliases, directives
}

// maxMessage bounds one error message: messages quote names from the
// document, which may be long.
const maxMessage = 300

// capErrors keeps at most max errors, then one that says how many more
// there were, and shortens long messages, so that the errors of a response
// are bounded whatever the document.
func capErrors(list gqlerror.List, max int) gqlerror.List {
	for _, e := range list {
		if len(e.Message) > maxMessage {
			cut := maxMessage
			for cut > 0 && !isRuneStart(e.Message[cut]) {
				cut--
			}
			e.Message = e.Message[:cut] + "…"
		}
	}
	if max <= 0 || len(list) <= max || len(list) == max+1 && list[max].Rule == ruleTooMany {
		return list // within the cap, or capped already
	}
	last := limitError("too many errors: %d more not shown", len(list)-max)
	last.Rule = ruleTooMany // not sent; marks the list as capped
	return append(list[:max:max], last)
}

const ruleTooMany = "ilgraph.TooManyErrors"

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// capResponse caps the errors of an executed operation's response.
func capResponse(max int) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		if resp != nil {
			resp.Errors = capErrors(resp.Errors, max)
		}
		return resp
	}
}
