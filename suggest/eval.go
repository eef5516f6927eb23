package suggest

import (
	"math"

	"github.com/ilgraph/ilgraph"
)

// Cutoff says which suggestions of a kind count as predicted: at most Max
// terms with a confidence of at least Min.
type Cutoff struct {
	Min float64 `json:"min"`
	Max int     `json:"max"`
}

// DefaultCutoffs are the cut-offs the server uses (similarToText's profile,
// MCP's match_incident): the ones Calibrate chooses on the leave-one-out
// answers over the seed corpus (ilgraph eval suggest prints them; a test
// checks they are still the calibrated ones). A root cause is predicted as
// the single best term; the top-3 accuracy looks further. Their Min applies
// to a suggestion's score (Result.InProfile), which a profile's terms are
// weighed by, not to its calibrated confidence: the ranking the judged sets
// measured is the score's.
var DefaultCutoffs = map[ilgraph.Kind]Cutoff{
	ilgraph.KindRootCause:    RootCauseCutoff,
	ilgraph.KindComponent:    {Min: 0.6, Max: 5},
	ilgraph.KindSymptom:      {Min: 0.4, Max: 4},
	ilgraph.KindContributing: {Min: 0.4, Max: 5},
	ilgraph.KindDomain:       {Min: 0.6, Max: 2},
	ilgraph.KindMechanism:    {Min: 0.3, Max: 5},
}

// RootCauseCutoff predicts the single best root cause: a case has one.
var RootCauseCutoff = Cutoff{Min: 0, Max: 1}

// ShowPrecision is how often a kind's suggestions must have been right, in
// leave-one-out over the seed corpus, for a front door to show them as sure
// (a chip in the explorer, a term in MCP's text): at the kind's ShowCutoffs
// at least 80% of the suggestions shown were tags of their case.
const ShowPrecision = 0.8

// showMinSupport is how many suggestions a show cut-off must leave in the
// answers it is calibrated on: a precision over fewer is too noisy to trust.
const showMinSupport = 20

// NeverShown is the show cut-off of a kind whose suggestions reach
// ShowPrecision at no confidence: at most none.
var NeverShown = Cutoff{Min: 1, Max: 0}

// ShowCutoffs say which suggestions are shown as sure (Result.Sure): per
// kind, those of DefaultCutoffs with a (calibrated) confidence of at least
// Min, the lowest confidence at
// which, over every case's leave-one-out answers (English and Korean), the
// suggestions shown were right at least ShowPrecision of the time
// (calibrateShow; ilgraph eval suggest prints them, a test checks they are
// still the calibrated ones). The others still count in similarToText's
// profile with their confidence; they are offered, not asserted.
var ShowCutoffs = map[ilgraph.Kind]Cutoff{
	ilgraph.KindRootCause:    {Min: 0.65, Max: 1},
	ilgraph.KindComponent:    {Min: 0.65, Max: 5},
	ilgraph.KindSymptom:      {Min: 0.7, Max: 4},
	ilgraph.KindContributing: NeverShown,
	ilgraph.KindDomain:       {Min: 0.5, Max: 2},
	ilgraph.KindMechanism:    {Min: 0.8, Max: 5},
}

// The grid Calibrate searches: Min from 0.05 to 0.95 by 0.05, Max from 1
// to calibrateMaxTerms.
const calibrateMaxTerms = 5

// answer is a case's tags and the engine's answer for one of its queries.
type answer struct {
	c    *ilgraph.Case
	lang string
	res  *Result
}

// Calibrate chooses, for every kind but the root cause, the cut-off with
// the best micro-averaged F1 over the answers; of equal ones, the one that
// predicts less (lower Max, then higher Min).
func calibrate(answers []answer) map[ilgraph.Kind]Cutoff {
	out := map[ilgraph.Kind]Cutoff{ilgraph.KindRootCause: RootCauseCutoff}
	for _, k := range ilgraph.VocabKinds {
		if k == ilgraph.KindRootCause {
			continue
		}
		best, bestF1 := Cutoff{Min: 0.5, Max: 1}, -1.0
		for max := 1; max <= calibrateMaxTerms; max++ {
			for step := 19; step >= 1; step-- {
				c := Cutoff{Min: float64(step) / 20, Max: max}
				var ks KindScore
				for _, a := range answers {
					ks.count(a.c.Tags(k), suggestionIDs(a.res.InProfile(k, c)))
				}
				if f := ks.f1(); f > bestF1+1e-12 {
					best, bestF1 = c, f
				}
			}
		}
		out[k] = best
	}
	return out
}

