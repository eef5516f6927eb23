package explore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// editor is the principal the write tests act as.
var editor = ilgraph.Principal{Name: "alice", Role: ilgraph.RoleEditor}

func editorCtx() context.Context {
	return ilgraph.NewContextWithPrincipal(context.Background(), editor)
}

// writingCore is the core as cmd/ilgraph wires it (the in-memory store as
// read model, the loader's validator) over the seeds in Neo4j.
func writingCore(t *testing.T) (*explore.Service, *graph.DB) {
	t.Helper()
	db := neo4jtest.MustOpenSeeds(t)
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	return explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithWrites(db, loader.Validator{DB: db})), db
}

// seedJSON returns a seed case's file as a generic JSON object.

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := ilgraph.ErrorCode(err); got != code {
		t.Fatalf("got %v (code %q), want code %q", err, got, code)
	}
}

// A seed case no other case names, whose copy is the one under test.
func unlinkedSeed(t *testing.T) *ilgraph.Case {
	t.Helper()
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	named := map[string]bool{}
	for _, c := range cases {
		for _, r := range c.Related {
			named[r] = true
		}
		named[c.RecurrenceOf] = true
	}
	for _, c := range cases {
		if !named[c.ID] && len(c.Related) == 0 && c.RecurrenceOf == "" {
			return c
		}
	}
	t.Fatal("no seed case is free of links")
	return nil
}

func TestWritesNeedAnEditor(t *testing.T) {
	core := explore.New(nil, nil) // never reached: authorization comes first
	for _, tc := range []struct {
		ctx  context.Context
		code string
	}{
		{context.Background(), ilgraph.EUNAUTHORIZED},
		{ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "r", Role: ilgraph.RoleReviewer}), ilgraph.EFORBIDDEN},
	} {
		_, err := core.CreateCase(tc.ctx, []byte(`{}`))
		wantCode(t, err, tc.code)
		_, err = core.UpdateCase(tc.ctx, "IL-0001", 1, []byte(`{}`))
		wantCode(t, err, tc.code)
		_, err = core.DeleteCase(tc.ctx, "IL-0001", 1)
		wantCode(t, err, tc.code)
		_, err = core.RestoreCase(tc.ctx, "IL-0001", 1, 1)
		wantCode(t, err, tc.code)
	}
}

