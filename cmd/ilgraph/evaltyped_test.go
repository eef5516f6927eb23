package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/relevance"
	"github.com/ilgraph/ilgraph/suggest"
)

func typedFile(t *testing.T) string {
	return filepath.Join(corpus.Root(t), "testdata", "typed", "descriptions.json")
}

// TestTypedDescriptionsFile checks the committed set: it parses, has at
// least 20 English and 10 Korean descriptions written in those languages,
// each from a distinct case of the seeds, and its twins are exactly the
// cases the first judge graded 2 for the source in testdata/relevance.
func TestTypedDescriptionsFile(t *testing.T) {
	descs, err := readTyped(typedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	_, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTypedSources(typedFile(t), descs, cases); err != nil {
		t.Fatal(err)
	}
	sets, err := relevance.ReadDir(filepath.Join(corpus.Root(t), "testdata", "relevance"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	sources := map[string]string{}
	for _, d := range descs {
		n[d.Lang]++
		if other, dup := sources[d.Source]; dup {
			t.Errorf("%s and %s are both written from %s", other, d.ID, d.Source)
		}
		sources[d.Source] = d.ID
		if d.Lang == "ko" && !hasHangul(d.Text) {
			t.Errorf("%s is marked ko but has no Hangul: %q", d.ID, d.Text)
		}
		if d.Lang == "en" && hasHangul(d.Text) {
			t.Errorf("%s is marked en but has Hangul: %q", d.ID, d.Text)
		}
		var want []string
		for i := range cases {
			for _, s := range sets {
				if g, ok := s.Grade(d.Source, cases[i].ID); ok && g == 2 && !slices.Contains(want, cases[i].ID) {
					want = append(want, cases[i].ID)
				}
			}
		}
		got := slices.Clone(d.Twins)
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: twins %v, the judged sets grade 2 for %s: %v", d.ID, got, d.Source, want)
		}
	}
	if n["en"] < 20 || n["ko"] < 10 {
		t.Errorf("%d English and %d Korean descriptions, want at least 20 and 10", n["en"], n["ko"])
	}
}

// words are the lower-cased runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// caseStrings returns every string of the case file's JSON, in both
// languages: all the text the case has.
func caseStrings(t *testing.T, id string) []string {
	var v any
	if err := json.Unmarshal(corpus.SeedFile(t, id), &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// sharedRun returns a run of n consecutive words text shares with one of
// the strings, "" when there is none.
func sharedRun(text string, of []string, n int) string {
	runs := map[string]bool{}
	for _, s := range of {
		w := words(s)
		for i := 0; i+n <= len(w); i++ {
			runs[strings.Join(w[i:i+n], " ")] = true
		}
	}
	w := words(text)
	for i := 0; i+n <= len(w); i++ {
		if r := strings.Join(w[i:i+n], " "); runs[r] {
			return r
		}
	}
	return ""
}

// TestTypedNotCopied checks that no description shares six consecutive
// words with any text of its source case (either language): they are
// written, not copied. The check itself is shown to catch a copy.
func TestTypedNotCopied(t *testing.T) {
	descs, err := readTyped(typedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range descs {
		if r := sharedRun(d.Text, caseStrings(t, d.Source), 6); r != "" {
			t.Errorf("%s shares %q with %s", d.ID, r, d.Source)
		}
	}
	// A copy is caught: six words of a source's summary, in a sentence.
	d := descs[0]
	var summary string
	_, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if cases[i].ID == d.Source {
			summary = cases[i].Summary.En
		}
	}
	w := words(summary)
	if len(w) < 16 {
		t.Fatalf("%s's summary is too short for the check", d.Source)
	}
	copied := "we see " + strings.Join(w[10:16], " ") + " again"
	if r := sharedRun(copied, caseStrings(t, d.Source), 6); r == "" {
		t.Errorf("the check missed a copied run in %q", copied)
	}
}

// TestReadTypedErrors: bad input is an error naming the file, the entry
// and the field.
func TestReadTypedErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"lang", `{"descriptions": [{"id": "A", "lang": "fr", "source": "IL-0211", "text": "x"}]}`, `descriptions[0] (A): field lang must be en or ko, not "fr"`},
		{"text", `{"descriptions": [{"id": "A", "lang": "en", "source": "IL-0211", "text": " "}]}`, `descriptions[0] (A): field text is empty`},
		{"source", `{"descriptions": [{"id": "A", "lang": "en", "text": "x"}]}`, `descriptions[0] (A): field source is empty`},
		{"ko", `{"descriptions": [{"id": "A", "lang": "ko", "source": "IL-0211", "text": "kafka lag"}]}`, `descriptions[0] (A): field text has no Hangul, but lang is ko`},
		{"en", `{"descriptions": [{"id": "A", "lang": "en", "source": "IL-0211", "text": "카프카 lag"}]}`, `descriptions[0] (A): field text has Hangul, but lang is en`},
		{"dup", `{"descriptions": [{"id": "A", "lang": "en", "source": "IL-0211", "text": "x"}, {"id": "A", "lang": "en", "source": "IL-0282", "text": "y"}]}`, `descriptions[1] (A): field id: "A" is used twice`},
		{"twin", `{"descriptions": [{"id": "A", "lang": "en", "source": "IL-0211", "twins": ["IL-0211"], "text": "x"}]}`, `field twins names the source case IL-0211`},
		{"unknown", `{"descriptions": [{"id": "A", "lang": "en", "source": "IL-0211", "txt": "x"}]}`, `unknown field "txt"`},
		{"syntax", "{\"descriptions\": [\n{\"id\": \"A\",, }]}", `:2: invalid character`},
		{"type", "{\"descriptions\": [\n{\"id\": 7}]}", `:2: field descriptions.id`},
		{"empty", `{"descriptions": []}`, `no descriptions`},
	} {
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readTyped(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", tc.name, err, path, tc.want)
		}
	}
	// A source that is not in the corpus.
	_, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	err = checkTypedSources("f.json", []typedDescription{{ID: "A", Lang: "en", Source: "IL-9999", Text: "x"}}, cases)
	if err == nil || !strings.Contains(err.Error(), "f.json: descriptions[0] (A): case IL-9999 is not in the corpus") {
		t.Errorf("unknown source: %v", err)
	}
}

// bruteFigures recomputes one ranker's figures on one language from the
// rankings by counting: the source among the first k, the first position
// it has, a twin among the first five.
func bruteFigures(results []typedResult, ranker, lang string) (n int, top [3]float64, mrr, twin5 float64, withTwin, none int) {
	var twins int
	for _, r := range results {
		if r.Ranker != ranker || (lang != "all" && r.Lang != lang) {
			continue
		}
		n++
		if r.NoAnswer != "" {
			none++
		}
		for j, k := range []int{1, 5, 10} {
			if slices.Contains(r.Ranked[:min(k, len(r.Ranked))], r.Source) {
				top[j]++
			}
		}
		if i := slices.Index(r.Ranked, r.Source); i >= 0 {
			mrr += 1 / float64(i+1)
		}
		if len(r.Twins) > 0 {
			withTwin++
			hit := false
			for _, id := range r.Ranked[:min(5, len(r.Ranked))] {
				hit = hit || slices.Contains(r.Twins, id)
			}
			if hit {
				twins++
			}
		}
	}
	if n == 0 {
		return
	}
	for j := range top {
		top[j] = round3(top[j] / float64(n))
	}
	mrr = round3(mrr / float64(n))
	if withTwin > 0 {
		twin5 = round3(float64(twins) / float64(withTwin))
	}
	return
}

func checkFigures(t *testing.T, results []typedResult, figs []typedFigures) {
	t.Helper()
	if len(figs) == 0 {
		t.Fatal("no figures")
	}
	for _, f := range figs {
		n, top, mrr, twin5, withTwin, none := bruteFigures(results, f.Ranker, f.Lang)
		got := typedFigures{Ranker: f.Ranker, Lang: f.Lang, N: n, Top1: top[0], Top5: top[1], Top10: top[2], MRR: mrr, WithTwin: withTwin, Twin5: twin5, NoAnswer: none}
		if got != f {
			t.Errorf("%s %s: figures %+v, counted %+v", f.Ranker, f.Lang, f, got)
		}
	}
}

// TestTypedScoresSmall checks the figures on rankings made for it, against
// the counting.
func TestTypedScoresSmall(t *testing.T) {
	results := []typedResult{
		{ID: "a", Lang: "en", Source: "S", Ranker: "default", Ranked: []string{"S", "X"}, Twins: []string{"X"}},
		{ID: "b", Lang: "en", Source: "S", Ranker: "default", Ranked: []string{"A", "B", "C", "S", "D", "T"}, Twins: []string{"T"}},
		{ID: "c", Lang: "ko", Source: "S", Ranker: "default", Ranked: []string{"A", "B", "C", "D", "E", "F", "G", "S"}},
		{ID: "d", Lang: "ko", Source: "S", Ranker: "default", NoAnswer: "points to no term"},
		{ID: "a", Lang: "en", Source: "S", Ranker: "tfidf", Ranked: []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "S"}, Twins: []string{"J"}},
		{ID: "c", Lang: "ko", Source: "S", Ranker: "tfidf", Ranked: []string{"T", "S"}, Twins: []string{"T"}},
	}
	figs := typedScores(results)
	checkFigures(t, results, figs)
	// Read one figure off the rankings by hand too: English, default:
	// ranks 1 and 4.
	if f := figs[0]; f.Lang != "en" || f.Top1 != 0.5 || f.Top5 != 1 || f.MRR != round3((1+0.25)/2) || f.Twin5 != 0.5 {
		t.Errorf("default en: %+v", f)
	}
}

