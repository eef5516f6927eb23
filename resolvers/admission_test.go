package resolvers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/ilgraph/ilgraph/internal/admission"
)

func schema() *ast.Schema {
	return NewExecutableSchema(Config{Resolvers: &Resolver{}}).Schema()
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		query string
		want  admission.Class
	}{
		{`{ case(id: "IL-0001") { id title { en } rootCause { id } } }`, admission.Lookup},
		{`{ vocabulary { id } term(kind: COMPONENT, id: "x") { id } }`, admission.Lookup},
		{`{ __typename }`, admission.Lookup},
		{`{ cases(first: 5) { nodes { id } } }`, admission.List},
		{`{ case(id: "x") { related { id } } }`, admission.List},
		{`{ case(id: "x") { similar { score } } }`, admission.Similarity},
		{`{ similarCases(caseId: "x") { score } cases { totalCount } }`, admission.Similarity},
		{`{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { edges { count } } }`, admission.Aggregate},
		// the most expensive wins, wherever it hides
		{`{ case(id: "x") { id } stats { cases } }`, admission.Aggregate},
		{`{ cases { facets { rootCauses { count } } } }`, admission.Aggregate},
		{`query { ...F } fragment F on Query { term(kind: COMPONENT, id: "x") { cooccurring(kind: SYMPTOM) { count } } }`, admission.Aggregate},
		{`{ ... on Query { similarToProfile(profile: {components: ["x"]}) { matches { score } } } }`, admission.Similarity},
		{`{ breakdown(rows: ROOT_CAUSE, columns: COMPONENT) { total } }`, admission.Aggregate},
		{`{ suggest(text: "disk full") { lang } }`, admission.Similarity},
		{`{ explainSimilarity(a: "x", b: "y") { score } }`, admission.Similarity},
	} {
		doc, err := gqlparser.LoadQueryWithRules(schema(), tt.query, rules.NewDefaultRules())
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := classify(doc.Operations[0], doc.Fragments); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.query, got, tt.want)
		}
	}
}

// A full class answers 503, OVERLOADED with Retry-After, without running
// anything; the other classes still answer.
func TestAdmissionRefusal(t *testing.T) {
	c := admission.New(admission.Config{Limits: [admission.NumClasses]admission.Limit{
		admission.Aggregate: {InFlight: 1, Queue: -1},
	}})
	hold, err := c.Acquire(context.Background(), admission.Aggregate)
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	srv := handler.New(NewExecutableSchema(Config{Resolvers: &Resolver{}}))
	srv.AddTransport(graphQLHTTP{admission: c, metrics: newMetrics(nil)})
	ask := func(query, accept string) (*httptest.ResponseRecorder, map[string]any) {
		body, _ := json.Marshal(map[string]string{"query": query})
		r := httptest.NewRequest("POST", "/graphql", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		var out map[string]any
		json.Unmarshal(w.Body.Bytes(), &out)
		return w, out
	}
	for _, accept := range []string{mediaJSON, mediaGraphQLResponse} {
		w, out := ask(`{ stats { cases } }`, accept)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "2" {
			t.Errorf("%s: HTTP %d Retry-After %q, want 503 and 2", accept, w.Code, w.Header().Get("Retry-After"))
		}
		if _, has := out["data"]; has {
			t.Errorf("%s: a refused request has a data entry: %s", accept, w.Body)
		}
		errs, _ := out["errors"].([]any)
		if len(errs) != 1 || !strings.Contains(w.Body.String(), `"code":"OVERLOADED"`) {
			t.Errorf("%s: body %s, want one OVERLOADED error", accept, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, accept) {
			t.Errorf("Content-Type %q for Accept %s", ct, accept)
		}
	}
	if w, _ := ask(`{ __typename }`, mediaJSON); w.Code != 200 || !strings.Contains(w.Body.String(), `"Query"`) {
		t.Errorf("a lookup while aggregates are full: HTTP %d %s", w.Code, w.Body)
	}
	if c.Running(admission.Lookup) != 0 {
		t.Errorf("the lookup's slot was not given back")
	}
}

// Every root field is in the one table of classes (so that a new one is
// classified on purpose, not a lookup by default), and every GraphQL entry
// of the table names a field of the schema.
func TestEveryRootFieldClassified(t *testing.T) {
	s := schema()
	for _, f := range s.Query.Fields {
		if strings.HasPrefix(f.Name, "__") {
			continue
		}
		if _, ok := admission.Classes["Query."+f.Name]; !ok {
			t.Errorf("Query.%s has no cost class in admission.Classes", f.Name)
		}
	}
	for key := range admission.Classes {
		if strings.Contains(key, " ") {
			continue // the JSON API's and MCP's
		}
		typ, field, _ := strings.Cut(key, ".")
		def := s.Types[typ]
		if def == nil || def.Fields.ForName(field) == nil {
			t.Errorf("admission.Classes names %s, which the schema does not have", key)
		}
	}
}
