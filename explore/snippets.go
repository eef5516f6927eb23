package explore

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
)

// Snippet is a piece of a searched field with the places a full-text query
// matched it highlighted.
type Snippet struct {
	Field    string // "title" or "summary"
	Language string // "en" or "ko"
	// Text is the whole field (titles) or a window of it of about
	// SnippetRunes characters, with "…" where it was cut.
	Text string
	// Highlights are byte ranges of Text, in order and not overlapping.
	Highlights []Span
}

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// SnippetRunes is about how many characters of a summary a snippet shows.
const SnippetRunes = 200

// Snippets returns, for a case a full-text filter selected, where the
// filter's text matched: one snippet per searched field with a match, in the
// order title en, title ko, summary en, summary ko. None without a text
// query.
//
// The highlights follow the index's rules, not a looser reading, so that
// they show why the case was found: each phrase of the query (a word, or in
// PHRASE mode the whole text) is split the way the index tokenizer splits
// text; an English word matches a whole word in any case and any of its
// forms (ilgraph.WordStem: "certificate" highlights "certificates"), a
// Korean word matches anywhere inside a run of Korean (particles and
// compounds included), and the words of a phrase must follow one another.
// In ANY and ALL modes every phrase is highlighted wherever it occurs.
func Snippets(c *ilgraph.Case, f ilgraph.CaseFilter) []Snippet {
	out := []Snippet{}
	if c == nil || !f.HasText() {
		return out
	}
	var phrases [][]queryToken
	for _, p := range f.TextPhrases() {
		if q := queryTokens(p); len(q) > 0 {
			phrases = append(phrases, q)
		}
	}
	if len(phrases) == 0 {
		return out
	}
	fields := []struct {
		field, lang, text string
		title             bool
	}{
		{"title", "en", c.Title.En, true}, {"title", "ko", c.Title.Ko, true},
		{"summary", "en", c.Summary.En, false}, {"summary", "ko", c.Summary.Ko, false},
	}
	for _, fd := range fields {
		if fd.text == "" || (f.TitlesOnly() && !fd.title) {
			continue
		}
		toks := indexTokens(fd.text)
		var spans []Span
		for _, q := range phrases {
			spans = append(spans, findPhrase(toks, q)...)
		}
		if len(spans) == 0 {
			continue
		}
		spans = mergeSpans(spans)
		text := fd.text
		if !fd.title {
			text, spans = window(text, spans, SnippetRunes)
		}
		out = append(out, Snippet{Field: fd.field, Language: fd.lang, Text: text, Highlights: spans})
	}
	return out
}

// indexToken is a word as the full-text index reads it: the tokenizer's
// token (ilgraph.SearchTokens), with form, what the index compares: the
// stem of an English word (ilgraph.WordStem), the token itself otherwise.
type indexToken struct {
	ilgraph.SearchToken
	form string
}

// indexTokens splits text the way the index does.
func indexTokens(text string) []indexToken {
	toks := ilgraph.SearchTokens(text)
	out := make([]indexToken, len(toks))
	for i, t := range toks {
		out[i] = indexToken{SearchToken: t, form: t.Text}
		if ilgraph.IsEnglishWord(t.Text) {
			out[i].form = ilgraph.WordStem(t.Text)
		}
	}
	return out
}

// queryToken is one token of a query phrase; a stop word (which the index
// does not keep, but whose place it keeps) matches any one token.
type queryToken struct {
	indexToken
	any bool
}

// queryTokens splits a query phrase like a text, leading and trailing stop
// words dropped.
func queryTokens(phrase string) []queryToken {
	var out []queryToken
	for _, t := range indexTokens(phrase) {
		out = append(out, queryToken{indexToken: t, any: ilgraph.SearchStopWords[t.Text]})
	}
	for len(out) > 0 && out[0].any {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1].any {
		out = out[:len(out)-1]
	}
	return out
}

