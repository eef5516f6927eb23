package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// cli runs one ilgraph command and returns its exit code and output.
func cli(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String() + errb.String()
}

// snapshot is what a load must not change: the corpus version and the
// whole graph (every case, its properties and links).
func snapshot(t *testing.T, db *graph.DB) (int64, string) {
	t.Helper()
	v, err := db.CorpusVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := graph.NewBench(db).Checksum(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v, sum
}

// TestExportRoundTrip loads the seeds, exports them and loads the export:
// nothing changes (corpus version, every case), and every exported file is
// its seed file's JSON.
func TestExportRoundTrip(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	if code, out := cli(t, "load", "--quiet", seeds); code != exitOK {
		t.Fatalf("load: %d %s", code, out)
	}
	v0, sum0 := snapshot(t, db)
	dir := t.TempDir()
	if code, out := cli(t, "export", dir); code != exitOK {
		t.Fatalf("export: %d %s", code, out)
	}
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != len(cases) {
		t.Fatalf("%d files exported, want one per case: %d", len(files), len(cases))
	}
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(dir, c.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(seeds, "cases", c.ID+".json"))
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: the exported JSON is not the seed file's", c.ID)
		}
	}
	code, out := cli(t, "load", "--quiet", dir)
	if code != exitOK || !strings.Contains(out, "0 new, 0 changed") {
		t.Fatalf("load of the export: %d %s", code, out)
	}
	if v, sum := snapshot(t, db); v != v0 || sum != sum0 {
		t.Errorf("loading the export changed the graph: corpus version %d → %d, checksum changed %v", v0, v, sum != sum0)
	}
	// A second export writes nothing.
	if code, out := cli(t, "export", dir); code != exitOK || !strings.Contains(out, "0 written") {
		t.Errorf("second export: %d %s", code, out)
	}
}

// TestLoadRefusesToUndoAPIChanges: a case changed (or deleted) through the
// API and not exported since is a conflict for a load whose file does not
// hold it; an export brings the change into files, after which a file
// edited by hand loads as always.
func TestLoadRefusesToUndoAPIChanges(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	if code, out := cli(t, "load", "--quiet", seeds); code != exitOK {
		t.Fatalf("load: %d %s", code, out)
	}
	core := newCore(db)
	ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "fran", Role: ilgraph.RoleEditor})
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	named := map[string]bool{}
	for _, c := range cases {
		for _, r := range c.Related {
			named[r] = true
		}
		named[c.RecurrenceOf] = true
	}
	var edited, deleted string
	for _, c := range cases {
		if !named[c.ID] && edited == "" {
			edited = c.ID
		} else if !named[c.ID] && deleted == "" {
			deleted = c.ID
		}
	}
	raw, _, err := core.CaseJSON(ctx, edited)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal([]byte(raw), &m)
	m["title"].(map[string]any)["en"] = "Edited through the API"
	body, _ := json.Marshal(m)
	if _, err := core.UpdateCase(ctx, edited, 1, body); err != nil {
		t.Fatal(err)
	}
	if _, err := core.DeleteCase(ctx, deleted, 1); err != nil {
		t.Fatal(err)
	}
	v0, sum0 := snapshot(t, db)

	code, out := cli(t, "load", "--quiet", seeds)
	if code != exitInvalid || strings.Count(out, "conflict:") != 2 || !strings.Contains(out, "case "+edited+": conflict") ||
		!strings.Contains(out, "case "+deleted+": conflict: the case was deleted") {
		t.Fatalf("load of stale files: exit %d\n%s", code, out)
	}
	if v, sum := snapshot(t, db); v != v0 || sum != sum0 {
		t.Error("a refused load changed the graph")
	}
	// --skip-invalid loads the rest and leaves both cases as the API left them.
	if code, out := cli(t, "load", "--quiet", "--skip-invalid", seeds); code != exitOK || !strings.Contains(out, "2 invalid skipped") {
		t.Fatalf("load --skip-invalid: %d %s", code, out)
	}
	if c, err := core.Case(ctx, edited); err != nil || c.Title.En != "Edited through the API" {
		t.Errorf("after load --skip-invalid: %+v %v", c, err)
	}
	if _, err := core.Case(ctx, deleted); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
		t.Errorf("the deleted case is back: %v", err)
	}

	// The export: the edit in its file, the deleted case's file gone.
	dir := t.TempDir()
	for _, c := range cases {
		data, _ := os.ReadFile(filepath.Join(seeds, "cases", c.ID+".json"))
		os.WriteFile(filepath.Join(dir, c.ID+".json"), data, 0o644)
	}
	code, out = cli(t, "export", dir)
	if code != exitOK || !strings.Contains(out, "1 file(s) of deleted cases removed") || !strings.Contains(out, "2 case(s) now in files") {
		t.Fatalf("export: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, deleted+".json")); !os.IsNotExist(err) {
		t.Errorf("the deleted case's file is still there: %v", err)
	}
	v1, sum1 := snapshot(t, db)
	if code, out := cli(t, "load", "--quiet", dir); code != exitOK || !strings.Contains(out, "0 new, 0 changed") {
		t.Fatalf("load of the export: %d %s", code, out)
	}
	if v, sum := snapshot(t, db); v != v1 || sum != sum1 {
		t.Error("loading the export changed the graph")
	}

	// Now the files are the source: a hand edit loads.
	path := filepath.Join(dir, edited+".json")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte("Edited through the API"), []byte("Edited by hand"), 1), 0o644)
	if code, out := cli(t, "load", "--quiet", dir); code != exitOK || !strings.Contains(out, "1 changed") {
		t.Fatalf("load of a hand edit: %d %s", code, out)
	}
	c, err := core.Case(ctx, edited)
	if err != nil || c.Title.En != "Edited by hand" || c.Version != 3 {
		t.Errorf("after the hand edit: %+v %v", c, err)
	}
	// The history keeps the API's edit (a load is not an entry).
	if h, err := core.CaseHistory(ctx, edited); err != nil || len(h) != 1 || !strings.Contains(h[0].JSON, "Edited through the API") {
		t.Errorf("history after the hand edit: %+v %v", h, err)
	}
}

