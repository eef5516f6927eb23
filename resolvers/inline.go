package resolvers

import (
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ilgraph/ilgraph"
)

// plainSet names the fields of a type that resolve without waiting on
// anything; a field's own set says what its sub-selection may ask for (nil
// for a field with none).
type plainSet map[string]plainSet

// plainTermFields are the fields of Term read straight from the struct: no
// resolver, no context, nothing to wait for.
var plainTermFields = plainSet{"__typename": nil, "kind": nil, "id": nil, "en": nil, "ko": nil, "description": nil}

// plainTermCountFields are the fields of TermCount: its count, and its
// term, resolved inline (internal/gqlinline) from the core's vocabulary or
// the organizations primed for the list (Loaders.PrimeOrgs).
var plainTermCountFields = plainSet{"__typename": nil, "count": nil, "term": plainTermFields}

// plainTextFields are the fields of Text: its English, and its Korean
// read from the struct by a resolver that waits on nothing (resolved
// inline: internal/gqlinline).
var plainTextFields = plainSet{"__typename": nil, "en": nil, "ko": nil}

// plainCaseFields are the fields of Case a list shows — its id, dates,
// texts and tags — read from the struct or resolved inline from the core's
// vocabulary, never from a dataloader's batch: a page of cases that asks
// only for them is marshalled in the calling goroutine, not one goroutine
// a case.
var plainCaseFields = plainSet{
	"__typename": nil, "id": nil, "date": nil, "year": nil, "dateKind": nil, "severity": nil,
	"title": plainTextFields, "summary": plainTextFields, "trigger": plainTextFields, "detection": plainTextFields,
	"symptomsText": plainTextFields, "lessons": plainTextFields,
	"organization": plainTermFields, "rootCause": plainTermFields, "components": plainTermFields, "symptoms": plainTermFields,
	"contributing": plainTermFields, "domains": plainTermFields, "mechanisms": plainTermFields,
}

// plainContributionFields are the fields of FeatureContribution: its
// numbers, read from the struct, and its term and confidence, resolved
// inline (the term from the vocabulary, or an organization the list primed:
// primeContributionOrgs).
var plainContributionFields = plainSet{"__typename": nil, "kind": nil, "term": plainTermFields, "weight": nil, "contribution": nil, "confidence": nil}

// primeContributionOrgs makes the organizations among a list of shared
// features resolve without waiting (Loaders.PrimeOrgs), before
// internal/gqlinline resolves the features' terms inline: the generated
// marshaller of [FeatureContribution!]! calls it first. An error is left
// to the terms' own resolution, which reports it.
func primeContributionOrgs(ctx context.Context, root ResolverRoot, cs []ilgraph.Contribution) {
	r, ok := root.(*Resolver)
	if !ok {
		return
	}
	var orgs []ilgraph.TermCount
	for _, c := range cs {
		if c.Kind == ilgraph.KindOrg {
			orgs = append(orgs, ilgraph.TermCount{Kind: c.Kind, ID: c.ID})
		}
	}
	if len(orgs) > 0 {
		_ = r.loaders(ctx).PrimeOrgs(ctx, orgs)
	}
}

// plainDrawNodeFields and plainDrawEdgeFields are the fields of a drawing's
// nodes and edges, every one read from the struct or a plain method of it.
var (
	plainDrawNodeFields = plainSet{"__typename": nil, "key": nil, "kind": nil, "id": nil, "label": nil, "count": nil}
	plainDrawEdgeFields = plainSet{"__typename": nil, "source": nil, "target": nil, "type": nil, "count": nil, "support": nil, "lift": nil}
)

// marshalPlainList marshals the n elements of a list. When sel asks only
// for plain fields it does so in the calling goroutine; otherwise, or when
// sel holds anything else, it leaves the list to gqlgen's
// MarshalSliceConcurrently (one goroutine per element, so that resolvers
// waiting on dataloaders wait together). The generated executor calls it
// for the list types internal/gqlinline names.
func marshalPlainList(ctx context.Context, sel ast.SelectionSet, plain plainSet, n int, workerLimit int64,
	omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if !onlyPlain(sel, plain) {
		return graphql.MarshalSliceConcurrently(ctx, n, workerLimit, omitPanicHandler, marshal)
	}
	ret := make(graphql.Array, n)
	for i := 0; i < n; i++ {
		ret[i] = marshalElement(ctx, i, omitPanicHandler, marshal)
	}
	return ret
}

