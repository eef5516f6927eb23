package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/relevance"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// typedDepth is how deep a ranking is read: the most cases a free-text
// question may ask for (explore.MaxSimilarK). A source case ranked below it,
// or not at all, counts as not found (reciprocal rank 0).
const typedDepth = explore.MaxSimilarK

func runEvalTyped(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval typed", `Usage: ilgraph eval typed [--seeds DIR] [--file FILE] [--each] [--json] [--description-weight W] [--keep-source]

Measures free-text matching on incident descriptions typed the way an
on-call engineer types them (testdata/typed/descriptions.json: each written
from one case of the corpus, its source), with no database. Each description
goes through the core's free-text matcher (similarToText: what MCP's
match_incident and the live screen call) over an in-memory core of the
corpus, with the source case left out of the suggestion engine's evidence
(its phrase reliabilities, BM25 statistics and neighbour votes:
SuggestExcluding); the source case stays among the cases ranked, since it is
what the engineer is looking for.

Prints, per language, how often the source case is first, in the top 5 and
in the top 10, the mean reciprocal rank of the source case (0 when it is not
among the first 100), how often one of its judged twins (cases graded 2 for
it in testdata/relevance) is in the top 5, and how many descriptions got no
answer (no suggested term); the same for a TF-IDF baseline over each case's
title and summary in English and Korean. --each also lists every
description's rank of its source and its top 5.

