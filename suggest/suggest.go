// Package suggest proposes vocabulary terms for a piece of free text: an
// analyst pastes what they see ("Kinesis front-end servers hit the OS thread
// limit; latency and errors up") and gets, per kind, the terms it points to,
// each with a confidence in [0,1] and its evidence.
//
// Two signals, both through package analysis:
//
//  1. Phrases. Every term's labels, id (hyphens as spaces) and aliases, in
//     English and Korean, are matched as phrases. A matched phrase counts by
//     its reliability: of the corpus cases whose text contains the phrase,
//     the share tagged with the term, smoothed towards a prior (labels are
//     trusted more than aliases). Reliabilities of a term's phrases combine
//     as a noisy-or.
//  2. Neighbours. The cases whose text is most like the input (BM25 over each
//     case's title, summary, trigger and symptoms text, vendor names left
//     out) vote for their tags, each vote weighted by the case's score.
//     Contributing factors are voted for by the cases found in a second
//     index that adds each case's detection, lessons and action items: the
//     text where reports name their factors.
//
// The score of a term is a noisy-or of the two: 1 − (1 − a·phrase)(1 −
// b·vote); it orders the terms. Its confidence is the score calibrated
// (calibration.go): how often such a suggestion was right in leave-one-out
// over the seed corpus. An Engine is built once from the vocabulary and a corpus and is
// safe for concurrent use; Suggest can leave one case out of every statistic,
// so that evaluation never learns from the case it is tested on.
package suggest

import (
	"fmt"
	"github.com/RoaringBitmap/roaring/v2"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/internal/parallel"
	"github.com/ilgraph/ilgraph/memstore"
)

// MaxTextChars is the longest input Suggest accepts, in characters.
const MaxTextChars = 10000

// ImportText is the text a machine tags a case from (ilgraph import) and a
// review's evidence is read in: its English title, a blank line and its
// English summary, trimmed and cut to MaxTextChars.
func ImportText(title, summary string) string {
	text := strings.TrimSpace(title + "\n\n" + summary)
	if utf8.RuneCountInString(text) > MaxTextChars {
		text = string([]rune(text)[:MaxTextChars])
	}
	return text
}

// Options tune an Engine. The zero value uses the defaults.
type Options struct {
	// Neighbours is how many of the most similar cases vote (default 8).
	Neighbours int
	// LabelsOnly is the baseline: labels and ids only, matched on lower-cased
	// words without stemming or particle stripping; no aliases, no
	// reliabilities, no neighbours. Every matched term gets confidence 1.
	LabelsOnly bool
	// PhraseWeight and VoteWeight are a and b of the confidence (defaults
	// 0.9 and 0.8).
	PhraseWeight, VoteWeight float64
	// Names are more names to set aside, as the corpus's organizations are
	// (see analysis.Options.Extra).
	Names []string
	// Uncalibrated serves each suggestion's score as its confidence, as the
	// two signals give it, instead of mapping it through DefaultCalibration
	// (calibration.go): what a calibration is fit on. The labels-only
	// baseline is never calibrated.
	Uncalibrated bool
}

// Engine suggests terms. Build it with New.
type Engine struct {
	opts    Options
	cal     *Calibration   // nil: confidences uncalibrated
	terms   []ilgraph.Term // Kind set
	termIdx map[ilgraph.Feature]int

	phrases []phrase
	matcher *analysis.Matcher

	// The corpus the neighbours come from: the in-memory store's snapshot
	// (shared, read only), whose case numbers the indexes below use, and
	// its features as terms.
	snap     *memstore.Snapshot
	featTerm []int32            // snapshot feature id -> term index, -1 for one not in the vocabulary
	termFeat []int32            // term index -> snapshot feature id, -1 for a term no case has
	analyzer *analysis.Analyzer // vendors dropped
	extra    []string           // the names analyzer sets aside (setNames), kept for the snapshot file
	names    *names             // Hangul product names read as English (nil for the baseline)
	index    map[string]*bm25   // "en", "ko": caseText
	factors  map[string]*bm25   // "en", "ko": factorText

	// over is what writes changed since the build (nil: nothing).
	over *overlay
}