func marshalElement(ctx context.Context, i int, omitPanicHandler bool, marshal func(ctx context.Context, i int) graphql.Marshaler) (m graphql.Marshaler) {
	child := graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i})
	if !omitPanicHandler {
		defer func() {
			if r := recover(); r != nil {
				graphql.AddError(child, graphql.Recover(child, r))
				m = graphql.Null
			}
		}()
	}
	return marshal(child, i)
}

// onlyPlain reports whether every field sel selects, through fragments
// too, is in plain, with a sub-selection only where plain gives the field
// a set of its own, and that sub-selection plain by that set.
func onlyPlain(sel ast.SelectionSet, plain plainSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			sub, ok := plain[s.Name]
			if !ok || len(s.SelectionSet) > 0 && (sub == nil || !onlyPlain(s.SelectionSet, sub)) {
				return false
			}
		case *ast.InlineFragment:
			if !onlyPlain(s.SelectionSet, plain) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || !onlyPlain(s.Definition.SelectionSet, plain) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// The fields that internal/gqlinline has resolved in the calling goroutine,
// and why none of them waits on a dataloader's batch. TermCount.term: a
// vocabulary term from the core's snapshot, or an organization that the
// resolver returning the list primed (Loaders.PrimeOrgs).
// FeatureContribution.term: the same, the list primed by its marshaller
// (primeContributionOrgs); its confidence is read from the struct, as is
// Text.ko. Of Case:
//   - organization, year, dateKind, severity: read from the case itself;
//   - rootCause, components, symptoms, contributing, domains, mechanisms:
//     vocabulary terms, looked up in the core's vocabulary snapshot
//     (Resolver.term and Resolver.terms with a vocabulary kind; only
//     organizations go through a loader, and no case field lists them).

// deferredGroup is the deferred group of an object whose fields are fields
// (internal/gqlinline puts it where gqlgen calls graphql.NewDeferredGroup):
// that group when a field is deferred, an empty one otherwise, which gqlgen
// never reads — it reads the group only for a deferred field, and its
// Defers, empty then. Making one for every object cost a path (walking up
// the field contexts), a field set and a map: a fifth of what a page of
// cases allocated.
func deferredGroup(ctx context.Context, fields []graphql.CollectedField) graphql.DeferredGroup {
	for i := range fields {
		if fields[i].IsDeferred() {
			return graphql.NewDeferredGroup(ctx)
		}
	}
	return graphql.DeferredGroup{}
}

// object is a resolved object's JSON, written as graphql.FieldSet writes
// it — {"name":value,...} in the order of fields, each name its alias —
// without the field set's allocations for every field and object
// (internal/gqlinline returns one from every object without deferred
// fields, once its values are all resolved). A response name is a GraphQL
// name, which never needs escaping; CollectFields merges fields of the same
// name, and object skips a repeated one as FieldSet does all the same.
type object struct {
	fields []graphql.CollectedField
	values []graphql.Marshaler
}

var (
	openBrace, closeBrace = []byte{'{'}, []byte{'}'}
	nameStart, nameEnd    = []byte{',', '"'}, []byte{'"', ':'}
)

func (o object) MarshalGQL(w io.Writer) {
	writeFields(w, o.fields, func(w io.Writer, i int) { o.values[i].MarshalGQL(w) })
}

// writeFields writes {"name":value,...} for fields, each name its alias
// and each value written by value (called with the field's index); a
// repeated name is written once, the first time, as FieldSet does.
func writeFields(w io.Writer, fields []graphql.CollectedField, value func(w io.Writer, i int)) {
	w.Write(openBrace)
	first := true
next:
	for i := range fields {
		alias := fields[i].Alias
		for j := range i {
			if fields[j].Alias == alias {
				continue next
			}
		}
		if first {
			w.Write(nameStart[1:])
			first = false
		} else {
			w.Write(nameStart)
		}
		io.WriteString(w, alias)
		w.Write(nameEnd)
		value(w, i)
	}
	w.Write(closeBrace)
}

// Terms are the most numerous objects of most answers (a page of 100 cases
// with their tags has ~1,300), and most selections ask only for their
// labels. plainTerm and plainTerms write such a term, or list of terms,
// straight as JSON — the bytes gqlgen's own path writes, which
// TestPlainTermsAsGqlgen holds them to — without its context, field
// context, field set and marshaller for each term and each label.
// internal/gqlinline calls them first in _Term and in the marshaller of
// [Term!]!; they return nil, and gqlgen goes on, when the selection asks
// for anything else (kind, a resolver field, a deferred fragment).

// termLabel reports whether plainTerm writes the field name (a switch: it
// runs for every field of every term a response holds).
func termLabel(name string) bool {
	switch name {
	case "__typename", "id", "en", "ko", "description":
		return true
	}
	return false
}

var termType = []string{"Term"}

// labelsOnly reports whether fields are all labels, none deferred.
func labelsOnly(fields []graphql.CollectedField) bool {
	for i := range fields {
		if !termLabel(fields[i].Name) || fields[i].IsDeferred() {
			return false
		}
	}
	return true
}

// plainTerm is t's JSON when fields (collected for Term) ask only for its
// labels; nil otherwise.
func plainTerm(fields []graphql.CollectedField, t *ilgraph.Term) graphql.Marshaler {
	if !labelsOnly(fields) {
		return nil
	}
	return termJSON{fields, t}
}

// plainTerms is the JSON list of ts when sel asks only for their labels;
// nil otherwise.
func plainTerms(oc *graphql.OperationContext, sel ast.SelectionSet, ts []ilgraph.Term) graphql.Marshaler {
	if !onlyPlain(sel, plainTermFields) {
		return nil
	}
	fields := graphql.CollectFields(oc, sel, termType)
	if !labelsOnly(fields) {
		return nil
	}
	return termsJSON{fields, ts}
}

type termJSON struct {
	fields []graphql.CollectedField
	t      *ilgraph.Term
}

func (j termJSON) MarshalGQL(w io.Writer) { writeTerm(w, j.fields, j.t) }

type termsJSON struct {
	fields []graphql.CollectedField
	ts     []ilgraph.Term
}

var openBracket, closeBracket, comma = []byte{'['}, []byte{']'}, []byte{','}

func (j termsJSON) MarshalGQL(w io.Writer) {
	w.Write(openBracket)
	for i := range j.ts {
		if i > 0 {
			w.Write(comma)
		}
		writeTerm(w, j.fields, &j.ts[i])
	}
	w.Write(closeBracket)
}

var null = []byte("null")

// writeTerm writes t's labels that fields ask for, as object writes them.
func writeTerm(w io.Writer, fields []graphql.CollectedField, t *ilgraph.Term) {
	writeFields(w, fields, func(w io.Writer, i int) {
		switch fields[i].Name {
		case "__typename":
			writeString(w, "Term")
		case "id":
			writeString(w, t.ID)
		case "en":
			writeString(w, t.En)
		case "ko", "description":
			v := t.Ko
			if fields[i].Name == "description" {
				v = t.Description
			}
			if v == "" { // KoOrNil, DescriptionOrNil
				w.Write(null)
			} else {
				writeString(w, v)
			}
		}
	})
}

const hexDigits = "0123456789ABCDEF"

// writeString writes s as a JSON string the way graphql.MarshalString does
// (FuzzWriteString holds it to that).
func writeString(w io.Writer, s string) {
	io.WriteString(w, `"`)
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		io.WriteString(w, s[start:i])
		switch c {
		case '\t':
			io.WriteString(w, `\t`)
		case '\r':
			io.WriteString(w, `\r`)
		case '\n':
			io.WriteString(w, `\n`)
		case '\\':
			io.WriteString(w, `\\`)
		case '"':
			io.WriteString(w, `\"`)
		default:
			w.Write([]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf]})
		}
		start = i + 1
	}
	io.WriteString(w, s[start:])
	io.WriteString(w, `"`)
}
