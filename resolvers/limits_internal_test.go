package resolvers

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

func TestCapErrors(t *testing.T) {
	var list gqlerror.List
	for i := 0; i < 250; i++ {
		list = append(list, gqlerror.Errorf("error %d %s", i, strings.Repeat("é", 400)))
	}
	capped := capErrors(list, 100)
	if len(capped) != 101 || capped[100].Message != "too many errors: 150 more not shown" || capped[100].Extensions["code"] != "LIMIT" {
		t.Fatalf("%d errors, last %q", len(capped), capped[100].Message)
	}
	if m := capped[0].Message; len(m) > maxMessage+len("…") || !strings.HasSuffix(m, "…") || !strings.HasPrefix(m, "error 0 ") {
		t.Fatalf("long message not shortened on a rune boundary: %d bytes %q", len(m), m[len(m)-8:])
	}
	// Capping again (the transport, then the response middleware) changes nothing.
	if again := capErrors(capped, 100); len(again) != 101 || again[100] != capped[100] {
		t.Fatalf("capped twice: %d errors, last %q", len(again), again[len(again)-1].Message)
	}
	if short := capErrors(list[:3], 100); len(short) != 3 {
		t.Fatalf("3 errors became %d", len(short))
	}
}

func TestCountDocument(t *testing.T) {
	doc, err := parser.ParseQuery(&ast.Source{Input: `
		query Q($a: Int @d1) @d2 { x: case(id: "1") @d3 { id ...F @d4 ... on Case @d5 { y: id } } z: term(kind: A, id: "b") { id } }
		fragment F on Case @d6 { title { en } w: id @d7 @d8 }`})
	if err != nil {
		t.Fatal(err)
	}
	if f, a, d := countDocument(doc); f != 8 || a != 4 || d != 8 {
		t.Fatalf("fields %d aliases %d directives %d, want 8, 4, 8", f, a, d)
	}
}