type phrase struct {
	term   int
	source string // "label", "id", "alias"
	text   string // as written in the vocabulary
	prior  float64
	cases  caseSet // cases whose text contains it
	tagged int     // how many of them carry term
}

// caseSet is a set of case numbers, compressed (a roaring bitmap: two
// bytes a case where a term's cases are sparse, a bit per case where they
// are dense), for a phrase's cases: counted and asked for membership only.
// The zero value is empty.
type caseSet struct{ b *roaring.Bitmap }

// caseSetOf is the set of the ascending case numbers cs.
func caseSetOf(cs []int32) caseSet {
	var s caseSet
	for _, c := range cs {
		s.add(c)
	}
	s.trim()
	return s
}

// add adds case c, above every case in the set.
func (s *caseSet) add(c int32) {
	if s.b == nil {
		s.b = roaring.New()
	}
	s.b.Add(uint32(c))
}

// trim ends the adding: the set in as little memory as it takes (runs
// where they are smaller, no room to grow).
func (s *caseSet) trim() {
	if s.b != nil {
		s.b.RunOptimize()
		s.b = s.b.Clone()
	}
}

func (s caseSet) len() int {
	if s.b == nil {
		return 0
	}
	return int(s.b.GetCardinality())
}

func (s caseSet) has(c int) bool { return s.b != nil && c >= 0 && s.b.Contains(uint32(c)) }

// list is the set's cases, ascending.
func (s caseSet) list() []int32 {
	if s.b == nil {
		return nil
	}
	out := make([]int32, 0, s.b.GetCardinality())
	it := s.b.Iterator()
	for it.HasNext() {
		out = append(out, int32(it.Next()))
	}
	return out
}

// Evidence is why a term is suggested: a phrase of the input that matched
// one of the term's labels or aliases, or a similar case that carries the
// term.
type Evidence struct {
	// For a phrase: Text is the input as written (input[Start:End]), Phrase
	// the label or alias it matched, Source "label", "id" or "alias".
	Text   string `json:"text,omitempty"`
	Phrase string `json:"phrase,omitempty"`
	Source string `json:"source,omitempty"`
	Start  int    `json:"start,omitempty"`
	End    int    `json:"end,omitempty"`
	// For a neighbour: CaseID and its share of the vote.
	CaseID string `json:"caseId,omitempty"`
	// Weight is the phrase's reliability or the case's share of the vote.
	Weight float64 `json:"weight"`
}

// Suggestion is one suggested term.
type Suggestion struct {
	Kind ilgraph.Kind `json:"kind"`
	ID   string       `json:"id"`
	// Confidence is how often a suggestion like this one was right: the
	// score calibrated (calibration.go).
	Confidence float64 `json:"confidence"`
	// Score is the two signals' noisy-or, which orders the terms of a kind
	// (the confidence uncalibrated).
	Score    float64    `json:"score"`
	Evidence []Evidence `json:"evidence"`
}

// Neighbour is a case whose text is like the input.
type Neighbour struct {
	CaseID string  `json:"caseId"`
	Score  float64 `json:"score"`
}

// Result is the answer of Suggest.
type Result struct {
	Lang string `json:"lang"` // the language used: "en" or "ko"
	// ByKind holds, for each vocabulary kind, every term with a confidence
	// above 0, by confidence descending, then more evidence first, then
	// id.
	ByKind     map[ilgraph.Kind][]Suggestion `json:"byKind"`
	Neighbours []Neighbour                   `json:"neighbours"`
}

// Top returns up to n suggestions of kind k with a confidence of at least min.
func (r *Result) Top(k ilgraph.Kind, n int, min float64) []Suggestion {
	var out []Suggestion
	for _, s := range r.ByKind[k] {
		if len(out) == n || s.Confidence < min {
			break
		}
		out = append(out, s)
	}
	return out
}