The set is a test set: nothing may be tuned on it.`, stderr)
	seeds := fs.String("seeds", "seeds", "the corpus: a folder with vocab.json and case files")
	file := fs.String("file", "testdata/typed/descriptions.json", "the typed descriptions")
	each := fs.Bool("each", false, "also list every description's source rank and top 5")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	descWeight := fs.Float64("description-weight", explore.DefaultDescriptionWeight, "the share of a match's score the description's own words decide (0: only the terms suggested from it; to compare, not to tune: this is a test set)")
	keep := fs.Bool("keep-source", false, "for comparison only: leave the source case in the suggestion evidence (what the figures would be if the evaluation leaked)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	descs, err := readTyped(*file)
	if err != nil {
		return err
	}
	v, cases, err := readCorpus(*seeds)
	if err != nil {
		return err
	}
	if err := checkTypedSources(*file, descs, cases); err != nil {
		return err
	}
	rep, err := evalTyped(context.Background(), v, cases, descs, *keep, explore.WithDescriptionWeight(*descWeight))
	if err != nil {
		return err
	}
	rep.File = *file
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printTyped(stdout, *seeds, rep, *each)
	return nil
}

// typedDescription is one typed incident description.
type typedDescription struct {
	ID     string   `json:"id"`
	Lang   string   `json:"lang"`   // en or ko: the language it is written in
	Source string   `json:"source"` // the case it was written from
	Twins  []string `json:"twins"`  // cases the judged sets grade 2 for the source
	Text   string   `json:"text"`
}

// readTyped reads a file of typed descriptions ({"descriptions": [...]});
// an error names the file, the entry and the field.
func readTyped(path string) ([]typedDescription, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "cannot read the typed descriptions")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc struct {
		Descriptions []typedDescription `json:"descriptions"`
	}
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: %v", path, lineOf(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s:%d: field %s: %v", path, lineOf(data, te.Offset), te.Field, err)
		}
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: %v", path, err)
	}
	if len(doc.Descriptions) == 0 {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: no descriptions (want {\"descriptions\": [{\"id\", \"lang\", \"source\", \"twins\", \"text\"}, ...]})", path)
	}
	seen := map[string]bool{}
	for i, d := range doc.Descriptions {
		at := fmt.Sprintf("%s: descriptions[%d]", path, i)
		if d.ID != "" {
			at += " (" + d.ID + ")"
		}
		switch {
		case strings.TrimSpace(d.ID) == "":
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field id is empty", at)
		case seen[d.ID]:
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field id: %q is used twice", at, d.ID)
		case d.Lang != "en" && d.Lang != "ko":
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field lang must be en or ko, not %q", at, d.Lang)
		case strings.TrimSpace(d.Source) == "":
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field source is empty: name the case the description was written from", at)
		case strings.TrimSpace(d.Text) == "":
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field text is empty", at)
		case d.Lang == "ko" && !hasHangul(d.Text):
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field text has no Hangul, but lang is ko", at)
		case d.Lang == "en" && hasHangul(d.Text):
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field text has Hangul, but lang is en", at)
		}
		for _, t := range d.Twins {
			if t == d.Source {
				return nil, ilgraph.Errorf(ilgraph.EINVALID, "%s: field twins names the source case %s", at, t)
			}
		}
		seen[d.ID] = true
	}
	return doc.Descriptions, nil
}

// lineOf is the line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// checkTypedSources checks that every source and twin is a case of the
// corpus.
func checkTypedSources(path string, descs []typedDescription, cases []ilgraph.Case) error {
	have := map[string]bool{}
	for i := range cases {
		have[cases[i].ID] = true
	}
	for i, d := range descs {
		for _, id := range append([]string{d.Source}, d.Twins...) {
			if !have[id] {
				return ilgraph.Errorf(ilgraph.EINVALID, "%s: descriptions[%d] (%s): case %s is not in the corpus", path, i, d.ID, id)
			}
		}
	}
	return nil
}

// typedResult is one description's answer from one ranker.
type typedResult struct {
	ID     string   `json:"id"`
	Lang   string   `json:"lang"`
	Source string   `json:"source"`
	Twins  []string `json:"twins,omitempty"`
	Ranker string   `json:"ranker"`
	// Ranked are the cases ranked, best first (at most typedDepth).
	Ranked []string `json:"ranked,omitempty"`
	// Profile is the matcher's profile of the text ("kind:id"; the default
	// ranker only).
	Profile []string `json:"profile,omitempty"`
	// NoAnswer says why the ranker ranked nothing (the text points to no
	// term); empty when it answered.
	NoAnswer string `json:"no_answer,omitempty"`
}

// Rank is the source case's 1-based rank, 0 when it is not ranked.
func (r typedResult) Rank() int {
	for i, id := range r.Ranked {
		if id == r.Source {
			return i + 1
		}
	}
	return 0
}

// typedFigures are one ranker's figures on one language ("all" for both).
type typedFigures struct {
	Ranker   string  `json:"ranker"`
	Lang     string  `json:"lang"`
	N        int     `json:"n"`
	Top1     float64 `json:"top1"`
	Top5     float64 `json:"top5"`
	Top10    float64 `json:"top10"`
	MRR      float64 `json:"mrr"`
	WithTwin int     `json:"with_twins"` // descriptions whose source has judged twins
	Twin5    float64 `json:"twin5"`      // share of those with a twin in the top 5
	NoAnswer int     `json:"no_answer"`
}

// typedReport is what `ilgraph eval typed` prints.
type typedReport struct {
	File         string `json:"file"`
	Cases        int    `json:"cases"`
	Descriptions int    `json:"descriptions"`
	// SourceInEvidence: run with --keep-source (the figures leak).
	SourceInEvidence bool           `json:"source_in_evidence,omitempty"`
	Figures          []typedFigures `json:"figures"`
	Results          []typedResult  `json:"results"`
}

// typedRankers are the rankers measured, in the order printed.
var typedRankers = []string{"default", "tfidf", "tfidf-nonames"}

// evalTyped ranks every description with the core's free-text matcher
// (source case out of the evidence) and with the TF-IDF baseline.
//
// With keepSource the source case stays in the evidence: only to show what
// leaving it out changes.
func evalTyped(ctx context.Context, v *ilgraph.Vocabulary, cases []ilgraph.Case, descs []typedDescription, keepSource bool, opts ...explore.Option) (*typedReport, error) {
	core := seedCore(v, cases, opts...)
	bases := map[string]*relevance.TFIDF{"tfidf": newTFIDF(cases, analysis.Options{}), "tfidf-nonames": newTFIDF(cases, relevance.NoNames(cases))}
	rep := &typedReport{Cases: len(cases), Descriptions: len(descs), SourceInEvidence: keepSource}
	for _, d := range descs {
		r := typedResult{ID: d.ID, Lang: d.Lang, Source: d.Source, Twins: d.Twins, Ranker: "default"}
		qctx := withoutCase(ctx, d.Source)
		if keepSource {
			qctx = ctx
		}
		tm, err := core.SimilarToText(qctx, d.Text, "", explore.SimilarityQuery{K: typedDepth})
		switch {
		case ilgraph.ErrorCode(err) == ilgraph.EINVALID:
			r.NoAnswer = ilgraph.ErrorMessage(err)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", d.ID, err)
		default:
			for _, m := range tm.Match.Matches {
				r.Ranked = append(r.Ranked, m.Case.ID)
			}
			for _, f := range tm.Profile.Features() {
				r.Profile = append(r.Profile, string(f.Kind)+":"+f.ID)
			}
		}
		rep.Results = append(rep.Results, r)
		for _, name := range typedRankers[1:] {
			b := typedResult{ID: d.ID, Lang: d.Lang, Source: d.Source, Twins: d.Twins, Ranker: name, Ranked: bases[name].Rank(d.Text, typedDepth)}
			if len(b.Ranked) == 0 {
				b.NoAnswer = "no word of the text is in any case's title or summary"
			}
			rep.Results = append(rep.Results, b)
		}
	}
	rep.Figures = typedScores(rep.Results)
	return rep, nil
}

// typedScores computes every ranker's figures per language and for all
// descriptions, rankers in typedRankers order, then en, ko, all.
func typedScores(results []typedResult) []typedFigures {
	return typedScoresOf(results, typedRankers, []string{"en", "ko", "all"})
}

// typedScoresOf computes the figures of the rankers named, in that order,
// each for the languages named ("all": every result).
func typedScoresOf(results []typedResult, rankers, langs []string) []typedFigures {
	var out []typedFigures
	for _, ranker := range rankers {
		for _, lang := range langs {
			f := typedFigures{Ranker: ranker, Lang: lang}
			var twins5 int
			for _, r := range results {
				if r.Ranker != ranker || (lang != "all" && r.Lang != lang) {
					continue
				}
				f.N++
				if r.NoAnswer != "" {
					f.NoAnswer++
				}
				rank := r.Rank()
				if rank > 0 {
					f.MRR += 1 / float64(rank)
				}
				if rank == 1 {
					f.Top1++
				}
				if rank > 0 && rank <= 5 {
					f.Top5++
				}
				if rank > 0 && rank <= 10 {
					f.Top10++
				}
				if len(r.Twins) > 0 {
					f.WithTwin++
					if anyIn(r.Twins, r.Ranked, 5) {
						twins5++
					}
				}
			}
			if f.N == 0 {
				continue
			}
			n := float64(f.N)
			f.Top1, f.Top5, f.Top10, f.MRR = round3(f.Top1/n), round3(f.Top5/n), round3(f.Top10/n), round3(f.MRR/n)
			if f.WithTwin > 0 {
				f.Twin5 = round3(float64(twins5) / float64(f.WithTwin))
			}
			out = append(out, f)
		}
	}
	return out
}

// anyIn reports whether one of ids is among the first k of ranked.
func anyIn(ids, ranked []string, k int) bool {
	for i, id := range ranked {
		if i >= k {
			break
		}
		for _, t := range ids {
			if t == id {
				return true
			}
		}
	}
	return false
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func printTyped(w io.Writer, seeds string, rep *typedReport, each bool) {
	evidence := "source case out of the suggestion evidence"
	if rep.SourceInEvidence {
		evidence = "SOURCE CASE KEPT IN the suggestion evidence (--keep-source: for comparison only)"
	}
	fmt.Fprintf(w, "%d cases in %s; %d typed descriptions in %s; %s; ranks read to %d\n\n", rep.Cases, seeds, rep.Descriptions, rep.File, evidence, typedDepth)
	fmt.Fprintln(w, "| ranker | lang | descriptions | source top 1 | top 5 | top 10 | MRR | judged twin in top 5 | no answer |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, f := range rep.Figures {
		fmt.Fprintf(w, "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f (of %d) | %d |\n", f.Ranker, f.Lang, f.N, f.Top1, f.Top5, f.Top10, f.MRR, f.Twin5, f.WithTwin, f.NoAnswer)
	}
	if !each {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tlang\tsource\tranker\trank\ttop 5\t")
	for _, r := range rep.Results {
		rank := "-"
		if n := r.Rank(); n > 0 {
			rank = fmt.Sprint(n)
		}
		top := r.Ranked
		if len(top) > 5 {
			top = top[:5]
		}
		desc := strings.Join(top, " ")
		if r.NoAnswer != "" {
			desc = "(no answer: " + r.NoAnswer + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.ID, r.Lang, r.Source, r.Ranker, rank, desc)
	}
	tw.Flush()
}

// hasHangul reports whether s has a Hangul letter.
func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// The in-memory core over a corpus read from files: the production core
// (explore.Service with the in-memory store, the similarity service and the
// suggestion service over one memstore.Source), with the files in place of
// Neo4j, and a suggester that leaves out of the evidence the case the
// context names (withoutCase).

type excludedCaseKey struct{}

// withoutCase returns ctx naming the case the suggestion evidence leaves out.
func withoutCase(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, excludedCaseKey{}, id)
}

// excludingSuggester answers Suggest with the case ctx names (withoutCase)
// left out of every statistic, as Engine.Suggest's excludeCaseID does.
type excludingSuggester struct{ sg *suggest.Service }

func (e excludingSuggester) Suggest(ctx context.Context, text, lang string) (*suggest.Result, error) {
	id, _ := ctx.Value(excludedCaseKey{}).(string)
	return e.sg.SuggestExcluding(ctx, text, lang, id)
}

func (e excludingSuggester) SuggestExcluding(ctx context.Context, text, lang, caseID string) (*suggest.Result, error) {
	return e.sg.SuggestExcluding(ctx, text, lang, caseID)
}

// TextMatches leaves no case out: the description's source case is in the
// library the engineer searches, and its text may well be found.
func (e excludingSuggester) TextMatches(ctx context.Context, text, lang string, n int, also []string) (string, []suggest.TextMatch, error) {
	return e.sg.TextMatches(ctx, text, lang, n, also)
}

// seedCore returns the core over the cases and vocabulary given.
func seedCore(v *ilgraph.Vocabulary, cases []ilgraph.Case, opts ...explore.Option) *explore.Service {
	g := newSeedGraph(v, cases)
	src := memstore.NewSource(g)
	sim := similarity.NewService(nil, src)
	sg := suggest.NewService(g, src, suggest.Options{})
	return explore.New(g, sim, append([]explore.Option{explore.WithReadModel(memstore.NewStore(src)), explore.WithSuggester(excludingSuggester{sg})}, opts...)...)
}

// seedGraph serves a corpus read from files as the graph would: what the
// in-memory source reads (memstore.Graph), the vocabulary the suggestion
// engine reads, and the few store reads the free-text matcher makes
// (terms, cases by id). Every other read is an EUNAVAILABLE error.
type seedGraph struct {
	vocab  *ilgraph.Vocabulary
	cases  []ilgraph.Case
	byID   map[string]*ilgraph.Case
	counts map[ilgraph.TermKey]int
}

func newSeedGraph(v *ilgraph.Vocabulary, cases []ilgraph.Case) *seedGraph {
	g := &seedGraph{vocab: v, cases: cases, byID: map[string]*ilgraph.Case{}, counts: map[ilgraph.TermKey]int{}}
	for i := range cases {
		g.byID[cases[i].ID] = &cases[i]
		for _, f := range cases[i].Features() {
			g.counts[ilgraph.TermKey(f)]++
		}
	}
	return g
}

func (g *seedGraph) CorpusVersion(context.Context) (int64, error) { return 1, nil }

func (g *seedGraph) CaseOrganizations(context.Context) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for i := range g.cases {
		if o := g.cases[i].Org; !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out, nil
}

func (g *seedGraph) OrganizationNames(_ context.Context, fn func(id, name string)) error {
	for _, t := range g.orgs() {
		fn(t.ID, t.En)
	}
	return nil
}

func (g *seedGraph) orgs() []ilgraph.Term {
	seen := map[string]bool{}
	var out []ilgraph.Term
	for i := range g.cases {
		c := &g.cases[i]
		if c.OrgSlug != "" && !seen[c.OrgSlug] {
			seen[c.OrgSlug] = true
			out = append(out, ilgraph.Term{Kind: ilgraph.KindOrg, ID: c.OrgSlug, En: c.Org})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (g *seedGraph) EachCase(_ context.Context, fn func(*ilgraph.Case) error) error {
	for i := range g.cases {
		c := g.cases[i]
		if err := fn(&c); err != nil {
			return err
		}
	}
	return nil
}

func (g *seedGraph) Vocabulary(context.Context) (*ilgraph.Vocabulary, error) { return g.vocab, nil }

func (g *seedGraph) CasesByID(_ context.Context, ids []string) ([]*ilgraph.Case, error) {
	out := make([]*ilgraph.Case, len(ids))
	for i, id := range ids {
		if c := g.byID[id]; c != nil {
			cp := *c
			out[i] = &cp
		}
	}
	return out, nil
}

func (g *seedGraph) Terms(_ context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	if k == ilgraph.KindOrg {
		return g.orgs(), nil
	}
	out := append([]ilgraph.Term(nil), g.vocab.Kinds[k]...)
	for i := range out {
		out[i].Kind = k
	}
	return out, nil
}

func (g *seedGraph) TermsByKey(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	out := make([]ilgraph.Term, len(keys))
	for i, k := range keys {
		ts, _ := g.Terms(ctx, k.Kind)
		for _, t := range ts {
			if t.ID == k.ID {
				out[i] = t
			}
		}
	}
	return out, nil
}

func (g *seedGraph) TermCaseCounts(_ context.Context, keys []ilgraph.TermKey) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		out[i] = g.counts[k]
	}
	return out, nil
}

func (g *seedGraph) VocabularyCounts(context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	out := map[ilgraph.TermKey]ilgraph.TermInfo{}
	for k, ts := range g.vocab.Kinds {
		for _, t := range ts {
			t.Kind = k
			key := ilgraph.TermKey{Kind: k, ID: t.ID}
			out[key] = ilgraph.TermInfo{Term: t, Cases: g.counts[key]}
		}
	}
	return out, nil
}

var errSeedGraph = ilgraph.Errorf(ilgraph.EUNAVAILABLE, "not available over a corpus read from files")

func (g *seedGraph) RecurrencesOf(context.Context, []string) ([][]string, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) RawJSON(context.Context, []string) ([]string, error) { return nil, errSeedGraph }
func (g *seedGraph) ListCases(context.Context, ilgraph.CaseFilter, ilgraph.CaseSort, int, int) (*ilgraph.CasePage, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) Facets(context.Context, ilgraph.CaseFilter) (*ilgraph.Facets, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) SameRootCause(context.Context, string, int, int) ([]ilgraph.CrossRef, int, error) {
	return nil, 0, errSeedGraph
}
func (g *seedGraph) Stats(context.Context, ilgraph.CaseFilter) (*ilgraph.Stats, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) Breakdown(context.Context, ilgraph.Axis, ilgraph.Axis, ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) CaseRelationships(context.Context, ilgraph.CaseFilter) (int, error) {
	return 0, errSeedGraph
}
func (g *seedGraph) Cooccurring(context.Context, ilgraph.Kind, string, ilgraph.Kind, int) ([]ilgraph.TermCount, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) Neighbourhood(context.Context, string, string, int, int) (*ilgraph.Drawing, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) Cooccurrence(context.Context, ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	return nil, errSeedGraph
}
func (g *seedGraph) Connections(context.Context, string, string, int, int) ([]ilgraph.Path, error) {
	return nil, errSeedGraph
}

// newTFIDF is the text baseline of eval typed: relevance.TFIDF over each
// case's title and summary, English and Korean together. "tfidf" keeps
// vendor, product and organization names; "tfidf-nonames" drops them as the
// similarity text channel does (relevance.NoNames).
func newTFIDF(cases []ilgraph.Case, opts analysis.Options) *relevance.TFIDF {
	return relevance.NewTFIDF(cases, opts, func(c *ilgraph.Case) string {
		return strings.Join([]string{c.Title.En, c.Title.Ko, c.Summary.En, c.Summary.Ko}, "\n")
	})
}
