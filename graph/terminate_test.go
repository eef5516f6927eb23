package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestTerminateOlderThan: a query left running (its client gone) is ended
// by the benchmark's TerminateOlderThan, and one younger than the age is
// not touched.
func TestTerminateOlderThan(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		// Minutes of counting, unless ended.
		done <- graph.WriteForTest(ctx, db, "UNWIND range(1, 10000000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x)", nil)
	}()
	b := graph.NewBench(db)
	deadline := time.Now().Add(30 * time.Second)
	ended := 0
	for ended == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		n, err := b.TerminateOlderThan(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("ended %d transactions younger than an hour", n)
		}
		if ended, err = b.TerminateOlderThan(ctx, 500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if ended != 1 {
		t.Fatalf("ended %d transactions, want the one left running", ended)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("the ended query answered as if it had finished")
		}
	case <-time.After(30 * time.Second):
		t.Error("the query still runs 30 s after it was ended")
	}
}