// TestCaseWrites takes one case through create, a stale update, an update,
// a delete and a restore, and after each write asks every question that
// shows it: the case by id, lists (from the read model), facets, same root
// cause, and similar cases both with the case as the query and as a match.
func TestCaseWrites(t *testing.T) {
	core, db := writingCore(t)
	ctx := editorCtx()
	seed := unlinkedSeed(t)
	body := corpus.SeedJSON(t, seed.ID)
	body["id"] = "IL-9001"
	title := body["title"].(map[string]any)
	title["en"] = "A copy of " + seed.ID + " written through the core"
	v1 := marshal(t, body)

	rootFilter := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindRootCause: {AnyOf: []string{seed.RootCause}}}}
	listed := func() (ids []string, total int) {
		t.Helper()
		l, err := core.Cases(ctx, explore.CaseQuery{Filter: rootFilter, Page: fullPage(), TagsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range l.Cases {
			ids = append(ids, c.ID)
		}
		return ids, l.TotalCount
	}
	facetOf := func(kind ilgraph.Kind, id string) int {
		t.Helper()
		f, err := core.Facets(ctx, ilgraph.CaseFilter{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range f.Terms[kind] {
			if tc.ID == id {
				return tc.Count
			}
		}
		return 0
	}
	similarIDs := func(id string) []string {
		t.Helper()
		scs, err := core.Similar(ctx, id, explore.SimilarityQuery{K: 5})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sc := range scs {
			out = append(out, sc.Case.ID)
		}
		return out
	}
	_, total0 := listed()
	facet0 := facetOf(ilgraph.KindRootCause, seed.RootCause)
	corpus0, _ := db.CorpusVersion(ctx)

	rev, err := core.CreateCase(ctx, v1)
	if err != nil {
		t.Fatal(err)
	}
	if rev.Version != 1 || rev.Action != ilgraph.ActionCreate || rev.By != editor.Name || rev.Previous != "" || rev.JSON != compact(t, v1) {
		t.Errorf("create answered %+v", rev)
	}
	t.Run("visible at once", func(t *testing.T) {
		c, err := core.Case(ctx, "IL-9001")
		if err != nil || c.Version != 1 || c.Title.En != title["en"] {
			t.Fatalf("case by id: %+v, %v", c, err)
		}
		ids, total := listed()
		if total != total0+1 || !slices.Contains(ids, "IL-9001") {
			t.Errorf("list of root cause %s: %d cases (want %d), has IL-9001: %v", seed.RootCause, total, total0+1, slices.Contains(ids, "IL-9001"))
		}
		if got := facetOf(ilgraph.KindRootCause, seed.RootCause); got != facet0+1 {
			t.Errorf("facet count of %s: %d, want %d", seed.RootCause, got, facet0+1)
		}
		l, err := core.SameRootCause(ctx, seed.ID, fullPage())
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Refs) == 0 || l.Refs[0].Case.ID != "IL-9001" {
			t.Errorf("same root cause as %s: the copy, sharing every tag, is not first", seed.ID)
		}
		if got := similarIDs(seed.ID); len(got) == 0 || got[0] != "IL-9001" {
			t.Errorf("similar to %s: %v, want the copy first", seed.ID, got)
		}
		if got := similarIDs("IL-9001"); len(got) == 0 || got[0] != seed.ID {
			t.Errorf("similar to the copy: %v, want %s first", got, seed.ID)
		}
		if v, _ := db.CorpusVersion(ctx); v != corpus0+1 {
			t.Errorf("corpus version %d, want %d", v, corpus0+1)
		}
	})

	_, err = core.CreateCase(ctx, v1)
	wantCode(t, err, ilgraph.ECONFLICT)

	// The update moves the case to another root cause.
	other := "software-bug"
	if seed.RootCause == other {
		other = "capacity"
	}
	body["root_cause"] = other
	v2 := marshal(t, body)

	t.Run("stale version changes nothing", func(t *testing.T) {
		before, _ := graph.NewBench(db).Checksum(ctx)
		_, err := core.UpdateCase(ctx, "IL-9001", 2, v2)
		wantCode(t, err, ilgraph.ECONFLICT)
		_, err = core.UpdateCase(ctx, "IL-9001", 0, v2)
		wantCode(t, err, ilgraph.EINVALID)
		if after, _ := graph.NewBench(db).Checksum(ctx); after != before {
			t.Error("a refused update changed the graph")
		}
	})
	t.Run("unknown case", func(t *testing.T) {
		other := maps(body)
		other["id"] = "IL-9999"
		_, err := core.UpdateCase(ctx, "IL-9999", 1, marshal(t, other))
		wantCode(t, err, ilgraph.ENOTFOUND)
		_, err = core.DeleteCase(ctx, "IL-9999", 1)
		wantCode(t, err, ilgraph.ENOTFOUND)
		_, err = core.CaseHistory(ctx, "IL-9999")
		wantCode(t, err, ilgraph.ENOTFOUND)
		_, err = core.UpdateCase(ctx, "IL-9002", 1, v2) // the body's id is another
		wantCode(t, err, ilgraph.EINVALID)
	})
	t.Run("body over the limit", func(t *testing.T) {
		big := maps(body)
		big["lessons"] = map[string]any{"en": strings.Repeat("x", explore.MaxCaseBytes)}
		_, err := core.UpdateCase(ctx, "IL-9001", 1, marshal(t, big))
		wantCode(t, err, ilgraph.ELIMIT)
	})

	rev, err = core.UpdateCase(ctx, "IL-9001", 1, v2)
	if err != nil {
		t.Fatal(err)
	}
	if rev.Version != 2 || rev.Previous != compact(t, v1) || rev.JSON != compact(t, v2) {
		t.Errorf("update answered %+v", rev)
	}
	if c, err := core.Case(ctx, "IL-9001"); err != nil || c.RootCause != other || c.Version != 2 {
		t.Errorf("after the update: %+v, %v", c, err)
	}
	if ids, _ := listed(); slices.Contains(ids, "IL-9001") {
		t.Errorf("the list of root cause %s still has the case moved to %s", seed.RootCause, other)
	}
	if got := facetOf(ilgraph.KindRootCause, seed.RootCause); got != facet0 {
		t.Errorf("facet count of %s after the update: %d, want %d", seed.RootCause, got, facet0)
	}

	rev, err = core.DeleteCase(ctx, "IL-9001", 2)
	if err != nil || rev.Version != 3 || rev.JSON != "" || rev.Previous != compact(t, v2) {
		t.Fatalf("delete: %+v, %v", rev, err)
	}
	_, err = core.Case(ctx, "IL-9001")
	wantCode(t, err, ilgraph.ENOTFOUND)
	if got := similarIDs(seed.ID); slices.Contains(got, "IL-9001") {
		t.Errorf("similar to %s after the delete: %v", seed.ID, got)
	}
	_, err = core.UpdateCase(ctx, "IL-9001", 3, v2)
	wantCode(t, err, ilgraph.ENOTFOUND)

	rev, err = core.RestoreCase(ctx, "IL-9001", 3, 1)
	if err != nil || rev.Version != 4 || rev.RestoredFrom != 1 || rev.JSON != compact(t, v1) {
		t.Fatalf("restore: %+v, %v", rev, err)
	}
	if c, err := core.Case(ctx, "IL-9001"); err != nil || c.RootCause != seed.RootCause || c.Version != 4 {
		t.Errorf("after the restore: %+v, %v", c, err)
	}
	hist, err := core.CaseHistory(ctx, "IL-9001")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range hist {
		got = append(got, fmt.Sprintf("%d %s %s", r.Version, r.Action, r.By))
	}
	want := []string{"4 restore alice", "3 delete alice", "2 update alice", "1 create alice"}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n got %q\nwant %q", got, want)
	}
	if v, _ := db.CorpusVersion(ctx); v != corpus0+4 {
		t.Errorf("corpus version after 4 writes: %d, want %d", v, corpus0+4)
	}

	t.Run("a case others name is not deleted", func(t *testing.T) {
		var target *ilgraph.Case
		for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
			if len(c.Related) > 0 {
				target, _ = core.Case(ctx, c.Related[0])
				break
			}
		}
		if target == nil {
			t.Fatal("no seed case names another")
		}
		_, err := core.DeleteCase(ctx, target.ID, target.Version)
		wantCode(t, err, ilgraph.ECONFLICT)
	})
	t.Run("a seed case loaded once is at version 1 with no history", func(t *testing.T) {
		c, err := core.Case(ctx, seed.ID)
		if err != nil || c.Version != 1 {
			t.Fatalf("%+v, %v", c, err)
		}
		h, err := core.CaseHistory(ctx, seed.ID)
		if err != nil || len(h) != 0 {
			t.Errorf("history %v, %v", h, err)
		}
		// Version 1, written by the load, is kept by the update's previous JSON.
		if _, err := core.UpdateCase(ctx, seed.ID, 1, marshal(t, body2(t, seed.ID))); err != nil {
			t.Fatal(err)
		}
		rev, err := core.RestoreCase(ctx, seed.ID, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := core.RawJSON(ctx, []string{seed.ID})
		if rev.Version != 3 || raw[0] != compactFile(t, seed.ID) {
			t.Errorf("restoring the loaded version: version %d, JSON %s", rev.Version, raw[0])
		}
	})
}

func fullPage() explore.Page {
	n := explore.MaxPageSize
	return explore.Page{First: &n}
}

// body2 is a seed case with another English title.
func body2(t *testing.T, id string) map[string]any {
	m := corpus.SeedJSON(t, id)
	m["title"].(map[string]any)["en"] = "Retitled " + id
	return m
}

func compactFile(t *testing.T, id string) string {
	return compact(t, corpus.SeedFile(t, id))
}

func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestInvalidCaseNamesEachField writes a case that breaks several of the
// loader's rules and compares the problems the write answers with those
// `ilgraph load --check --strict` reports for the same JSON in a file.
func TestInvalidCaseNamesEachField(t *testing.T) {
	core, db := writingCore(t)
	ctx := editorCtx()
	seed := unlinkedSeed(t)
	body := corpus.SeedJSON(t, seed.ID)
	body["id"] = "IL-9010"
	body["date"] = "2019-02-30"
	body["title"] = map[string]any{"en": "", "ko": "제목"}
	body["components"] = []any{"no-such-component"}
	body["related"] = []any{"IL-9011"}
	body["timeline"] = map[string]any{"detected_after": "soon"}
	data := marshal(t, body)

	_, err := core.CreateCase(ctx, data)
	wantCode(t, err, ilgraph.EINVALID)
	var e *ilgraph.Error
	if !errors.As(err, &e) || len(e.Problems) == 0 {
		t.Fatalf("no problems listed: %v", err)
	}
	var got []string
	for _, p := range e.Problems {
		got = append(got, p.Field+": "+p.Message)
	}

	// The loader on a file holding the same case.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "case.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, lerr := loader.Load(context.Background(), db, []string{dir}, loader.Options{CheckOnly: true, Strict: true})
	var probs loader.Problems
	if !errors.As(lerr, &probs) {
		t.Fatalf("the loader found no problem: %v", lerr)
	}
	var want []string
	for _, p := range probs {
		want = append(want, p.Field+": "+p.Msg)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("problems of the write:\n %q\nof the load:\n %q", got, want)
	}
	for _, f := range []string{"date", "title.en", "components[0]", "related[0]", "timeline.detected_after"} {
		if !slices.ContainsFunc(e.Problems, func(p ilgraph.InputProblem) bool { return p.Field == f }) {
			t.Errorf("no problem names %s: %q", f, got)
		}
	}

	t.Run("a tagging rule is a problem, as with --strict", func(t *testing.T) {
		b := corpus.SeedJSON(t, seed.ID)
		b["id"] = "IL-9012"
		b["symptoms"] = []any{} // symptom-and-domain-required
		_, err := core.CreateCase(ctx, marshal(t, b))
		var e *ilgraph.Error
		if !errors.As(err, &e) || !slices.ContainsFunc(e.Problems, func(p ilgraph.InputProblem) bool { return p.Rule == "symptom-and-domain-required" }) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not one case", func(t *testing.T) {
		for _, b := range []string{`[]`, `"x"`, `{"id": `, `{} {}`, ``} {
			_, err := core.CreateCase(ctx, []byte(b))
			wantCode(t, err, ilgraph.EINVALID)
		}
	})
	if _, err := core.Case(ctx, "IL-9010"); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
		t.Errorf("an invalid case was written: %v", err)
	}
}