// calibrateShow chooses, for every kind, the lowest confidence (by 0.05) at
// which the suggestions the base cut-off lets into a profile were right at
// least ShowPrecision of the time in every
// language of the answers, with at least showMinSupport of them in all;
// NeverShown when there is none. Each language must reach it on its own: a
// chip shown to a reader of English is as sure as one shown in Korean, not
// sure only on the average of both.
func calibrateShow(answers []answer, base map[ilgraph.Kind]Cutoff) map[ilgraph.Kind]Cutoff {
	out := map[ilgraph.Kind]Cutoff{}
	for _, k := range ilgraph.VocabKinds {
		b := base[k]
		out[k] = NeverShown
		for step := 0; step <= 20; step++ {
			min := float64(step) / 20
			c := Cutoff{Min: min, Max: b.Max}
			byLang := map[string]*KindScore{}
			for _, a := range answers {
				if byLang[a.lang] == nil {
					byLang[a.lang] = &KindScore{}
				}
				byLang[a.lang].count(a.c.Tags(k), suggestionIDs(a.res.Sure(k, b, c)))
			}
			n, sure := 0, true
			for _, ks := range byLang {
				n += ks.tp + ks.fp
				sure = sure && float64(ks.tp) >= ShowPrecision*float64(ks.tp+ks.fp)-1e-9
			}
			sure = sure && n >= showMinSupport
			if sure {
				out[k] = c
				break
			}
		}
	}
	return out
}

// ReliabilityBin is how often one kind's suggestions in one confidence band
// were right: of Suggested suggestions with a confidence in [From, To)
// (the last band includes 1), Right were tags of their case.
type ReliabilityBin struct {
	From           float64 `json:"from"`
	To             float64 `json:"to"`
	Suggested      int     `json:"suggested"`
	Right          int     `json:"right"`
	Precision      float64 `json:"precision"`
	MeanConfidence float64 `json:"meanConfidence"`
	sum            float64
}

// reliabilityBands is how many equal bands of confidence a reliability
// table has.
const reliabilityBands = 10

// reliability tables every suggestion the cut-offs' Max lets through (any
// confidence) by kind and confidence band, against the case's tags.
func reliability(answers []answer, cut map[ilgraph.Kind]Cutoff) map[ilgraph.Kind][]ReliabilityBin {
	out := map[ilgraph.Kind][]ReliabilityBin{}
	for _, k := range ilgraph.VocabKinds {
		bins := make([]ReliabilityBin, reliabilityBands)
		for i := range bins {
			bins[i].From, bins[i].To = round(float64(i)/reliabilityBands), round(float64(i+1)/reliabilityBands)
		}
		for _, a := range answers {
			tags := map[string]bool{}
			for _, id := range a.c.Tags(k) {
				tags[id] = true
			}
			for _, s := range a.res.Top(k, cut[k].Max, 0) {
				i := min(int(s.Confidence*reliabilityBands), reliabilityBands-1)
				bins[i].Suggested++
				bins[i].sum += s.Confidence
				if tags[s.ID] {
					bins[i].Right++
				}
			}
		}
		for i := range bins {
			if n := bins[i].Suggested; n > 0 {
				bins[i].Precision = round(float64(bins[i].Right) / float64(n))
				bins[i].MeanConfidence = round(bins[i].sum / float64(n))
			}
		}
		out[k] = bins
	}
	return out
}

// suggestionIDs returns the suggestions' ids.
func suggestionIDs(ss []Suggestion) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// KindScore is precision, recall and F1 of one kind, micro-averaged over the
// queries.
type KindScore struct {
	Precision  float64 `json:"precision"`
	Recall     float64 `json:"recall"`
	F1         float64 `json:"f1"`
	tp, fp, fn int
}

// count adds one query's predictions against its tags.
func (ks *KindScore) count(tags, got []string) {
	want := map[string]bool{}
	for _, id := range tags {
		want[id] = true
	}
	for _, id := range got {
		if want[id] {
			ks.tp++
		} else {
			ks.fp++
		}
		delete(want, id)
	}
	ks.fn += len(want)
}