// InProfile returns the suggestions of kind k that a profile takes under
// the cut-off c (DefaultCutoffs): at most c.Max, each scored at least c.Min.
// A profile's cut-offs apply to the score, which its terms are weighed by.
func (r *Result) InProfile(k ilgraph.Kind, c Cutoff) []Suggestion {
	var out []Suggestion
	for _, s := range r.ByKind[k] {
		if len(out) == c.Max || s.Score < c.Min {
			break
		}
		out = append(out, s)
	}
	return out
}

// Sure returns the suggestions of kind k shown as sure: of those the
// profile takes under profile (InProfile), at most show.Max with a
// confidence of at least show.Min (ShowCutoffs apply to the confidence).
func (r *Result) Sure(k ilgraph.Kind, profile, show Cutoff) []Suggestion {
	var out []Suggestion
	for _, s := range r.InProfile(k, profile) {
		if len(out) == show.Max || s.Confidence < show.Min {
			break
		}
		out = append(out, s)
	}
	return out
}

// New builds an Engine from a vocabulary and a corpus. Cases tagged with
// terms the vocabulary lacks are used for their text; the unknown tags are
// ignored.
func New(v *ilgraph.Vocabulary, cases []ilgraph.Case, opts Options) (*Engine, error) {
	e, err := newEngine(v, opts)
	if err != nil {
		return nil, err
	}
	b := e.builder(extraNames(opts.Names, cases), nil)
	snap := memstore.NewBuilder(0, nil)
	for i := range cases {
		row := ilgraph.SimilarityRow(&cases[i])
		snap.Add(&row)
		b.add(&cases[i])
	}
	b.finish()
	e.attach(snap.Finish())
	return e, nil
}

// attach makes s the corpus of the engine, whose indexes were built from
// s's cases in s's order.
func (e *Engine) attach(s *memstore.Snapshot) {
	e.snap = s
	e.featTerm = make([]int32, len(s.FeatureList()))
	e.termFeat = make([]int32, len(e.terms))
	for t := range e.termFeat {
		e.termFeat[t] = -1
	}
	for f, x := range s.FeatureList() {
		e.featTerm[f] = -1
		if t, ok := e.termIdx[x]; ok {
			e.featTerm[f], e.termFeat[t] = int32(t), int32(f)
		}
	}
}

// newEngine is New up to the cases: the options' defaults and the terms.
func newEngine(v *ilgraph.Vocabulary, opts Options) (*Engine, error) {
	if v == nil {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "suggest: no vocabulary")
	}
	if opts.Neighbours <= 0 {
		opts.Neighbours = 8
	}
	if opts.PhraseWeight == 0 {
		opts.PhraseWeight = 0.9
	}
	if opts.VoteWeight == 0 {
		opts.VoteWeight = 0.8
	}
	e := &Engine{opts: opts, termIdx: map[ilgraph.Feature]int{}, index: map[string]*bm25{}, factors: map[string]*bm25{}}
	if !opts.LabelsOnly {
		e.names = newNames()
		if !opts.Uncalibrated {
			e.cal = DefaultCalibration
		}
	}
	// Terms in a fixed order (kind, then id), whatever order the vocabulary
	// came in: ties between suggestions break by it, so the engine built from
	// vocab.json and the one built from the graph answer alike.
	e.terms = v.Terms()
	kindAt := map[ilgraph.Kind]int{}
	for i, k := range ilgraph.AllKinds {
		kindAt[k] = i
	}
	sort.SliceStable(e.terms, func(i, j int) bool {
		a, b := e.terms[i], e.terms[j]
		if a.Kind != b.Kind {
			return kindAt[a.Kind] < kindAt[b.Kind]
		}
		return a.ID < b.ID
	})
	for i, t := range e.terms {
		e.termIdx[ilgraph.Feature{Kind: t.Kind, ID: t.ID}] = i
	}
	e.buildPhrases()
	return e, nil
}

