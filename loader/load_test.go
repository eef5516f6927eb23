package loader_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
)

// copySeeds copies seeds/ into a temporary folder that a test may change.
func copySeeds(t *testing.T) string {
	t.Helper()
	src := corpus.Seeds(t)
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func mustLoad(t *testing.T, db *graph.DB, opt loader.Options, paths ...string) *loader.Report {
	t.Helper()
	rep, err := loader.Load(context.Background(), db, paths, opt)
	if err != nil {
		t.Fatalf("load %v: %v", paths, err)
	}
	return rep
}

func mustCount(t *testing.T, db *graph.DB) graph.Counts {
	t.Helper()
	c, err := graph.NewBench(db).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustChecksum(t *testing.T, db *graph.DB) string {
	t.Helper()
	s, err := graph.NewBench(db).Checksum(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadSeedsExactCounts(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	wantNodes, wantRels := corpus.Counts(cases, corpus.Vocab(t, filepath.Join(seeds, "vocab.json")))

	rep := mustLoad(t, db, loader.Options{}, seeds)
	if rep.Cases != len(cases) || rep.New != len(cases) || rep.Changed != 0 || rep.Unchanged != 0 {
		t.Errorf("report: got %d cases (%d new, %d changed, %d unchanged), want %d new", rep.Cases, rep.New, rep.Changed, rep.Unchanged, len(cases))
	}
	got := mustCount(t, db)
	if !reflect.DeepEqual(got.Nodes, wantNodes) {
		t.Errorf("nodes per label:\n got %v\nwant %v", got.Nodes, wantNodes)
	}
	if !reflect.DeepEqual(got.Relationships, wantRels) {
		t.Errorf("relationships per type:\n got %v\nwant %v", got.Relationships, wantRels)
	}
	if int(got.TotalNodes()) != rep.NodesCreated {
		t.Errorf("report says %d nodes created, graph has %d", rep.NodesCreated, got.TotalNodes())
	}

	t.Run("second load changes nothing", func(t *testing.T) {
		before := mustChecksum(t, db)
		rep := mustLoad(t, db, loader.Options{}, seeds)
		if rep.Unchanged != len(cases) || rep.New+rep.Changed != 0 {
			t.Errorf("got %d new, %d changed, %d unchanged; want all %d unchanged", rep.New, rep.Changed, rep.Unchanged, len(cases))
		}
		if rep.NodesCreated+rep.NodesDeleted+rep.RelationshipsCreated+rep.RelationshipsDeleted+rep.PropertiesSet != 0 {
			t.Errorf("second load wrote: %v", rep.Counters)
		}
		if after := mustChecksum(t, db); after != before {
			t.Errorf("graph checksum changed: %s -> %s", before, after)
		}
	})

	t.Run("every case reads back as written", func(t *testing.T) {
		for _, want := range cases {
			got, err := db.Case(context.Background(), want.ID)
			if err != nil {
				t.Fatal(err)
			}
			compareCase(t, got, want)
		}
	})
}

// compareCase compares every field of the format (Raw aside, which the
// parser compacts and the corpus reader does not keep).
func compareCase(t *testing.T, got, want *ilgraph.Case) {
	t.Helper()
	g, w := *got, *want
	g.Raw, w.Raw = nil, nil
	corpus.Normalize(&g)
	corpus.Normalize(&w)
	gj, _ := json.MarshalIndent(g, "", " ")
	wj, _ := json.MarshalIndent(w, "", " ")
	if string(gj) != string(wj) {
		t.Errorf("case %s read back differs:\n got %s\nwant %s", want.ID, gj, wj)
	}
}

func TestLoadChangedCaseReplacesTags(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	dir := copySeeds(t)
	mustLoad(t, db, loader.Options{}, dir)

	// Rewrite IL-0384 with other tags, another org, fewer related cases.
	path := filepath.Join(dir, "cases", "IL-0384.json")
	var c map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	c["components"] = []string{"cache", "message-broker"}
	c["symptoms"] = []string{"full-outage"}
	c["contributing"] = []string{"runbook-missing"}
	c["domain"] = []string{"aws"}
	c["root_cause"] = "software-bug"
	c["related"] = []string{}
	c["org"], c["org_slug"] = "Kinesis Team", "kinesis-team"
	data, _ = json.Marshal(c)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := mustLoad(t, db, loader.Options{}, dir)
	if rep.Changed != 1 || rep.New != 0 {
		t.Errorf("got %d changed, %d new; want 1 changed", rep.Changed, rep.New)
	}
	got, err := db.Case(context.Background(), "IL-0384")
	if err != nil {
		t.Fatal(err)
	}
	want := corpus.Cases(t, filepath.Join(dir, "cases"))
	for _, w := range want {
		if w.ID == "IL-0384" {
			compareCase(t, got, w)
		}
	}
	// The whole graph must match what the changed files say: no stale tag,
	// no orphan organization.
	wantNodes, wantRels := corpus.Counts(want, corpus.Vocab(t, filepath.Join(dir, "vocab.json")))
	counts := mustCount(t, db)
	if !reflect.DeepEqual(counts.Nodes, wantNodes) || !reflect.DeepEqual(counts.Relationships, wantRels) {
		t.Errorf("after the change:\n got nodes %v rels %v\nwant nodes %v rels %v", counts.Nodes, counts.Relationships, wantNodes, wantRels)
	}
}

func TestLoadInvalidFileWritesNothing(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	dir := copySeeds(t)
	mustLoad(t, db, loader.Options{}, dir)
	before, beforeCounts := mustChecksum(t, db), mustCount(t, db)

	// One good new case and one bad one, in a folder of valid cases.
	good := `{"id":"ILG-9001","org":"Example","org_slug":"example","date":"2024-05-06","title":{"en":"A new case"},"summary":{"en":"Something failed."},"root_cause":"capacity","components":["cache"],"symptoms":["high-latency"],"contributing":["limit-unknown"],"domain":["database"],"related":["IL-0384"],"sources":[{"url":"https://example.com/pm"}]}`
	bad := strings.Replace(strings.Replace(good, "ILG-9001", "ILG-9002", 1), `"root_cause":"capacity"`, `"root_cause":"capcity"`, 1)
	os.WriteFile(filepath.Join(dir, "cases", "ILG-9001.json"), []byte(good), 0o644)
	os.WriteFile(filepath.Join(dir, "cases", "zz-bad.json"), []byte("\n"+bad+"\n"), 0o644)

	_, err := loader.Load(context.Background(), db, []string{dir}, loader.Options{})
	var probs loader.Problems
	if !errors.As(err, &probs) {
		t.Fatalf("got error %v, want loader.Problems", err)
	}
	if ilgraph.ErrorCode(err) != ilgraph.EINVALID {
		t.Errorf("error code %q, want %q", ilgraph.ErrorCode(err), ilgraph.EINVALID)
	}
	if len(probs) != 1 || !strings.HasSuffix(probs[0].Pos.File, "zz-bad.json") || probs[0].Pos.Line != 2 || probs[0].Field != "root_cause" || probs[0].CaseID != "ILG-9002" {
		t.Errorf("got problems %v, want one in zz-bad.json line 2, field root_cause, case ILG-9002", probs)
	}
	if !strings.Contains(err.Error(), "zz-bad.json:2") || !strings.Contains(err.Error(), `did you mean "capacity"`) {
		t.Errorf("message does not name the place and the fix: %v", err)
	}
	if after := mustChecksum(t, db); after != before {
		t.Errorf("an invalid load changed the graph (checksum %s -> %s)", before, after)
	}

	t.Run("skip-invalid loads the rest", func(t *testing.T) {
		rep := mustLoad(t, db, loader.Options{SkipInvalid: true}, dir)
		if rep.New != 1 || len(rep.Skipped) != 1 {
			t.Fatalf("got %d new, %d skipped; want 1 and 1", rep.New, len(rep.Skipped))
		}
		counts := mustCount(t, db)
		if counts.Nodes["Case"] != beforeCounts.Nodes["Case"]+1 {
			t.Errorf("got %d cases, want %d", counts.Nodes["Case"], beforeCounts.Nodes["Case"]+1)
		}
		if counts.Nodes["Organization"] != beforeCounts.Nodes["Organization"]+1 {
			t.Errorf("got %d organizations, want one more than %d", counts.Nodes["Organization"], beforeCounts.Nodes["Organization"])
		}
		c, err := db.Case(context.Background(), "ILG-9001")
		if err != nil || len(c.Related) != 1 || c.Related[0] != "IL-0384" {
			t.Errorf("ILG-9001 not loaded with its link: %+v, %v", c, err)
		}
		if _, err := db.Case(context.Background(), "ILG-9002"); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
			t.Errorf("invalid ILG-9002: got %v, want not found", err)
		}
	})
}

func TestLoadCrossFileProblems(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	dir := copySeeds(t)
	mustLoad(t, db, loader.Options{}, dir)
	before := mustChecksum(t, db)
	newDir := t.TempDir()
	a := `{"id":"ILG-9100","org":"E","org_slug":"e","date":"2024-05-06","title":{"en":"a"},"summary":{"en":"s"},"root_cause":"capacity","related":["ILG-9999"]}`
	b := `[{"id":"ILG-9101","org":"E","org_slug":"e","date":"2024-05-06","title":{"en":"b"},"summary":{"en":"s"},"root_cause":"capacity","recurrence_of":"ILG-9100"},
{"id":"IL-0384","org":"E","org_slug":"e","date":"2024-05-06","title":{"en":"dup"},"summary":{"en":"s"},"root_cause":"capacity"},
{"id":"IL-0384","org":"E","org_slug":"e","date":"2024-05-06","title":{"en":"dup"},"summary":{"en":"s"},"root_cause":"capacity"}]`
	os.WriteFile(filepath.Join(newDir, "a.json"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(newDir, "b.json"), []byte(b), 0o644)
	_, err := loader.Load(context.Background(), db, []string{newDir}, loader.Options{})
	var probs loader.Problems
	if !errors.As(err, &probs) {
		t.Fatalf("got %v, want problems", err)
	}
	text := err.Error()
	for _, want := range []string{
		`a.json:1: case ILG-9100: field "related[0]": "ILG-9999" is not a known case`,
		`b.json:1 [0]: case ILG-9101: field "recurrence_of": "ILG-9100" is in this load but invalid`,
		`b.json:2 [1]: case IL-0384: field "id": duplicate id: also at`,
		`b.json:3 [2]: case IL-0384: field "id": duplicate id`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("error does not say %q:\n%s", want, text)
		}
	}
	if after := mustChecksum(t, db); after != before {
		t.Error("an invalid load changed the graph")
	}
	// With --skip-invalid nothing here is valid, so nothing changes either.
	rep := mustLoad(t, db, loader.Options{SkipInvalid: true}, newDir)
	if rep.Cases != 0 {
		t.Errorf("got %d valid cases, want 0", rep.Cases)
	}
}

// TestLoadLibraryFileUnchanged loads a case file in the incident library's
// own format (testdata/library-case.txt: every field the library writes,
// nulls and bilingual text included, in a .txt file named on the command
// line) exactly as it is and reads every field back from Neo4j. Where the
// library's published JSON of IL-0384 sits beside the checkout
// (../shared/seeds/000_…), that file is checked the same way.
func TestLoadLibraryFileUnchanged(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	mustLoad(t, db, loader.Options{}, filepath.Join(corpus.Seeds(t), "vocab.json"))
	got := loadFileUnchanged(t, db, filepath.Join("testdata", "library-case.txt"), "ILG-7001")
	// Spot checks on fields whose loss the comparison above would show only
	// as a diff: they name what a reader of the case page sees.
	if got.Timeline.ResolvedAfter != "6h 40m" || got.Timeline.DetectedAfter != "" || got.Sources[0].Archived == "" || len(got.ActionItems) != 10 || got.Summary.Ko == "" || got.Review.WrittenBy != "fixture" {
		t.Errorf("fields lost: %+v", got)
	}

	t.Run("the library's own file", func(t *testing.T) {
		path := filepath.Join(corpus.Root(t), "..", "shared", "seeds", "000_3e1a326b5fe10c0e.txt")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			t.Skipf("%s is not beside this checkout (it is not part of the repository)", path)
		}
		got := loadFileUnchanged(t, db, path, "IL-0384")
		if got.Timeline.ResolvedAfter != "17h 8m" || got.Sources[0].Archived == "" || len(got.ActionItems) != 10 || got.Summary.Ko == "" || got.Review.WrittenBy != "session" {
			t.Errorf("fields lost: %+v", got.Timeline)
		}
	})
}

// loadFileUnchanged loads the one new case in path, checks that every field
// and the raw JSON kept in the graph equal the file's, and returns the case
// as read back.
func loadFileUnchanged(t *testing.T, db *graph.DB, path, id string) *ilgraph.Case {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := mustLoad(t, db, loader.Options{}, path)
	if rep.New != 1 {
		t.Fatalf("%s: got %d new cases, want 1", path, rep.New)
	}
	var want ilgraph.Case
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if want.ID != id {
		t.Fatalf("%s holds case %s, want %s", path, want.ID, id)
	}
	got, err := db.Case(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	compareCase(t, got, &want)
	// The raw JSON kept in the graph holds every key of the file, values equal.
	var gotRaw, wantRaw map[string]any
	if err := json.Unmarshal(got.Raw, &gotRaw); err != nil {
		t.Fatalf("raw JSON in the graph: %v", err)
	}
	json.Unmarshal(data, &wantRaw)
	if !reflect.DeepEqual(gotRaw, wantRaw) {
		t.Errorf("%s: raw JSON read back differs from the file", path)
	}
	return got
}

func TestLoadNeedsAVocabulary(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	_, err := loader.Load(context.Background(), db, []string{filepath.Join(corpus.Seeds(t), "cases")}, loader.Options{})
	if ilgraph.ErrorCode(err) != ilgraph.EINVALID || !strings.Contains(err.Error(), "no vocabulary") {
		t.Errorf("got %v, want an invalid-input error about the missing vocabulary", err)
	}
}

// TestLoadRefusesAFileChangedAfterValidation changes a case file after the
// validation pass has read it: the load must fail naming the file, with
// nothing written, whether the file changed before the write phase began or
// just before the write pass reads it again, and whatever the change.
func TestLoadRefusesAFileChangedAfterValidation(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	dir := copySeeds(t)
	mustLoad(t, db, loader.Options{}, dir)
	before := mustChecksum(t, db)

	good := `{"id":"ILG-9001","org":"Example","org_slug":"example","date":"2024-05-06","title":{"en":"A new case"},"summary":{"en":"Something failed."},"root_cause":"capacity","components":["cache"],"symptoms":["high-latency"],"contributing":["limit-unknown"],"domain":["database"],"related":["IL-0384"],"sources":[{"url":"https://example.com/pm"}]}`
	second := strings.Replace(strings.Replace(good, "ILG-9001", "ILG-9002", 1), `"cache"`, `"cdn"`, 1)
	path := filepath.Join(dir, "cases", "new.jsonl")
	for _, change := range []struct {
		name string
		to   string // what the file holds when it is read again
	}{
		{"a case added", good + "\n" + second + "\n" + strings.Replace(second, "ILG-9002", "ILG-9003", 1) + "\n"},
		{"an invalid value, same size", good + "\n" + strings.Replace(second, `"capacity"`, `"capacitx"`, 1) + "\n"},
		{"cut short", good + "\n" + second[:len(second)/2]},
	} {
		for _, when := range []string{"before the write phase", "before the file is read again"} {
			for _, skip := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s %s skip-invalid=%v", change.name, when, skip), func(t *testing.T) {
					if err := os.WriteFile(path, []byte(good+"\n"+second+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					defer os.Remove(path)
					changed := 0
					rewrite := func() {
						changed++
						if err := os.WriteFile(path, []byte(change.to), 0o644); err != nil {
							t.Error(err)
						}
					}
					if when == "before the write phase" {
						defer loader.SetAfterValidate(rewrite)()
					} else {
						defer loader.SetBeforeWriteFile(func(p string) {
							if p == path {
								rewrite()
							}
						})()
					}
					rep, err := loader.Load(context.Background(), db, []string{dir}, loader.Options{SkipInvalid: skip})
					if changed != 1 {
						t.Fatalf("the file was changed %d times, want once", changed)
					}
					if err == nil || ilgraph.ErrorCode(err) != ilgraph.ECONFLICT || !strings.Contains(err.Error(), path+" changed since it was validated") {
						t.Fatalf("got %v (report %+v), want an error saying %s changed since it was validated", err, rep, path)
					}
					if after := mustChecksum(t, db); after != before {
						t.Errorf("a load of a changed file changed the graph (checksum %s -> %s)", before, after)
					}
				})
			}
		}
	}

	// Unchanged, the same file loads.
	os.WriteFile(path, []byte(good+"\n"+second+"\n"), 0o644)
	if rep := mustLoad(t, db, loader.Options{}, dir); rep.New != 2 {
		t.Errorf("got %d new cases, want 2", rep.New)
	}
}

// TestLoadVocabularyChangeMovesTheVersion: a load that changes only the
// vocabulary (a term's alias) moves the corpus version, so that servers
// rebuild what they learned from the terms (the suggestion engine) and a
// snapshot file written before is not taken for the graph after; loading
// the same files again moves nothing.
func TestLoadVocabularyChangeMovesTheVersion(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	dir := copySeeds(t)
	mustLoad(t, db, loader.Options{}, dir)
	version := func() int64 {
		t.Helper()
		v, err := db.CorpusVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	mustLoad(t, db, loader.Options{}, dir)
	if got := version(); got != before {
		t.Fatalf("the same files loaded again moved the version from %d to %d", before, got)
	}
	path := filepath.Join(dir, "vocab.json")
	var v map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	term := v["kinds"].(map[string]any)["root_cause"].([]any)[0].(map[string]any)
	aliases := term["aliases"].(map[string]any)
	aliases["en"] = append(aliases["en"].([]any), "a brand new alias")
	data, _ = json.Marshal(v)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := mustLoad(t, db, loader.Options{}, dir)
	if rep.CasesChanged() {
		t.Fatalf("the vocabulary's change changed cases: %+v", rep)
	}
	if got := version(); got != before+1 {
		t.Errorf("after a vocabulary-only change the version is %d, want %d", got, before+1)
	}
}
