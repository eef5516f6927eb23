package suggest

import (
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
// the single best term; the top-3 accuracy looks further.
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

// ShowCutoffs say which suggestions are shown as sure: per kind, those of
// DefaultCutoffs with a confidence of at least Min, the lowest confidence at
// which, over every case's leave-one-out answers (English and Korean), the
// suggestions shown were right at least ShowPrecision of the time
// (calibrateShow; ilgraph eval suggest prints them, a test checks they are
// still the calibrated ones). The others still count in similarToText's
// profile with their confidence; they are offered, not asserted.
var ShowCutoffs = map[ilgraph.Kind]Cutoff{
	ilgraph.KindRootCause:    {Min: 0.8, Max: 1},
	ilgraph.KindComponent:    {Min: 0.8, Max: 5},
	ilgraph.KindSymptom:      {Min: 0.9, Max: 4},
	ilgraph.KindContributing: NeverShown,
	ilgraph.KindDomain:       {Min: 0.75, Max: 2},
	ilgraph.KindMechanism:    {Min: 0.75, Max: 5},
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
					ks.count(a.c.Tags(k), a.res.Predicted(k, c))
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

// calibrateShow chooses, for every kind, the lowest confidence (from the
// kind's base cut-off's Min up, by 0.05) at which the suggestions under the
// base cut-off were right at least ShowPrecision of the time in every
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
			if min < b.Min-1e-9 {
				continue
			}
			c := Cutoff{Min: min, Max: b.Max}
			byLang := map[string]*KindScore{}
			for _, a := range answers {
				if byLang[a.lang] == nil {
					byLang[a.lang] = &KindScore{}
				}
				byLang[a.lang].count(a.c.Tags(k), a.res.Predicted(k, c))
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

// Predicted returns the ids of kind k that count as predicted under c.
func (r *Result) Predicted(k ilgraph.Kind, c Cutoff) []string {
	top := r.Top(k, c.Max, c.Min)
	var ids []string
	for _, s := range top {
		ids = append(ids, s.ID)
	}
	return ids
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
	// how often they were right, over the leave-one-out answers.
	Reliability map[string]map[ilgraph.Kind][]ReliabilityBin `json:"reliability"`
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
	// Confidence is each predicted term's confidence.
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
	eng, err := New(v, cases, opts)
	if err != nil {
		return nil, err
	}
	base, err := New(v, cases, Options{LabelsOnly: true})
	if err != nil {
		return nil, err
	}
	rep := &Report{Cases: len(cases), Folds: EvalFolds, Engine: map[string]*Scores{}, Fixed: map[string]*Scores{}, Baseline: map[string]*Scores{},
		Shown: map[string]*Scores{}, ShownFixed: map[string]*Scores{}, Reliability: map[string]map[ilgraph.Kind][]ReliabilityBin{}}
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
			rep.Fixed[lang].add(c, res, cutoffs)
			rep.ShownFixed[lang].add(c, res, ShowCutoffs)
			b, err := base.suggest(q, lang, excluded{i})
			if err != nil {
				return nil, err
			}
			rep.Baseline[lang].add(c, b, cutoffs)
			rep.BaselinePredictions = append(rep.BaselinePredictions, predicted(c.ID, lang, b, cutoffs))
		}
	}
	all := make([]answer, len(queries))
	for i, q := range queries {
		all[i] = answer{&cases[q.ci], q.lang, q.res}
	}
	rep.Calibrated = calibrate(all)
	rep.ShowCalibrated = calibrateShow(all, rep.Calibrated)
	for _, lang := range []string{"en", "ko"} {
		var in []answer
		for i, q := range queries {
			if q.lang == lang {
				in = append(in, all[i])
			}
		}
		rep.Reliability[lang] = reliability(in, cutoffs)
	}

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
		cut := calibrate(train)
		show := calibrateShow(train, cut)
		rep.FoldCuts = append(rep.FoldCuts, cut)
		rep.FoldShowCuts = append(rep.FoldShowCuts, show)
		for _, q := range queries {
			if q.ci%EvalFolds == f {
				rep.Engine[q.lang].add(&cases[q.ci], q.res, cut)
				rep.Shown[q.lang].add(&cases[q.ci], q.res, show)
				rep.Predictions = append(rep.Predictions, predicted(cases[q.ci].ID, q.lang, q.res, cut))
			}
		}
	}
	for _, m := range []map[string]*Scores{rep.Engine, rep.Fixed, rep.Baseline, rep.Shown, rep.ShownFixed} {
		for _, s := range m {
			s.finish()
		}
	}
	return rep, nil
}

func predicted(id, lang string, res *Result, cut map[ilgraph.Kind]Cutoff) Prediction {
	p := Prediction{CaseID: id, Lang: lang, Terms: map[ilgraph.Kind][]string{}, Confidence: map[ilgraph.Feature]float64{}}
	for _, k := range ilgraph.VocabKinds {
		for _, s := range res.Top(k, cut[k].Max, cut[k].Min) {
			p.Terms[k] = append(p.Terms[k], s.ID)
			p.Confidence[ilgraph.Feature{Kind: k, ID: s.ID}] = s.Confidence
		}
	}
	return p
}

func newScores() *Scores { return &Scores{Kinds: map[ilgraph.Kind]KindScore{}} }

func (s *Scores) add(c *ilgraph.Case, res *Result, cutoffs map[ilgraph.Kind]Cutoff) {
	s.Queries++
	for _, k := range ilgraph.VocabKinds {
		ks := s.Kinds[k]
		ks.count(c.Tags(k), res.Predicted(k, cutoffs[k]))
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
