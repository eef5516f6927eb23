package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
)

// TestMissionQueryFromDocs pastes the mission's example query from
// docs/graph-model.md into Neo4j's HTTP endpoint (/db/neo4j/tx/commit), as
// an analyst would, and compares its answer with one computed from the
// case files.
func TestMissionQueryFromDocs(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	if _, err := loader.Load(context.Background(), db, []string{corpus.Seeds(t)}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(corpus.Root(t), "docs", "graph-model.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- mission-query")
	if !ok {
		t.Fatal("docs/graph-model.md has no mission-query marker")
	}
	_, rest, _ = strings.Cut(rest, "```cypher\n")
	query, _, _ := strings.Cut(rest, "```")

	var matches []*ilgraph.Case
	for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
		if c.ID != "IL-0384" && c.RootCause == "capacity" && slices.Contains(c.Contributing, "circular-dependency") {
			matches = append(matches, c)
		}
	}
	// ORDER BY c.date DESC, c.id
	slices.SortFunc(matches, func(a, b *ilgraph.Case) int {
		if a.Date != b.Date {
			return strings.Compare(b.Date, a.Date)
		}
		return strings.Compare(a.ID, b.ID)
	})
	var want []string
	for _, c := range matches {
		want = append(want, c.Date+" "+c.ID)
	}

	port := os.Getenv("NEO4J_HTTP_PORT")
	if port == "" {
		port = "7474"
	}
	body, _ := json.Marshal(map[string]any{"statements": []map[string]any{{"statement": query}}})
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+port+"/db/neo4j/tx/commit", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if pw := os.Getenv("NEO4J_PASSWORD"); pw != "" {
		user := os.Getenv("NEO4J_USER")
		if user == "" {
			user = "neo4j"
		}
		req.SetBasicAuth(user, pw)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("Neo4j's HTTP endpoint: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Results []struct {
			Columns []string `json:"columns"`
			Data    []struct {
				Row []any `json:"row"`
			} `json:"data"`
		} `json:"results"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) > 0 || len(out.Results) != 1 {
		t.Fatalf("query failed: %v", out.Errors)
	}
	var got []string
	for _, d := range out.Results[0].Data {
		got = append(got, d.Row[1].(string)+" "+d.Row[0].(string))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mission query from the docs:\n got %v\nwant %v", got, want)
	}
	if len(want) == 0 {
		t.Error("the seed corpus has no case the mission's example can find; the example shows nothing")
	}
}
