package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestQueryPinsOneCorpus: a query of several questions answered from
// memory reads the corpus version once, beside the whole operation, not
// once per question; and a query that comes after another process changed
// the cases answers with the change (the operation over the old corpus is
// thrown away and run again), never from before it.
func TestQueryPinsOneCorpus(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	src := memstore.NewSource(db)
	core := explore.New(db, similarity.NewService(db, src), explore.WithReadModel(memstore.NewStore(src)))
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}})
	var versionReads, otherReads atomic.Int64
	db.SetQueryHook(func(name string, _ time.Duration) {
		if name == "reading the corpus version" {
			versionReads.Add(1)
		} else {
			otherReads.Add(1)
		}
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	if _, err := src.Get(ctx); err != nil { // the corpus is built
		t.Fatal(err)
	}

	const query = `query Several($id: ID!) {
  a: case(id: $id) { id rootCause { id } }
  b: sameRootCause(caseId: $id, first: 3) { totalCount }
  c: stats { cases }
  d: cases(filter: {rootCauses: ["capacity"]}, first: 2) { totalCount nodes { id title { en } organization { en } } }
}`
	type answer struct {
		A *struct{ ID string }
		C struct{ Cases int }
		D struct{ TotalCount int }
	}
	ask := func(t *testing.T, id string) answer {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"id": id}})
		resp, err := srv.Client().Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var env struct {
			Data   answer
			Errors []json.RawMessage
		}
		if err := json.Unmarshal(raw, &env); err != nil || len(env.Errors) > 0 {
			t.Fatalf("%s: %v", raw, err)
		}
		return env.Data
	}

	t.Run("one version read for the operation", func(t *testing.T) {
		ask(t, "IL-0064") // warm: loaders, caches
		versionReads.Store(0)
		otherReads.Store(0)
		const n = 5
		for range n {
			if got := ask(t, "IL-0064"); got.A == nil || got.A.ID != "IL-0064" {
				t.Fatalf("case = %+v, want IL-0064", got.A)
			}
		}
		if got := versionReads.Load(); got != n {
			t.Errorf("%d queries of four questions read the corpus version %d times, want %d (one each)", n, got, n)
		}
		if got := otherReads.Load(); got != 0 {
			t.Errorf("%d other queries sent to Neo4j, want none: every question is answered from memory", got)
		}
	})

	t.Run("none for a query that reads no case", func(t *testing.T) {
		versionReads.Store(0)
		for range 5 {
			resp, err := srv.Client().Post(srv.URL+"/graphql", "application/json", strings.NewReader(`{"query":"{ __typename }"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		if got := versionReads.Load(); got != 0 {
			t.Errorf("5 { __typename } queries read the corpus version %d times, want none", got)
		}
	})

	t.Run("a change by another process is seen by the next query", func(t *testing.T) {
		before := ask(t, "IL-0064")
		apitest.LoadElsewhere(t, "IL-9821")
		got := ask(t, "IL-9821")
		if got.A == nil || got.A.ID != "IL-9821" {
			t.Errorf("the added case right after the load: %+v, want IL-9821", got.A)
		}
		if got.C.Cases != before.C.Cases+1 {
			t.Errorf("stats right after the load: %d cases, want %d", got.C.Cases, before.C.Cases+1)
		}
		if got.D.TotalCount != before.D.TotalCount+1 {
			t.Errorf("capacity-rooted cases right after the load: %d, want %d", got.D.TotalCount, before.D.TotalCount+1)
		}
	})
}
