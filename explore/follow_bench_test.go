package explore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// BenchmarkWriteVisibility measures writes through the core over the corpus
// the Neo4j already holds (it loads nothing; load a generated corpus first,
// as make bench does, and point NEO4J_URI at it). Each write updates a
// case's severity and one of its components; then, at once, the in-memory
// store is asked for the case (its new severity), a list filtered by the
// new component (which must hold it), and the cases similar to it (ranked
// by its new tags). Reported, as p50 and p99 milliseconds:
//   - write: the write's answer (the Neo4j transaction and the in-memory
//     change), alone and under a read load;
//   - visible: from the write's answer until all three questions answer
//     with it (the first list after a write also makes the sort orders
//     again);
//   - read: requests of 8 readers (lists, facets, similar cases, same root
//     cause) with no write, and while writes run.
//
// The baseline is what a write cost before the in-memory store followed
// writes, measured in the same run: a build of the corpus from Neo4j
// (full-build-ms), which every write forced before the next question the
// store answered.
func BenchmarkWriteVisibility(b *testing.B) {
	db := neo4jtest.MustOpenKeep(b)
	ctx := editorCtx()
	src := memstore.NewSource(db)
	src.SettleAfter = -1
	sim := similarity.NewService(db, src)
	store := memstore.NewStore(src)
	core := explore.New(db, sim, explore.WithReadModel(store), explore.WithWrites(db, loader.Validator{DB: db}))
	start := time.Now()
	c, err := src.Get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	if c.Len() < 100 {
		b.Fatalf("the database holds %d cases: load a corpus first", c.Len())
	}
	b.Logf("%d cases; corpus built from Neo4j in %s", c.Len(), build.Round(time.Millisecond))
	b.ReportMetric(float64(build.Milliseconds()), "full-build-ms")
	ids := make([]string, c.Len())
	for i := range ids {
		ids[i] = c.ID(int32(i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	components := []string{"cache", "background-jobs", "search-index", "application-database", "key-value-store", "object-storage"}
	const writes = 60

	// write updates the case id and asks for it; ok false when the
	// vocabulary's rules refuse the change for this case (another is
	// taken).
	write := func(id string) (took, visible time.Duration, ok bool) {
		raw, v, err := core.CaseJSON(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(raw), &body); err != nil {
			b.Fatal(err)
		}
		sev := ilgraph.Severities[1+r.IntN(len(ilgraph.Severities)-1)]
		body["severity"] = sev
		comps, _ := body["components"].([]any)
		comp := components[r.IntN(len(components))]
		for slices.Contains(comps, any(comp)) {
			comp = components[r.IntN(len(components))]
		}
		if len(comps) > 0 {
			comps[0] = comp
		} else {
			comps = []any{comp}
		}
		body["components"] = comps
		data, _ := json.Marshal(body)
		t0 := time.Now()
		if _, err := core.UpdateCase(ctx, id, v, data); ilgraph.ErrorCode(err) == ilgraph.EINVALID {
			return 0, 0, false
		} else if err != nil {
			b.Fatalf("update %s: %v", id, err)
		}
		took = time.Since(t0)
		t1 := time.Now()
		gots, ok, err := store.CasesTags(ctx, []string{id})
		var got *ilgraph.Case
		if ok {
			got = gots[0]
		}
		if err != nil || !ok || got == nil || got.Severity != sev {
			b.Fatalf("%s after its write: %+v, ok %v, %v; want severity %s", id, got, ok, err, sev)
		}
		filter := ilgraph.CaseFilter{Severities: []string{sev}, Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AllOf: []string{comp}}}}
		first := explore.MaxPageSize
		l, err := core.Cases(ctx, explore.CaseQuery{Filter: filter, Sort: ilgraph.SortDateDesc, Page: explore.Page{First: &first}, TagsOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if l.TotalCount == 0 {
			b.Fatalf("%s is not in the list of %s cases with %s after its write", id, sev, comp)
		}
		scs, err := core.Similar(ctx, id, explore.SimilarityQuery{K: 5})
		if err != nil || len(scs) == 0 {
			b.Fatalf("similar to %s after its write: %v, %v", id, len(scs), err)
		}
		return took, time.Since(t1), true
	}
	// writeSome makes n writes, each of a case drawn at random.
	writeSome := func(n int) (took, visible []time.Duration) {
		for len(took) < n {
			if t, v, ok := write(ids[r.IntN(len(ids))]); ok {
				took, visible = append(took, t), append(visible, v)
			}
		}
		return took, visible
	}
	reader := func(stop <-chan struct{}, out *[]time.Duration, mu *sync.Mutex, seed uint64) {
		rr := rand.New(rand.NewPCG(seed, 9))
		ctx := context.Background()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := ids[rr.IntN(len(ids))]
			t0 := time.Now()
			var err error
			switch i % 4 {
			case 0:
				first := 20
				_, err = core.Cases(ctx, explore.CaseQuery{Filter: ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{components[i%len(components)]}}}}, Sort: ilgraph.SortDateDesc, Page: explore.Page{First: &first}, TagsOnly: true})
			case 1:
				_, err = core.Facets(ctx, ilgraph.CaseFilter{}, 20)
			case 2:
				_, err = core.Similar(ctx, id, explore.SimilarityQuery{K: 10})
			default:
				first := 20
				_, err = core.SameRootCause(ctx, id, explore.Page{First: &first})
			}
			if err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			*out = append(*out, time.Since(t0))
			mu.Unlock()
		}
	}
	report := func(name string, ds []time.Duration) {
		slices.Sort(ds)
		ms := func(q float64) float64 {
			return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
		}
		b.ReportMetric(ms(0.5), name+"-p50-ms")
		b.ReportMetric(ms(0.99), name+"-p99-ms")
		b.Logf("%s: %d samples, p50 %.1f ms, p99 %.1f ms, max %.1f ms", name, len(ds), ms(0.5), ms(0.99), float64(ds[len(ds)-1].Microseconds())/1000)
	}
	writeSome(5) // untimed: the first writes warm Neo4j's caches and plans
	b.ResetTimer()
	for b.Loop() {
		took, visible := writeSome(writes)
		report("write", took)
		report("visible", visible)

		runReads := func(d time.Duration, during func()) []time.Duration {
			var mu sync.Mutex
			var out []time.Duration
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for k := 0; k < 8; k++ {
				wg.Add(1)
				go func() { defer wg.Done(); reader(stop, &out, &mu, uint64(k)) }()
			}
			if during != nil {
				during()
			} else {
				time.Sleep(d)
			}
			close(stop)
			wg.Wait()
			return out
		}
		report("read", runReads(10*time.Second, nil))
		var tookLoaded, visibleLoaded []time.Duration
		reads := runReads(0, func() { tookLoaded, visibleLoaded = writeSome(writes) })
		report("write-under-reads", tookLoaded)
		report("visible-under-reads", visibleLoaded)
		report("read-during-writes", reads)
	}
	if n := src.Builds(); n != 1 {
		b.Errorf("the corpus was built %d times from Neo4j; the writes should have been followed in memory", n)
	}
	b.Logf("%s", fmt.Sprint("builds from Neo4j: ", src.Builds()))
}
