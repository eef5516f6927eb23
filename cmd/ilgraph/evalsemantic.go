package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/relevance"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// The semantic-channel trial of issue #29: does a sentence-embedding model
// that a registry package ships with its weights rank better than today's
// word channels? `ilgraph eval semantic --texts FILE` writes the texts to
// embed, scripts/experiments/embed.py embeds them with a model (the
// package's own code), and `ilgraph eval semantic --vectors FILE` measures
// the vectors against the BM25 and TF-IDF channels on three questions: a
// case's Korean summary finding its English case, the judged similarity
// sets, and the typed descriptions. Nothing here serves a request.

func runEvalSemantic(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval semantic", `Usage: ilgraph eval semantic --texts FILE [--seeds DIR] [--typed FILE]
       ilgraph eval semantic --vectors FILE [--seeds DIR] [--judged DIR] [--judge 1|2|both] [--typed FILE] [--json]
       ilgraph eval semantic --vectors FILE --pool DEPTH [--seeds DIR] [--judged DIR]

The semantic-channel trial (docs/similarity.md, "A semantic channel: tried, not adopted").

--texts writes the texts to embed, one JSON object a line ({"key", "text"}):
for every case its English text (title, summary, trigger, symptoms: what the
BM25 channel indexes; key en/ID), its Korean summary (ko/ID), its Korean text
(the same fields in Korean; kotext/ID) and its similarity text (trigger and
lessons: what the text channel compares; sim/ID); and every typed
description (typed/ID). scripts/experiments/embed.py MODEL FILE embeds them.

--vectors reads the vectors (a first line naming the model, then one
{"key", "vector"} a line) and prints, beside today's channels measured in the
same run:
  - Korean to English: each case's Korean summary as the query against every
    case's English text (the embedding's cosine; the BM25 channel's English
    index, suggest.Engine.TextMatches; TF-IDF): where its own case ranks;
  - the judged sets: the embedding's cosine of the similarity texts alone
    (embed), and the default ranker with the embedding's cosine in place of
    the text channel's (default+embed) or averaged with it
    (default+text+embed), beside default, text, bm25 and tags+steep;
  - the typed descriptions: each against every case's English and Korean
    text (the better cosine), beside the BM25 channel in the description's
    language.

