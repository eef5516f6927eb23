package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "similar" {
		return runEvalSimilar(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "typed" {
		return runEvalTyped(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "import" {
		return runEvalImport(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "suggest" {
		fmt.Fprintln(stderr, "Usage: ilgraph eval suggest [--seeds DIR] [--json]\n       ilgraph eval similar [--seeds DIR] [--judged DIR] [--json]\n       ilgraph eval typed [--seeds DIR] [--file FILE] [--each] [--json]\n       ilgraph eval import issre22 [--seeds DIR] [--json] DIR")
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			return nil
		}
		return errUsage
	}
	fs := newFlagSet("eval suggest", `Usage: ilgraph eval suggest [--seeds DIR] [--terms KIND] [--json]

Measures suggested terms by leave-one-out over a corpus, with no database:
each case's symptoms text and summary, in English and then in Korean where
the case has Korean text, is given to an engine that leaves that case out,
and the terms it predicts are compared with the case's tags. Prints
precision, recall and F1 per kind and root-cause top-1 and top-3 accuracy,
for the engine with cut-offs calibrated without the case (nested, ten
folds), with suggest.DefaultCutoffs, and for a labels-only baseline; the
overlap of the ten cases most similar to the predicted profile with those
most similar to the true tags; and the cut-offs calibrated on the whole
corpus (what DefaultCutoffs should be).

With --terms KIND (component, symptom, contributing, domain, mechanism or
root_cause), also prints each term of that kind: on how many queries' cases
it is a tag, and how often the engine (nested cut-offs) found it, missed it
and predicted it wrongly: which terms the errors come from.`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	terms := fs.String("terms", "", "also count `KIND`'s terms one by one: tagged, found, missed, predicted wrongly")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	termKind := ilgraph.Kind(*terms)
	if *terms != "" && !slices.Contains(ilgraph.VocabKinds, termKind) {
		var kinds []string
		for _, k := range ilgraph.VocabKinds {
			kinds = append(kinds, string(k))
		}
		return ilgraph.Errorf(ilgraph.EINVALID, "--terms: unknown kind %q (want one of %s)", *terms, strings.Join(kinds, ", "))
	}
	v, cases, err := readCorpus(*seeds)
	if err != nil {
		return err
	}
	rep, err := suggest.Evaluate(v, cases, suggest.Options{}, suggest.DefaultCutoffs)
	if err != nil {
		return err
	}
	if termKind != "" {
		rep.Terms = suggest.TermCounts(v, cases, rep.Predictions, termKind)
	}
	rep.Overlap, rep.OverlapNoMechanisms = similarOverlap(cases, rep.Predictions)
	rep.OverlapBaseline, _ = similarOverlap(cases, rep.BaselinePredictions)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printEval(stdout, *seeds, rep)
	return nil
}

// similarOverlap measures how far the cases found from a text agree with
// those found from the truth: for each query, the ten cases most similar
// (default weights and rarity, no text channel) to the profile predicted
// from the case's text, and the ten most similar to the case's true tags
// (its organization left out, as a text's profile has none), both over an
// index of the other cases; the share of the second set found in the first,
// averaged per language. The second figure leaves the predicted mechanisms
// out of the text's profile.
func similarOverlap(cases []ilgraph.Case, preds []suggest.Prediction) (with, without map[string]float64) {
	const k = 10
	byID := map[string]*ilgraph.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	indexes := map[string]*similarity.Index{}
	indexWithout := func(id string) *similarity.Index {
		if ix := indexes[id]; ix != nil {
			return ix
		}
		var rows []ilgraph.CaseFeatures
		for i := range cases {
			if cases[i].ID != id {
				rows = append(rows, ilgraph.SimilarityRow(&cases[i]))
			}
		}
		indexes[id] = similarity.Build(rows, 0)
		return indexes[id]
	}
	opt := ilgraph.DefaultOptions(k)
	top := func(ix *similarity.Index, fs []ilgraph.Feature) map[string]bool {
		out := map[string]bool{}
		for _, m := range ix.Similar(fs, "", opt) {
			out[m.ID] = true
		}
		return out
	}
	with, without = map[string]float64{}, map[string]float64{}
	n := map[string]int{}
	for _, p := range preds {
		c := byID[p.CaseID]
		ix := indexWithout(p.CaseID)
		var truth []ilgraph.Feature
		for _, f := range c.Features() {
			if f.Kind != ilgraph.KindOrg {
				truth = append(truth, f)
			}
		}
		want := top(ix, truth)
		if len(want) == 0 {
			continue
		}
		var fs, noMech []ilgraph.Feature
		for _, kind := range ilgraph.VocabKinds {
			for _, id := range p.Terms[kind] {
				f := ilgraph.Feature{Kind: kind, ID: id}
				fs = append(fs, f)
				if kind != ilgraph.KindMechanism {
					noMech = append(noMech, f)
				}
			}
		}
		share := func(fs []ilgraph.Feature) float64 {
			got, hit := top(ix, fs), 0
			for id := range want {
				if got[id] {
					hit++
				}
			}
			return float64(hit) / float64(len(want))
		}
		with[p.Lang] += share(fs)
		without[p.Lang] += share(noMech)
		n[p.Lang]++
	}
	for lang, x := range n {
		with[lang] = math.Round(with[lang]/float64(x)*1e4) / 1e4
		without[lang] = math.Round(without[lang]/float64(x)*1e4) / 1e4
	}
	return with, without
}

// readCorpus reads dir/vocab.json and every case file below dir with the
// loader's parser; any problem is an invalid-input error.
func readCorpus(dir string) (*ilgraph.Vocabulary, []ilgraph.Case, error) {
	v, probs := loader.ParseVocabulary(filepath.Join(dir, "vocab.json"))
	if len(probs) > 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "the vocabulary is invalid:\n%s", listProblems(probs))
	}
	var cases []ilgraph.Case
	var all loader.Problems
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "vocab.json" {
			return err
		}
		if ext := filepath.Ext(p); ext != ".json" && ext != ".jsonl" && ext != ".ndjson" {
			return nil
		}
		all = append(all, loader.ParseFile(p, func(pc loader.Parsed) error {
			cases = append(cases, *pc.Case)
			return nil
		})...)
		return nil
	})
	if err != nil {
		return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read %s", dir)
	}
	if len(all) > 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "the corpus has problems:\n%s", listProblems(all))
	}
	if len(cases) == 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "no cases in %s", dir)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	return v, cases, nil
}

