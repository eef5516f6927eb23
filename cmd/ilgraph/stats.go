package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
)

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats", `Usage: ilgraph stats [filters] [--markdown | --json]

Prints a report of the loaded corpus, or of the cases the filters select:
cases per root cause, per organization and per year, the most frequent
root cause–component pairs, cases per domain, how many are bilingual and
reviewed, and time to resolve (how many cases give one,
the median and quantiles), overall and by root cause. Filters combine with
AND; a list flag takes comma-separated values and matches any of them.`, stderr)
	md := fs.Bool("markdown", false, "write Markdown (as in docs/corpus.md)")
	asJSON := fs.Bool("json", false, "write JSON")
	rootCauses := fs.String("root-cause", "", "root causes, e.g. capacity,config-change")
	components := fs.String("component", "", "components (any of)")
	symptoms := fs.String("symptom", "", "symptoms (any of)")
	contributing := fs.String("contributing", "", "contributing factors (any of)")
	domains := fs.String("domain", "", "domains (any of)")
	orgs := fs.String("org", "", "organization slugs")
	excludeOrgs := fs.String("exclude-org", "", "organization slugs to leave out")
	from := fs.String("from", "", "incident date on or after (YYYY-MM-DD)")
	to := fs.String("to", "", "incident date on or before (YYYY-MM-DD)")
	severities := fs.String("severity", "", "severities, e.g. sev1,sev2")
	text := fs.String("text", "", "full-text search over titles and summaries")
	reviewedOnly := fs.Bool("reviewed-only", false, "leave out machine-tagged cases (imported and not yet reviewed; docs/import.md)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ilgraph stats: unexpected arguments %q\n", fs.Args())
		return errUsage
	}
	if *md && *asJSON {
		fmt.Fprintln(stderr, "ilgraph stats: --markdown or --json, not both")
		return errUsage
	}
	f := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}, ExcludeOrgs: list(*excludeOrgs),
		DateFrom: *from, DateTo: *to, Severities: list(*severities), Text: *text, ReviewedOnly: *reviewedOnly}
	for k, v := range map[ilgraph.Kind]string{ilgraph.KindRootCause: *rootCauses, ilgraph.KindComponent: *components,
		ilgraph.KindSymptom: *symptoms, ilgraph.KindContributing: *contributing, ilgraph.KindDomain: *domains, ilgraph.KindOrg: *orgs} {
		if ids := list(v); len(ids) > 0 {
			f.Tags[k] = ilgraph.TermMatch{AnyOf: ids}
		}
	}
	if err := f.Validate(); err != nil {
		return err
	}
	core, closeDB, err := openCore(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	st, err := core.Stats(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, statsJSON(st))
	}
	writeStats(stdout, st, *md)
	return nil
}

type countJSON struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

type yearJSON struct {
	Year  int `json:"year"`
	Count int `json:"count"`
}

type pairJSON struct {
	RootCause string `json:"root_cause"`
	Component string `json:"component"`
	Count     int    `json:"count"`
}

// distributionJSON is a time-to-resolve distribution in minutes: cases in
// the group, how many of them give a resolution time (measured), and
// quantiles over those (null when none does).
type distributionJSON struct {
	Cases    int      `json:"cases"`
	Measured int      `json:"measured"`
	Min      *int     `json:"min_minutes"`
	P25      *int     `json:"p25_minutes"`
	Median   *int     `json:"median_minutes"`
	P75      *int     `json:"p75_minutes"`
	P90      *int     `json:"p90_minutes"`
	Max      *int     `json:"max_minutes"`
	Mean     *float64 `json:"mean_minutes"`
}

type groupJSON struct {
	ID string `json:"id"`
	distributionJSON
}

type statsOut struct {
	Cases                    int              `json:"cases"`
	Organizations            int              `json:"organizations"`
	Bilingual                int              `json:"bilingual"`
	Reviewed                 int              `json:"reviewed"`
	PerYear                  []yearJSON       `json:"per_year"`
	PerRootCause             []countJSON      `json:"per_root_cause"`
	PerOrganization          []countJSON      `json:"per_organization"`
	PerDomain                []countJSON      `json:"per_domain"`
	TopCauseComponentPairs   []pairJSON       `json:"top_cause_component_pairs"`
	TimeToResolve            distributionJSON `json:"time_to_resolve"`
	TimeToResolveByRootCause []groupJSON      `json:"time_to_resolve_by_root_cause"`
	TimeToResolveByFactor    []groupJSON      `json:"time_to_resolve_by_factor"`
}

func distributionOf(d ilgraph.Distribution) distributionJSON {
	out := distributionJSON{Cases: d.Cases, Measured: d.Measured}
	if d.Measured > 0 {
		out.Min, out.P25, out.Median, out.P75, out.P90, out.Max = &d.Min, &d.P25, &d.Median, &d.P75, &d.P90, &d.Max
		out.Mean = &d.Mean
	}
	return out
}

func statsJSON(st *ilgraph.Stats) statsOut {
	out := statsOut{Cases: st.Cases, Organizations: st.Organizations, Bilingual: st.Bilingual, Reviewed: st.Reviewed,
		PerYear: []yearJSON{}, PerRootCause: []countJSON{}, PerOrganization: []countJSON{}, PerDomain: []countJSON{}, TopCauseComponentPairs: []pairJSON{}, TimeToResolve: distributionOf(st.ResolveAll),
		TimeToResolveByRootCause: []groupJSON{}, TimeToResolveByFactor: []groupJSON{}}
	for _, y := range st.PerYear {
		out.PerYear = append(out.PerYear, yearJSON{y.Year, y.Count})
	}
	for _, t := range st.PerRootCause {
		out.PerRootCause = append(out.PerRootCause, countJSON{t.ID, t.Count})
	}
	for _, t := range st.PerOrg {
		out.PerOrganization = append(out.PerOrganization, countJSON{t.ID, t.Count})
	}
	for _, t := range st.PerDomain {
		out.PerDomain = append(out.PerDomain, countJSON{t.ID, t.Count})
	}
	for _, p := range st.TopPairs {
		out.TopCauseComponentPairs = append(out.TopCauseComponentPairs, pairJSON{p.A.ID, p.B.ID, p.Count})
	}
	for _, g := range st.ResolveByCause {
		out.TimeToResolveByRootCause = append(out.TimeToResolveByRootCause, groupJSON{g.Term.ID, distributionOf(g.Distribution)})
	}
	for _, g := range st.ResolveByFactor {
		out.TimeToResolveByFactor = append(out.TimeToResolveByFactor, groupJSON{g.Term.ID, distributionOf(g.Distribution)})
	}
	return out
}

func writeStats(w io.Writer, st *ilgraph.Stats, md bool) {
	section := func(title string) {
		if md {
			fmt.Fprintf(w, "\n## %s\n\n", title)
		} else {
			fmt.Fprintf(w, "\n%s\n", title)
		}
	}
	table := func(header string, rows [][]any) {
		if md {
			fmt.Fprintf(w, "| %s |\n", strings.ReplaceAll(header, "\t", " | "))
			n := 1
			for _, c := range header {
				if c == '\t' {
					n++
				}
			}
			for i := 0; i < n; i++ {
				fmt.Fprint(w, "| --- ")
			}
			fmt.Fprintln(w, "|")
			for _, r := range rows {
				for _, c := range r {
					fmt.Fprintf(w, "| %v ", c)
				}
				fmt.Fprintln(w, "|")
			}
			return
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+header)
		for _, r := range rows {
			fmt.Fprint(tw, " ")
			for _, c := range r {
				fmt.Fprintf(tw, " %v\t", c)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	if md {
		fmt.Fprintf(w, "# The corpus\n\nGenerated by `ilgraph stats --markdown` from the loaded seeds.\n\n")
	}
	fmt.Fprintf(w, "%d cases from %d organizations.\n", st.Cases, st.Organizations)
	if md {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of them give every text in Korean too (bilingual); %d were read again against their source by a second reader (review.reviewed_at).\n",
		st.Bilingual, st.Reviewed)
	var rows [][]any
	for _, t := range st.PerRootCause {
		rows = append(rows, []any{t.ID, t.Count})
	}
	section("Cases per root cause")
	table("root cause\tcases", rows)
	rows = nil
	for _, t := range st.PerOrg {
		rows = append(rows, []any{t.ID, t.Count})
	}
	section("Cases per organization")
	table("organization\tcases", rows)
	rows = nil
	for _, t := range st.PerDomain {
		rows = append(rows, []any{t.ID, t.Count})
	}
	section("Cases per domain")
	table("domain\tcases", rows)
	rows = nil
	for _, y := range st.PerYear {
		rows = append(rows, []any{y.Year, y.Count})
	}
	section("Cases per year")
	table("year\tcases", rows)
	rows = nil
	for _, p := range st.TopPairs {
		rows = append(rows, []any{p.A.ID, p.B.ID, p.Count})
	}
	section("Most frequent root cause–component pairs")
	table("root cause\tcomponent\tcases", rows)
	section("Time to resolve")
	if d := st.ResolveAll; d.Measured == 0 {
		fmt.Fprintf(w, "None of the %d cases gives a resolution time.\n", d.Cases)
	} else {
		fmt.Fprintf(w, "Measured over the %d of %d cases whose source gives a resolution time: median %s, p90 %s, longest %s.\n",
			d.Measured, d.Cases, ilgraph.FormatDuration(d.Median), ilgraph.FormatDuration(d.P90), ilgraph.FormatDuration(d.Max))
	}
	rows = nil
	for _, d := range st.ResolveByCause {
		med := "–"
		if d.Measured > 0 {
			med = ilgraph.FormatDuration(d.Median)
		}
		rows = append(rows, []any{d.Term.ID, d.Cases, d.Measured, med})
	}
	section("Time to resolve by root cause")
	table("root cause\tcases\twith a resolution time\tmedian", rows)
}
