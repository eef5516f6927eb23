package jsonapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/resolvers"
)

// TestReadsPinOneCorpus: a read of several questions (similar cases with
// their tags, a topic page, a case's same-root-cause list) reads the
// corpus version once, as a GraphQL query does; and a read right after
// another process changed the cases answers with the change.
func TestReadsPinOneCorpus(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	core := apitest.Core(db)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quiet()})
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()},
		Shell: httpapi.Options{Routes: apitest.JSONAPI(nil, api)}})
	versionReads := apitest.VersionReads(db)
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(t *testing.T, path string) (int, []byte) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, raw
	}
	// The corpus is built by the first answers from memory.
	for deadline := time.Now().Add(time.Minute); ; {
		if _, check := core.Pin(ctx); check != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no corpus built after a minute")
		}
		get(t, "/cases?root_cause=capacity")
		time.Sleep(50 * time.Millisecond)
	}

	paths := []string{"/cases/IL-0064/similar", "/topics/root_cause/capacity", "/cases/IL-0064/same-root-cause", "/cases?root_cause=capacity&component=database"}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			get(t, path) // warm
			versionReads.Store(0)
			const n = 4
			for range n {
				if status, raw := get(t, path); status != http.StatusOK {
					t.Fatalf("%d %s", status, raw)
				}
			}
			if got := versionReads.Load(); got != n {
				t.Errorf("%d reads read the corpus version %d times, want %d (one each)", n, got, n)
			}
		})
	}

	t.Run("a change by another process is seen by the next read", func(t *testing.T) {
		total := func(t *testing.T) int {
			status, raw := get(t, "/cases?root_cause=capacity")
			var page struct{ Total int }
			if err := json.Unmarshal(raw, &page); status != http.StatusOK || err != nil {
				t.Fatalf("%d %s: %v", status, raw, err)
			}
			return page.Total
		}
		before := total(t)
		apitest.LoadElsewhere(t, "IL-9822")
		if status, raw := get(t, "/cases/IL-9822/same-root-cause"); status != http.StatusOK {
			t.Errorf("the added case's same-root-cause list right after the load: %d %s", status, raw)
		}
		if got := total(t); got != before+1 {
			t.Errorf("capacity-rooted cases right after the load: %d, want %d", got, before+1)
		}
	})
}
