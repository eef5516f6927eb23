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
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/importer"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
)

var issreFixtures = filepath.Join("..", "..", "importer", "testdata", "issre22", "anomaly_collection")

func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		out = append(out, v)
	}
	return out
}

// TestImportISSRE22Command: the fixture collection imports with exit 4,
// every skipped record on stderr with its file and line, and --report
// says for each record read whether it was imported (as which case) or
// skipped (and why).
func TestImportISSRE22Command(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "is.jsonl"), filepath.Join(dir, "report.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"import", "issre22", "--seeds", corpus.Seeds(t), "--out", out, "--report", report, issreFixtures}, &stdout, &stderr)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d: %s", code, exitPartial, stderr.String())
	}
	recs, probs, err := importer.ReadISSRE22([]string{issreFixtures})
	if err != nil {
		t.Fatal(err)
	}
	cases := readJSONLines[map[string]any](t, out)
	if len(cases) != len(recs) {
		t.Errorf("%d cases of %d records", len(cases), len(recs))
	}
	for _, p := range probs {
		if !strings.Contains(stderr.String(), "skipped: "+p.Error()) {
			t.Errorf("stderr lacks %q:\n%s", p.Error(), stderr.String())
		}
	}
	if want := fmt.Sprintf("imported %d case(s) to %s, machine-tagged; %d input(s) skipped", len(recs), out, len(probs)); !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	lines := readJSONLines[issreReportLine](t, report)
	if len(lines) != len(recs)+len(probs) {
		t.Fatalf("%d report lines for %d records and %d problems", len(lines), len(recs), len(probs))
	}
	ids := map[string]map[string]any{}
	for _, c := range cases {
		ids[c["id"].(string)] = c
	}
	for i, l := range lines {
		if i < len(recs) {
			r := recs[i]
			c := ids[l.ID]
			if l.Status != "imported" || l.Key != r.Key || c == nil || c["root_cause"] != l.RootCause || l.Mapped != r.Mapped || l.Provider != r.Provider.Name {
				t.Errorf("report line %+v for record %s (case %v)", l, r.Key, c)
			}
			continue
		}
		if l.Status != "skipped" || l.Reason == "" || !slices.ContainsFunc(probs, func(p *loader.Problem) bool { return p.Error() == l.Reason }) {
			t.Errorf("report line %+v", l)
		}
	}
	for _, args := range [][]string{{"import", "issre22"}, {"eval", "import"}, {"eval", "import", "issre22"}} {
		if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestEvalImportISSRE22: eval import issre22 --json prints the agreement
// per provider, and its "all" row is the sum of the others.
func TestEvalImportISSRE22(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"eval", "import", "issre22", "--seeds", corpus.Seeds(t), "--json", issreFixtures}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rows []importer.ISSREAgreement
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	recs, _, err := importer.ReadISSRE22([]string{issreFixtures})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[3].Provider != "all" {
		t.Fatalf("rows %+v", rows)
	}
	var sum importer.ISSREAgreement
	for _, r := range rows[:3] {
		sum.Records += r.Records
		sum.Labelled += r.Labelled
		sum.Top1 += r.Top1
		sum.Top3 += r.Top3
		sum.Partly += r.Partly
		sum.PartlyTop3 += r.PartlyTop3
		if r.Top1 > r.Top3 || r.Top3 > r.Labelled || r.Labelled > r.Partly || r.Partly > r.Records {
			t.Errorf("%+v: counts out of order", r)
		}
	}
	sum.Provider = "all"
	if sum != rows[3] || sum.Records != len(recs) {
		t.Errorf("all %+v, sum %+v, %d records", rows[3], sum, len(recs))
	}
}

// TestImportISSRE22EndToEnd imports the fixtures, loads them next to the
// seeds with --strict (a broken tagging rule would fail the load) and asks
// GraphQL for each imported case: it is machine-tagged and holds what the
// import wrote — root cause, provider domain, remediation, timeline, the
// official source first.
func TestImportISSRE22EndToEnd(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	nSeeds := len(corpus.Cases(t, filepath.Join(seeds, "cases")))
	out := filepath.Join(t.TempDir(), "is.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"import", "issre22", "--seeds", seeds, "--out", out, issreFixtures}, &stdout, &stderr); code != exitPartial {
		t.Fatalf("import: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(ctx, []string{"load", "--quiet", "--strict", seeds, out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("load --strict: exit %d: %s", code, stderr.String())
	}
	type text struct{ En string }
	type term struct{ ID string }
	type gqlCase struct {
		MachineTagged bool
		RootCause     term
		Domains       []term
		Remediation   []text
		Timeline      struct{ DetectedAfter, ResolvedAfter *string }
		Sources       []struct{ URL, Kind string }
		Organization  term
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
	var counts struct{ All, Reviewed struct{ TotalCount int } }
	query(`{ all: cases { totalCount } reviewed: cases(filter: {reviewedOnly: true}) { totalCount } }`, &counts)
	written := readJSONLines[importer.Output](t, out)
	if counts.All.TotalCount != nSeeds+len(written) || counts.Reviewed.TotalCount != nSeeds {
		t.Errorf("cases %d, reviewed %d; want %d and %d", counts.All.TotalCount, counts.Reviewed.TotalCount, nSeeds+len(written), nSeeds)
	}
	for _, w := range written {
		var got struct{ Case gqlCase }
		query(`{ case(id: "`+w.ID+`") { machineTagged rootCause { id } domains { id } remediation { en } timeline { detectedAfter resolvedAfter } sources { url kind } organization { id } } }`, &got)
		c := got.Case
		if !c.MachineTagged || c.RootCause.ID != w.RootCause || c.Organization.ID != w.OrgSlug {
			t.Errorf("%s: %+v, written %+v", w.ID, c, w)
		}
		var domains []string
		for _, d := range c.Domains {
			domains = append(domains, d.ID)
		}
		slices.Sort(domains)
		wd := slices.Sorted(slices.Values(w.Domain))
		if !slices.Equal(domains, wd) {
			t.Errorf("%s: domains %v, written %v", w.ID, domains, wd)
		}
		var rem []string
		for _, r := range c.Remediation {
			rem = append(rem, r.En)
		}
		var wrem []string
		for _, r := range w.Remediation {
			wrem = append(wrem, r.Text.En)
		}
		if !slices.Equal(rem, wrem) {
			t.Errorf("%s: remediation %q, written %q", w.ID, rem, wrem)
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if w.Timeline != nil && (str(c.Timeline.DetectedAfter) != w.Timeline.DetectedAfter || str(c.Timeline.ResolvedAfter) != w.Timeline.ResolvedAfter) {
			t.Errorf("%s: timeline %v %v, written %+v", w.ID, str(c.Timeline.DetectedAfter), str(c.Timeline.ResolvedAfter), w.Timeline)
		}
		if len(c.Sources) != len(w.Sources) || c.Sources[0].URL != w.Sources[0].URL || c.Sources[0].Kind != "official-status" {
			t.Errorf("%s: sources %+v, written %+v", w.ID, c.Sources, w.Sources)
		}
	}
}
