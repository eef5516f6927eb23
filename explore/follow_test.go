package explore_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestWritesFollowedInMemory: writes through the core — creates (one of a
// new organization), updates that move tags and dates, deletes and a
// restore — are applied to the in-memory corpus without a build from
// Neo4j, and what the corpus answers afterwards is what a corpus built
// afresh from Neo4j answers: every list in every order, facets,
// statistics, co-occurrence, same root cause, each case's tags, and the
// similarity ranking by tags (the text channel keeps the build's
// statistics until the settling build; TestIndexWithMatchesBruteForce
// checks it).
func TestWritesFollowedInMemory(t *testing.T) {
	ctx := editorCtx()
	db := neo4jtest.MustOpenSeeds(t)
	src := memstore.NewSource(db)
	src.SettleAfter = -1 // no settling build: what answers is what the writes made
	sim := similarity.NewService(db, src)
	core := explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithWrites(db, loader.Validator{DB: db}))
	if _, err := src.Get(ctx); err != nil {
		t.Fatal(err)
	}
	seeds := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	free := unlinkedSeed(t)

	// Bodies: seed cases with another case's tags, dates and severity.
	tagsOf := func(body map[string]any, from string) {
		src := corpus.SeedJSON(t, from)
		for _, k := range []string{"root_cause", "components", "symptoms", "contributing", "mechanisms", "date", "severity"} {
			if v, ok := src[k]; ok {
				body[k] = v
			} else {
				delete(body, k)
			}
		}
	}
	var created []string
	for i := 0; i < 6; i++ {
		body := corpus.SeedJSON(t, seeds[i*7].ID)
		body["id"] = fmt.Sprintf("IL-%04d", 9100+i)
		if i%2 == 1 {
			tagsOf(body, seeds[i*11+3].ID)
		}
		if i == 4 {
			body["org"], body["org_slug"] = "Followed Example Org", "followed-example-org"
		}
		if _, err := core.CreateCase(ctx, marshal(t, body)); err != nil {
			t.Fatalf("create %s: %v", body["id"], err)
		}
		created = append(created, body["id"].(string))
	}
	for i, id := range []string{created[0], created[1], free.ID} {
		body := corpus.SeedJSON(t, free.ID)
		if id != free.ID {
			body = corpus.SeedJSON(t, seeds[i*7].ID)
			body["id"] = id
		}
		tagsOf(body, seeds[len(seeds)-1-i*5].ID)
		_, v, err := core.CaseJSON(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := core.UpdateCase(ctx, id, v, marshal(t, body)); err != nil {
			t.Fatalf("update %s: %v", id, err)
		}
	}
	for _, id := range []string{created[2], created[5], free.ID} {
		_, v, err := core.CaseJSON(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := core.DeleteCase(ctx, id, v); err != nil {
			t.Fatalf("delete %s: %v", id, err)
		}
	}
	hist, err := core.CaseHistory(ctx, free.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.RestoreCase(ctx, free.ID, hist[0].Version, 1); err != nil {
		t.Fatalf("restore %s: %v", free.ID, err)
	}

	followed, err := src.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if src.Builds() != 1 || followed.Applied != 13 {
		t.Errorf("after 13 writes: %d builds from Neo4j, %d changes applied; want 1 and 13", src.Builds(), followed.Applied)
	}
	if v, _ := db.CorpusVersion(ctx); followed.Version != v {
		t.Errorf("the followed corpus is at version %d, the graph at %d", followed.Version, v)
	}
	freshSrc := memstore.NewSource(db)
	freshSim := similarity.NewService(db, freshSrc)
	fresh, err := freshSrc.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, want := followed.Snapshot, fresh.Snapshot
	if got.Len() != want.Len() {
		t.Fatalf("cases: followed %d, fresh %d", got.Len(), want.Len())
	}
	same := func(what string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: followed %v\nfresh %v", what, g, w)
		}
	}
	all := ilgraph.CaseFilter{}
	same("facets", got.Facets(all), want.Facets(all))
	same("stats", got.Stats(all), want.Stats(all))
	for _, k := range []ilgraph.Kind{ilgraph.KindComponent, ilgraph.KindMechanism, ilgraph.KindContributing} {
		same("co-occurrence of root causes and "+string(k), got.Cooccurrence(ilgraph.KindRootCause, k, all), want.Cooccurrence(ilgraph.KindRootCause, k, all))
	}
	for _, order := range []ilgraph.CaseSort{ilgraph.SortDateDesc, ilgraph.SortDateAsc, ilgraph.SortIDAsc, ilgraph.SortIDDesc} {
		g, gt := got.ListCases(all, order, 0, 10000)
		w, wt := want.ListCases(all, order, 0, 10000)
		same("list by "+string(order), fmt.Sprint(gt, ids(g)), fmt.Sprint(wt, ids(w)))
	}
	ixGot, err := sim.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ixWant, err := freshSim.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	opt := ilgraph.SimilarityOptions{K: 10, Weights: ilgraph.DefaultWeights(), Rarity: true}
	opt.Weights[ilgraph.WeightText] = 0
	for i := range want.Len() {
		id := want.ID(int32(i))
		gc, _ := got.CaseTags(id)
		wc, _ := want.CaseTags(id)
		gr, gt, _ := got.SameRootCause(id, 0, 1000)
		wr, wt, _ := want.SameRootCause(id, 0, 1000)
		gm, wm := ixGot.Similar(ixGot.Features(id), id, opt), ixWant.Similar(ixWant.Features(id), id, opt)
		ok := reflect.DeepEqual(gc, wc) && gt == wt && reflect.DeepEqual(gr, wr) && len(gm) == len(wm)
		for i := 0; ok && i < len(gm); i++ {
			ok = gm[i].ID == wm[i].ID && math.Abs(gm[i].Score-wm[i].Score) < 1e-9
		}
		if !ok {
			t.Errorf("case %s: tags %v / %v; same root cause %d / %d; similar %v / %v", id, gc, wc, gt, wt, matchIDs(gm), matchIDs(wm))
			if fails++; fails > 5 {
				t.Fatal("stopping")
			}
		}
	}
	// Through the core: the new organization's case ranks and is ranked.
	scs, err := core.Similar(context.Background(), created[4], explore.SimilarityQuery{K: 3})
	if err != nil || len(scs) == 0 {
		t.Errorf("similar to the created %s: %v, %v", created[4], scs, err)
	}
}

func matchIDs(ms []ilgraph.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s %.6f", m.ID, m.Score)
	}
	return out
}

// TestReplicaFollowsTheChangeFeed: two cores over one Neo4j, as two
// replicas of ilgraph serve. Writes through the first reach the second
// through the change feed — it catches up without building its corpus
// again — and both then answer as a corpus built afresh; a load by
// another process is followed from the feed as well, a load of 100 cases
// in one batch by a replica that follows that many, and built afresh by
// one that follows fewer.
func TestReplicaFollowsTheChangeFeed(t *testing.T) {
	ctx := editorCtx()
	db := neo4jtest.MustOpenSeeds(t)
	replica := func(maxFollow int) (*explore.Service, *memstore.Source, *similarity.Service) {
		src := memstore.NewSource(db)
		src.SettleAfter = -1
		src.MaxFollow = maxFollow
		src.Parse = loader.ParseCase
		sim := similarity.NewService(db, src)
		return explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithWrites(db, loader.Validator{DB: db})), src, sim
	}
	// The first follows at most 50 changes at once, the second as many
	// as the feed holds (memstore.DefaultMaxFollow).
	a, srcA, _ := replica(50)
	b, srcB, simB := replica(0)
	for _, src := range []*memstore.Source{srcA, srcB} {
		if _, err := src.Get(ctx); err != nil {
			t.Fatal(err)
		}
	}
	seeds := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	free := unlinkedSeed(t)
	body := corpus.SeedJSON(t, seeds[3].ID)
	body["id"] = "IL-9300"
	if _, err := a.CreateCase(ctx, marshal(t, body)); err != nil {
		t.Fatal(err)
	}
	upd := corpus.SeedJSON(t, free.ID)
	upd["severity"] = "sev0"
	_, v, _ := a.CaseJSON(ctx, free.ID)
	if _, err := a.UpdateCase(ctx, free.ID, v, marshal(t, upd)); err != nil {
		t.Fatal(err)
	}
	_, v, _ = a.CaseJSON(ctx, "IL-9300")
	if _, err := a.DeleteCase(ctx, "IL-9300", v); err != nil {
		t.Fatal(err)
	}
	body["id"] = "IL-9301"
	if _, err := a.CreateCase(ctx, marshal(t, body)); err != nil {
		t.Fatal(err)
	}
	// The second replica's next question finds the graph ahead; its
	// corpus catches up from the feed.
	got, err := b.Case(ctx, "IL-9301")
	if err != nil || got.ID != "IL-9301" {
		t.Fatalf("the second replica: case IL-9301: %v, %v", got, err)
	}
	cb, err := srcB.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if srcB.Builds() != 1 || srcB.Follows() == 0 || cb.Applied != 4 {
		t.Errorf("the second replica: %d builds, %d catch-ups from the feed, %d changes applied; want 1, at least 1, 4", srcB.Builds(), srcB.Follows(), cb.Applied)
	}
	ca, _ := srcA.Get(ctx)
	fresh, err := memstore.NewSource(db).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := ilgraph.CaseFilter{}
	for name, c := range map[string]*memstore.Corpus{"first": ca, "second": cb} {
		if c.Version != fresh.Version || !reflect.DeepEqual(c.Facets(all), fresh.Facets(all)) || !reflect.DeepEqual(c.Stats(all), fresh.Stats(all)) {
			t.Errorf("the %s replica at version %d does not answer as a fresh corpus at %d", name, c.Version, fresh.Version)
		}
		if tags, _ := c.CaseTags(free.ID); tags == nil || tags.Severity != "sev0" {
			t.Errorf("the %s replica: %s is %+v, want severity sev0", name, free.ID, tags)
		}
		if c.Has("IL-9300") || !c.Has("IL-9301") {
			t.Errorf("the %s replica: has the deleted IL-9300 %v, has IL-9301 %v", name, c.Has("IL-9300"), c.Has("IL-9301"))
		}
	}
	scs, err := b.Similar(context.Background(), "IL-9301", explore.SimilarityQuery{K: 3})
	if err != nil || len(scs) == 0 || scs[0].Case.ID != seeds[3].ID {
		t.Errorf("similar to IL-9301 on the second replica: %v, %v; want %s first (its copy)", scs, err, seeds[3].ID)
	}
	if ix, _ := simB.Index(ctx); ix.Version != fresh.Version {
		t.Errorf("the second replica's index is at %d, the graph at %d", ix.Version, fresh.Version)
	}

	// A load by another process publishes its cases to the feed: both
	// replicas follow it without a build, and answer as a fresh corpus.
	dir := t.TempDir()
	x := corpus.SeedJSON(t, seeds[5].ID)
	x["id"] = "IL-9302"
	if err := os.WriteFile(filepath.Join(dir, "extra.json"), marshal(t, x), 0o644); err != nil {
		t.Fatal(err)
	}
	other := seeds[7]
	if other.ID == free.ID {
		other = seeds[8]
	}
	sev := "sev0"
	if other.Severity == sev {
		sev = "sev1"
	}
	changed := corpus.SeedJSON(t, other.ID)
	changed["severity"] = sev
	if err := os.WriteFile(filepath.Join(dir, "changed.json"), marshal(t, changed), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fresh.Version
	if _, err := loader.Load(ctx, db, []string{filepath.Join(corpus.Seeds(t), "vocab.json"), dir}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	fresh, err = memstore.NewSource(db).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Version != before+2 {
		t.Errorf("a load of a new and a changed case moved the version from %d to %d, want +2 (one per case)", before, fresh.Version)
	}
	for name, src := range map[string]*memstore.Source{"first": srcA, "second": srcB} {
		builds := src.Builds()
		c, err := src.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if src.Builds() != builds || c.Version != fresh.Version {
			t.Errorf("after a load: the %s replica built %d times more, is at %d; want none, at %d", name, src.Builds()-builds, c.Version, fresh.Version)
		}
		if !c.Has("IL-9302") || !reflect.DeepEqual(c.Facets(all), fresh.Facets(all)) || !reflect.DeepEqual(c.Stats(all), fresh.Stats(all)) {
			t.Errorf("after a load: the %s replica has IL-9302 %v, answers as a fresh corpus %v", name, c.Has("IL-9302"),
				reflect.DeepEqual(c.Facets(all), fresh.Facets(all)) && reflect.DeepEqual(c.Stats(all), fresh.Stats(all)))
		}
		if tags, _ := c.CaseTags(other.ID); tags == nil || tags.Severity != sev {
			t.Errorf("after a load: the %s replica has %s as %+v, want severity %s", name, other.ID, tags, sev)
		}
	}

	// A load of 100 cases, more than a replica used to follow one at a
	// time (64): the second replica follows it in one batch, without a
	// build, and answers as a fresh corpus; the first, further behind than
	// it follows (50), builds its corpus afresh.
	many := filepath.Join(t.TempDir(), "many.jsonl")
	const n = 100
	if err := gen.WriteFile(many, corpus.Seeds(t), n, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Load(ctx, db, []string{filepath.Join(corpus.Seeds(t), "vocab.json"), many}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	fresh, err = memstore.NewSource(db).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name          string
		src           *memstore.Source
		builds, feeds int64
	}{{"first", srcA, 1, 0}, {"second", srcB, 0, 1}} {
		builds, follows := r.src.Builds(), r.src.Follows()
		c, err := r.src.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int64{r.src.Builds() - builds, r.src.Follows() - follows}; got != [2]int64{r.builds, r.feeds} || c.Version != fresh.Version {
			t.Errorf("after a load of %d cases: the %s replica built %d times and followed the feed %d times, is at %d; want %d and %d, at %d",
				n, r.name, got[0], got[1], c.Version, r.builds, r.feeds, fresh.Version)
		}
		if !c.Has(gen.ID(n)) || !reflect.DeepEqual(c.Facets(all), fresh.Facets(all)) || !reflect.DeepEqual(c.Stats(all), fresh.Stats(all)) {
			t.Errorf("after a load of %d cases: the %s replica has the last %v, answers as a fresh corpus %v", n, r.name, c.Has(gen.ID(n)),
				reflect.DeepEqual(c.Facets(all), fresh.Facets(all)) && reflect.DeepEqual(c.Stats(all), fresh.Stats(all)))
		}
	}
	// The tags rank alike on both (the rarity of every tag follows the new
	// corpus exactly); the text channel of the replica that followed keeps
	// its build's corpus statistics until its settling build.
	q := explore.SimilarityQuery{K: 10, Weights: ilgraph.DefaultWeights().TagsOnly()}
	sa, err := a.Similar(ctx, gen.ID(n), q)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Similar(ctx, gen.ID(n), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(sa) == 0 || fmt.Sprint(similarIDs(sa)) != fmt.Sprint(similarIDs(sb)) {
		t.Errorf("similar to %s by tags: the replica that built answers %v, the one that followed %v", gen.ID(n), similarIDs(sa), similarIDs(sb))
	}
}

func similarIDs(scs []explore.SimilarCase) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = fmt.Sprintf("%s %.6f", sc.Case.ID, sc.Score)
	}
	return out
}
