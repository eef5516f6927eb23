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

// DefaultCutoffs are the cut-offs the evaluation uses, chosen once on the
// leave-one-out run over the seed corpus (see docs/suggest.md). A root cause
// is predicted as the single best term; the top-3 accuracy looks further.
var DefaultCutoffs = map[ilgraph.Kind]Cutoff{
	ilgraph.KindRootCause:    {Min: 0, Max: 1},
	ilgraph.KindComponent:    {Min: 0.5, Max: 4},
	ilgraph.KindSymptom:      {Min: 0.4, Max: 4},
	ilgraph.KindContributing: {Min: 0.4, Max: 4},
	ilgraph.KindDomain:       {Min: 0.5, Max: 4},
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

// Scores are the figures of one system on one language.
type Scores struct {
	Queries       int                        `json:"queries"`
	Kinds         map[ilgraph.Kind]KindScore `json:"kinds"`
	RootCauseTop1 float64                    `json:"rootCauseTop1"`
	RootCauseTop3 float64                    `json:"rootCauseTop3"`
	top1, top3    int
}

// Report is the outcome of an evaluation: per language ("en", "ko"), the
// engine's scores and the labels-only baseline's.
type Report struct {
	Cases    int                `json:"cases"`
	Engine   map[string]*Scores `json:"engine"`
	Baseline map[string]*Scores `json:"baseline"`
}

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
func Evaluate(v *ilgraph.Vocabulary, cases []ilgraph.Case, opts Options, cutoffs map[ilgraph.Kind]Cutoff) (*Report, error) {
	eng, err := New(v, cases, opts)
	if err != nil {
		return nil, err
	}
	base, err := New(v, cases, Options{LabelsOnly: true})
	if err != nil {
		return nil, err
	}
	rep := &Report{Cases: len(cases), Engine: map[string]*Scores{}, Baseline: map[string]*Scores{}}
	for _, lang := range []string{"en", "ko"} {
		rep.Engine[lang] = newScores()
		rep.Baseline[lang] = newScores()
	}
	for i := range cases {
		c := &cases[i]
		for _, lang := range []string{"en", "ko"} {
			q := Query(c, lang)
			if q == "" {
				continue
			}
			for _, sys := range []struct {
				e *Engine
				s *Scores
			}{{eng, rep.Engine[lang]}, {base, rep.Baseline[lang]}} {
				res, err := sys.e.Suggest(q, lang, c.ID)
				if err != nil {
					return nil, err
				}
				sys.s.add(c, res, cutoffs)
			}
		}
	}
	for _, m := range []map[string]*Scores{rep.Engine, rep.Baseline} {
		for _, s := range m {
			s.finish()
		}
	}
	return rep, nil
}

func newScores() *Scores { return &Scores{Kinds: map[ilgraph.Kind]KindScore{}} }

func (s *Scores) add(c *ilgraph.Case, res *Result, cutoffs map[ilgraph.Kind]Cutoff) {
	s.Queries++
	for _, k := range ilgraph.VocabKinds {
		want := map[string]bool{}
		for _, id := range c.Tags(k) {
			want[id] = true
		}
		ks := s.Kinds[k]
		got := res.Predicted(k, cutoffs[k])
		for _, id := range got {
			if want[id] {
				ks.tp++
			} else {
				ks.fp++
			}
		}
		for id := range want {
			found := false
			for _, g := range got {
				found = found || g == id
			}
			if !found {
				ks.fn++
			}
		}
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
