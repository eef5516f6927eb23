package resolvers_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/resolvers"
)

// TestDocExamples runs every GraphQL example of the README and the API docs
// against the API over the seeds: each must sit inside a closed code fence,
// and each operation must validate and run without an error.
func TestDocExamples(t *testing.T) {
	a := mustAPI(t)
	// Mutations run as an editor (the server issues no tokens yet).
	srv := httptest.NewServer(newHandler(a.db, resolvers.Options{Logger: quietLogger()},
		httpapi.Options{Credentials: []httpapi.Credential{apitest.AsPrincipal(ilgraph.Principal{Name: "docs", Role: ilgraph.RoleEditor})}}))
	t.Cleanup(srv.Close)
	ed := *a
	ed.url, ed.client = srv.URL, srv.Client()
	root := corpus.Root(t)
	for _, name := range []string{"README.md", "docs/api.md", "docs/similarity.md"} {
		t.Run(name, func(t *testing.T) {
			a.t, ed.t = t, t
			raw, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := graphqlBlocks(string(raw))
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) == 0 {
				t.Fatal("no GraphQL example")
			}
			for _, b := range blocks {
				ops, err := operations(b)
				if err != nil {
					t.Errorf("example does not parse: %v\n%s", err, b)
					continue
				}
				for _, op := range ops {
					by := a
					if strings.HasPrefix(strings.TrimSpace(op), "mutation") {
						by = &ed
					}
					if errs := by.do(op, nil, nil); len(errs) > 0 {
						t.Errorf("example fails: %+v\n%s", errs, op)
					}
				}
			}
		})
	}
}

// graphqlBlocks returns the bodies of the ```graphql fences of a Markdown
// text, and an error when a fence is left open.
func graphqlBlocks(md string) ([]string, error) {
	var blocks []string
	var cur []string
	lang, open, openedAt := "", false, 0
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "```") {
			if open {
				cur = append(cur, line)
			}
			continue
		}
		if !open {
			open, openedAt, lang, cur = true, i+1, strings.TrimSpace(strings.TrimPrefix(line, "```")), nil
			continue
		}
		if strings.TrimSpace(line) != "```" {
			return nil, fmt.Errorf("line %d: a fence opens (%q) inside the one opened on line %d", i+1, line, openedAt)
		}
		open = false
		if lang == "graphql" {
			blocks = append(blocks, strings.Join(cur, "\n"))
		}
	}
	if open {
		return nil, fmt.Errorf("the code fence opened on line %d is never closed", openedAt)
	}
	return blocks, nil
}

// operations splits a block that holds several operations (anonymous ones
// cannot be chosen by name) into one text per operation.
func operations(block string) ([]string, error) {
	doc, err := parser.ParseQuery(&ast.Source{Input: block})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(block, "\n")
	var out []string
	for i, op := range doc.Operations {
		end := len(lines)
		if i+1 < len(doc.Operations) {
			end = doc.Operations[i+1].Position.Line - 1
		}
		out = append(out, strings.Join(lines[op.Position.Line-1:end], "\n"))
	}
	return out, nil
}
