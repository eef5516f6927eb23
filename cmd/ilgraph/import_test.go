package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/resolvers"
)

var (
	pmFixtures   = filepath.Join("..", "..", "importer", "testdata", "postmortems")
	textFixtures = filepath.Join("..", "..", "importer", "testdata", "text.jsonl")
)

// importCases runs ilgraph import and returns its exit status, stderr and
// the cases written to --out.
func importCases(t *testing.T, args ...string) (int, string, []map[string]any) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "imported.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(append([]string{"import"}, args[0], "--seeds", corpus.Seeds(t), "--out", out), args[1:]...), &stdout, &stderr)
	var cases []map[string]any
	if f, err := os.Open(out); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c map[string]any
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("output line %q: %v", sc.Text(), err)
			}
			cases = append(cases, c)
		}
	}
	return code, stderr.String(), cases
}

func TestImportCommand(t *testing.T) {
	t.Run("postmortems: the good files imported, the bad reported, exit 4", func(t *testing.T) {
		code, stderr, cases := importCases(t, "postmortems", pmFixtures)
		if code != exitPartial || len(cases) != 4 {
			t.Fatalf("exit %d, %d cases: %s", code, len(cases), stderr)
		}
		for _, want := range []string{
			"skipped: " + filepath.Join(pmFixtures, "0e1f2a3b4c5d6e7f.md") + ":1: no front matter",
			"skipped: " + filepath.Join(pmFixtures, "6b2a9c8d-3e4f-4a5b-9c6d-7e8f9a0b1c2d.md") + ":4: invalid YAML",
			"skipped: " + filepath.Join(pmFixtures, "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a.md") + ":5: no date",
			"imported 4 case(s)",
			// the per-entry date report: a date not from start_time, and the count by kind
			"date: " + filepath.Join(pmFixtures, "3c7d1e5b9a2f4c6d.md") + ":1: date 2019-06-21 (published) from source_published_at",
			"dates: incident 3, published 1",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		for _, c := range cases {
			review, _ := c["review"].(map[string]any)
			if review["written_by"] != "import" || c["tag_confidence"] == nil || !strings.HasPrefix(c["id"].(string), "PM-") {
				t.Errorf("not a machine-tagged import: %v", c)
			}
		}
	})
	t.Run("text", func(t *testing.T) {
		code, stderr, cases := importCases(t, "text", textFixtures)
		if code != exitPartial || len(cases) != 2 || !strings.Contains(stderr, "text.jsonl:4: case ticket-4472: field \"date\"") {
			t.Errorf("exit %d, %d cases: %s", code, len(cases), stderr)
		}
	})
	t.Run("nothing importable exits 3", func(t *testing.T) {
		code, stderr, _ := importCases(t, "postmortems", filepath.Join(pmFixtures, "0e1f2a3b4c5d6e7f.md"))
		if code != exitInvalid {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	t.Run("usage", func(t *testing.T) {
		var out, errb bytes.Buffer
		for _, args := range [][]string{{"import"}, {"import", "nonsense"}, {"import", "text"}, {"import", "text", "a", "b"}} {
			if code := run(context.Background(), args, &out, &errb); code != exitUsage {
				t.Errorf("%v: exit %d", args, code)
			}
		}
	})
}

// TestImportEndToEnd imports the fixture folder, loads the result with the
// seeds into Neo4j and asks GraphQL: imported cases are machineTagged with
// a confidence per tag, hand-tagged ones are not, and reviewedOnly leaves
// the imported ones out — of case lists and of similar cases alike.
func TestImportEndToEnd(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	nSeeds := len(corpus.Cases(t, filepath.Join(seeds, "cases")))

	out := filepath.Join(t.TempDir(), "imported.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"import", "postmortems", "--seeds", seeds, "--out", out, pmFixtures}, &stdout, &stderr); code != exitPartial {
		t.Fatalf("import: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(ctx, []string{"load", "--quiet", seeds, out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}

	srv := httptest.NewServer(apitest.New(newCore(db), apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}}))
	defer srv.Close()
	query := func(q string, data any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": q})
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Data   json.RawMessage
			Errors []struct{ Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || len(env.Errors) > 0 {
			t.Fatalf("%s: %v %v", q, err, env.Errors)
		}
		if err := json.Unmarshal(env.Data, data); err != nil {
			t.Fatal(err)
		}
	}

	type tagConf struct {
		Kind       string
		Term       struct{ ID string }
		Confidence float64
	}
	var one struct {
		Imported, Seed struct {
			MachineTagged bool
			TagConfidence []tagConf
			RootCause     struct{ ID string }
			Domains       []struct{ ID string }
			Review        struct{ WrittenBy *string }
		}
	}
	fields := `machineTagged tagConfidence { kind term { id } confidence } rootCause { id } domains { id } review { writtenBy }`
	query(`{ imported: case(id: "PM-144753741") { `+fields+` } seed: case(id: "IL-0384") { `+fields+` } }`, &one)
	im := one.Imported
	if !im.MachineTagged || im.Review.WrittenBy == nil || *im.Review.WrittenBy != "import" || len(im.TagConfidence) == 0 {
		t.Fatalf("the imported case: %+v", im)
	}
	if first := im.TagConfidence[0]; first.Kind != "ROOT_CAUSE" || first.Term.ID != im.RootCause.ID || first.Confidence <= 0 || first.Confidence > 1 {
		t.Errorf("the first confidence is not the root cause's: %+v (root cause %s)", first, im.RootCause.ID)
	}
	domains := 0
	for _, c := range im.TagConfidence {
		if c.Kind == "DOMAIN" {
			domains++
		}
	}
	if domains != len(im.Domains) {
		t.Errorf("%d domain confidences for %d domains", domains, len(im.Domains))
	}
	if one.Seed.MachineTagged || one.Seed.TagConfidence != nil {
		t.Errorf("a hand-tagged seed case: %+v", one.Seed)
	}

	var lists struct {
		All      struct{ TotalCount int }
		Reviewed struct {
			TotalCount int
			Nodes      []struct {
				ID            string
				MachineTagged bool
			}
		}
		Similar []struct{ Case struct{ ID string } }
	}
	query(`{ all: cases(first: 1) { totalCount }
	         reviewed: cases(filter: {reviewedOnly: true}, first: 100) { totalCount nodes { id machineTagged } }
	         similar: similarCases(caseId: "PM-144753741", k: 20, filter: {reviewedOnly: true}) { case { id } } }`, &lists)
	if lists.All.TotalCount != nSeeds+4 || lists.Reviewed.TotalCount != nSeeds || len(lists.Reviewed.Nodes) != min(nSeeds, 100) {
		t.Errorf("all %d, reviewed %d (%d nodes on the first page), want %d and %d", lists.All.TotalCount, lists.Reviewed.TotalCount, len(lists.Reviewed.Nodes), nSeeds+4, nSeeds)
	}
	for _, n := range lists.Reviewed.Nodes {
		if n.MachineTagged || strings.HasPrefix(n.ID, "PM-") {
			t.Errorf("reviewedOnly listed %s", n.ID)
		}
	}
	if len(lists.Similar) == 0 {
		t.Error("no similar reviewed case at all")
	}
	for _, s := range lists.Similar {
		if strings.HasPrefix(s.Case.ID, "PM-") {
			t.Errorf("similarCases with reviewedOnly listed %s", s.Case.ID)
		}
	}

	var st struct{ Cases int }
	stdout.Reset()
	if code := run(ctx, []string{"stats", "--reviewed-only", "--json"}, &stdout, &stderr); code != exitOK || json.Unmarshal(stdout.Bytes(), &st) != nil || st.Cases != nSeeds {
		t.Errorf("stats --reviewed-only: exit %d, %d cases, want %d: %s", code, st.Cases, nSeeds, stdout.String())
	}

	// A reviewer sets reviewed_at: the case counts as reviewed from then on.
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	reviewed := strings.Replace(string(data), `"review":{"written_by":"import","reviewed_at":"","reviewed_by":""}`, `"review":{"written_by":"import","reviewed_at":"2026-01-05","reviewed_by":"a reviewer"}`, 1)
	if reviewed == string(data) {
		t.Fatal("the import's review field is not where the test expects it")
	}
	if err := os.WriteFile(out, []byte(reviewed), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(ctx, []string{"load", "--quiet", seeds, out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	query(`{ all: cases(first: 1) { totalCount } reviewed: cases(filter: {reviewedOnly: true}, first: 100) { totalCount } }`, &lists)
	if lists.Reviewed.TotalCount != nSeeds+1 {
		t.Errorf("after one review: %d reviewed cases, want %d", lists.Reviewed.TotalCount, nSeeds+1)
	}
}

var mdFixtures = filepath.Join("..", "..", "importer", "testdata", "markdown")

func TestImportMarkdownCommand(t *testing.T) {
	t.Run("the fixtures: every one imported, exit 0", func(t *testing.T) {
		code, stderr, cases := importCases(t, "markdown", "--org", "Quarrybank Systems", mdFixtures)
		files, _ := filepath.Glob(filepath.Join(mdFixtures, "*.md"))
		if code != exitOK || len(cases) != len(files) || !strings.Contains(stderr, "0 input(s) skipped") {
			t.Fatalf("exit %d, %d cases from %d files: %s", code, len(cases), len(files), stderr)
		}
		for _, c := range cases {
			review, _ := c["review"].(map[string]any)
			if review["written_by"] != "import" || c["tag_confidence"] == nil || !strings.HasPrefix(c["id"].(string), "MD-") {
				t.Errorf("not a machine-tagged import: %v", c)
			}
		}
	})
	t.Run("a bad document beside good ones: reported, exit 4; alone: exit 3", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, "notes.md")
		if err := os.WriteFile(bad, []byte("Some notes without a date.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		good, _ := os.ReadFile(filepath.Join(mdFixtures, "table.md"))
		if err := os.MkdirAll(filepath.Join(dir, "2023"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "2023", "table.md"), good, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr, cases := importCases(t, "markdown", "--org", "X", dir)
		if code != exitPartial || len(cases) != 1 || !strings.Contains(stderr, "skipped: "+bad+":1: no date") {
			t.Errorf("exit %d, %d cases: %s", code, len(cases), stderr)
		}
		code, stderr, _ = importCases(t, "markdown", bad)
		if code != exitInvalid || !strings.Contains(stderr, "no organization") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	t.Run("usage", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"import", "markdown"}, &out, &errb); code != exitUsage {
			t.Errorf("exit %d", code)
		}
		if code := run(context.Background(), []string{"import", "text", "--org", "X", "f"}, &out, &errb); code != exitUsage {
			t.Errorf("--org on text: exit %d", code)
		}
	})
}

// TestImportMarkdownRoundTrip imports the Markdown fixtures, loads them with
// the seeds into Neo4j under --strict (a tagging warning would be an
// error) and reads every imported case back through GraphQL: the fields the
// sections gave are the ones the import wrote.
func TestImportMarkdownRoundTrip(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	code, stderr, cases := importCases(t, "markdown", "--org", "Quarrybank Systems", mdFixtures)
	if code != exitOK {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "md.jsonl")
	var buf bytes.Buffer
	for _, c := range cases {
		line, _ := json.Marshal(c)
		buf.Write(append(line, '\n'))
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", "--strict", seeds, out}, &stdout, &errb); code != exitOK {
		t.Fatalf("load --strict: exit %d: %s", code, errb.String())
	}

	srv := httptest.NewServer(apitest.New(newCore(db), apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}}))
	defer srv.Close()
	type text struct{ En, Ko string }
	for _, want := range cases {
		id := want["id"].(string)
		body, _ := json.Marshal(map[string]any{"query": `query($id: ID!) { case(id: $id) { machineTagged title { en ko } summary { en ko } trigger { en ko } detection { en ko } lessons { en ko }
			remediation { en ko } actionItems { en ko } impact { scope } timeline { detectedAfter resolvedAfter } severity date rootCause { id } } }`, "variables": map[string]any{"id": id}})
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Data struct {
				Case *struct {
					MachineTagged                               bool
					Title, Summary, Trigger, Detection, Lessons text
					Remediation, ActionItems                    []text
					Impact                                      struct{ Scope string }
					Timeline                                    struct{ DetectedAfter, ResolvedAfter *string }
					Severity                                    *string
					Date                                        string
					RootCause                                   struct{ ID string }
				}
			}
			Errors []struct{ Message string }
		}
		err = json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if err != nil || len(env.Errors) > 0 || env.Data.Case == nil {
			t.Fatalf("%s: %v %v", id, err, env.Errors)
		}
		got := env.Data.Case
		field := func(name string) text {
			m, _ := want[name].(map[string]any)
			en, _ := m["en"].(string)
			ko, _ := m["ko"].(string)
			return text{en, ko}
		}
		for name, g := range map[string]text{"title": got.Title, "summary": got.Summary, "trigger": got.Trigger, "detection": got.Detection, "lessons": got.Lessons} {
			if g != field(name) {
				t.Errorf("%s %s: stored %+v, imported %+v", id, name, g, field(name))
			}
		}
		items := func(name string) []text {
			var out []text
			list, _ := want[name].([]any)
			for _, it := range list {
				m := it.(map[string]any)["text"].(map[string]any)
				en, _ := m["en"].(string)
				ko, _ := m["ko"].(string)
				out = append(out, text{en, ko})
			}
			return out
		}
		if fmt.Sprint(got.Remediation) != fmt.Sprint(items("remediation")) || fmt.Sprint(got.ActionItems) != fmt.Sprint(items("action_items")) {
			t.Errorf("%s: remediation %v action items %v, imported %v %v", id, got.Remediation, got.ActionItems, items("remediation"), items("action_items"))
		}
		tl, _ := want["timeline"].(map[string]any)
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if str(got.Timeline.DetectedAfter) != fmt.Sprint(orEmpty(tl["detected_after"])) || str(got.Timeline.ResolvedAfter) != fmt.Sprint(orEmpty(tl["resolved_after"])) {
			t.Errorf("%s: timeline %v %v, imported %v", id, str(got.Timeline.DetectedAfter), str(got.Timeline.ResolvedAfter), tl)
		}
		if !got.MachineTagged || got.Date != want["date"] || got.RootCause.ID != want["root_cause"] || str(got.Severity) != fmt.Sprint(orEmpty(want["severity"])) {
			t.Errorf("%s: %+v", id, got)
		}
		imp, _ := want["impact"].(map[string]any)
		if got.Impact.Scope != fmt.Sprint(orEmpty(imp["scope"])) {
			t.Errorf("%s: impact %q, imported %v", id, got.Impact.Scope, imp)
		}
	}
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}