// f1 is the F1 of the counts so far, unrounded.
func (ks *KindScore) f1() float64 {
	if 2*ks.tp+ks.fp+ks.fn == 0 {
		return 0
	}
	return 2 * float64(ks.tp) / float64(2*ks.tp+ks.fp+ks.fn)
}

// Scores are the figures of one system on one language.
type Scores struct {
	Queries       int                        `json:"queries"`
	Kinds         map[ilgraph.Kind]KindScore `json:"kinds"`
	RootCauseTop1 float64                    `json:"rootCauseTop1"`
	RootCauseTop3 float64                    `json:"rootCauseTop3"`
	top1, top3    int
}

// Report is the outcome of an evaluation, per language ("en", "ko"):
// the engine's scores with cut-offs calibrated without the case (Engine),
// with the cut-offs given (Fixed: what the server does), and the
// labels-only baseline's; and the cut-offs calibrated on every case's
// leave-one-out answers (what DefaultCutoffs should be).
type Report struct {
	Cases      int                       `json:"cases"`
	Folds      int                       `json:"folds"`
	Engine     map[string]*Scores        `json:"engine"`
	Fixed      map[string]*Scores        `json:"fixed"`
	Baseline   map[string]*Scores        `json:"baseline"`
	Calibrated map[ilgraph.Kind]Cutoff   `json:"calibrated"`
	FoldCuts   []map[ilgraph.Kind]Cutoff `json:"foldCutoffs"`
	// Overlap is, per language, the mean share of the ten cases most
	// similar to a case's true tags that are among the ten most similar to
	// the profile predicted from its text (ilgraph eval suggest fills it in;
	// the similarity index is not this package's).
	Overlap map[string]float64 `json:"overlap,omitempty"`
	// OverlapNoMechanisms is Overlap with the predicted mechanisms left out
	// of the text's profile.
	OverlapNoMechanisms map[string]float64 `json:"overlapNoMechanisms,omitempty"`
	// OverlapBaseline is Overlap for the baseline's profiles.
	OverlapBaseline map[string]float64 `json:"overlapBaseline,omitempty"`
	// OverlapInFull is Overlap with every predicted term counting in full,
	// as similarToText counted them before terms counted with their
	// confidence (Overlap weighs each by its confidence, as the server does).
	OverlapInFull map[string]float64 `json:"overlapInFull,omitempty"`
	// TextQueries are the judged sets measured with each query case's text
	// (Query, leave-one-out, nested cut-offs) as a live description: the
	// cases most like the profile predicted from it, graded by the judges.
	TextQueries []TextQueryFigures `json:"textQueries,omitempty"`
	// Terms are, when asked for (ilgraph eval suggest --terms KIND), the
	// engine's counts per term of one kind and language (TermCounts).
	Terms map[string][]TermCount `json:"terms,omitempty"`
	// Shown are the figures of the suggestions shown as sure, with show
	// cut-offs calibrated without the case (nested, as Engine's: on each
	// fold's training answers, from the cut-offs calibrated there);
	// ShownFixed with ShowCutoffs; ShowCalibrated the show cut-offs
	// calibrated on every case's answers (what ShowCutoffs should be), and
	// FoldShowCuts each fold's.
	Shown          map[string]*Scores        `json:"shown"`
	ShownFixed     map[string]*Scores        `json:"shownFixed"`
	ShowCalibrated map[ilgraph.Kind]Cutoff   `json:"showCalibrated"`
	FoldShowCuts   []map[ilgraph.Kind]Cutoff `json:"foldShowCutoffs"`
	// Reliability is, per language, every kind's suggestions (at most the
	// given cut-offs' Max of each, any confidence) by confidence band and
	// how often they were right, over the leave-one-out answers with the
	// confidences the server gives (DefaultCalibration, fit on these same
	// answers); ReliabilityScores the same with the scores uncalibrated;
	// ReliabilityNested with each fold's answers calibrated by the curves
	// fit on the other folds' (what to expect on a new case).
	Reliability       map[string]map[ilgraph.Kind][]ReliabilityBin `json:"reliability"`
	ReliabilityScores map[string]map[ilgraph.Kind][]ReliabilityBin `json:"reliabilityScores"`
	ReliabilityNested map[string]map[ilgraph.Kind][]ReliabilityBin `json:"reliabilityNested"`
	// Calibration is the calibration fit on every case's leave-one-out
	// answers: what DefaultCalibration should be.
	Calibration *Calibration `json:"calibration"`
	// Predictions are the engine's predicted terms for every query, with
	// the cut-offs calibrated without the case; BaselinePredictions the
	// baseline's, with the cut-offs given.
	Predictions, BaselinePredictions []Prediction `json:"-"`
}

