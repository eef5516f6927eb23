// Command gqlinline edits gqlgen's generated executor after each
// generation (go generate runs it right after gqlgen; see generate.go).
//
// gqlgen marshals every element of a list of objects in a goroutine of its
// own (graphql.MarshalSliceConcurrently), which lets the elements' resolvers
// wait on dataloaders together. For a list of vocabulary terms, or of a
// drawing's nodes or edges, whose selection reads only plain struct fields
// or methods there is nothing to wait for,
// and the goroutines cost more than the work: a page of 100 cases with
// their tags is ~1,300 of them, and stack growth and allocation took most
// of the server's CPU (docs/benchmarks.md), and so were the ~570 of a
// co-occurrence graph of root causes and components. This command routes the
// marshalling of the listed list types through resolvers.marshalPlainList,
// which marshals in the calling goroutine when the selection is plain and
// falls back to gqlgen's concurrent marshalling otherwise.
//
// gqlgen also resolves every field that has a resolver in a goroutine of
// its own (FieldSet.ResolveConcurrently), for the same reason. A case's tags
// and labels have resolvers only to look terms up in the core's in-memory
// vocabulary, which never waits on a dataloader; a page of 100 cases with
// six kinds of tags started 600 such goroutines, and growing their stacks
// took a third of the server's CPU. The fields listed in inline are
// resolved in the calling goroutine instead, as gqlgen resolves plain
// fields. A field may be listed only when its resolver never waits on a
// dataloader's batch (resolvers/inline.go says why each listed one is safe);
// a facet's or a statistic's counts resolve their terms that way too.
//
// Every field, plain or not, went through graphql.ResolveField: a field
// context made and put in the context, the field middleware called, the
// value boxed in an interface and asserted back. For a leaf read straight
// from the struct (obj.ID, obj.KoOrNil()) that is most of the field's
// cost, and a page of 100 cases with their tags has ~2,500 such leaves
// (docs/benchmarks.md, "Leaves written straight"). Such a field's function
// is rewritten to call its marshaller directly, when the marshaller is one
// of the scalars in leafMarshallers: they never fail and never read the
// context but to report a null that cannot happen (a string, an int, an ID
// or a boolean is never null; a nullable pointer marshals nil as null, as
// ResolveField would). Floats are left alone: a NaN fails at marshalling,
// and its error must carry the field's own path. Skipping ResolveField
// also skips field middleware; resolvers.TestNoFieldInterceptor fails if
// the server ever installs one.
//
// Every object, a term's two labels as much as a case, also made a
// deferred group for its @defer'd fields (graphql.NewDeferredGroup: the
// object's path, built by walking up the field contexts, a field set and a
// map), needed or not: a fifth of a page's allocations. The groups are now
// made by resolvers.deferredGroup, which makes one only when a field is
// deferred; gqlgen reads the group only then (FieldSet.ResolveConcurrently
// for a deferred field, and the group's Defers, empty otherwise).
//
// An object without deferred fields is then written by resolvers.object
// rather than by its graphql.FieldSet, whose writer allocates for every
// field it writes (a copy of the collected field, an iterator's closures)
// and a map per object to skip repeated names, which CollectFields has
// already merged.
//
// A list of a similar case's shared features is primed first
// (resolvers.primeContributionOrgs), so that its terms, resolved inline,
// never wait on a loader's batch one by one.
//
// Terms whose selection asks only for their labels are written by
// resolvers.plainTerm and resolvers.plainTerms (see there), called first in
// _Term and in the marshaller of [Term!]!.
//
// It fails when a listed function or the code it rewrites is missing, so
// that a gqlgen upgrade which changes the generated code is noticed.
package main

import (
	"fmt"
	"go/format"
	"os"
	"regexp"
	"strings"
)

// lists are the generated marshal functions to route, each with the name
// of the plain-field set (in package resolvers) for its element type.
var lists = []struct{ fn, plain string }{
	{"marshalNTerm2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐTermᚄ", "plainTermFields"},
	{"marshalNDrawNode2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐNodeᚄ", "plainDrawNodeFields"},
	{"marshalNDrawEdge2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐEdgeᚄ", "plainDrawEdgeFields"},
	{"marshalNTermCount2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐTermCountᚄ", "plainTermCountFields"},
	{"marshalNCase2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐCaseᚄ", "plainCaseFields"},
	{"marshalNFeatureContribution2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐContributionᚄ", "plainContributionFields"},
}

