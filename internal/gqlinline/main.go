// Command gqlinline edits gqlgen's generated executor after each
// generation (go generate runs it right after gqlgen; see generate.go).
//
// gqlgen marshals every element of a list of objects in a goroutine of its
// own (graphql.MarshalSliceConcurrently), which lets the elements' resolvers
// wait on dataloaders together. For a list of vocabulary terms whose
// selection reads only plain struct fields there is nothing to wait for,
// and the goroutines cost more than the work: a page of 100 cases with
// their tags is ~1,300 of them, and stack growth and allocation took most
// of the server's CPU (docs/benchmarks.md). This command routes the
// marshalling of the listed list types through resolvers.marshalPlainList,
// which marshals in the calling goroutine when the selection is plain and
// falls back to gqlgen's concurrent marshalling otherwise.
//
// It fails when a listed function or the call it rewrites is missing, so
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
}

var call = regexp.MustCompile(`graphql\.MarshalSliceConcurrently\(ctx, len\(v\), `)

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
	out, err := format.Source([]byte(src))
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
