package suggest

import (
	"context"
	"slices"
)

// TextMatch is a case whose text is like a description.
type TextMatch struct {
	CaseID string
	// Score is the case's BM25 score for the description.
	Score float64
	// Words are the description's index terms the case's text has.
	Words []string
}

// TextMatches ranks the cases by how like a description their text is:
// BM25 over each case's title, summary, trigger and symptoms in the
// description's language — the index whose best cases vote for tags — with
// no case left out. It returns the language ("" detects it) and up to n
// cases with a score above 0, best first, then in corpus order; then the
// cases of also that are not among them, in also's order, with their scores
// (0 for no shared word; unknown ids are left out). A description matches
// cases by its own words this way, not only through the terms suggested
// from it.
func (e *Engine) TextMatches(text, lang string, n int, also []string) (string, []TextMatch, error) {
	text, lang, _, err := e.prepare(text, lang)
	if err != nil || e.opts.LabelsOnly {
		return lang, nil, err
	}
	words := e.analyzer.Terms(text)
	slot := 0
	if lang == "ko" {
		slot = 1
	}
	var gone map[int32]bool
	var docs []overDoc
	if e.over != nil {
		gone, docs = e.over.gone, e.over.docs
	}
	ix := e.index[lang]
	scores, over := ix.scoreNow(words, nil, e.over, slot, -1)
	main := len(scores)
	if len(over) > 0 {
		scores = append(slices.Clip(scores), over...)
	}
	top := topN(scores, max(n, 0))
	listed := map[int]bool{}
	for _, ci := range top {
		listed[ci] = true
	}
	for _, id := range also {
		ci := -1
		for d := range docs { // a written case: its overlay doc
			if docs[d].id == id {
				ci = main + d
			}
		}
		if i, ok := e.snap.Number(id); ci < 0 && ok && !gone[i] {
			ci = int(i)
		}
		if ci >= 0 && !listed[ci] {
			listed[ci] = true
			top = append(top, ci)
		}
	}
	out := make([]TextMatch, 0, len(top))
	for _, ci := range top {
		m := TextMatch{Score: scores[ci]}
		if ci < main {
			m.CaseID, m.Words = e.snap.ID(int32(ci)), ix.wordsOf(words, int32(ci))
		} else {
			d := docs[ci-main]
			m.CaseID = d.id
			for _, w := range distinct(words) {
				if slices.Contains(d.a.terms[slot], w) {
					m.Words = append(m.Words, w)
				}
			}
		}
		out = append(out, m)
	}
	return lang, out, nil
}

// wordsOf returns the words of query (each once, in query order) that case
// c's text has.
func (ix *bm25) wordsOf(query []string, c int32) []string {
	var out []string
	for _, w := range distinct(query) {
		id, ok := ix.ids[w]
		if !ok {
			continue
		}
		found := false
		ix.post[id].each(func(x, _ int32) { found = found || x == c })
		if found {
			out = append(out, w)
		}
	}
	return out
}

func distinct(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// TextMatches is Engine.TextMatches over the current corpus.
func (s *Service) TextMatches(ctx context.Context, text, lang string, n int, also []string) (string, []TextMatch, error) {
	c, err := s.src.Get(ctx)
	if err != nil {
		return "", nil, err
	}
	return c.Value(s.k).(*Engine).TextMatches(text, lang, n, also)
}