// TextQueryFigures are a judged set's figures when its query cases are
// asked for by their text in one language, with the predicted terms
// counting with their confidence ("confidence") or in full ("full").
type TextQueryFigures struct {
	Set       string  `json:"set"`
	Judge     string  `json:"judge"`
	Lang      string  `json:"lang"`
	Weighting string  `json:"weighting"`
	Queries   int     `json:"queries"`
	P5        float64 `json:"p5"`
	Strong5   float64 `json:"strong5"`
	NDCG5     float64 `json:"ndcg5"`
	Unjudged  int     `json:"unjudged"`
}

// Prediction is what the engine predicted for one query of the evaluation.
type Prediction struct {
	CaseID string
	Lang   string
	Terms  map[ilgraph.Kind][]string
	// Confidence is each predicted term's score: what a profile weighs it
	// by (explore.Service.ProfileFromSuggestions).
	Confidence map[ilgraph.Feature]float64
}

// EvalFolds is how many folds the nested calibration splits the corpus
// into: case i (in the order given) is in fold i mod EvalFolds.
const EvalFolds = 10

// Query is the text a case is evaluated on in a language: its symptoms text
// and its summary; empty when the case has neither in that language.
func Query(c *ilgraph.Case, lang string) string {
	pick := func(t ilgraph.Text) string {
		if lang == "ko" {
			return t.Ko
		}
		return t.En
	}
	s, m := pick(c.SymptomsText), pick(c.Summary)
	switch {
	case s == "":
		return m
	case m == "":
		return s
	}
	return s + "\n\n" + m
}

