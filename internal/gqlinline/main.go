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
}

var call = regexp.MustCompile(`graphql\.MarshalSliceConcurrently\(ctx, len\(v\), `)

// inline are the fields to resolve in the calling goroutine, by object.
var inline = []struct {
	object string
	fields []string
}{
	{"Case", []string{"organization", "year", "dateKind", "severity", "rootCause", "components", "symptoms", "contributing", "domains", "mechanisms"}},
	{"TermCount", []string{"term"}},
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
	out, err := format.Source([]byte(src))
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
