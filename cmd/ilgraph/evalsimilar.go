package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/relevance"
)

func runEvalSimilar(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval similar", `Usage: ilgraph eval similar [--seeds DIR] [--judged DIR] [--json]
       ilgraph eval similar --pool DEPTH --queries ID,ID,... [--judged DIR]

Measures similar-case rankings against judged sets, with no database: for
every set (DIR/*.tsv: query, case, grade 0-2, reason) and every ranker
(default, tags, tags+rarity, text, bm25, blend; see docs/similarity.md),
P@5, strong@5 (grade 2), nDCG@5, the query cases' related links found in
the top 5, and how many of the top 5 are unjudged (counted as not
relevant).

With --pool, prints instead the pairs still to judge for the queries: every
ranker's top DEPTH and each query's related cases, less the pairs judged,
shuffled and without ranker names, as lines to grade.`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	judged := fs.String("judged", "testdata/relevance", "the folder of judged sets")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pool := fs.Int("pool", 0, "print the unjudged pairs of every ranker's top N for --queries")
	queries := fs.String("queries", "", "with --pool: the query cases, comma-separated")
	only := fs.String("rankers", "", "with --pool: pool only these rankers, comma-separated (default: all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, cases, err := readCorpus(*seeds)
	if err != nil {
		return err
	}
	sets, err := relevance.ReadDir(*judged)
	if err != nil && *pool == 0 {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the judged sets")
	}
	rankers := relevance.Rankers(cases)
	if *pool > 0 && *only != "" {
		var keep []relevance.Ranker
		for _, r := range rankers {
			for _, name := range strings.Split(*only, ",") {
				if strings.TrimSpace(name) == r.Name {
					keep = append(keep, r)
				}
			}
		}
		rankers = keep
	}
	if *pool > 0 {
		judgedPair := func(q, id string) bool {
			for _, s := range sets {
				if _, ok := s.Grade(q, id); ok {
					return true
				}
			}
			return false
		}
		var qs []string
		for _, q := range strings.Split(*queries, ",") {
			if q = strings.TrimSpace(q); q != "" {
				qs = append(qs, q)
			}
		}
		for _, p := range relevance.Pool(qs, rankers, *pool, cases, judgedPair) {
			fmt.Fprintf(stdout, "%s\t%s\t\t\n", p[0], p[1])
		}
		return nil
	}
	rep := relevance.Evaluate(cases, sets, rankers)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(stdout, "%d cases in %s; judged sets in %s; defaults %s rarity=%v\n", rep.Cases, *seeds, *judged, ilgraph.DefaultWeights(), ilgraph.DefaultRarity)
	for _, s := range sets {
		fmt.Fprintf(stdout, "\nset %s (%d queries)\n", s.Name, len(s.Queries))
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ranker\tP@5\tstrong@5\tnDCG@5\trelated@5\tunjudged@5\t")
		for _, f := range rep.Sets[s.Name] {
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%d/%d\t%d\t\n", f.Ranker, f.P5, f.Strong5, f.NDCG5, f.RelatedFound, f.RelatedTotal, f.Unjudged)
		}
		tw.Flush()
	}
	return nil
}
