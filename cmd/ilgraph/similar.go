package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/view"
)

func runSimilar(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("similar", `Usage:
  ilgraph similar CASE-ID [--k N] [--weights kind=w,...] [--rarity] [--min-score X] [--json]
  ilgraph similar CASE-ID --explain OTHER-ID [--weights ...] [--rarity] [--json]
  ilgraph similar --components a,b --symptoms x,y --contributing f [--root-cause c] [--domains d] [--org o] [--k N] ...

Ranks the cases most like a case by weighted Jaccard similarity over tags
plus the text channel (see docs/similarity.md), and why. --explain shows,
feature by feature, why OTHER-ID scores what it does against CASE-ID.
Without a case id, the feature flags describe an incident in progress (a
profile): the answer is the cases most like it, the root causes and
contributing factors they suggest checking, and what resolved them. Kinds:
root_cause, component, symptom, contributing, domain, org, and text for the
text channel; omitted ones keep their default weights (`+ilgraph.DefaultWeights().String()+`).`, stderr)
	k := fs.Int("k", explore.DefaultSimilarK, fmt.Sprintf("how many cases (1 to %d)", explore.MaxSimilarK))
	weights := fs.String("weights", "", "weights per kind, e.g. root_cause=3,component=1.5")
	rarity := fs.Bool("rarity", ilgraph.DefaultRarity, "weight rare features more: each weight times "+ilgraph.RarityFormula)
	minScore := fs.Float64("min-score", 0, "leave out cases scoring below this")
	asJSON := fs.Bool("json", false, "print JSON (see docs/similarity.md for its shape)")
	explain := fs.String("explain", "", "explain the similarity of this case to CASE-ID, feature by feature")
	rootCause := fs.String("root-cause", "", "profile: the root cause, if known")
	org := fs.String("org", "", "profile: the organization slug")
	components := fs.String("components", "", "profile: components, comma-separated")
	symptoms := fs.String("symptoms", "", "profile: symptoms, comma-separated")
	contributing := fs.String("contributing", "", "profile: contributing factors, comma-separated")
	domains := fs.String("domains", "", "profile: domains, comma-separated")
	mechanisms := fs.String("mechanisms", "", "profile: mechanisms, comma-separated")
	// Flags may follow the case id.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if id == "" && fs.NArg() == 1 {
		id = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ilgraph similar: unexpected arguments %q\n", fs.Args())
		return errUsage
	}
	p := explore.Profile{RootCause: *rootCause, Org: *org, Components: list(*components), Symptoms: list(*symptoms),
		Contributing: list(*contributing), Domains: list(*domains), Mechanisms: list(*mechanisms)}
	profile := len(p.Features()) > 0
	switch {
	case id == "" && !profile:
		fmt.Fprintln(stderr, "ilgraph similar: name one case id, or describe an incident with --components, --symptoms, --contributing, …")
		return errUsage
	case id != "" && profile:
		fmt.Fprintln(stderr, "ilgraph similar: give a case id or profile flags, not both")
		return errUsage
	case *explain != "" && id == "":
		fmt.Fprintln(stderr, "ilgraph similar: --explain needs a case id to explain against")
		return errUsage
	}
	w, err := ilgraph.ParseWeights(*weights)
	if err != nil {
		return err
	}
	core, closeDB, err := openCore(ctx, false)
	if err != nil {
		return err
	}
	defer closeDB()
	q := explore.SimilarityQuery{K: *k, Weights: w, Rarity: rarity, MinScore: *minScore}
	switch {
	case *explain != "":
		e, err := core.ExplainSimilarity(ctx, id, *explain, w, *rarity)
		if err != nil {
			return err
		}
		if *asJSON {
			v, err := view.Explain(ctx, core, e)
			if err != nil {
				return err
			}
			return writeJSON(stdout, v)
		}
		return writeExplanation(stdout, e)
	case profile:
		pm, err := core.SimilarToProfile(ctx, p, q)
		if err != nil {
			return err
		}
		if *asJSON {
			v, err := view.Profile(ctx, core, pm)
			if err != nil {
				return err
			}
			return writeJSON(stdout, v)
		}
		return writeProfile(stdout, pm)
	}
	matches, err := core.Similar(ctx, id, q)
	if err != nil {
		return err
	}
	if *asJSON {
		v, err := view.Similar(ctx, core, id, matches)
		if err != nil {
			return err
		}
		return writeJSON(stdout, v)
	}
	return writeMatches(stdout, matches)
}

