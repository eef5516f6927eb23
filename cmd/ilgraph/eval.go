package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/relevance"
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
	if len(args) > 0 && args[0] == "semantic" {
		return runEvalSemantic(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "import" {
		return runEvalImport(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "suggest" {
		fmt.Fprintln(stderr, "Usage: ilgraph eval suggest [--seeds DIR] [--json]\n       ilgraph eval similar [--seeds DIR] [--judged DIR] [--json]\n       ilgraph eval typed [--seeds DIR] [--file FILE] [--each] [--json]\n       ilgraph eval semantic --texts FILE | --vectors FILE [--seeds DIR] [--json]\n       ilgraph eval import issre22 [--seeds DIR] [--json] DIR")
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			return nil
		}
		return errUsage
	}
	fs := newFlagSet("eval suggest", `Usage: ilgraph eval suggest [--seeds DIR] [--terms KIND] [--judged DIR] [--judge 1|2|both] [--json]

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

It prints the show cut-offs too (what suggest.ShowCutoffs should be: per
kind the lowest confidence at which the suggestions were right at least
80% of the time), the precision and recall of the suggestions shown with
them (nested, and with ShowCutoffs), and each kind's reliability table:
how often its suggestions were right, by confidence band.

The confidences are calibrated (suggest.DefaultCalibration): it prints the
calibration fit on every case's answers (what suggest/calibration.json
should be; --write-calibration FILE writes it), the reliability tables of
the served, nested-calibrated and uncalibrated confidences, and each kind's
calibration error. --uncalibrated measures the engine with the scores as
its confidences.

It also measures the judged similarity sets (--judged, default
testdata/relevance, skipped when that default folder is absent; --judge
chooses whose grades) with each query case asked for by its text: the
cases most like the profile predicted from it, the terms counting in full
and with their confidence (as similarToText counts them).

With --terms KIND (component, symptom, contributing, domain, mechanism or
root_cause), also prints each term of that kind: on how many queries' cases
it is a tag, and how often the engine (nested cut-offs) found it, missed it
and predicted it wrongly: which terms the errors come from.`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	terms := fs.String("terms", "", "also count `KIND`'s terms one by one: tagged, found, missed, predicted wrongly")
	judged := fs.String("judged", "testdata/relevance", "the judged sets the query cases' texts are measured on (skipped when the default folder is absent)")
	judge := fs.String("judge", "1", "whose grades for the judged sets: 1, 2 or both")
	uncalibrated := fs.Bool("uncalibrated", false, "measure the engine with its confidences uncalibrated (the scores), as before suggest.DefaultCalibration")
	writeCal := fs.String("write-calibration", "", "write the calibration fit on every case's answers to `FILE` (suggest/calibration.json is the server's)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	judgedGiven := false
	fs.Visit(func(f *flag.Flag) { judgedGiven = judgedGiven || f.Name == "judged" || f.Name == "judge" })
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
	rep, err := suggest.Evaluate(v, cases, suggest.Options{Uncalibrated: *uncalibrated}, suggest.DefaultCutoffs)
	if err != nil {
		return err
	}
	if *writeCal != "" {
		b, err := suggest.MarshalCalibration(rep.Calibration)
		if err != nil {
			return err
		}
		if err := os.WriteFile(*writeCal, b, 0o644); err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "--write-calibration %s", *writeCal)
		}
	}
	if termKind != "" {
		rep.Terms = suggest.TermCounts(v, cases, rep.Predictions, termKind)
	}
	rep.Overlap, rep.OverlapNoMechanisms = similarOverlap(cases, rep.Predictions, true)
	rep.OverlapInFull, _ = similarOverlap(cases, rep.Predictions, false)
	rep.OverlapBaseline, _ = similarOverlap(cases, rep.BaselinePredictions, false)
	if _, err := os.Stat(*judged); err == nil || judgedGiven {
		sets, err := relevance.ReadJudge(*judged, *judge)
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "--judged %s: cannot read the judged sets", *judged)
		}
		rep.TextQueries = textQueries(cases, rep.Predictions, sets, servedWeightings)
		rep.TextQueries = append(rep.TextQueries, servedTextQueries(v, cases, sets)...)
	}
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
// out of the text's profile. With weighted, each predicted term counts with
// its confidence, as similarToText counts it; without, in full.
func similarOverlap(cases []ilgraph.Case, preds []suggest.Prediction, weighted bool) (with, without map[string]float64) {
	const k = 10
	byID := map[string]*ilgraph.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	indexWithout := leaveOneOutIndexes(cases)
	opt := ilgraph.DefaultOptions(k)
	var member func(ilgraph.Feature) float64
	top := func(ix *similarity.Index, fs []ilgraph.Feature) map[string]bool {
		out := map[string]bool{}
		for _, m := range ix.SimilarToProfile(fs, member, opt) {
			out[m.ID] = true
		}
		return out
	}
	with, without = map[string]float64{}, map[string]float64{}
	n := map[string]int{}
	for _, p := range preds {
		c := byID[p.CaseID]
		ix := indexWithout(p.CaseID)
		member = nil
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
		if weighted {
			member = confidenceOf(p)
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

// leaveOneOutIndexes returns a function giving the similarity index of
// every case but one, built once per case.
func leaveOneOutIndexes(cases []ilgraph.Case) func(id string) *similarity.Index {
	indexes := map[string]*similarity.Index{}
	return func(id string) *similarity.Index {
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
}

// confidenceOf gives each term of a prediction its confidence, which the
// ranking turns into the share of its weight (ilgraph.ConfidenceWeight), as
// for similarToText (explore.Profile.member).
func confidenceOf(p suggest.Prediction) func(ilgraph.Feature) float64 {
	return func(f ilgraph.Feature) float64 {
		if c, ok := p.Confidence[f]; ok && c > 0 && c < 1 {
			return c
		}
		return 1
	}
}

// confidencePower makes a term count with its confidence to the power
// given instead, for the experiment that chose ilgraph.ConfidenceWeight
// (√c): it passes c^(2·power), whose square root is c^power.
func confidencePower(p suggest.Prediction, power float64) func(ilgraph.Feature) float64 {
	c := confidenceOf(p)
	return func(f ilgraph.Feature) float64 { return math.Pow(c(f), 2*power) }
}

// termWeighting names how a text's predicted terms count: their confidence
// to a power (0: in full).
type termWeighting struct {
	name  string
	power float64
}

// servedWeightings are the weightings ilgraph eval suggest compares: in
// full (before issue #29) and with the confidence (what the server does).
var servedWeightings = []termWeighting{{"full", 0}, {"confidence", 0.5}}

// textQueries measures the judged sets with each query case's text as a
// live description, in each language: the cases most like the profile
// predicted from it (leave-one-out, nested cut-offs: rep.Predictions), over
// an index without the query case, default weights and rarity, the terms
// counting with their confidence or in full.
func textQueries(cases []ilgraph.Case, preds []suggest.Prediction, sets []*relevance.Set, weightings []termWeighting) []suggest.TextQueryFigures {
	indexWithout := leaveOneOutIndexes(cases)
	byQuery := map[[2]string]suggest.Prediction{}
	for _, p := range preds {
		byQuery[[2]string{p.CaseID, p.Lang}] = p
	}
	related := map[string][]string{}
	for _, c := range cases {
		related[c.ID] = c.Related
	}
	var out []suggest.TextQueryFigures
	for _, s := range sets {
		for _, lang := range []string{"en", "ko"} {
			for _, weighting := range weightings {
				r := relevance.Ranker{Name: "text-" + weighting.name, Rank: func(q string, k int) []string {
					p, ok := byQuery[[2]string{q, lang}]
					if !ok {
						return nil
					}
					var fs []ilgraph.Feature
					for _, kind := range ilgraph.VocabKinds {
						for _, id := range p.Terms[kind] {
							fs = append(fs, ilgraph.Feature{Kind: kind, ID: id})
						}
					}
					var member func(ilgraph.Feature) float64
					if weighting.power != 0 {
						member = confidencePower(p, weighting.power)
					}
					var ids []string
					for _, m := range indexWithout(q).SimilarToProfile(fs, member, ilgraph.DefaultOptions(k)) {
						ids = append(ids, m.ID)
					}
					return ids
				}}
				f := relevance.Measure(s, r, related)
				out = append(out, suggest.TextQueryFigures{Set: s.Name, Judge: s.Judge, Lang: lang, Weighting: weighting.name, Queries: f.Queries,
					P5: f.P5, Strong5: f.Strong5, NDCG5: f.NDCG5, Unjudged: f.Unjudged})
			}
		}
	}
	return out
}

// servedTextQueries measures the judged sets with each query case's text
// asked as the server answers it: "served" is the core's similarToText (the
// profile of the terms suggested above suggest.DefaultCutoffs, each counting
// with its confidence, blended with the text's own words), over an
// in-memory core of the corpus, the query case left out of the suggestion
// evidence (as ilgraph eval typed does) and out of the answer; "tfidf" a
// TF-IDF ranking of the cases' titles and summaries by the same text
// (ilgraph eval typed's baseline), the query case left out of the answer.
func servedTextQueries(v *ilgraph.Vocabulary, cases []ilgraph.Case, sets []*relevance.Set) []suggest.TextQueryFigures {
	related := map[string][]string{}
	for i := range cases {
		related[cases[i].ID] = cases[i].Related
	}
	rankers := textRankers(v, cases)
	var out []suggest.TextQueryFigures
	for _, s := range sets {
		for _, lang := range []string{"en", "ko"} {
			for _, r := range rankers(lang) {
				f := relevance.Measure(s, r, related)
				out = append(out, suggest.TextQueryFigures{Set: s.Name, Judge: s.Judge, Lang: lang, Weighting: strings.TrimPrefix(r.Name, "text-"), Queries: f.Queries,
					P5: f.P5, Strong5: f.Strong5, NDCG5: f.NDCG5, Unjudged: f.Unjudged})
			}
		}
	}
	return out
}

// textRankers returns, per language, servedTextQueries' rankers: each ranks
// the cases for a query case's text in that language (suggest.Query), the
// query case left out.
func textRankers(v *ilgraph.Vocabulary, cases []ilgraph.Case) func(lang string) []relevance.Ranker {
	core := seedCore(v, cases)
	tf := newTFIDF(cases, analysis.Options{})
	byID := map[string]*ilgraph.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	without := func(ids []string, q string, k int) []string {
		ids = slices.DeleteFunc(ids, func(id string) bool { return id == q })
		return ids[:min(k, len(ids))]
	}
	return func(lang string) []relevance.Ranker {
		text := func(q string) string {
			if c := byID[q]; c != nil {
				return suggest.Query(c, lang)
			}
			return ""
		}
		served := relevance.Ranker{Name: "text-served", Rank: func(q string, k int) []string {
			t := text(q)
			if t == "" {
				return nil
			}
			tm, err := core.SimilarToText(withoutCase(context.Background(), q), t, lang, explore.SimilarityQuery{K: min(k+1, explore.MaxSimilarK)})
			if err != nil {
				return nil
			}
			var ids []string
			for _, m := range tm.Match.Matches {
				ids = append(ids, m.Case.ID)
			}
			return without(ids, q, k)
		}}
		baseline := relevance.Ranker{Name: "text-tfidf", Rank: func(q string, k int) []string {
			t := text(q)
			if t == "" {
				return nil
			}
			return without(tf.Rank(t, k+1), q, k)
		}}
		return []relevance.Ranker{served, baseline}
	}
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
			row("  terms in full", f(rep.OverlapInFull[lang]), "", "")
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
	printShown(w, rep)
	printTextQueries(w, rep.TextQueries)
	printTermCounts(w, rep.Terms)
}

// printShown prints the show cut-offs (the suggestions shown as sure),
// what they leave, and the reliability tables they are chosen from.
func printShown(w io.Writer, rep *suggest.Report) {
	if rep.ShowCalibrated == nil {
		return
	}
	fmt.Fprintf(w, "\nshow cut-offs: the lowest confidence at which the suggestions were right >= %.0f%% of the time\n(calibrated on every case's answers: what suggest.ShowCutoffs should be):\n", suggest.ShowPrecision*100)
	for _, k := range ilgraph.VocabKinds {
		c := rep.ShowCalibrated[k]
		mark := ""
		if s := suggest.ShowCutoffs[k]; s != c {
			mark = fmt.Sprintf("  (ShowCutoffs: %.2f, %d)", s.Min, s.Max)
		}
		if c == suggest.NeverShown {
			fmt.Fprintf(w, "  %-13s never%s\n", k, mark)
			continue
		}
		fmt.Fprintf(w, "  %-13s confidence >= %.2f, at most %d%s\n", k, c.Min, c.Max, mark)
	}
	fmt.Fprintln(w, "\nsuggestions shown as sure: precision / recall; nested: show cut-offs calibrated without the case;\nfixed: suggest.ShowCutoffs")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lang\tkind\tnested P / R\tfixed P / R\t")
	for _, lang := range []string{"en", "ko"} {
		n, x := rep.Shown[lang], rep.ShownFixed[lang]
		if n == nil || n.Queries == 0 {
			continue
		}
		for _, k := range ilgraph.VocabKinds {
			fmt.Fprintf(tw, "%s\t%s\t%.2f / %.2f\t%.2f / %.2f\t\n", lang, k, n.Kinds[k].Precision, n.Kinds[k].Recall, x.Kinds[k].Precision, x.Kinds[k].Recall)
		}
	}
	tw.Flush()
	printReliability(w, "reliability of the confidences served (suggest.DefaultCalibration, fit on these answers): every\nsuggestion (at most the kind's cut-off's Max, any confidence) by confidence band, right / suggested (precision):", rep.Reliability)
	printReliability(w, "reliability, nested: each fold's confidences calibrated by the curves fit on the other folds' answers\n(what to expect on a new case):", rep.ReliabilityNested)
	printReliability(w, "reliability of the scores uncalibrated (what the curves are fit on):", rep.ReliabilityScores)
	if len(rep.ReliabilityNested) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncalibration error (the mean gap between a band's precision and its mean confidence, over the\nsuggestions): scores uncalibrated; nested calibration; served (fit on the same answers)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lang\tkind\tuncalibrated\tnested\tserved\t")
	for _, lang := range []string{"en", "ko"} {
		for _, k := range ilgraph.VocabKinds {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t\n", lang, k, suggest.CalibrationError(rep.ReliabilityScores[lang][k]),
				suggest.CalibrationError(rep.ReliabilityNested[lang][k]), suggest.CalibrationError(rep.Reliability[lang][k]))
		}
	}
	tw.Flush()
	if rep.Calibration != nil {
		fmt.Fprintln(w, "\ncalibration fit on every case's answers (what suggest/calibration.json should be): confidence =\nσ(a·logit(score) + c·lead + b), fit on n suggestions (lead: the score less the best other term's of the\nkind; c is 0 but for the root cause and the mechanisms); the confidence at scores 0.2 … 0.9 with a lead of 0:")
		for _, c := range rep.Calibration.Curves {
			var at []string
			for _, x := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
				at = append(at, fmt.Sprintf("%.2f", c.At(x, 0)))
			}
			fmt.Fprintf(w, "  %s %-13s a=%.3f b=%.3f c=%.3f n=%d  %s\n", c.Lang, c.Kind, c.A, c.B, c.C, c.N, strings.Join(at, " "))
		}
	}
}

// printReliability prints one set of reliability tables under title.
func printReliability(w io.Writer, title string, tables map[string]map[ilgraph.Kind][]suggest.ReliabilityBin) {
	if len(tables) == 0 {
		return
	}
	fmt.Fprintln(w, "\n"+title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "lang\tkind\t")
	for _, b := range tables["en"][ilgraph.KindComponent] {
		fmt.Fprintf(tw, "%.1f–%.1f\t", b.From, b.To)
	}
	fmt.Fprintln(tw)
	for _, lang := range []string{"en", "ko"} {
		for _, k := range ilgraph.VocabKinds {
			bins := tables[lang][k]
			if len(bins) == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t", lang, k)
			for _, b := range bins {
				if b.Suggested == 0 {
					fmt.Fprint(tw, "–\t")
					continue
				}
				fmt.Fprintf(tw, "%d/%d (%.2f)\t", b.Right, b.Suggested, b.Precision)
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

// printTextQueries prints the judged sets measured from the query cases'
// texts.
func printTextQueries(w io.Writer, fs []suggest.TextQueryFigures) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "\njudged sets (judge %s), each query case asked for by its text (symptoms text and summary),\nranked by the predicted profile (the terms counting in full or with their confidence), as the server\nanswers it (served: similarToText, the profile and the text's own words) or by TF-IDF over the cases'\ntitles and summaries (tfidf); the query case left out; unjudged results count as not relevant:\n", fs[0].Judge)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tlang\tranking\tqueries\tP@5\tstrong@5\tnDCG@5\tunjudged@5\t")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t\n", f.Set, f.Lang, f.Weighting, f.Queries, f.P5, f.Strong5, f.NDCG5, f.Unjudged)
	}
	tw.Flush()
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
