package graph_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestAuthentication checks how the app meets Neo4j's authentication. With
// a password configured (the test server runs with auth on), a wrong one is
// refused with an error that says so (in its cause: the command line prints
// it, the API logs it and tells its clients only that the database is
// unavailable); with none (auth off), connecting
// without credentials works.
func TestAuthentication(t *testing.T) {
	neo4jtest.MustOpen(t)
	cfg := graph.ConfigFromEnv()
	ctx := context.Background()
	if os.Getenv("NEO4J_PASSWORD") != "" {
		bad := cfg
		bad.Password += "-wrong"
		_, err := graph.Open(ctx, bad)
		if ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE || !strings.Contains(err.Error(), "refused the credentials") ||
			strings.Contains(ilgraph.ErrorMessage(err), cfg.URI) {
			t.Errorf("wrong password: got %v, want a clear credentials error", err)
		}
		if strings.Contains(err.Error(), bad.Password) {
			t.Error("the error shows the password")
		}
		return
	}
	none := cfg
	none.User, none.Password = "", ""
	db, err := graph.Open(ctx, none)
	if err != nil {
		t.Fatalf("auth off: connecting without credentials: %v", err)
	}
	db.Close()
}

func TestUnreachableIsAClearError(t *testing.T) {
	cfg := graph.ConfigFromEnv()
	cfg.URI = "bolt://127.0.0.1:1" // nothing listens there
	_, err := graph.Open(context.Background(), cfg)
	if ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE || !strings.Contains(ilgraph.ErrorMessage(err), "unreachable") {
		t.Errorf("got %v, want an unavailable error saying Neo4j is unreachable", err)
	}
}

// TestFailFast: after a transaction finds Neo4j unreachable, the next ones
// fail at once with the same UNAVAILABLE error for FailFast, then try
// again.
func TestFailFast(t *testing.T) {
	cfg := graph.ConfigFromEnv()
	cfg.URI = "bolt://127.0.0.1:1" // nothing listens there
	cfg.RetryTime = 300 * time.Millisecond
	cfg.FailFast = time.Hour
	db, err := graph.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	_, first := db.CaseHashes(ctx, []string{"IL-0001"})
	if ilgraph.ErrorCode(first) != ilgraph.EUNAVAILABLE {
		t.Fatalf("first: %v", first)
	}
	_, second := db.CaseHashes(ctx, []string{"IL-0001"})
	if second != first {
		t.Fatalf("second: %v, want the first error again, at once", second)
	}
	off := cfg
	off.FailFast = 0
	db2, _ := graph.Connect(off)
	defer db2.Close()
	db2.CaseHashes(ctx, nil)
	if _, err := db2.CaseHashes(ctx, nil); ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE || err == first {
		t.Fatalf("without FailFast: %v", err)
	}
}

// TestFailFastBeforeTheRetriesEnd: with FailFast on, a transaction that
// cannot reach Neo4j does not wait out the driver's retries (RetryTime and
// a last back-off): after FailFast a connectivity check finds the server
// unreachable, the transaction fails as UNAVAILABLE and FailFast starts.
func TestFailFastBeforeTheRetriesEnd(t *testing.T) {
	cfg := graph.ConfigFromEnv()
	cfg.URI = "bolt://127.0.0.1:1" // nothing listens there
	cfg.RetryTime = 30 * time.Second
	cfg.FailFast = 100 * time.Millisecond
	db, err := graph.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	_, err = db.CaseHashes(context.Background(), []string{"IL-0001"})
	took := time.Since(start)
	if ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE || !strings.Contains(ilgraph.ErrorMessage(err), "unreachable") {
		t.Fatalf("got %v, want UNAVAILABLE: unreachable", err)
	}
	// Without the check the driver retries for 30 s; the bound is loose
	// on purpose (shared machines), the point is that it did not retry.
	if took > cfg.RetryTime/2 {
		t.Errorf("took %v: the transaction waited out the driver's retries", took)
	}
	if !db.Down() {
		t.Error("FailFast did not start")
	}
}

// TestFailFastLeavesSlowWorkAlone: on a healthy Neo4j, a transaction that
// runs longer than FailFast is checked, found reachable and left to finish.
func TestFailFastLeavesSlowWorkAlone(t *testing.T) {
	neo4jtest.MustOpen(t)
	cfg := graph.ConfigFromEnv()
	cfg.RetryTime = 2 * time.Second
	cfg.FailFast = 10 * time.Millisecond
	db, err := graph.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 3_000_000
	got, err := graph.SlowCount(context.Background(), db, n)
	if err != nil {
		t.Fatalf("slow count: %v", err)
	}
	if want := int64(n / 7); got != want {
		t.Errorf("slow count %d, want %d", got, want)
	}
	if db.Down() {
		t.Error("a healthy Neo4j was taken for down")
	}
}