// list splits a comma-separated flag value, dropping empty items.
func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// writeJSON prints v indented. The answers are in the JSON shapes the JSON
// API and MCP give the same question (internal/view).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeMatches(w io.Writer, ms []explore.SimilarCase) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tcase\tscore\tshared")
	for i, m := range ms {
		var parts []string
		for _, s := range m.Shared {
			parts = append(parts, fmt.Sprintf("%s:%s (%.3f)", s.Kind, s.ID, s.Contribution))
		}
		if m.Text != nil {
			parts = append(parts, fmt.Sprintf("text[%s] (%.3f)", strings.Join(m.Text.Words, " "), m.Text.Contribution))
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%s\n", i+1, m.Case.ID, m.Score, strings.Join(parts, ", "))
	}
	return tw.Flush()
}

func writeExplanation(w io.Writer, e *explore.Explanation) error {
	rarity := "off"
	if e.Rarity {
		rarity = "on"
	}
	fmt.Fprintf(w, "%s vs %s: score %.4f (weights %s; rarity %s)\n", e.A.ID, e.B.ID, e.Score, e.Weights, rarity)
	fmt.Fprintln(w, "score = (summed weights of the shared features + text weight × text cosine) / (summed weights of the features either has + text weight)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\t\t\nshared\tweight\tcontribution\n")
	if len(e.Shared) == 0 {
		fmt.Fprintln(tw, "  (nothing)\t\t")
	}
	for _, s := range e.Shared {
		fmt.Fprintf(tw, "  %s\t%.4f\t%.4f\n", s.Feature, s.Weight, s.Contribution)
	}
	if e.Text != nil {
		fmt.Fprintf(tw, "  text (cosine %.4f: %s)\t%.4f\t%.4f\n", e.Text.Cosine, strings.Join(e.Text.Words, " "), e.Text.Weight, e.Text.Contribution)
	}
	for _, side := range []struct {
		name    string
		inQuery bool
	}{{"only " + e.A.ID, true}, {"only " + e.B.ID, false}} {
		fmt.Fprintf(tw, "\t\t\n%s\tweight\t\n", side.name)
		n := 0
		for _, d := range e.Differing {
			if d.InQuery == side.inQuery {
				fmt.Fprintf(tw, "  %s\t%.4f\t\n", d.Feature, d.Weight)
				n++
			}
		}
		if n == 0 {
			fmt.Fprintln(tw, "  (nothing)\t\t")
		}
	}
	return tw.Flush()
}

func writeProfile(w io.Writer, pm *explore.ProfileMatch) error {
	if len(pm.Matches) == 0 {
		fmt.Fprintln(w, "No case shares a feature with the profile.")
		return nil
	}
	if err := writeMatches(w, pm.Matches); err != nil {
		return err
	}
	for _, s := range []struct {
		title string
		terms []explore.WeightedTerm
	}{{"Root causes to check", pm.RootCauses}, {"Contributing factors to check", pm.Contributing}} {
		fmt.Fprintf(w, "\n%s (summed scores of the matches with it):\n", s.title)
		for _, t := range s.terms {
			fmt.Fprintf(w, "  %-28s %.4f  (%d of %d matches)\n", t.Key.ID, t.Weight, t.Matches, len(pm.Matches))
		}
	}
	fmt.Fprintln(w, "\nWhat resolved them:")
	for _, r := range pm.Remedies {
		fmt.Fprintf(w, "  %s (%.4f)\n", r.Case.ID, r.Score)
		for _, t := range r.Remediation {
			fmt.Fprintf(w, "    - %s\n", t.En)
		}
	}
	return nil
}