With --pool, prints instead the pairs of the judged sets' queries that the
embedding's rankers put in their top DEPTH and that no set has graded,
shuffled and without ranker names, as lines to grade (as eval similar
--pool does).`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	judged := fs.String("judged", "testdata/relevance", "the folder of judged sets")
	judge := fs.String("judge", "1", "whose grades: 1, 2 or both (the mean of the two judges)")
	typedFile := fs.String("typed", "testdata/typed/descriptions.json", "the typed descriptions")
	textsOut := fs.String("texts", "", "write the texts to embed to `FILE` and stop")
	vectorsIn := fs.String("vectors", "", "read the vectors from `FILE` and measure them")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pool := fs.Int("pool", 0, "print the pairs the embedding's rankers put in their top `DEPTH` that no set has graded")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (*textsOut == "") == (*vectorsIn == "") {
		return ilgraph.Errorf(ilgraph.EINVALID, "eval semantic: give one of --texts FILE and --vectors FILE")
	}
	v, cases, err := readCorpus(*seeds)
	if err != nil {
		return err
	}
	descs, err := readTyped(*typedFile)
	if err != nil {
		return err
	}
	if *textsOut != "" {
		return writeSemanticTexts(*textsOut, cases, descs)
	}
	vecs, err := readVectors(*vectorsIn)
	if err != nil {
		return err
	}
	sets, err := relevance.ReadJudge(*judged, *judge)
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the judged sets")
	}
	if *pool > 0 {
		return printSemanticPool(stdout, cases, sets, vecs, *pool)
	}
	eng, err := suggest.New(v, cases, suggest.Options{})
	if err != nil {
		return err
	}
	rep, err := evalSemantic(cases, descs, sets, vecs, eng)
	if err != nil {
		return err
	}
	rep.Judge = *judge
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printSemantic(stdout, *seeds, rep)
	return nil
}

// semanticText is one text to embed.
type semanticText struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// semanticTexts are the texts the trial embeds, in a fixed order: per case
// (corpus order) en, ko, kotext, sim; then the typed descriptions. A case
// without Korean text has no ko and kotext.
func semanticTexts(cases []ilgraph.Case, descs []typedDescription) []semanticText {
	var out []semanticText
	for i := range cases {
		c := &cases[i]
		en, ko := joinTexts(c.Title.En, c.Summary.En, c.Trigger.En, c.SymptomsText.En), joinTexts(c.Title.Ko, c.Summary.Ko, c.Trigger.Ko, c.SymptomsText.Ko)
		out = append(out, semanticText{"en/" + c.ID, en})
		if strings.TrimSpace(c.Summary.Ko) != "" {
			out = append(out, semanticText{"ko/" + c.ID, c.Summary.Ko})
			if h := hangulOnly(c.Summary.Ko); h != "" {
				out = append(out, semanticText{"kohangul/" + c.ID, h})
			}
		}
		if strings.TrimSpace(ko) != "" {
			out = append(out, semanticText{"kotext/" + c.ID, ko})
		}
		out = append(out, semanticText{"sim/" + c.ID, ilgraph.SimilarityText(c.Trigger.En, c.Lessons.En)})
	}
	for _, d := range descs {
		out = append(out, semanticText{"typed/" + d.ID, d.Text})
	}
	return out
}

// hangulOnly is text without its words that have a Latin letter or a
// digit: a Korean summary without the product names, organization names,
// regions and numbers it shares with the English text, so that only what
// is said in Korean is left to find the English case by.
func hangulOnly(text string) string {
	var keep []string
	for _, w := range strings.Fields(text) {
		if !strings.ContainsFunc(w, func(r rune) bool { return r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
			keep = append(keep, w)
		}
	}
	if !hasHangul(strings.Join(keep, "")) {
		return ""
	}
	return strings.Join(keep, " ")
}

// joinTexts joins the non-empty texts with newlines.
func joinTexts(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n")
}

func writeSemanticTexts(path string, cases []ilgraph.Case, descs []typedDescription) error {
	return writeJSONLines(path, func(enc *json.Encoder) error {
		for _, t := range semanticTexts(cases, descs) {
			if err := enc.Encode(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// semanticVectors are a model's vectors by key, each scaled to length 1.
type semanticVectors struct {
	Model   string `json:"model"`
	Package string `json:"package"`
	Licence string `json:"licence"`
	Dim     int    `json:"dim"`
	vec     map[string][]float32
}

// readVectors reads a vectors file; an error names the file, the line and
// what is wrong with it.
func readVectors(path string) (*semanticVectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "--vectors")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	sv := &semanticVectors{vec: map[string][]float32{}}
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), sv); err != nil || sv.Model == "" || sv.Dim <= 0 {
				return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:1: want a header {\"model\", \"package\", \"licence\", \"dim\"} with a model name and dim > 0 (%v)", path, err)
			}
			continue
		}
		var item struct {
			Key    string    `json:"key"`
			Vector []float32 `json:"vector"`
		}
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: %v", path, line, err)
		}
		switch {
		case item.Key == "":
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: field key is empty", path, line)
		case len(item.Vector) != sv.Dim:
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: field vector has %d numbers, the header says dim %d", path, line, len(item.Vector), sv.Dim)
		case sv.vec[item.Key] != nil:
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: key %q is there twice", path, line, item.Key)
		}
		var norm float64
		for _, x := range item.Vector {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: the vector of %q is all zeros", path, line, item.Key)
		}
		scale := float32(1 / math.Sqrt(norm))
		for i := range item.Vector {
			item.Vector[i] *= scale
		}
		sv.vec[item.Key] = item.Vector
	}
	if err := sc.Err(); err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s", path)
	}
	if line == 0 {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: empty", path)
	}
	return sv, nil
}

// covers checks that every text has a vector.
func (sv *semanticVectors) covers(texts []semanticText) error {
	for _, t := range texts {
		if sv.vec[t.Key] == nil {
			return ilgraph.Errorf(ilgraph.EINVALID, "the vectors of model %s have no %q: embed the texts of this corpus (--texts)", sv.Model, t.Key)
		}
	}
	return nil
}

// cos is the cosine of the vectors of two keys (both have length 1); ok is
// false when either has no vector.
func (sv *semanticVectors) cos(a, b string) (float64, bool) {
	x, y := sv.vec[a], sv.vec[b]
	if x == nil || y == nil {
		return 0, false
	}
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(y[i])
	}
	return s, true
}

// semanticReport is what `ilgraph eval semantic --vectors` prints.
type semanticReport struct {
	Model   string `json:"model"`
	Package string `json:"package"`
	Licence string `json:"licence"`
	Dim     int    `json:"dim"`
	Cases   int    `json:"cases"`
	Judge   string `json:"judge"`
	// CrossLingual: each case's Korean summary against every case's English
	// text (rankers embed, bm25-en, tfidf-en), and the same with the
	// summary's Latin-script and digit words left out ("(Hangul only)").
	CrossLingual []typedFigures `json:"cross_lingual"`
	// Judged: the judged sets, by set name.
	Judged map[string][]relevance.Figures `json:"judged"`
	// Typed: the typed descriptions (rankers embed, bm25).
	Typed []typedFigures `json:"typed"`
}

// semanticJudgedRankers are the rankers of relevance.Rankers the judged
// sets are measured with, beside the embedding's.
var semanticJudgedRankers = []string{"default", "tags+steep", "text", "bm25"}

func evalSemantic(cases []ilgraph.Case, descs []typedDescription, sets []*relevance.Set, sv *semanticVectors, eng *suggest.Engine) (*semanticReport, error) {
	if err := sv.covers(semanticTexts(cases, descs)); err != nil {
		return nil, err
	}
	rep := &semanticReport{Model: sv.Model, Package: sv.Package, Licence: sv.Licence, Dim: sv.Dim, Cases: len(cases), Judged: map[string][]relevance.Figures{}}
	ids := make([]string, len(cases))
	for i := range cases {
		ids[i] = cases[i].ID
	}

	// Korean to English.
	enOnly := relevance.NewTFIDF(cases, relevance.NoNames(cases), func(c *ilgraph.Case) string {
		return joinTexts(c.Title.En, c.Summary.En, c.Trigger.En, c.SymptomsText.En)
	})
	var cross []typedResult
	for i := range cases {
		c := &cases[i]
		queries := []struct{ ranker, key, text string }{{"", "ko/", c.Summary.Ko}, {" (Hangul only)", "kohangul/", hangulOnly(c.Summary.Ko)}}
		for _, q := range queries {
			if strings.TrimSpace(q.text) == "" {
				continue
			}
			key := q.key + c.ID
			base := typedResult{ID: c.ID, Lang: "ko", Source: c.ID}
			r := base
			r.Ranker, r.Ranked = "embed"+q.ranker, rankByCos(ids, "", typedDepth, func(id string) float64 {
				s, _ := sv.cos(key, "en/"+id)
				return s
			})
			cross = append(cross, r)
			b := base
			b.Ranker = "bm25-en" + q.ranker
			var err error
			if b.Ranked, err = bm25Ranked(eng, q.text, "en"); err != nil {
				return nil, fmt.Errorf("%s: %w", c.ID, err)
			}
			cross = append(cross, b)
			t := base
			t.Ranker, t.Ranked = "tfidf-en"+q.ranker, enOnly.Rank(q.text, typedDepth)
			cross = append(cross, t)
		}
	}
	rep.CrossLingual = typedScoresOf(cross, []string{"embed", "bm25-en", "tfidf-en", "embed (Hangul only)", "bm25-en (Hangul only)", "tfidf-en (Hangul only)"}, []string{"ko"})

	// The judged sets.
	var rankers []relevance.Ranker
	for _, r := range relevance.Rankers(cases) {
		for _, name := range semanticJudgedRankers {
			if r.Name == name {
				rankers = append(rankers, r)
			}
		}
	}
	rankers = append(rankers, semanticRankers(cases, sv)...)
	judged := relevance.Evaluate(cases, sets, rankers)
	rep.Judged = judged.Sets

	// The typed descriptions.
	var typed []typedResult
	for _, d := range descs {
		base := typedResult{ID: d.ID, Lang: d.Lang, Source: d.Source, Twins: d.Twins}
		r := base
		q := "typed/" + d.ID
		r.Ranker, r.Ranked = "embed", rankByCos(ids, "", typedDepth, func(id string) float64 {
			s, _ := sv.cos(q, "en/"+id)
			if k, ok := sv.cos(q, "kotext/"+id); ok && k > s {
				s = k
			}
			return s
		})
		typed = append(typed, r)
		b := base
		b.Ranker = "bm25"
		var err error
		if b.Ranked, err = bm25Ranked(eng, d.Text, d.Lang); err != nil {
			return nil, fmt.Errorf("%s: %w", d.ID, err)
		}
		typed = append(typed, b)
	}
	rep.Typed = typedScoresOf(typed, []string{"embed", "bm25"}, []string{"en", "ko", "all"})
	return rep, nil
}

// bm25Ranked is the BM25 channel's ranking of a text against the cases'
// text in lang (suggest.Engine.TextMatches), to typedDepth.
func bm25Ranked(eng *suggest.Engine, text, lang string) ([]string, error) {
	_, ms, err := eng.TextMatches(text, lang, typedDepth, nil)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.CaseID)
	}
	return ids, err
}

// semanticRankers rank the judged sets with the embedding:
//
//   - embed: the cosine of the two cases' similarity texts alone;
//   - default+embed: the default ranker's definition (ilgraph.ScoreText,
//     default weights and rarity) with the embedding's cosine, clipped at
//     0, in place of the text channel's;
//   - default+text+embed: the same with the mean of the two cosines.
func semanticRankers(cases []ilgraph.Case, sv *semanticVectors) []relevance.Ranker {
	rows := relevance.Rows(cases)
	ix := similarity.Build(rows, 0)
	opt := ilgraph.DefaultOptions(0)
	weight := ix.Weight(opt)
	wText := opt.Weights[ilgraph.WeightText]
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	embed := func(q, id string) float64 {
		s, _ := sv.cos("sim/"+q, "sim/"+id)
		return math.Max(s, 0)
	}
	blend := func(name string, cosOf func(q, id string) float64) relevance.Ranker {
		return relevance.Ranker{Name: name, Rank: func(q string, k int) []string {
			qf := ix.Features(q)
			return rankByCos(ids, q, k, func(id string) float64 {
				return scoreWithCos(qf, ix.Features(id), weight, wText, cosOf(q, id))
			})
		}}
	}
	return []relevance.Ranker{
		{Name: "embed", Rank: func(q string, k int) []string {
			return rankByCos(ids, q, k, func(id string) float64 { return embed(q, id) })
		}},
		blend("default+embed", embed),
		blend("default+text+embed", func(q, id string) float64 {
			return (ilgraph.Cosine(ix.TextVector(q), ix.TextVector(id)) + embed(q, id)) / 2
		}),
	}
}

// scoreWithCos is ilgraph.ScoreText's score with the text cosine given: the
// definition itself, its text vectors made so that their cosine is c (a
// one-term query vector of weight 1 and a case vector of weight c). c must
// be in [0, 1].
func scoreWithCos(a, b []ilgraph.Feature, weight func(ilgraph.Feature) float64, wText, c float64) float64 {
	ta := ilgraph.TextVector{"·": 1}
	var tb ilgraph.TextVector
	if c > 0 {
		tb = ilgraph.TextVector{"·": c}
	}
	return ilgraph.ScoreText(a, b, weight, wText, ta, tb).Score
}

// rankByCos ranks ids by score as every judged-set ranker does
// (relevance.Ranked: above 0, exclude left out, best k).
func rankByCos(ids []string, exclude string, k int, score func(id string) float64) []string {
	scores := make([]float64, len(ids))
	for i, id := range ids {
		if id != exclude {
			scores[i] = score(id)
		}
	}
	return relevance.Ranked(ids, scores, exclude, k)
}

func printSemantic(w io.Writer, seeds string, rep *semanticReport) {
	fmt.Fprintf(w, "model %s (%s, licence: %s), %d dimensions; %d cases in %s\n", rep.Model, rep.Package, rep.Licence, rep.Dim, rep.Cases, seeds)
	table := func(title string, fs []typedFigures) {
		fmt.Fprintf(w, "\n%s\n\n", title)
		fmt.Fprintln(w, "| ranker | lang | queries | own case top 1 | top 5 | top 10 | MRR | judged twin in top 5 |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
		for _, f := range fs {
			twin := "–"
			if f.WithTwin > 0 {
				twin = fmt.Sprintf("%.3f (of %d)", f.Twin5, f.WithTwin)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %s |\n", f.Ranker, f.Lang, f.N, f.Top1, f.Top5, f.Top10, f.MRR, twin)
		}
	}
	table("Korean summary -> its English case (English text: title, summary, trigger, symptoms)", rep.CrossLingual)
	names := make([]string, 0, len(rep.Judged))
	for name := range rep.Judged {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "\njudged set %s, judge %s\n\n", name, rep.Judge)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ranker\tP@5\tstrong@5\tnDCG@5\trelated@5\tunjudged@5\t")
		for _, f := range rep.Judged[name] {
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%d/%d\t%d\t\n", f.Ranker, f.P5, f.Strong5, f.NDCG5, f.RelatedFound, f.RelatedTotal, f.Unjudged)
		}
		tw.Flush()
	}
	table("Typed descriptions -> their source case (embed: the better of the case's English and Korean text)", rep.Typed)
}

// printSemanticPool prints the unjudged pairs of the embedding's rankers'
// top depth for every query of the sets.
func printSemanticPool(w io.Writer, cases []ilgraph.Case, sets []*relevance.Set, sv *semanticVectors, depth int) error {
	if err := sv.covers(semanticTexts(cases, nil)); err != nil {
		return err
	}
	var queries []string
	for _, s := range sets {
		queries = append(queries, s.Queries...)
	}
	judged := func(q, id string) bool {
		for _, s := range sets {
			if _, ok := s.Grade(q, id); ok {
				return true
			}
		}
		return false
	}
	// Only the rankers' tops: the curated related cases are all graded.
	noRelated := make([]ilgraph.Case, len(cases))
	for i := range cases {
		noRelated[i] = ilgraph.Case{ID: cases[i].ID}
	}
	for _, p := range relevance.Pool(queries, semanticRankers(cases, sv), depth, noRelated, judged) {
		fmt.Fprintf(w, "%s\t%s\t\t\n", p[0], p[1])
	}
	return nil
}