// extraNames are names, then the name parts of the cases' organizations, each
// once: what the analysis sets aside.
func extraNames(names []string, cases []ilgraph.Case) []string {
	var extra []string
	seen := map[string]bool{}
	for _, name := range names {
		if !seen[name] {
			seen[name] = true
			extra = append(extra, name)
		}
	}
	for _, c := range cases {
		for _, name := range analysis.NameParts(c.Org) {
			if !seen[name] {
				seen[name] = true
				extra = append(extra, name)
			}
		}
	}
	return extra
}

// engineBuilder adds cases to an engine one at a time, as they are read:
// their texts are analysed on every core in batches and the results added
// in case order, so that a build holds no case longer than that takes.
type engineBuilder struct {
	e       *Engine
	batch   []*ilgraph.Case
	n       int
	jobs    chan caseBatch
	results chan analysedBatch
	wg      sync.WaitGroup
	done    chan struct{}
	docs    [4]*bm25 // caseText en, ko; factorText en, ko
	applied int      // cases applied
}

const caseBatchSize = 128

type caseBatch struct {
	start int
	cases []*ilgraph.Case
}

type analysedBatch struct {
	start int
	cases []analysedCase
}

// analysedCase is what the engine takes of a case.
type analysedCase struct {
	tags    []int32     // its term indexes, ascending (for the phrases' counts; not kept)
	terms   [4][]string // as docs
	phrases []int       // the phrases its text contains, each once
}

// builder starts adding cases to e, whose analysis sets aside the names
// extra (opts.Names and the cases' organizations' name parts); its workers
// analyse a batch only when share has room (nil: always).
func (e *Engine) builder(extra []string, share *parallel.Share) *engineBuilder {
	e.setNames(extra)
	b := &engineBuilder{
		e:    e,
		jobs: make(chan caseBatch, 4), results: make(chan analysedBatch, 4), done: make(chan struct{}),
	}
	for i := range b.docs {
		b.docs[i] = &bm25{ids: map[string]int32{}}
	}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for job := range b.jobs {
				out := analysedBatch{start: job.start, cases: make([]analysedCase, len(job.cases))}
				share.Do(func() {
					for i, c := range job.cases {
						out.cases[i] = e.analyse(c)
					}
				})
				b.results <- out
			}
		}()
	}
	go func() { // adds the batches in case order
		defer close(b.done)
		pending := map[int]analysedBatch{}
		next := 0
		for r := range b.results {
			pending[r.start] = r
			for {
				r, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				for _, c := range r.cases {
					b.apply(c)
				}
				next += len(r.cases)
			}
		}
	}()
	return b
}

// setNames makes the analyzer, which sets aside the names extra; a build
// and a read of the snapshot file (Load) make it alike.
func (e *Engine) setNames(extra []string) {
	e.extra = extra
	e.analyzer = analysis.New(analysis.Options{DropVendors: true, Extra: extra})
}

// add adds the next case. The engine keeps no reference to c.
func (b *engineBuilder) add(c *ilgraph.Case) {
	if len(b.batch) == 0 {
		b.batch = make([]*ilgraph.Case, 0, caseBatchSize)
	}
	b.batch = append(b.batch, c)
	b.n++
	if len(b.batch) == caseBatchSize {
		b.jobs <- caseBatch{b.n - len(b.batch), b.batch}
		b.batch = nil
	}
}

// finish waits for every case added and completes the indexes.
func (b *engineBuilder) finish() {
	if len(b.batch) > 0 {
		b.jobs <- caseBatch{b.n - len(b.batch), b.batch}
		b.batch = nil
	}
	close(b.jobs)
	b.wg.Wait()
	close(b.results)
	<-b.done
	e := b.e
	for _, d := range b.docs {
		d.compact()
	}
	for i := range e.phrases {
		e.phrases[i].cases.trim()
	}
	e.index["en"], e.index["ko"] = b.docs[0], b.docs[1]
	if !e.opts.LabelsOnly {
		e.factors["en"], e.factors["ko"] = b.docs[2], b.docs[3]
	}
}