// leafMarshallers are the generated scalar marshallers a plain leaf may
// call directly (see the package comment).
var leafMarshallers = map[string]bool{
	"marshalNString2string":  true,
	"marshalOString2ᚖstring": true,
	"marshalNID2string":      true,
	"marshalNInt2int":        true,
	"marshalOInt2ᚖint":       true,
	"marshalNBoolean2bool":   true,
	"marshalOBoolean2bool":   true,
	"marshalNKind2githubᚗcomᚋilgraphᚋilgraphᚐKind": true,
}

// leaf matches a generated field function whose value is read straight
// from the object (a field or a method without arguments), with no field
// middleware: its name, object type, the read, and its marshaller.
var leaf = regexp.MustCompile(`func \(ec \*executionContext\) (_\w+)\(ctx context\.Context, field graphql\.CollectedField, obj (\*?[\w.]+)\) \(ret graphql\.Marshaler\) \{\n\treturn graphql\.ResolveField\(\n\t\tctx,\n\t\tec\.OperationContext,\n\t\tfield,\n\t\tfunc\(ctx context\.Context, field graphql\.CollectedField\) \(\*graphql\.FieldContext, error\) \{\n\t\t\treturn ec\.fieldContext_\w+\(ctx, field\)\n\t\t\},\n\t\tfunc\(ctx context\.Context\) \(any, error\) \{\n\t\t\treturn (obj\.\w+(?:\(\))?), nil\n\t\t\},\n\t\tnil,\n\t\tfunc\(ctx context\.Context, selections ast\.SelectionSet, v [^)]+\) graphql\.Marshaler \{\n\t\t\treturn ec\.(marshal[^(]+)\(ctx, selections, v\)\n\t\t\},\n\t\t(?:true|false),\n\t\t(?:true|false),\n\t\)\n\}`)

// leafSentinels must be direct after the rewrite: if gqlgen changes the
// shape leaf matches, they are not, and the command fails.
var leafSentinels = []string{"_Term_id", "_Term_en", "_Term_ko", "_Term_kind", "_Case_id"}

var call = regexp.MustCompile(`graphql\.MarshalSliceConcurrently\(ctx, len\(v\), `)

// inline are the fields to resolve in the calling goroutine, by object.
var inline = []struct {
	object string
	fields []string
}{
	{"Case", []string{"organization", "year", "dateKind", "severity", "rootCause", "components", "symptoms", "contributing", "domains", "mechanisms"}},
	{"TermCount", []string{"term"}},
	{"Text", []string{"ko"}},
	{"FeatureContribution", []string{"term", "confidence"}},
}

