package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestCorpusReportIsCurrent checks that docs/corpus.md is what
// `ilgraph stats --markdown` prints for the seeds. UPDATE_DOCS=1 rewrites it.
func TestCorpusReportIsCurrent(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	st, err := db.Stats(ctx, ilgraph.CaseFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeStats(&buf, st, true)
	path := filepath.Join(corpus.Root(t), "docs", "corpus.md")
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("docs/corpus.md is not current: run UPDATE_DOCS=1 go test ./cmd/ilgraph -run CorpusReport")
	}
	if st.Cases != len(corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))) {
		t.Errorf("stats count %d cases", st.Cases)
	}
}

// TestStatsFilters runs `ilgraph stats` with filters and --json, and
// compares the numbers with ones counted from the seed JSON.
func TestStatsFilters(t *testing.T) {
	neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	tests := []struct {
		args []string
		keep func(c *ilgraph.Case) bool
	}{
		{[]string{"--root-cause", "capacity,config-change", "--from", "2015-01-01"}, func(c *ilgraph.Case) bool {
			return (c.RootCause == "capacity" || c.RootCause == "config-change") && c.Date >= "2015-01-01"
		}},
		{[]string{"--org", "amazon-web-services", "--to", "2020-12-31"}, func(c *ilgraph.Case) bool {
			return c.OrgSlug == "amazon-web-services" && c.Date <= "2020-12-31"
		}},
		{[]string{"--component", "message-broker,cache", "--exclude-org", "amazon-web-services"}, func(c *ilgraph.Case) bool {
			return c.OrgSlug != "amazon-web-services" && (slices.Contains(c.Components, "message-broker") || slices.Contains(c.Components, "cache"))
		}},
		{nil, func(c *ilgraph.Case) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(ctx, append([]string{"stats", "--json"}, tt.args...), &out, &errb); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var got struct {
				Cases, Organizations int
				Bilingual, Reviewed  int
				PerDomain            []struct {
					ID    string
					Count int
				} `json:"per_domain"`
				PerYear      []struct{ Year, Count int } `json:"per_year"`
				PerRootCause []struct {
					ID    string
					Count int
				} `json:"per_root_cause"`
				TimeToResolve struct {
					Cases, Measured int
					Median          *int `json:"median_minutes"`
				} `json:"time_to_resolve"`
				ByCause []struct {
					ID              string
					Cases, Measured int
				} `json:"time_to_resolve_by_root_cause"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			orgs, years, causes, measured := map[string]bool{}, map[int]int{}, map[string]int{}, map[string]int{}
			var mins []int
			n, bilingual, reviewed, domains := 0, 0, 0, map[string]int{}
			for _, c := range cases {
				if !tt.keep(c) {
					continue
				}
				n++
				if c.Bilingual() {
					bilingual++
				}
				if c.Reviewed() {
					reviewed++
				}
				for _, d := range c.Domain {
					domains[d]++
				}
				orgs[c.OrgSlug] = true
				years[c.Year()]++
				causes[c.RootCause]++
				if m, err := ilgraph.ParseDuration(c.Timeline.ResolvedAfter); err == nil {
					mins = append(mins, m)
					measured[c.RootCause]++
				}
			}
			if n == 0 {
				t.Fatal("the filter selects nothing")
			}
			if got.Cases != n || got.Organizations != len(orgs) {
				t.Errorf("%d cases from %d organizations, want %d and %d", got.Cases, got.Organizations, n, len(orgs))
			}
			if got.Bilingual != bilingual || got.Reviewed != reviewed {
				t.Errorf("%d bilingual and %d reviewed, want %d and %d", got.Bilingual, got.Reviewed, bilingual, reviewed)
			}
			gotDomains := map[string]int{}
			for _, d := range got.PerDomain {
				gotDomains[d.ID] = d.Count
			}
			if !reflect.DeepEqual(gotDomains, domains) {
				t.Errorf("per domain %v, want %v", gotDomains, domains)
			}
			gotYears, gotCauses := map[int]int{}, map[string]int{}
			for _, y := range got.PerYear {
				gotYears[y.Year] = y.Count
			}
			for _, c := range got.PerRootCause {
				gotCauses[c.ID] = c.Count
			}
			if !reflect.DeepEqual(gotYears, years) || !reflect.DeepEqual(gotCauses, causes) {
				t.Errorf("per year %v, per cause %v; want %v and %v", gotYears, gotCauses, years, causes)
			}
			sort.Ints(mins)
			if got.TimeToResolve.Cases != n || got.TimeToResolve.Measured != len(mins) {
				t.Errorf("time to resolve over %d measured of %d, want %d of %d", got.TimeToResolve.Measured, got.TimeToResolve.Cases, len(mins), n)
			}
			if len(mins) > 0 && (got.TimeToResolve.Median == nil || *got.TimeToResolve.Median != mins[(len(mins)+1)/2-1]) {
				t.Errorf("median %v, want %d", got.TimeToResolve.Median, mins[(len(mins)+1)/2-1])
			}
			for _, g := range got.ByCause {
				if g.Cases != causes[g.ID] || g.Measured != measured[g.ID] {
					t.Errorf("%s: %d measured of %d, want %d of %d", g.ID, g.Measured, g.Cases, measured[g.ID], causes[g.ID])
				}
			}
			// The text report says how many cases were measured.
			out.Reset()
			if code := run(ctx, append([]string{"stats"}, tt.args...), &out, &errb); code != exitOK {
				t.Fatalf("text: exit %d: %s", code, errb.String())
			}
			if want := fmt.Sprintf("%d of %d cases", len(mins), n); len(mins) > 0 && !strings.Contains(out.String(), want) {
				t.Errorf("text report lacks %q:\n%s", want, out.String())
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"stats", "--from", "2020-13-01"}, &out, &errb); code != exitInvalid || !strings.Contains(errb.String(), "--from") {
		t.Errorf("bad date: exit %d, %s", code, errb.String())
	}
	if code := run(ctx, []string{"stats", "--json", "--markdown"}, &out, &errb); code != exitUsage {
		t.Errorf("--json --markdown: exit %d", code)
	}
}