// analyse is the work of one case, safe to run on many at once.
func (e *Engine) analyse(c *ilgraph.Case) analysedCase {
	var out analysedCase
	for _, f := range c.Features() {
		if ti, ok := e.termIdx[f]; ok && !slices.Contains(out.tags, int32(ti)) {
			out.tags = append(out.tags, int32(ti))
		}
	}
	slices.Sort(out.tags)
	en, ko := caseText(c)
	if e.opts.LabelsOnly {
		out.terms[0], out.terms[1] = e.words(en), e.words(ko)
		return out
	}
	// Each language's text is analysed once: the factor text begins with
	// the case text, which ends a line, so the case text's tokens are the
	// first of the factor text's (TestAnalyseOnce holds this to analysing
	// each text on its own).
	fen, fko := factorText(c)
	var all [2][]analysis.Token
	for i, t := range [2]struct{ cases, factors string }{{en, fen}, {ko, fko}} {
		toks := analysis.All(t.factors)
		vendor := e.analyzer.VendorWords(toks)
		n := tokensBefore(toks, len(t.cases))
		all[i] = toks[:n]
		out.terms[i] = e.wordsOf(toks[:n], vendor[:n])
		out.terms[2+i] = e.wordsOf(toks, vendor)
	}
	// The phrases are matched over both languages' case text, one after
	// the other, vendors kept.
	seen := map[int]bool{}
	for _, m := range e.matcher.FindAll(e.names.tokens(slices.Concat(all[0], all[1]))) {
		if !seen[m.Phrase] {
			seen[m.Phrase] = true
			out.phrases = append(out.phrases, m.Phrase)
		}
	}
	return out
}

// tokensBefore is how many of toks end at or before byte end of their text.
func tokensBefore(toks []analysis.Token, end int) int {
	n, _ := slices.BinarySearchFunc(toks, end, func(t analysis.Token, end int) int {
		if t.End <= end {
			return -1
		}
		return 1
	})
	return n
}

// wordsOf is words of a text given its tokens (analysis.All) and which
// of them name vendors (VendorWords).
func (e *Engine) wordsOf(toks []analysis.Token, vendor []bool) []string {
	ts := analysis.Words(e.analyzer.Kept(toks, vendor))
	if e.names == nil {
		return ts
	}
	return e.names.terms(ts, e.analyzer.IsVendor)
}

// words are the terms of text the BM25 indexes hold: the analyzer's, vendors
// left out, with Hangul product names read as the English ones.
func (e *Engine) words(text string) []string {
	toks := analysis.All(text)
	return e.wordsOf(toks, e.analyzer.VendorWords(toks))
}

// apply adds an analysed case, the next in order.
func (b *engineBuilder) apply(c analysedCase) {
	e := b.e
	ci := b.applied
	b.applied++
	n := 2
	if !e.opts.LabelsOnly {
		n = 4
	}
	for i := 0; i < n; i++ {
		b.docs[i].add(c.terms[i])
	}
	for _, p := range c.phrases {
		ph := &e.phrases[p]
		ph.cases.add(int32(ci))
		if _, ok := slices.BinarySearch(c.tags, int32(ph.term)); ok {
			ph.tagged++
		}
	}
}

// caseText is the text of a case that suggestions learn from, per language.
func caseText(c *ilgraph.Case) (en, ko string) {
	fields := []ilgraph.Text{c.Title, c.Summary, c.Trigger, c.SymptomsText}
	var b, k strings.Builder
	for _, f := range fields {
		b.WriteString(f.En)
		b.WriteString("\n")
		k.WriteString(f.Ko)
		k.WriteString("\n")
	}
	return b.String(), k.String()
}