// concurrent matches gqlgen's concurrent resolution of one field of an
// object (field name, non-null flag, object, field name again).
var concurrent = regexp.MustCompile(`case "(\w+)":\s*out\.ResolveConcurrently\(ec\.OperationContext, &deferred, i,\s*true, (true|false),\s*func\(ctx context\.Context\) graphql\.Marshaler \{\s*return ec\._(\w+)_(\w+)\(ctx, field, obj\)\s*\}\)`)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gqlinline resolvers/generated.go")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gqlinline:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	src := string(b)
	for _, l := range lists {
		head := "func (ec *executionContext) " + l.fn + "("
		start := strings.Index(src, head)
		if start < 0 {
			return fmt.Errorf("%s: no function %s", path, l.fn)
		}
		end := strings.Index(src[start:], "\n}\n")
		if end < 0 {
			return fmt.Errorf("%s: function %s has no end", path, l.fn)
		}
		end += start
		body := src[start:end]
		loc := call.FindStringIndex(body)
		if loc == nil {
			if strings.Contains(body, "marshalPlainList(") {
				continue // already routed
			}
			return fmt.Errorf("%s: %s does not call graphql.MarshalSliceConcurrently as expected", path, l.fn)
		}
		body = body[:loc[0]] + "marshalPlainList(ctx, sel, " + l.plain + ", len(v), " + body[loc[1]:]
		src = src[:start] + body + src[end:]
	}
	for _, o := range inline {
		head := "func (ec *executionContext) _" + o.object + "(ctx context.Context, sel ast.SelectionSet, obj "
		start := strings.Index(src, head)
		if start < 0 {
			return fmt.Errorf("%s: no function _%s", path, o.object)
		}
		end := strings.Index(src[start:], "\n}\n") + start
		body := src[start:end]
		for _, f := range o.fields {
			done := false
			body = concurrent.ReplaceAllStringFunc(body, func(m string) string {
				g := concurrent.FindStringSubmatch(m)
				if g[1] != f || g[3] != o.object || g[4] != f {
					return m
				}
				done = true
				r := "case \"" + f + "\":\n\t\t\tout.Values[i] = ec._" + o.object + "_" + f + "(ctx, field, obj)"
				if g[2] == "true" {
					r += "\n\t\t\tif out.Values[i] == graphql.Null {\n\t\t\t\tatomic.AddUint32(&out.Invalids, 1)\n\t\t\t}"
				}
				return r
			})
			if !done && !strings.Contains(body, "case \""+f+"\":\n\t\t\tout.Values[i] = ec._"+o.object+"_"+f+"(ctx, field, obj)") {
				return fmt.Errorf("%s: _%s does not resolve %s concurrently as expected", path, o.object, f)
			}
		}
		src = src[:start] + body + src[end:]
	}
	src = leaf.ReplaceAllStringFunc(src, func(m string) string {
		g := leaf.FindStringSubmatch(m)
		if !leafMarshallers[g[4]] {
			return m
		}
		return "func (ec *executionContext) " + g[1] + "(ctx context.Context, field graphql.CollectedField, obj " + g[2] +
			") (ret graphql.Marshaler) {\n\treturn ec." + g[4] + "(ctx, field.Selections, " + g[3] + ")\n}"
	})
	const newGroup, ownGroup = "deferred := graphql.NewDeferredGroup(ctx)", "deferred := deferredGroup(ctx, fields)"
	if !strings.Contains(src, newGroup) && !strings.Contains(src, ownGroup) {
		return fmt.Errorf("%s: no object makes a deferred group as expected", path)
	}
	src = strings.ReplaceAll(src, newGroup, ownGroup)
	const tail = "\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}"
	const ownTail = "\t\tec.ProcessDeferredGroup(deferred)\n\t\treturn out\n\t}\n\n\treturn object{fields, out.Values}\n}"
	if !strings.Contains(src, tail) && !strings.Contains(src, ownTail) {
		return fmt.Errorf("%s: no object ends as expected", path)
	}
	src = strings.ReplaceAll(src, tail, ownTail)
	for _, in := range []struct{ at, add string }{
		{"func (ec *executionContext) _Term(ctx context.Context, sel ast.SelectionSet, obj *ilgraph.Term) graphql.Marshaler {\n\tfields := graphql.CollectFields(ec.OperationContext, sel, termImplementors)\n",
			"\tif m := plainTerm(fields, obj); m != nil {\n\t\treturn m\n\t}\n"},
		{"func (ec *executionContext) marshalNTerm2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐTermᚄ(ctx context.Context, sel ast.SelectionSet, v []ilgraph.Term) graphql.Marshaler {\n",
			"\tif m := plainTerms(ec.OperationContext, sel, v); m != nil {\n\t\treturn m\n\t}\n"},
		{"func (ec *executionContext) marshalNFeatureContribution2ᚕgithubᚗcomᚋilgraphᚋilgraphᚐContributionᚄ(ctx context.Context, sel ast.SelectionSet, v []ilgraph.Contribution) graphql.Marshaler {\n",
			"\tprimeContributionOrgs(ctx, ec.Resolvers, v)\n"},
	} {
		i := strings.Index(src, in.at)
		if i < 0 {
			return fmt.Errorf("%s: no %.60s... as expected", path, in.at)
		}
		if j := i + len(in.at); !strings.HasPrefix(src[j:], in.add) {
			src = src[:j] + in.add + src[j:]
		}
	}
	for _, f := range leafSentinels {
		head := "func (ec *executionContext) " + f + "(ctx context.Context, field graphql.CollectedField, obj "
		i := strings.Index(src, head)
		if i < 0 {
			return fmt.Errorf("%s: no function %s", path, f)
		}
		if !strings.HasPrefix(src[i+strings.Index(src[i:], "{\n"):], "{\n\treturn ec.marshal") {
			return fmt.Errorf("%s: %s does not read its field as expected", path, f)
		}
	}
	out, err := format.Source([]byte(src))
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
