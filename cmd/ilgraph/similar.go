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
)

func runSimilar(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("similar", `Usage: ilgraph similar CASE-ID [--k N] [--weights kind=w,...] [--rarity] [--json]

Ranks the cases most like a case by weighted Jaccard similarity over tags
plus the text channel (see docs/similarity.md). Kinds: root_cause,
component, symptom, contributing, domain, org, and text for the text
channel; omitted kinds keep their defaults (`+ilgraph.DefaultWeights().String()+`).`, stderr)
	k := fs.Int("k", explore.DefaultSimilarK, fmt.Sprintf("how many cases (1 to %d)", explore.MaxSimilarK))
	weights := fs.String("weights", "", "weights per kind, e.g. root_cause=3,component=1.5")
	rarity := fs.Bool("rarity", ilgraph.DefaultRarity, "weight rare features more: each weight times "+ilgraph.RarityFormula)
	minScore := fs.Float64("min-score", 0, "leave out cases scoring below this")
	asJSON := fs.Bool("json", false, `print a JSON array of {"id", "score", "shared": [{"kind", "id", "contribution"}], "text": {"contribution", "words"}}`)
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
	}
	if id == "" {
		fmt.Fprintln(stderr, "ilgraph similar: name one case id")
		return errUsage
	}
	w, err := ilgraph.ParseWeights(*weights)
	if err != nil {
		return err
	}
	core, closeDB, err := openCore(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	matches, err := core.Similar(ctx, id, explore.SimilarityQuery{K: *k, Weights: w, Rarity: rarity, MinScore: *minScore})
	if err != nil {
		return err
	}
	if *asJSON {
		type shared struct {
			Kind         string  `json:"kind"`
			ID           string  `json:"id"`
			Contribution float64 `json:"contribution"`
		}
		type text struct {
			Contribution float64  `json:"contribution"`
			Words        []string `json:"words"`
		}
		type result struct {
			ID     string   `json:"id"`
			Score  float64  `json:"score"`
			Shared []shared `json:"shared"`
			Text   *text    `json:"text,omitempty"`
		}
		out := []result{}
		for _, m := range matches {
			r := result{ID: m.Case.ID, Score: m.Score, Shared: []shared{}}
			if m.Text != nil {
				r.Text = &text{Contribution: m.Text.Contribution, Words: m.Text.Words}
			}
			for _, s := range m.Shared {
				r.Shared = append(r.Shared, shared{Kind: string(s.Kind), ID: s.ID, Contribution: s.Contribution})
			}
			out = append(out, r)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tcase\tscore\tshared")
	for i, m := range matches {
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