// factorText is caseText with the fields where reports name their
// contributing factors: detection, lessons and action items.
func factorText(c *ilgraph.Case) (en, ko string) {
	en, ko = caseText(c)
	var b, k strings.Builder
	b.WriteString(en)
	k.WriteString(ko)
	fields := []ilgraph.Text{c.Detection, c.Lessons}
	for _, it := range c.ActionItems {
		fields = append(fields, it.Text)
	}
	for _, f := range fields {
		b.WriteString(f.En)
		b.WriteString("\n")
		k.WriteString(f.Ko)
		k.WriteString("\n")
	}
	return b.String(), k.String()
}

// Priors of a phrase's reliability before the corpus says anything, and the
// number of cases that prior is worth.
const (
	priorLabel = 0.6
	priorAlias = 0.4
	priorCount = 2.0
)

func (e *Engine) buildPhrases() {
	var ps [][]string
	seen := map[string]bool{}
	add := func(term int, source, text string, prior float64) {
		var p []string
		if e.opts.LabelsOnly {
			p = plainPhrase(text)
		} else {
			p = e.names.phrase(analysis.Phrase(text))
		}
		key := fmt.Sprint(term, p)
		if len(p) == 0 || seen[key] {
			return // "alert", "alerts" and "alerting" are one phrase
		}
		seen[key] = true
		e.phrases = append(e.phrases, phrase{term: term, source: source, text: text, prior: prior})
		ps = append(ps, p)
	}
	for i, t := range e.terms {
		add(i, "label", t.En, priorLabel)
		add(i, "label", t.Ko, priorLabel)
		add(i, "id", strings.ReplaceAll(t.ID, "-", " "), priorLabel)
		if e.opts.LabelsOnly {
			continue
		}
		for _, a := range t.Aliases.En {
			add(i, "alias", a, priorAlias)
		}
		for _, a := range t.Aliases.Ko {
			add(i, "alias", a, priorAlias)
		}
	}
	e.matcher = analysis.NewMatcher(ps)
}

// plainPhrase and plainTokens are the baseline's matching: lower-cased words
// as written, no stemming, no particle stripping, no stop words.
func plainPhrase(text string) []string {
	var p []string
	for _, t := range plainTokens(text) {
		p = append(p, t.Norm)
	}
	return p
}

func plainTokens(text string) []analysis.Token {
	toks := analysis.Tokens(text)
	for i := range toks {
		toks[i].Norm = strings.ToLower(toks[i].Surface)
		toks[i].Stop = false
	}
	return toks
}

// Suggest returns the terms text points to. lang is "en", "ko", or "" to
// decide from the text; it chooses which language's case texts the
// neighbours are found in (phrases of both languages always match).
// excludeCaseID leaves that case out of every statistic, for evaluation.
func (e *Engine) Suggest(text, lang, excludeCaseID string) (*Result, error) {
	var ex excluded
	if i, ok := e.snap.Number(excludeCaseID); ok && (e.over == nil || !e.over.gone[i]) {
		ex = append(ex, int(i))
	}
	skip := -1
	if e.over != nil {
		for d, doc := range e.over.docs {
			if doc.id == excludeCaseID {
				skip = d
			}
		}
	}
	res, err := e.suggestNow(text, lang, ex, skip)
	if err != nil {
		return nil, err
	}
	return e.cal.Apply(res), nil
}

// suggest is Suggest with the cases of ex left out of every statistic, its
// confidences uncalibrated.
func (e *Engine) suggest(text, lang string, ex excluded) (*Result, error) {
	return e.suggestNow(text, lang, ex, -1)
}