// TestEvalTyped runs `ilgraph eval typed --json` on the committed set and
// the seeds and checks its figures against the counting, and that every
// description was answered by both rankers.
func TestEvalTyped(t *testing.T) {
	var out, errw bytes.Buffer
	if err := runEvalTyped([]string{"--seeds", corpus.Seeds(t), "--file", typedFile(t), "--json"}, &out, &errw); err != nil {
		t.Fatalf("%v %s", err, errw.String())
	}
	var rep typedReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	descs, err := readTyped(typedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(descs)*len(typedRankers) {
		t.Fatalf("%d results for %d descriptions and %d rankers", len(rep.Results), len(descs), len(typedRankers))
	}
	checkFigures(t, rep.Results, rep.Figures)
	if len(rep.Figures) != 3*len(typedRankers) {
		t.Errorf("%d figure rows, want en, ko and all for each ranker", len(rep.Figures))
	}
	var text bytes.Buffer
	if err := runEvalTyped([]string{"--seeds", corpus.Seeds(t), "--file", typedFile(t)}, &text, &errw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "| ranker | lang |") || !strings.Contains(text.String(), "| tfidf | ko |") {
		t.Errorf("no markdown table:\n%s", text.String())
	}
}

// TestTypedLeavesSourceOut checks that the suggestions the matcher reads
// leave the source case out: it is never a neighbour voting for its own
// tags, while without the exclusion it is for some descriptions (so the
// check can fail).
func TestTypedLeavesSourceOut(t *testing.T) {
	v, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	descs, err := readTyped(typedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	core := seedCore(v, cases)
	ctx := context.Background()
	eng, err := suggest.New(v, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	voted := 0
	for _, d := range descs {
		res, err := core.Suggest(withoutCase(ctx, d.Source), d.Text, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range res.Neighbours {
			if nb.CaseID == d.Source {
				t.Errorf("%s: the source %s is a neighbour", d.ID, d.Source)
			}
		}
		all, err := eng.Suggest(d.Text, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range all.Neighbours {
			if nb.CaseID == d.Source {
				voted++
			}
		}
	}
	if voted == 0 {
		t.Error("the source case is no description's neighbour even when kept in: the exclusion is not tested")
	}
}

// TestTFIDFBaseline checks the baseline's ranking on a small corpus against
// a brute-force recomputation with dense vectors over every term.
func TestTFIDFBaseline(t *testing.T) {
	_, all, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := all[:20]
	for _, opts := range []analysis.Options{{}, relevance.NoNames(cases)} {
		checkTFIDF(t, cases, opts)
	}
}

func checkTFIDF(t *testing.T, cases []ilgraph.Case, opts analysis.Options) {
	base := newTFIDF(cases, opts)
	an := analysis.New(opts)
	terms := func(s string) []string {
		var out []string
		for _, tok := range an.Tokens(s) {
			if !tok.Stop && tok.Script != analysis.Digit {
				out = append(out, tok.Norm)
			}
		}
		return out
	}
	docs := make([][]string, len(cases))
	vocab := map[string]int{}
	for i := range cases {
		c := &cases[i]
		docs[i] = terms(c.Title.En + "\n" + c.Title.Ko + "\n" + c.Summary.En + "\n" + c.Summary.Ko)
		for _, w := range docs[i] {
			if _, ok := vocab[w]; !ok {
				vocab[w] = len(vocab)
			}
		}
	}
	df := make([]float64, len(vocab))
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[vocab[w]]++
			}
		}
	}
	dense := func(ws []string) []float64 {
		tf := make([]float64, len(vocab))
		for _, w := range ws {
			if j, ok := vocab[w]; ok {
				tf[j]++
			}
		}
		var norm float64
		for j, c := range tf {
			if c > 0 {
				tf[j] = (1 + math.Log(c)) * math.Log(float64(len(cases))/df[j])
				norm += tf[j] * tf[j]
			}
		}
		for j := range tf {
			if norm > 0 {
				tf[j] /= math.Sqrt(norm)
			}
		}
		return tf
	}
	for _, q := range []string{
		cases[3].Title.En,
		cases[7].Summary.Ko,
		"postgres replica lag and disk full, kafka consumers behind",
		"카프카 브로커 디스크 가득, 컨슈머 랙 증가",
	} {
		qv := dense(terms(q))
		type sc struct {
			id string
			s  float64
		}
		var want []sc
		for i := range cases {
			dv := dense(docs[i])
			var s float64
			for j := range qv {
				s += qv[j] * dv[j]
			}
			if s = ilgraph.RoundScore(s); s > 0 {
				want = append(want, sc{cases[i].ID, s})
			}
		}
		sort.Slice(want, func(i, j int) bool {
			if want[i].s != want[j].s {
				return want[i].s > want[j].s
			}
			return want[i].id < want[j].id
		})
		var ids []string
		for _, w := range want {
			ids = append(ids, w.id)
		}
		if len(ids) > 10 {
			ids = ids[:10]
		}
		if got := base.Rank(q, 10); !slices.Equal(got, ids) || len(ids) == 0 {
			t.Errorf("%q (%+v): baseline %v, brute force %v", q, opts.DropVendors, got, ids)
		}
	}
}