// TestExportRoundTripOfAReview: a machine-tagged case reviewed through the
// API is exported with its record of the review (review.decisions), the
// export passes `load --check --strict` as it is, and loading it changes
// nothing.
func TestExportRoundTripOfAReview(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	seeds := corpus.Seeds(t)
	if code, out := cli(t, "load", "--quiet", seeds); code != exitOK {
		t.Fatalf("load: %d %s", code, out)
	}
	core := newCore(db)
	editor := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "fran", Role: ilgraph.RoleEditor})
	reviewer := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "rita", Role: ilgraph.RoleReviewer})
	raw, err := os.ReadFile(filepath.Join(seeds, "cases", "IL-0206.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var seed ilgraph.Case
	if err := json.Unmarshal(raw, &seed); err != nil {
		t.Fatal(err)
	}
	const id = "PM-000000601"
	m["id"], m["related"], m["recurrence_of"] = id, []any{}, ""
	m["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
	m["tag_confidence"] = map[string]any{"root_cause": map[string]float64{seed.RootCause: 0.4}}
	body, _ := json.Marshal(m)
	if _, err := core.CreateCase(editor, body); err != nil {
		t.Fatal(err)
	}
	var decisions []explore.TagDecision
	for _, k := range ilgraph.MachineKinds {
		for _, x := range seed.Tags(k) {
			decisions = append(decisions, explore.TagDecision{Kind: k, Term: x, Decision: ilgraph.DecisionAccept})
		}
	}
	rev, err := core.ReviewCase(reviewer, id, 1, explore.ReviewInput{Decisions: decisions})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, out := cli(t, "export", dir); code != exitOK {
		t.Fatalf("export: %d %s", code, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var exported, written any
	json.Unmarshal(got, &exported)
	json.Unmarshal([]byte(rev.JSON), &written)
	if !reflect.DeepEqual(exported, written) {
		t.Errorf("the exported file is not the case as reviewed:\n%s\nwant\n%s", got, rev.JSON)
	}
	if d := exported.(map[string]any)["review"].(map[string]any)["decisions"]; d == nil || len(d.([]any)) != len(decisions) {
		t.Errorf("the export's review.decisions: %v, want %d entries", d, len(decisions))
	}
	if code, out := cli(t, "load", "--check", "--strict", dir); code != exitOK {
		t.Errorf("load --check --strict of the export: %d %s", code, out)
	}
	// The first load of an export changes something of the graph beside
	// the cases (so does one of a case created through the API and
	// exported without a review: not the review's doing), and must leave
	// the case as it is; from then on a load changes nothing at all.
	if code, out := cli(t, "load", "--quiet", dir); code != exitOK || !strings.Contains(out, "0 new, 0 changed") {
		t.Fatalf("load of the export: %d %s", code, out)
	}
	if js, v, err := db.CaseJSON(context.Background(), id); err != nil || js != rev.JSON || v != rev.Version {
		t.Errorf("after the load, %s is at version %d (%v), want %d as reviewed", id, v, err, rev.Version)
	}
	v0, sum0 := snapshot(t, db)
	if code, out := cli(t, "load", "--quiet", dir); code != exitOK || !strings.Contains(out, "0 new, 0 changed") {
		t.Fatalf("second load of the export: %d %s", code, out)
	}
	if v, sum := snapshot(t, db); v != v0 || sum != sum0 {
		t.Errorf("loading the export again changed the graph: corpus version %d → %d, checksum changed %v", v0, v, sum != sum0)
	}
}