// prepare checks a text and its language ("" detects it) and returns the
// text made valid UTF-8, the language and the text's tokens (product names
// in Hangul read as the English ones).
func (e *Engine) prepare(text, lang string) (string, string, []analysis.Token, error) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if strings.TrimSpace(text) == "" {
		return "", "", nil, ilgraph.Errorf(ilgraph.EINVALID, "text: empty; paste what you see")
	}
	if n := utf8.RuneCountInString(text); n > MaxTextChars {
		return "", "", nil, ilgraph.Errorf(ilgraph.ELIMIT, "text: %d characters, at most %d", n, MaxTextChars)
	}
	switch lang {
	case "", "en", "ko":
	default:
		return "", "", nil, ilgraph.Errorf(ilgraph.EINVALID, "lang: %q, want en, ko or empty", lang)
	}

	var toks []analysis.Token
	if e.opts.LabelsOnly {
		toks = plainTokens(text)
	} else {
		toks = analysis.Tokens(text)
	}
	if lang == "" {
		lang = detect(toks)
	}
	if e.names != nil {
		toks = e.names.tokens(toks)
	}
	return text, lang, toks, nil
}

// suggestNow is suggest over the corpus as it is now (the overlay's
// changes applied), with the written case skip (-1: none) left out too.
func (e *Engine) suggestNow(text, lang string, ex excluded, skip int) (*Result, error) {
	text, lang, toks, err := e.prepare(text, lang)
	if err != nil {
		return nil, err
	}
	res := &Result{Lang: lang, ByKind: map[ilgraph.Kind][]Suggestion{}}

	// Signal 1: phrases.
	type hit struct {
		rel float64
		ev  Evidence
	}
	hits := map[int]map[int]hit{} // term → phrase → best hit
	for _, m := range e.matcher.FindAll(toks) {
		p := &e.phrases[m.Phrase]
		rel := 1.0
		if !e.opts.LabelsOnly {
			rel = e.reliabilityNow(m.Phrase, ex, skip)
		}
		if hits[p.term] == nil {
			hits[p.term] = map[int]hit{}
		}
		if _, ok := hits[p.term][m.Phrase]; !ok {
			hits[p.term][m.Phrase] = hit{rel, Evidence{Text: text[m.Start:m.End], Phrase: p.text, Source: p.source, Start: m.Start, End: m.End, Weight: round(rel)}}
		}
	}
	phraseScore := make([]float64, len(e.terms))
	evidence := make([][]Evidence, len(e.terms))
	for t, hs := range hits {
		ids := make([]int, 0, len(hs))
		for id := range hs {
			ids = append(ids, id)
		}
		sort.Ints(ids) // the same product, bit for bit, every time
		miss := 1.0
		for _, id := range ids {
			miss *= 1 - hs[id].rel
			evidence[t] = append(evidence[t], hs[id].ev)
		}
		phraseScore[t] = 1 - miss
		sort.Slice(evidence[t], func(i, j int) bool {
			a, b := evidence[t][i], evidence[t][j]
			if a.Weight != b.Weight {
				return a.Weight > b.Weight
			}
			if a.Start != b.Start {
				return a.Start < b.Start
			}
			return a.Phrase < b.Phrase
		})
	}

	// Signal 2: neighbours vote: the cases most like the text for every
	// kind but contributing factors, which the cases found with their
	// lessons and action items vote for.
	vote := make([]float64, len(e.terms))
	voters := make([][]Evidence, len(e.terms))
	if !e.opts.LabelsOnly {
		words := e.words(text)
		tags := e.snap.CaseFeatureIDs()
		slot := 0
		if lang == "ko" {
			slot = 1
		}
		for _, idx := range []struct {
			ix      *bm25
			factors bool
			slot    int
		}{{e.index[lang], false, slot}, {e.factors[lang], true, slot + 2}} {
			scores, over := idx.ix.scoreNow(words, ex, e.over, idx.slot, skip)
			main := len(scores)
			if len(over) > 0 {
				scores = append(slices.Clip(scores), over...)
			}
			top := topN(scores, e.opts.Neighbours)
			var total float64
			for _, ci := range top {
				total += scores[ci]
			}
			for _, ci := range top {
				id := ""
				var terms []int32 // the neighbour's term indexes
				if ci < main {
					id = e.snap.ID(int32(ci))
					for _, f := range tags.Sorted(int32(ci)) {
						if t := e.featTerm[f]; t >= 0 {
							terms = append(terms, t)
						}
					}
				} else {
					d := e.over.docs[ci-main]
					id, terms = d.id, d.a.tags
				}
				if !idx.factors {
					res.Neighbours = append(res.Neighbours, Neighbour{CaseID: id, Score: round(scores[ci])})
				}
				share := scores[ci] / total
				for _, t := range terms {
					if (e.terms[t].Kind == ilgraph.KindContributing) != idx.factors {
						continue
					}
					vote[t] += share
					voters[t] = append(voters[t], Evidence{CaseID: id, Weight: round(share)})
				}
			}
		}
	}

	for t, term := range e.terms {
		var c float64
		if e.opts.LabelsOnly {
			if phraseScore[t] > 0 {
				c = 1
			}
		} else {
			c = 1 - (1-e.opts.PhraseWeight*phraseScore[t])*(1-e.opts.VoteWeight*vote[t])
		}
		if c <= 0 {
			continue
		}
		s := Suggestion{Kind: term.Kind, ID: term.ID, Confidence: round(c), Score: round(c)}
		s.Evidence = append(append(s.Evidence, evidence[t]...), voters[t]...)
		res.ByKind[term.Kind] = append(res.ByKind[term.Kind], s)
	}
	for k, ss := range res.ByKind {
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].Confidence != ss[j].Confidence {
				return ss[i].Confidence > ss[j].Confidence
			}
			return len(ss[i].Evidence) > len(ss[j].Evidence)
		})
		res.ByKind[k] = ss
	}
	return res, nil
}

