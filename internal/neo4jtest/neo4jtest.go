// Package neo4jtest opens the real Neo4j that tests run against.
//
// Tests that touch the store call MustOpen. It connects with the same
// NEO4J_* variables as ilgraph (default bolt://127.0.0.1:7687, which
// scripts/neo4j starts) and FAILS the test when Neo4j cannot be reached: a
// test that needs the database never skips. Community edition has one
// database, so test binaries that use it take a machine-wide lock and run one
// at a time, and every MustOpen starts from an empty graph.
package neo4jtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/loader"
)

var (
	lockOnce sync.Once
	lockErr  error
	// lockFile stays referenced for the life of the process: closing it, or
	// letting the garbage collector finalize it, would release the lock.
	//lint:ignore U1000 written once and never read: holding it is its job
	lockFile *os.File
)

// lock takes an exclusive lock that other test processes wait for. It is
// held until this process exits.
func lock() error {
	lockOnce.Do(func() {
		path := filepath.Join(os.TempDir(), "ilgraph-neo4j-tests.lock")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			lockErr = err
			return
		}
		lockErr = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		lockFile = f
	})
	return lockErr
}

// useTestServer points the process at the test server of
// scripts/neo4j-test when NEO4J_URI is not set, so that tests, which empty
// the database, never reach the server `make run` serves on the default
// port. Code under test reads the same variables.
func useTestServer() {
	if os.Getenv("NEO4J_URI") != "" {
		return
	}
	os.Setenv("NEO4J_URI", "bolt://127.0.0.1:7688")
	os.Setenv("NEO4J_HTTP_PORT", "7475")
	os.Setenv("NEO4J_USER", "neo4j")
	if os.Getenv("NEO4J_PASSWORD") == "" {
		os.Setenv("NEO4J_PASSWORD", "ilgraph-test")
	}
}

// MustOpen returns a connection to an emptied Neo4j with the schema in
// place, closed when the test ends. Without NEO4J_URI it uses the test
// server (scripts/neo4j-test), never the default one.
func MustOpen(tb testing.TB) *graph.DB {
	tb.Helper()
	db := open(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := db.Reset(ctx); err != nil {
		tb.Fatalf("emptying Neo4j: %v", err)
	}
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("creating the schema: %v", err)
	}
	return db
}

// MustOpenSeeds is MustOpen with the seed corpus (seeds/) loaded, the
// set-up of most tests that read the graph.
func MustOpenSeeds(tb testing.TB) *graph.DB {
	tb.Helper()
	db := MustOpen(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := loader.Load(ctx, db, []string{corpus.Seeds(tb)}, loader.Options{}); err != nil {
		tb.Fatalf("loading the seeds: %v", err)
	}
	return db
}

// MustOpenKeep is MustOpen without emptying the graph, for benchmarks that
// reuse a large corpus loaded by an earlier run.
func MustOpenKeep(tb testing.TB) *graph.DB {
	tb.Helper()
	return open(tb)
}

// open takes the lock and connects; it fails the test, never skips it,
// when Neo4j cannot be reached.
func open(tb testing.TB) *graph.DB {
	tb.Helper()
	useTestServer()
	if err := lock(); err != nil {
		tb.Fatalf("taking the Neo4j test lock: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := graph.ConfigFromEnv()
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		tb.Fatalf("this test needs Neo4j at %s and cannot reach it: %v\n(start it with scripts/neo4j-test start, or run make test)", cfg.URI, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