// TestConcurrentUpdates has 16 writers update one case, each reading it,
// changing it and writing it back at the version it read until three of
// its changes are in: every version is won by exactly one writer, no
// change is lost, and the history agrees with the case.
func TestConcurrentUpdates(t *testing.T) {
	core, db := writingCore(t)
	ctx := editorCtx()
	seed := unlinkedSeed(t)
	const writers, each = 16, 3
	start, err := core.Case(ctx, seed.ID)
	if err != nil {
		t.Fatal(err)
	}
	corpus0, _ := db.CorpusVersion(ctx)
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		won       = map[int64]string{} // version → the title that won it
		conflicts int
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; {
				c, err := core.Case(ctx, seed.ID)
				if err != nil {
					t.Error(err)
					return
				}
				raw, err := core.RawJSON(ctx, []string{seed.ID})
				if err != nil {
					t.Error(err)
					return
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(raw[0]), &m); err != nil {
					t.Error(err)
					return
				}
				title := fmt.Sprintf("writer %d, change %d", w, n)
				m["title"].(map[string]any)["en"] = title
				b, _ := json.Marshal(m)
				rev, err := core.UpdateCase(ctx, seed.ID, c.Version, b)
				mu.Lock()
				switch {
				case ilgraph.ErrorCode(err) == ilgraph.ECONFLICT:
					conflicts++
				case err != nil:
					t.Error(err)
					mu.Unlock()
					return
				default:
					if prev, dup := won[rev.Version]; dup {
						t.Errorf("version %d won twice: %q and %q", rev.Version, prev, title)
					}
					won[rev.Version] = title
					n++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(won) != writers*each {
		t.Fatalf("%d versions won, want %d", len(won), writers*each)
	}
	hist, err := core.CaseHistory(ctx, seed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != writers*each {
		t.Fatalf("history has %d entries, want %d", len(hist), writers*each)
	}
	end, _ := core.Case(ctx, seed.ID)
	endRaw, _ := core.RawJSON(ctx, []string{seed.ID})
	if end.Version != start.Version+writers*each || hist[0].Version != end.Version || hist[0].JSON != endRaw[0] {
		t.Errorf("the case is at version %d (history's newest %d), want %d", end.Version, hist[0].Version, start.Version+writers*each)
	}
	for i, r := range hist {
		var c ilgraph.Case
		if err := json.Unmarshal([]byte(r.JSON), &c); err != nil {
			t.Fatal(err)
		}
		if won[r.Version] != c.Title.En {
			t.Errorf("version %d holds %q, the writer that won it wrote %q", r.Version, c.Title.En, won[r.Version])
		}
		if i+1 < len(hist) && r.Previous != hist[i+1].JSON {
			t.Errorf("version %d's previous JSON is not version %d's", r.Version, hist[i+1].Version)
		}
	}
	if v, _ := db.CorpusVersion(ctx); v != corpus0+writers*each {
		t.Errorf("corpus version moved by %d, want %d", v-corpus0, writers*each)
	}
	t.Logf("%d writes, %d conflicts", writers*each, conflicts)
}