// reliabilityNow is reliability over the corpus as it is now: the cases
// written since the build count, those they replaced do not, and the
// written case skip (-1: none) is left out.
func (e *Engine) reliabilityNow(pi int, ex excluded, skip int) float64 {
	p := &e.phrases[pi]
	if e.over == nil {
		return e.reliability(p, ex)
	}
	all := slices.Clone(ex)
	for x := range e.over.gone {
		if !ex.has(int(x)) {
			all = append(all, int(x))
		}
	}
	n, k := e.counts(p, all)
	for _, d := range e.over.phraseDocs(pi) {
		if int(d) == skip {
			continue
		}
		n++
		if _, ok := slices.BinarySearch(e.over.docs[d].a.tags, int32(p.term)); ok {
			k++
		}
	}
	return (k + priorCount*p.prior) / (n + priorCount)
}

// reliability is the share of the cases containing p that carry p's term,
// smoothed towards p's prior, leaving out the cases of ex.
func (e *Engine) reliability(p *phrase, ex excluded) float64 {
	n, k := e.counts(p, ex)
	return (k + priorCount*p.prior) / (n + priorCount)
}

// counts are how many of the build's cases contain p, and of those how
// many carry p's term, leaving out the cases of ex.
func (e *Engine) counts(p *phrase, ex excluded) (n, k float64) {
	n, k = float64(p.cases.len()), float64(p.tagged)
	for _, x := range ex {
		if !p.cases.has(x) {
			continue
		}
		n--
		if f := e.termFeat[p.term]; f >= 0 {
			if _, ok := slices.BinarySearch(e.snap.CaseFeatureIDs().Sorted(int32(x)), f); ok {
				k--
			}
		}
	}
	return n, k
}

// detect says "ko" when at least a quarter of the words are Hangul.
func detect(toks []analysis.Token) string {
	var hangul, all int
	for _, t := range toks {
		if t.Script == analysis.Digit {
			continue
		}
		all++
		if t.Script == analysis.Hangul {
			hangul++
		}
	}
	if all > 0 && hangul*4 >= all {
		return "ko"
	}
	return "en"
}

func topN(scores []float64, n int) []int {
	var idx []int
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		if scores[idx[a]] != scores[idx[b]] {
			return scores[idx[a]] > scores[idx[b]]
		}
		return idx[a] < idx[b]
	})
	if len(idx) > n {
		idx = idx[:n]
	}
	return idx
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }
