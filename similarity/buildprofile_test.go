package similarity_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// TestBuildProfile measures what a server does after a load: the similarity
// index (the read model) built by similarity.Load, and the suggestion
// engine its service builds, over the corpus already in the Neo4j that
// NEO4J_URI names (read only; nothing is loaded or changed). It runs only
// with ILGRAPH_BUILD_PROFILE=1, since it needs a big corpus to say anything:
//
//	ILGRAPH_BUILD_PROFILE=1 NEO4J_URI=bolt://127.0.0.1:7695 go test -run TestBuildProfile -v -timeout 60m ./similarity/
//
// It logs, per phase, the wall time, the bytes allocated and the peak of
// live heap (sampled every 20 ms), and with ILGRAPH_BUILD_PROFILE_DIR set
// writes a heap profile after each build there. ILGRAPH_BUILD_PROFILE_SKIP
// may name "phases" (the separate read and text steps) and "suggest" to
// leave them out.
func TestBuildProfile(t *testing.T) {
	if os.Getenv("ILGRAPH_BUILD_PROFILE") != "1" {
		t.Skip("set ILGRAPH_BUILD_PROFILE=1 and NEO4J_URI to a Neo4j with a corpus")
	}
	ctx := context.Background()
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		t.Fatalf("NEO4J_URI=%s: %v", os.Getenv("NEO4J_URI"), err)
	}
	defer db.Close()
	skip := os.Getenv("ILGRAPH_BUILD_PROFILE_SKIP")
	dir := os.Getenv("ILGRAPH_BUILD_PROFILE_DIR")

	phase := func(name string, fn func()) {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		peak := sampleHeap()
		start := time.Now()
		fn()
		took := time.Since(start)
		hi := peak()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		t.Logf("%-28s %8.2f s  alloc %7.0f MB  peak live heap %6.0f MB (from %4.0f MB)  GOMAXPROCS %d",
			name, took.Seconds(), float64(after.TotalAlloc-before.TotalAlloc)/1e6, float64(hi)/1e6,
			float64(before.HeapAlloc)/1e6, runtime.GOMAXPROCS(0))
	}
	writeHeap := func(name string) {
		if dir == "" {
			return
		}
		runtime.GC()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("heap profile %s: %v", name, err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatalf("heap profile %s: %v", name, err)
		}
	}

	if !strings.Contains(skip, "phases") {
		var rows []ilgraph.CaseFeatures
		phase("read rows (SimilarityRows)", func() {
			if err := db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { rows = append(rows, r) }); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%d cases", len(rows))
		phase("text vectors", func() { similarity.TextVectors(rows) })
		phase("Build (tags + text)", func() { similarity.Build(rows, 0) })
		rows = nil
	}

	var ix *similarity.Index
	phase("similarity.Load", func() {
		ix, err = similarity.Load(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
	})
	writeHeap("index.heap")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("index of %d cases: live heap %.0f MB", ix.Len(), float64(ms.HeapAlloc)/1e6)

	if !strings.Contains(skip, "suggest") {
		svc := suggest.NewService(db, memstore.NewSource(db), suggest.Options{})
		phase("suggest engine (service)", func() {
			if _, err := svc.Suggest(ctx, "Kinesis front-end servers hit the OS thread limit", ""); err != nil {
				t.Fatal(err)
			}
		})
		writeHeap("both.heap")
		runtime.KeepAlive(svc)
	}
	runtime.KeepAlive(ix)
}

// sampleHeap samples the live heap every 20 ms until the function it
// returns is called, which returns the highest sample.
func sampleHeap() func() uint64 {
	var hi atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > hi.Load() {
			hi.Store(v)
		}
	}
	go func() {
		defer wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(stop)
		wg.Wait()
		read()
		return hi.Load()
	}
}