// Evaluate runs leave-one-out over cases: each case's Query, in English and
// then in Korean where it has Korean text, is answered by an engine built
// from every case (opts) and by the labels-only baseline, with the case
// itself excluded from all statistics, and the answers are scored against
// the case's tags.
//
// The cut-offs that turn an answer into predicted terms are chosen without
// the case too (nested): the cases are split into EvalFolds folds; for each
// fold, every other case is answered with the fold and that case excluded,
// Calibrate picks the cut-offs on those answers, and the fold's own
// leave-one-out answers are scored with them (Report.Engine). The same
// answers scored with the cut-offs given make Report.Fixed; the baseline is
// scored with the cut-offs given.
func Evaluate(v *ilgraph.Vocabulary, cases []ilgraph.Case, opts Options, cutoffs map[ilgraph.Kind]Cutoff) (*Report, error) {
	// The engine answers uncalibrated: the calibrations are fit on those
	// answers, and applied here.
	calibrating := !opts.Uncalibrated && !opts.LabelsOnly
	served := DefaultCalibration
	if !calibrating {
		served = nil
	}
	opts.Uncalibrated = true
	eng, err := New(v, cases, opts)
	if err != nil {
		return nil, err
	}
	base, err := New(v, cases, Options{LabelsOnly: true})
	if err != nil {
		return nil, err
	}
	rep := &Report{Cases: len(cases), Folds: EvalFolds, Engine: map[string]*Scores{}, Fixed: map[string]*Scores{}, Baseline: map[string]*Scores{},
		Shown: map[string]*Scores{}, ShownFixed: map[string]*Scores{}, Reliability: map[string]map[ilgraph.Kind][]ReliabilityBin{},
		ReliabilityScores: map[string]map[ilgraph.Kind][]ReliabilityBin{}, ReliabilityNested: map[string]map[ilgraph.Kind][]ReliabilityBin{}}
	for _, lang := range []string{"en", "ko"} {
		rep.Engine[lang] = newScores()
		rep.Fixed[lang] = newScores()
		rep.Baseline[lang] = newScores()
		rep.Shown[lang] = newScores()
		rep.ShownFixed[lang] = newScores()
	}
	// The engine's cases are in the order given, so index i is case i.
	type query struct {
		ci   int
		lang string
		text string
		res  *Result // leave-one-out
	}
	var queries []query
	for i := range cases {
		c := &cases[i]
		for _, lang := range []string{"en", "ko"} {
			q := Query(c, lang)
			if q == "" {
				continue
			}
			res, err := eng.suggest(q, lang, excluded{i})
			if err != nil {
				return nil, err
			}
			queries = append(queries, query{i, lang, q, res})
			b, err := base.suggest(q, lang, excluded{i})
			if err != nil {
				return nil, err
			}
			rep.Baseline[lang].add(c, b, cutoffs, nil)
			rep.BaselinePredictions = append(rep.BaselinePredictions, predicted(c.ID, lang, b, cutoffs))
		}
	}
	raw := make([]answer, len(queries))
	for i, q := range queries {
		raw[i] = answer{&cases[q.ci], q.lang, q.res}
	}
	rep.Calibration = fit(raw)
	all := raw
	if calibrating {
		all = applied(rep.Calibration, raw)
	}
	rep.Calibrated = calibrate(all)
	rep.ShowCalibrated = calibrateShow(all, rep.Calibrated)
	// What the server serves: the answers calibrated once, scored with the
	// cut-offs given and tabled by confidence.
	servedAnswers := applied(served, raw)
	for _, a := range servedAnswers {
		rep.Fixed[a.lang].add(a.c, a.res, cutoffs, nil)
		rep.ShownFixed[a.lang].add(a.c, a.res, cutoffs, ShowCutoffs)
	}
	byLang(rep.Reliability, servedAnswers, cutoffs)
	byLang(rep.ReliabilityScores, raw, cutoffs)
	var nested []answer

	for f := 0; f < EvalFolds; f++ {
		var fold excluded
		for i := f; i < len(cases); i += EvalFolds {
			fold = append(fold, i)
		}
		if len(fold) == 0 {
			continue
		}
		var train []answer
		for _, q := range queries {
			if q.ci%EvalFolds == f {
				continue
			}
			res, err := eng.suggest(q.text, q.lang, append(fold[:len(fold):len(fold)], q.ci))
			if err != nil {
				return nil, err
			}
			train = append(train, answer{&cases[q.ci], q.lang, res})
		}
		var foldCal *Calibration
		if calibrating {
			foldCal = fit(train)
			train = applied(foldCal, train)
		}
		cut := calibrate(train)
		show := calibrateShow(train, cut)
		rep.FoldCuts = append(rep.FoldCuts, cut)
		rep.FoldShowCuts = append(rep.FoldShowCuts, show)
		for _, q := range queries {
			if q.ci%EvalFolds == f {
				res := foldCal.Apply(q.res)
				rep.Engine[q.lang].add(&cases[q.ci], res, cut, nil)
				rep.Shown[q.lang].add(&cases[q.ci], res, cut, show)
				rep.Predictions = append(rep.Predictions, predicted(cases[q.ci].ID, q.lang, res, cut))
				nested = append(nested, answer{&cases[q.ci], q.lang, res})
			}
		}
	}
	byLang(rep.ReliabilityNested, nested, cutoffs)
	for _, m := range []map[string]*Scores{rep.Engine, rep.Fixed, rep.Baseline, rep.Shown, rep.ShownFixed} {
		for _, s := range m {
			s.finish()
		}
	}
	return rep, nil
}

// applied returns the answers with cal applied to each.
func applied(cal *Calibration, answers []answer) []answer {
	out := make([]answer, len(answers))
	for i, a := range answers {
		out[i] = answer{a.c, a.lang, cal.Apply(a.res)}
	}
	return out
}

// byLang fills out with each language's reliability tables of answers.
func byLang(out map[string]map[ilgraph.Kind][]ReliabilityBin, answers []answer, cut map[ilgraph.Kind]Cutoff) {
	for _, lang := range []string{"en", "ko"} {
		var in []answer
		for _, a := range answers {
			if a.lang == lang {
				in = append(in, a)
			}
		}
		out[lang] = reliability(in, cut)
	}
}

// CalibrationError is the expected calibration error of a reliability
// table: the mean, over its suggestions, of how far the precision of a
// suggestion's band is from the band's mean confidence.
func CalibrationError(bins []ReliabilityBin) float64 {
	var n int
	var gap float64
	for _, b := range bins {
		n += b.Suggested
		gap += math.Abs(float64(b.Right) - b.sum)
	}
	if n == 0 {
		return 0
	}
	return round(gap / float64(n))
}