// findPhrase returns where the tokens q occur in toks, one after another.
// A token cut into pieces (Korean of two or more letters) may match the end
// of the text's token when it starts the phrase, the start when it ends the
// phrase, and anywhere when it is the whole phrase; every other token must
// equal the text's token.
func findPhrase(toks []indexToken, q []queryToken) []Span {
	var out []Span
	n := len(q)
	for i := 0; i+n <= len(toks); i++ {
		if n == 1 {
			out = append(out, matchOne(toks[i], q[0])...)
			continue
		}
		first, ok := edgeMatch(toks[i], q[0], true)
		if !ok {
			continue
		}
		last, ok := edgeMatch(toks[i+n-1], q[n-1], false)
		if !ok {
			continue
		}
		middle := true
		for j := 1; j < n-1 && middle; j++ {
			middle = q[j].any || toks[i+j].form == q[j].form
		}
		if middle {
			out = append(out, Span{first.Start, last.End})
		}
	}
	return out
}

func splittable(q queryToken) bool { return q.Pieces && utf8.RuneCountInString(q.Text) >= 2 }

// matchOne returns every occurrence of a one-token query in a text token.
func matchOne(t indexToken, q queryToken) []Span {
	if !splittable(q) {
		if t.form == q.form {
			return []Span{{t.Start, t.End}}
		}
		return nil
	}
	if !t.Pieces {
		return nil
	}
	var out []Span
	for from := 0; ; {
		k := strings.Index(t.Text[from:], q.Text)
		if k < 0 {
			return out
		}
		out = append(out, Span{t.Start + from + k, t.Start + from + k + len(q.Text)})
		from += k + len(q.Text)
	}
}

// edgeMatch matches the first (suffix) or last (prefix) token of a phrase.
func edgeMatch(t indexToken, q queryToken, first bool) (Span, bool) {
	switch {
	case q.any:
		return Span{t.Start, t.End}, true
	case t.form == q.form:
		return Span{t.Start, t.End}, true
	case splittable(q) && t.Pieces && first && strings.HasSuffix(t.Text, q.Text):
		return Span{t.End - len(q.Text), t.End}, true
	case splittable(q) && t.Pieces && !first && strings.HasPrefix(t.Text, q.Text):
		return Span{t.Start, t.Start + len(q.Text)}, true
	}
	return Span{}, false
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(spans []Span) []Span {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].Start != spans[j].Start {
			return spans[i].Start < spans[j].Start
		}
		return spans[i].End > spans[j].End
	})
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.Start <= last.End {
			last.End = max(last.End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// window cuts text to about maxRunes characters around its first highlight,
// at spaces where it can, marks the cuts with "…", and keeps the highlights
// that fit, shifted to the window.
func window(text string, spans []Span, maxRunes int) (string, []Span) {
	if utf8.RuneCountInString(text) <= maxRunes {
		return text, spans
	}
	// Start about a fifth of the window before the first highlight.
	start := spans[0].Start
	for n := 0; start > 0 && n < maxRunes/5; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	if start > 0 {
		if k := strings.IndexAny(text[start:spans[0].Start], " \n"); k >= 0 {
			start += k + 1
		}
	}
	end := start
	for n := 0; end < len(text) && n < maxRunes; n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	if end < len(text) {
		if k := strings.LastIndexAny(text[start:end], " \n"); k > 0 && start+k > spans[0].End {
			end = start + k
		}
	}
	// Never cut a highlight: a long first one stretches the window.
	end = max(end, spans[0].End)
	var out []Span
	prefix := ""
	if start > 0 {
		prefix = "…"
	}
	for _, s := range spans {
		if s.Start >= start && s.End <= end {
			out = append(out, Span{s.Start - start + len(prefix), s.End - start + len(prefix)})
		}
	}
	body := strings.TrimRight(text[start:end], " \n")
	suffix := ""
	if end < len(text) {
		suffix = "…"
	}
	return prefix + body + suffix, out
}
