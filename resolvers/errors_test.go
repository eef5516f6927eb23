package resolvers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUnavailableHidesInternals: with Neo4j unreachable (a closed port,
// nothing stopped), a client reads the code and a short message — no
// address, no operator advice — and the log has both, with the request id.
func TestUnavailableHidesInternals(t *testing.T) {
	cfg := graph.ConfigFromEnv()
	cfg.URI = "bolt://127.0.0.1:1" // nothing listens there
	cfg.RetryTime = 200 * time.Millisecond
	db, err := graph.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs syncBuffer
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	h := apitest.New(explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src))), apitest.Options{
		GraphQL: resolvers.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}, Shell: httpapi.Options{Ready: db.Ping}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	leaks := []string{"127.0.0.1", "bolt://", "scripts/", "NEO4J_", "Neo4j", "dial", "connection refused"}

	for i, query := range []string{
		`{ case(id: "IL-0384") { id } }`,
		`{ cooccurrence(from: ROOT_CAUSE, to: COMPONENT) { edges { count } } }`,
		`{ similarCases(caseId: "IL-0384") { score } }`,
	} {
		id := "unreachable-" + string(rune('a'+i))
		req, _ := http.NewRequest("POST", srv.URL+"/graphql", strings.NewReader(`{"query":`+jsonString(query)+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Errors []gqlError
		}
		if err := json.Unmarshal(raw, &out); err != nil || len(out.Errors) == 0 {
			t.Fatalf("%s: %s", query, raw)
		}
		if code := out.Errors[0].Extensions["code"]; code != "UNAVAILABLE" {
			t.Errorf("%s: code %v (%s), want UNAVAILABLE", query, code, raw)
		}
		for _, leak := range leaks {
			if strings.Contains(string(raw), leak) {
				t.Errorf("%s: the client reads %q: %s", query, leak, raw)
			}
		}
		// The log line with this request id has the detail.
		found := false
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"request_id":"`+id+`"`) && strings.Contains(line, "127.0.0.1:1") && strings.Contains(line, "scripts/neo4j start") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no log line with request id %s and the detail; logs:\n%s", query, id, logs.String())
		}
	}
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("/readyz: HTTP %d", resp.StatusCode)
	}
	for _, leak := range leaks {
		if strings.Contains(string(raw), leak) {
			t.Errorf("/readyz reads %q: %s", leak, raw)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
