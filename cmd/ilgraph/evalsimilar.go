package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/relevance"
)

func runEvalSimilar(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval similar", `Usage: ilgraph eval similar [--seeds DIR] [--judged DIR] [--judge 1|2|both] [--judgments] [--json]
       ilgraph eval similar --agreement [--judged DIR] [--json]
       ilgraph eval similar --compare RANKER,RANKER [--seeds DIR] [--judged DIR]
       ilgraph eval similar --pool DEPTH --queries ID,ID,... [--judged DIR]

Measures similar-case rankings against judged sets, with no database: for
every set (DIR/*.tsv: query, case, grade 0-2, reason) and every ranker
(default, default-mech, tags, tags+rarity, tags+steep, text, bm25, blend,
tfidf; see docs/similarity.md), P@5, strong@5 (grade 2), nDCG@5, the query
cases' related links found in the top 5, and how many of the top 5 are
unjudged (counted as not relevant).

--judge chooses whose grades: 1, the first judge's (DIR/NAME.tsv); 2, the
second judge's blind grades of the same pairs (DIR/NAME.judge2.tsv); both,
the mean of the two, a pair counting as relevant when the mean is at least
1 and as strong when it is at least 1.5 (pairs only one judge graded are
then unjudged).

--judgments also scores every ranker against the judgments of similar
matches made in use, read from the Neo4j of NEO4J_URI (a set named
judgments: a pair several judges graded counts with the mean of their
grades, as --judge both does).

With --agreement, prints instead how far the two judges agree on every set:
exact agreement, Cohen's kappa (unweighted, linear and quadratic weights,
and on the relevant and strong decisions) and the confusion matrix.

With --compare A,B, prints instead, for every set and each judge (1, 2 and
both), the results ranker A puts in its top 5 and B does not (brought in)
and the other way round (pushed out), with their mean grade: what changing
B into A bought, as each judge sees it.

With --pool, prints instead the pairs still to judge for the queries: every
ranker's top DEPTH and each query's related cases, less the pairs judged,
shuffled and without ranker names, as lines to grade.`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	judged := fs.String("judged", "testdata/relevance", "the folder of judged sets")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pool := fs.Int("pool", 0, "print the unjudged pairs of every ranker's top N for --queries")
	queries := fs.String("queries", "", "with --pool: the query cases, comma-separated")
	only := fs.String("rankers", "", "with --pool: pool only these rankers, comma-separated (default: all)")
	judge := fs.String("judge", "1", "whose grades: 1, 2 or both (the mean of the two judges)")
	agreement := fs.Bool("agreement", false, "print the two judges' agreement on every set instead")
	compare := fs.String("compare", "", "A,B: print the results ranker A brings into the top 5 against ranker B, graded by each judge")
	inUse := fs.Bool("judgments", false, "also score against the judgments made in use, read from Neo4j")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *agreement {
		return printAgreement(*judged, *asJSON, stdout)
	}
	_, cases, err := readCorpus(*seeds)
	if err != nil {
		return err
	}
	var sets []*relevance.Set
	if *pool > 0 {
		sets, err = relevance.ReadDir(*judged)
	} else {
		sets, err = relevance.ReadJudge(*judged, *judge)
	}
	if err != nil && *pool == 0 {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the judged sets")
	}
	if *inUse {
		set, err := judgmentsSet(context.Background())
		if err != nil {
			return err
		}
		sets = append(sets, set)
	}
	rankers := relevance.Rankers(cases)
	if *compare != "" {
		return printCompare(*judged, *compare, rankers, stdout)
	}
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
	fmt.Fprintf(stdout, "%d cases in %s; judged sets in %s, judge %s; defaults %s rarity=%v\n", rep.Cases, *seeds, *judged, *judge, ilgraph.DefaultWeights(), ilgraph.DefaultRarity)
	for _, s := range sets {
		fmt.Fprintf(stdout, "\nset %s (%d queries, %d pairs, judge %s)\n", s.Name, len(s.Queries), s.Pairs(), s.Judge)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ranker\tP@5\tstrong@5\tnDCG@5\trelated@5\tunjudged@5\t")
		for _, f := range rep.Sets[s.Name] {
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%d/%d\t%d\t\n", f.Ranker, f.P5, f.Strong5, f.NDCG5, f.RelatedFound, f.RelatedTotal, f.Unjudged)
		}
		tw.Flush()
	}
	return nil
}

// printAgreement prints the agreement of the first and second judge on
// every set of dir that has both.
func printAgreement(dir string, asJSON bool, stdout io.Writer) error {
	first, err := relevance.ReadJudge(dir, "1")
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the judged sets")
	}
	second, err := relevance.ReadJudge(dir, "2")
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the second judge's sets")
	}
	var out []relevance.Agreement
	for i := range first {
		ag, err := relevance.Agree(first[i], second[i])
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot compare the judges")
		}
		out = append(out, ag)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, ag := range out {
		fmt.Fprintf(stdout, "set %s: %d pairs graded by both (only judge 1: %d, only judge 2: %d)\n", ag.Set, ag.Pairs, ag.OnlyA, ag.OnlyB)
		fmt.Fprintf(stdout, "  exact agreement %.3f; Cohen's kappa %.3f, linear-weighted %.3f, quadratic-weighted %.3f\n", ag.Exact, ag.Kappa, ag.KappaLinear, ag.KappaQuadratic)
		fmt.Fprintf(stdout, "  kappa of relevant (>=1) %.3f, of strong (2) %.3f; mean grade judge 1 %.3f, judge 2 %.3f\n", ag.KappaRelevant, ag.KappaStrong, ag.MeanA, ag.MeanB)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  judge 1 \\ judge 2\t0\t1\t2\t")
		for i, row := range ag.Confusion {
			fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t\n", i, row[0], row[1], row[2])
		}
		tw.Flush()
		fmt.Fprintln(stdout)
	}
	return nil
}

// printCompare prints what ranker A brings into the top 5 against ranker B
// (names "A,B"), on every set, graded by each judge.
func printCompare(dir, names string, rankers []relevance.Ranker, stdout io.Writer) error {
	parts := strings.Split(names, ",")
	var pick []relevance.Ranker
	for _, name := range parts {
		for _, r := range rankers {
			if r.Name == strings.TrimSpace(name) {
				pick = append(pick, r)
			}
		}
	}
	if len(parts) != 2 || len(pick) != 2 {
		return ilgraph.Errorf(ilgraph.EINVALID, "--compare %q: want two ranker names, A,B", names)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "set\tjudge\tbrought in by %s\tjudged\tmean grade\tpushed out\tjudged\tmean grade\t\n", pick[0].Name)
	for _, judge := range relevance.Judges {
		sets, err := relevance.ReadJudge(dir, judge)
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the judged sets")
		}
		for _, s := range sets {
			sw := relevance.Compare(s, pick[0], pick[1])
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t%d\t%d\t%.3f\t\n", s.Name, judge, sw.In, sw.InJudged, sw.InMean, sw.Out, sw.OutJudged, sw.OutMean)
		}
	}
	return tw.Flush()
}

// judgmentsSet reads the judgments made in use from Neo4j as a set.
func judgmentsSet(ctx context.Context) (*relevance.Set, error) {
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	js, err := db.AllJudgments(ctx)
	if err != nil {
		return nil, err
	}
	return relevance.FromJudgments("judgments", js), nil
}
