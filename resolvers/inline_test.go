package resolvers

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ilgraph/ilgraph"
)

func TestOnlyPlain(t *testing.T) {
	field := func(name string, sub ...ast.Selection) *ast.Field {
		return &ast.Field{Name: name, SelectionSet: sub}
	}
	tests := []struct {
		name  string
		sel   ast.SelectionSet
		want  bool
		plain plainSet // plainTermFields when nil
	}{
		{"labels", ast.SelectionSet{field("id"), field("en"), field("ko"), field("description"), field("kind"), field("__typename")}, true, nil},
		{"a resolver field", ast.SelectionSet{field("id"), field("caseCount")}, false, nil},
		{"a list of cases", ast.SelectionSet{field("id"), field("cases", field("totalCount"))}, false, nil},
		{"a plain name with a sub-selection", ast.SelectionSet{field("id", field("x"))}, false, nil},
		{"plain fields in an inline fragment", ast.SelectionSet{&ast.InlineFragment{SelectionSet: ast.SelectionSet{field("en")}}}, true, nil},
		{"a resolver in an inline fragment", ast.SelectionSet{&ast.InlineFragment{SelectionSet: ast.SelectionSet{field("caseCount")}}}, false, nil},
		{"plain fields in a named fragment", ast.SelectionSet{&ast.FragmentSpread{Definition: &ast.FragmentDefinition{SelectionSet: ast.SelectionSet{field("id"), field("ko")}}}}, true, nil},
		{"a resolver in a named fragment", ast.SelectionSet{&ast.FragmentSpread{Definition: &ast.FragmentDefinition{SelectionSet: ast.SelectionSet{field("cooccurring")}}}}, false, nil},
		{"an unresolved fragment", ast.SelectionSet{&ast.FragmentSpread{}}, false, nil},
		// Nested sets: a count and its term's labels.
		{"count and the term's labels", ast.SelectionSet{field("count"), field("term", field("id"), field("en"))}, true, plainTermCountFields},
		{"a resolver of the term", ast.SelectionSet{field("count"), field("term", field("id"), field("caseCount"))}, false, plainTermCountFields},
		{"a term's list of cases", ast.SelectionSet{field("term", field("cases", field("totalCount")))}, false, plainTermCountFields},
		{"a sub-selection of a leaf", ast.SelectionSet{field("count", field("x"))}, false, plainTermCountFields},
		{"the term's labels in a fragment", ast.SelectionSet{field("term", &ast.InlineFragment{SelectionSet: ast.SelectionSet{field("ko")}})}, true, plainTermCountFields},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := tt.plain
			if plain == nil {
				plain = plainTermFields
			}
			if got := onlyPlain(tt.sel, plain); got != tt.want {
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

// TestPlainFieldsAreInline checks each plain-field set against the
// generated executor: every field it names is a field of its type that the
// executor resolves in the calling goroutine (out.Values[i] = ...), never
// one it resolves concurrently, which could wait on a dataloader.
func TestPlainFieldsAreInline(t *testing.T) {
	src, err := os.ReadFile("generated.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		typ   string
		plain plainSet
	}{
		{"Term", plainTermFields},
		{"TermCount", plainTermCountFields},
		{"DrawNode", plainDrawNodeFields},
		{"DrawEdge", plainDrawEdgeFields},
		{"Text", plainTextFields},
		{"Case", plainCaseFields},
		{"FeatureContribution", plainContributionFields},
	} {
		t.Run(tt.typ, func(t *testing.T) {
			head := "func (ec *executionContext) _" + tt.typ + "(ctx context.Context, sel ast.SelectionSet, obj "
			start := bytes.Index(src, []byte(head))
			if start < 0 {
				t.Fatalf("generated.go has no %s...", head)
			}
			end := bytes.Index(src[start:], []byte("\n}\n"))
			body := string(src[start : start+end])
			for name := range tt.plain {
				if name == "__typename" {
					continue
				}
				c := strings.Index(body, "case \""+name+"\":")
				if c < 0 {
					t.Errorf("%s has no field %q", tt.typ, name)
					continue
				}
				next := strings.TrimSpace(body[c+len(name)+8:])
				if !strings.HasPrefix(next, "out.Values[i] = ec._"+tt.typ+"_"+name+"(ctx, field, obj)") {
					t.Errorf("%s.%s is not resolved inline: %.80s", tt.typ, name, next)
				}
			}
		})
	}
}

// TestNoFieldInterceptor holds the server's extensions to what
// internal/gqlinline assumes when it writes plain leaf fields straight
// through their marshaller: no extension intercepts fields, so skipping the
// field middleware skips nothing.
func TestNoFieldInterceptor(t *testing.T) {
	schema := NewExecutableSchema(Config{})
	for _, introspection := range []bool{false, true} {
		for _, ext := range extensions(schema, lru.New[*ast.QueryDocument](1), Options{Introspection: &introspection}) {
			if _, ok := ext.(graphql.FieldInterceptor); ok {
				t.Errorf("extension %T intercepts fields: plain leaves (internal/gqlinline) would skip it", ext)
			}
		}
	}
}

// TestLeavesAreWrittenDirectly checks that internal/gqlinline rewrote the
// plain leaves of the hot types (a case's id and date, a term's labels):
// each calls its marshaller, with no graphql.ResolveField.
func TestLeavesAreWrittenDirectly(t *testing.T) {
	src, err := os.ReadFile("generated.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"_Term_kind", "_Term_id", "_Term_en", "_Term_ko", "_Term_description", "_Case_id", "_Case_date", "_TermCount_count"} {
		head := "func (ec *executionContext) " + f + "(ctx context.Context, field graphql.CollectedField, obj "
		start := bytes.Index(src, []byte(head))
		if start < 0 {
			t.Errorf("generated.go has no %s", f)
			continue
		}
		end := bytes.Index(src[start:], []byte("\n}\n"))
		if body := string(src[start : start+end]); strings.Contains(body, "graphql.ResolveField(") || !strings.Contains(body, "return ec.marshal") {
			t.Errorf("%s is not written directly:\n%s", f, body)
		}
	}
}

func TestDeferredGroup(t *testing.T) {
	plain := []graphql.CollectedField{{Field: &ast.Field{Name: "id", Alias: "id"}}, {Field: &ast.Field{Name: "en", Alias: "en"}}}
	if g := deferredGroup(context.Background(), plain); g.FieldSet != nil || g.Defers != nil {
		t.Errorf("no field deferred: got a group %+v, want the empty one", g)
	}
	deferred := append(plain, graphql.CollectedField{Field: &ast.Field{Name: "cases", Alias: "cases"}, Deferrables: []*graphql.Deferrable{{Label: "later"}}})
	if g := deferredGroup(context.Background(), deferred); g.FieldSet == nil || g.Defers == nil {
		t.Errorf("a field deferred: got %+v, want a group made by graphql.NewDeferredGroup", g)
	}
	both := append(plain, graphql.CollectedField{Field: &ast.Field{Name: "cases", Alias: "cases"}, Deferrables: []*graphql.Deferrable{{Label: "later"}}, IsNonDeferrable: true})
	if g := deferredGroup(context.Background(), both); g.FieldSet != nil {
		t.Errorf("a field selected deferred and not: got a group, want the empty one (gqlgen does not defer it)")
	}
}

// TestObjectWritesAsFieldSet holds object to gqlgen's own writer: the same
// bytes for the same fields and values.
func TestObjectWritesAsFieldSet(t *testing.T) {
	field := func(alias string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Name: "f", Alias: alias}}
	}
	tests := []struct {
		name   string
		fields []graphql.CollectedField
		values []graphql.Marshaler
	}{
		{"none", nil, nil},
		{"one", []graphql.CollectedField{field("id")}, []graphql.Marshaler{graphql.MarshalString("a \"quoted\"\n값")}},
		{"several kinds", []graphql.CollectedField{field("__typename"), field("n"), field("ok"), field("nothing"), field("list")},
			[]graphql.Marshaler{graphql.MarshalString("Term"), graphql.MarshalInt(-3), graphql.MarshalBoolean(true), graphql.Null,
				graphql.Array{graphql.MarshalString("x"), graphql.Null}}},
		{"a repeated name", []graphql.CollectedField{field("a"), field("b"), field("a")}, []graphql.Marshaler{graphql.MarshalInt(1), graphql.MarshalInt(2), graphql.MarshalInt(3)}},
		{"nested", []graphql.CollectedField{field("t")}, []graphql.Marshaler{object{[]graphql.CollectedField{field("id"), field("en")}, []graphql.Marshaler{graphql.MarshalID("capacity"), graphql.MarshalString("Capacity")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := graphql.NewFieldSet(tt.fields)
			copy(fs.Values, tt.values)
			var want, got bytes.Buffer
			fs.MarshalGQL(&want)
			object{tt.fields, tt.values}.MarshalGQL(&got)
			if got.String() != want.String() {
				t.Errorf("got %s, want %s", got.String(), want.String())
			}
		})
	}
}

// FuzzWriteString holds writeString to gqlgen's string marshaller, byte
// for byte.
func FuzzWriteString(f *testing.F) {
	for _, s := range []string{"", "capacity", "용량 또는 한도 초과", "a \"quoted\" \\ path", "tab\tcr\rnl\n", "\x00\x01\x1f\x7f", "bad \xff utf-8 \xc3", "emoji 😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&want)
		writeString(&got, s)
		if got.String() != want.String() {
			t.Errorf("writeString(%q) = %s, want %s", s, got.String(), want.String())
		}
	})
}

// TestPlainTermsAsGqlgen holds plainTerm and plainTerms to the JSON gqlgen
// writes for the same fields with its own marshallers (as the generated
// _Term does: an ID, strings, null for an empty ko or description), and
// checks when they decline.
func TestPlainTermsAsGqlgen(t *testing.T) {
	terms := []ilgraph.Term{
		{Kind: ilgraph.KindRootCause, ID: "capacity", En: "Capacity \"limits\"", Ko: "용량", Description: "Ran out\tof room"},
		{Kind: ilgraph.KindComponent, ID: "dns", En: "DNS"},
	}
	field := func(name, alias string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Name: name, Alias: alias}}
	}
	gqlgen := func(fields []graphql.CollectedField, tm *ilgraph.Term) string {
		fs := graphql.NewFieldSet(fields)
		for i, f := range fields {
			switch f.Name {
			case "__typename":
				fs.Values[i] = graphql.MarshalString("Term")
			case "id":
				fs.Values[i] = graphql.MarshalID(tm.ID)
			case "en":
				fs.Values[i] = graphql.MarshalString(tm.En)
			case "ko", "description":
				v := tm.KoOrNil()
				if f.Name == "description" {
					v = tm.DescriptionOrNil()
				}
				fs.Values[i] = graphql.Null
				if v != nil {
					fs.Values[i] = graphql.MarshalString(*v)
				}
			}
		}
		var b bytes.Buffer
		fs.MarshalGQL(&b)
		return b.String()
	}
	for _, tt := range []struct {
		name   string
		fields []graphql.CollectedField
	}{
		{"labels", []graphql.CollectedField{field("id", "id"), field("en", "en")}},
		{"every label, aliased", []graphql.CollectedField{field("__typename", "__typename"), field("id", "key"), field("en", "name"), field("ko", "ko"), field("description", "about")}},
		{"a label twice", []graphql.CollectedField{field("id", "id"), field("en", "id")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want, got bytes.Buffer
			want.WriteString("[")
			for i := range terms {
				var one bytes.Buffer
				m := plainTerm(tt.fields, &terms[i])
				if m == nil {
					t.Fatal("plainTerm declined labels")
				}
				m.MarshalGQL(&one)
				if w := gqlgen(tt.fields, &terms[i]); one.String() != w {
					t.Errorf("term %d: got %s, want %s", i, one.String(), w)
				}
				if i > 0 {
					want.WriteString(",")
				}
				want.WriteString(gqlgen(tt.fields, &terms[i]))
			}
			want.WriteString("]")
			termsJSON{tt.fields, terms}.MarshalGQL(&got)
			if got.String() != want.String() {
				t.Errorf("list: got %s, want %s", got.String(), want.String())
			}
		})
	}
	for _, tt := range []struct {
		name   string
		fields []graphql.CollectedField
	}{
		{"kind", []graphql.CollectedField{field("id", "id"), field("kind", "kind")}},
		{"a resolver", []graphql.CollectedField{field("id", "id"), field("caseCount", "caseCount")}},
		{"deferred", []graphql.CollectedField{{Field: &ast.Field{Name: "en", Alias: "en"}, Deferrables: []*graphql.Deferrable{{Label: "l"}}}}},
	} {
		if m := plainTerm(tt.fields, &terms[0]); m != nil {
			t.Errorf("%s: plainTerm wrote it, want nil (gqlgen's path)", tt.name)
		}
	}
}