func listProblems(ps loader.Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.Error() + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func printEval(w io.Writer, dir string, rep *suggest.Report) {
	fmt.Fprintf(w, "leave-one-out over %d cases in %s; engine: cut-offs calibrated without the case (%d folds);\nfixed: suggest.DefaultCutoffs; baseline: labels only\n\n", rep.Cases, dir, rep.Folds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lang\tqueries\tmeasure\tengine\tfixed\tbaseline\t")
	for _, lang := range []string{"en", "ko"} {
		e, x, b := rep.Engine[lang], rep.Fixed[lang], rep.Baseline[lang]
		if e == nil || e.Queries == 0 {
			continue
		}
		row := func(name, e, x, b string) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t\n", lang, e0(rep, lang), name, e, x, b)
		}
		f := func(x float64) string { return fmt.Sprintf("%.2f", x) }
		prf := func(k suggest.KindScore) string {
			return fmt.Sprintf("%.2f / %.2f / %.2f", k.Precision, k.Recall, k.F1)
		}
		row("root cause top-1", f(e.RootCauseTop1), f(x.RootCauseTop1), f(b.RootCauseTop1))
		row("root cause top-3", f(e.RootCauseTop3), f(x.RootCauseTop3), f(b.RootCauseTop3))
		for _, k := range ilgraph.VocabKinds {
			row(string(k)+" P / R / F1", prf(e.Kinds[k]), prf(x.Kinds[k]), prf(b.Kinds[k]))
		}
		if o, ok := rep.Overlap[lang]; ok {
			row("similar top-10 overlap", f(o), "", f(rep.OverlapBaseline[lang]))
			row("  without mechanisms", f(rep.OverlapNoMechanisms[lang]), "", "")
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\ncut-offs calibrated on every case's answers (what suggest.DefaultCutoffs should be):")
	for _, k := range ilgraph.VocabKinds {
		c := rep.Calibrated[k]
		mark := ""
		if suggest.DefaultCutoffs[k] != c {
			mark = fmt.Sprintf("  (DefaultCutoffs: %.2f, %d)", suggest.DefaultCutoffs[k].Min, suggest.DefaultCutoffs[k].Max)
		}
		fmt.Fprintf(w, "  %-13s confidence >= %.2f, at most %d%s\n", k, c.Min, c.Max, mark)
	}
	printTermCounts(w, rep.Terms)
}

// printTermCounts prints the per-term counts of --terms, most errors first.
func printTermCounts(w io.Writer, terms map[string][]suggest.TermCount) {
	for _, lang := range []string{"en", "ko"} {
		counts := slices.Clone(terms[lang])
		if len(counts) == 0 {
			continue
		}
		sort.SliceStable(counts, func(i, j int) bool {
			return counts[i].Missed+counts[i].Wrong > counts[j].Missed+counts[j].Wrong
		})
		fmt.Fprintf(w, "\nterms, %s (engine, nested cut-offs; most errors first):\n", lang)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "term\ttagged\tfound\tmissed\twrong\t")
		var sum suggest.TermCount
		for _, c := range counts {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", c.ID, c.Tagged, c.Found, c.Missed, c.Wrong)
			sum.Tagged, sum.Found, sum.Missed, sum.Wrong = sum.Tagged+c.Tagged, sum.Found+c.Found, sum.Missed+c.Missed, sum.Wrong+c.Wrong
		}
		fmt.Fprintf(tw, "all\t%d\t%d\t%d\t%d\t\n", sum.Tagged, sum.Found, sum.Missed, sum.Wrong)
		tw.Flush()
	}
}

func e0(rep *suggest.Report, lang string) int { return rep.Engine[lang].Queries }
