package resolvers

import (
	"context"
	"errors"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
)

func TestOnlyPlain(t *testing.T) {
	field := func(name string, sub ...ast.Selection) *ast.Field {
		return &ast.Field{Name: name, SelectionSet: sub}
	}
	tests := []struct {
		name string
		sel  ast.SelectionSet
		want bool
	}{
		{"labels", ast.SelectionSet{field("id"), field("en"), field("ko"), field("description"), field("kind"), field("__typename")}, true},
		{"a resolver field", ast.SelectionSet{field("id"), field("caseCount")}, false},
		{"a list of cases", ast.SelectionSet{field("id"), field("cases", field("totalCount"))}, false},
		{"a plain name with a sub-selection", ast.SelectionSet{field("id", field("x"))}, false},
		{"plain fields in an inline fragment", ast.SelectionSet{&ast.InlineFragment{SelectionSet: ast.SelectionSet{field("en")}}}, true},
		{"a resolver in an inline fragment", ast.SelectionSet{&ast.InlineFragment{SelectionSet: ast.SelectionSet{field("caseCount")}}}, false},
		{"plain fields in a named fragment", ast.SelectionSet{&ast.FragmentSpread{Definition: &ast.FragmentDefinition{SelectionSet: ast.SelectionSet{field("id"), field("ko")}}}}, true},
		{"a resolver in a named fragment", ast.SelectionSet{&ast.FragmentSpread{Definition: &ast.FragmentDefinition{SelectionSet: ast.SelectionSet{field("cooccurring")}}}}, false},
		{"an unresolved fragment", ast.SelectionSet{&ast.FragmentSpread{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := onlyPlain(tt.sel, plainTermFields); got != tt.want {
				t.Errorf("onlyPlain = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBatchFailureKeepsTheError(t *testing.T) {
	failed := errors.New("the database timed out")
	fetch := batch(func(_ context.Context, keys []string) ([]int, error) { return nil, failed })
	vs, errs := fetch(context.Background(), []string{"a", "b", "c"})
	if len(vs) != 3 || len(errs) != 3 {
		t.Fatalf("%d values and %d errors for 3 keys, want 3 and 3", len(vs), len(errs))
	}
	for i, err := range errs {
		if !errors.Is(err, failed) {
			t.Errorf("key %d: error %v, want %v", i, err, failed)
		}
	}
	ok := batch(func(_ context.Context, keys []string) ([]int, error) { return []int{1, 2}, nil })
	if vs, errs := ok(context.Background(), []string{"a", "b"}); len(vs) != 2 || errs != nil {
		t.Errorf("a fetch that worked: %v %v", vs, errs)
	}
}