func predicted(id, lang string, res *Result, cut map[ilgraph.Kind]Cutoff) Prediction {
	p := Prediction{CaseID: id, Lang: lang, Terms: map[ilgraph.Kind][]string{}, Confidence: map[ilgraph.Feature]float64{}}
	for _, k := range ilgraph.VocabKinds {
		for _, s := range res.InProfile(k, cut[k]) {
			p.Terms[k] = append(p.Terms[k], s.ID)
			p.Confidence[ilgraph.Feature{Kind: k, ID: s.ID}] = s.Score
		}
	}
	return p
}

func newScores() *Scores { return &Scores{Kinds: map[ilgraph.Kind]KindScore{}} }

// add counts one answer: the terms a profile takes under cutoffs, or with
// show, those of them shown as sure.
func (s *Scores) add(c *ilgraph.Case, res *Result, cutoffs, show map[ilgraph.Kind]Cutoff) {
	s.Queries++
	for _, k := range ilgraph.VocabKinds {
		ks := s.Kinds[k]
		got := res.InProfile(k, cutoffs[k])
		if show != nil {
			got = res.Sure(k, cutoffs[k], show[k])
		}
		ks.count(c.Tags(k), suggestionIDs(got))
		s.Kinds[k] = ks
	}
	for i, sg := range res.Top(ilgraph.KindRootCause, 3, 0) {
		if sg.ID == c.RootCause {
			if i == 0 {
				s.top1++
			}
			s.top3++
		}
	}
}

func (s *Scores) finish() {
	for k, ks := range s.Kinds {
		if ks.tp+ks.fp > 0 {
			ks.Precision = round(float64(ks.tp) / float64(ks.tp+ks.fp))
		}
		if ks.tp+ks.fn > 0 {
			ks.Recall = round(float64(ks.tp) / float64(ks.tp+ks.fn))
		}
		if ks.Precision+ks.Recall > 0 {
			ks.F1 = round(2 * ks.Precision * ks.Recall / (ks.Precision + ks.Recall))
		}
		s.Kinds[k] = ks
	}
	if s.Queries > 0 {
		s.RootCauseTop1 = round(float64(s.top1) / float64(s.Queries))
		s.RootCauseTop3 = round(float64(s.top3) / float64(s.Queries))
	}
}

// TermCount is how one term fared in an evaluation: on how many queries'
// cases it is a tag, and of those how many predicted it (Found) and missed
// it (Missed); and how many queries predicted it wrongly (Wrong).
type TermCount struct {
	ID     string `json:"id"`
	Tagged int    `json:"tagged"`
	Found  int    `json:"found"`
	Missed int    `json:"missed"`
	Wrong  int    `json:"wrong"`
}

// TermCounts breaks the predictions of kind k down by term, per language:
// every term of the vocabulary, in vocabulary order, then any term the
// predictions or tags name that it lacks. Summed over the terms, Found,
// Wrong and Missed are the kind's true positives, false positives and false
// negatives. It shows which terms an evaluation's errors come from (which
// aliases to work on, which tags are seldom named in the text).
func TermCounts(v *ilgraph.Vocabulary, cases []ilgraph.Case, preds []Prediction, k ilgraph.Kind) map[string][]TermCount {
	byID := map[string]*ilgraph.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	out := map[string][]TermCount{}
	at := map[string]map[string]int{}
	term := func(lang, id string) *TermCount {
		if at[lang] == nil {
			at[lang] = map[string]int{}
			for _, t := range v.Kinds[k] {
				at[lang][t.ID] = len(out[lang])
				out[lang] = append(out[lang], TermCount{ID: t.ID})
			}
		}
		i, ok := at[lang][id]
		if !ok {
			i = len(out[lang])
			at[lang][id] = i
			out[lang] = append(out[lang], TermCount{ID: id})
		}
		return &out[lang][i]
	}
	for _, p := range preds {
		c := byID[p.CaseID]
		if c == nil {
			continue
		}
		tagged := map[string]bool{}
		for _, id := range c.Tags(k) {
			tagged[id] = true
			term(p.Lang, id).Tagged++
		}
		got := map[string]bool{}
		for _, id := range p.Terms[k] {
			if got[id] {
				continue
			}
			got[id] = true
			if tagged[id] {
				term(p.Lang, id).Found++
			} else {
				term(p.Lang, id).Wrong++
			}
		}
		for id := range tagged {
			if !got[id] {
				term(p.Lang, id).Missed++
			}
		}
	}
	return out
}
