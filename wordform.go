package ilgraph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Word forms: the one rule by which full-text search (filter.text) treats
// English words as forms of one another. Two English words are forms of one
// another when WordStem gives them the same stem. The stem removes
// inflections only — plurals (-s, -es, -ies), past forms (-ed, -ied) and
// -ing, undoing a doubled consonant (logging, logged, log) and a dropped e
// (expiring, expire) — following steps 1a–1c of the Porter2 (Snowball
// English) stemmer and its rule for a final e; it does not remove
// derivational endings (configuration is not configure, failure is not
// fail), which full Porter stemming does and which would make searches find
// other words. A short table joins a few families whose forms the rule
// cannot see (expiry, expiration: expire).
//
// Both sides of the search use it: the graph stores every searched field
// also with its English words replaced by their stems (SearchForms), and a
// query's words are stemmed the same way before the index looks for them,
// so that "certificate" finds "certificates" in every text mode. Words that
// are not plain English letters (Korean, node.js, us-east-1's "1", API가)
// are never changed: Korean matching is the index's own.

// WordFormsVersion names the rule; the graph stores it with each case's
// stemmed fields and restems the cases of an older version when it starts.
const WordFormsVersion = 1

// wordFamilies joins stems the inflection rule leaves apart.
var wordFamilies = map[string]string{
	"expiri":     "expir", // expiry, expiries
	"expiration": "expir", // expiration(s)
}

// porterInvariant are words Porter2 leaves as they are, or stems specially.
var porterInvariant = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"news": "news", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
	"inning": "inning", "outing": "outing", "canning": "canning", "herring": "herring",
	"earring": "earring", "proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
	// not in Porter2's list: the rule would make it a form of "even"
	"evening": "evening",
}

// SearchStopWords are the English words the full-text index ignores (the
// stop words of Lucene's CJK analyzer).
var SearchStopWords = map[string]bool{
	"a": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true, "by": true,
	"for": true, "if": true, "in": true, "into": true, "is": true, "it": true, "no": true, "not": true,
	"of": true, "on": true, "or": true, "s": true, "such": true, "t": true, "that": true, "the": true,
	"their": true, "then": true, "there": true, "these": true, "they": true, "this": true, "to": true,
	"was": true, "will": true, "with": true, "www": true,
}

// IsEnglishWord reports whether w is a word of plain English letters (a–z,
// in any case): the only words WordStem changes.
func IsEnglishWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// WordStem returns the stem of an English word, lower-cased: the same for
// every form of it (see the rule above). Anything else — a word with
// digits, Korean, a stop word, a word of three letters or fewer — is
// returned lower-cased but otherwise as it is. A stem is never a stop word.
func WordStem(w string) string {
	w = strings.ToLower(w)
	if !IsEnglishWord(w) || len(w) <= 3 || SearchStopWords[w] {
		return w
	}
	s := porterStep1(w)
	if f, ok := wordFamilies[s]; ok {
		s = f
	}
	if SearchStopWords[s] || s == "" {
		return w
	}
	return s
}

// porter is a word being stemmed: its letters, with 'Y' marking a y that
// is a consonant, and its regions R1 and R2 (Porter2's definitions).
type porter struct {
	b      []byte
	r1, r2 int
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

func newPorter(w string) *porter {
	b := []byte(w)
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
		}
	}
	p := &porter{b: b}
	p.r1 = regionAfter(b, 0)
	for _, pre := range []string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(w, pre) {
			p.r1 = len(pre)
		}
	}
	p.r2 = regionAfter(b, p.r1)
	return p
}

// regionAfter returns where the region after the first non-vowel that
// follows a vowel, from position from, starts (len(b) when there is none).
func regionAfter(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if !isVowel(b[i]) && isVowel(b[i-1]) {
			return i + 1
		}
	}
	return len(b)
}

// ends reports whether the word ends in s (the conversion in a comparison
// does not allocate).
func (p *porter) ends(s string) bool {
	return len(p.b) >= len(s) && string(p.b[len(p.b)-len(s):]) == s
}

func (p *porter) cut(n int) { p.b = p.b[:len(p.b)-n] }

func (p *porter) hasVowel(end int) bool {
	for _, c := range p.b[:end] {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// shortSyllableAt reports whether b[:end] ends in a short syllable: a
// non-vowel, a vowel and a non-vowel other than w, x and Y; or, at the
// start of the word, a vowel and a non-vowel.
func shortSyllableAt(b []byte, end int) bool {
	if end == 2 {
		return isVowel(b[0]) && !isVowel(b[1])
	}
	if end < 3 {
		return false
	}
	c0, c1, c2 := b[end-3], b[end-2], b[end-1]
	return !isVowel(c0) && isVowel(c1) && !isVowel(c2) && c2 != 'w' && c2 != 'x' && c2 != 'Y'
}

func (p *porter) short() bool { return p.r1 >= len(p.b) && shortSyllableAt(p.b, len(p.b)) }

// porterStep1 applies Porter2's steps 1a, 1b and 1c and its rule for a
// final e (from step 5) to a lower-case word of English letters.
func porterStep1(w string) string {
	if s, ok := porterInvariant[w]; ok {
		return s
	}
	p := newPorter(w)
	// Step 1a: plurals.
	switch {
	case p.ends("sses"):
		p.cut(2)
	case p.ends("ied"), p.ends("ies"):
		if len(p.b) > 4 {
			p.cut(2)
		} else {
			p.cut(1)
		}
	case p.ends("us"), p.ends("ss"):
	case p.ends("s"):
		if len(p.b) >= 3 && p.hasVowel(len(p.b)-2) {
			p.cut(1)
		}
	}
	if s, ok := porterInvariant[string(p.b)]; ok && s == string(p.b) {
		return s
	}
	// (string(p.b) in a map index and a comparison does not allocate.)
	// Step 1b: -eed, -ed, -ing.
	switch {
	case p.ends("eed"):
		if len(p.b)-3 >= p.r1 {
			p.cut(1)
		}
	case p.ends("ed") && p.hasVowel(len(p.b)-2), p.ends("ing") && p.hasVowel(len(p.b)-3):
		if p.ends("ed") {
			p.cut(2)
		} else {
			p.cut(3)
		}
		switch {
		case p.ends("at"), p.ends("bl"), p.ends("iz"):
			p.b = append(p.b, 'e')
		case len(p.b) >= 2 && p.b[len(p.b)-1] == p.b[len(p.b)-2] && strings.IndexByte("bdfgmnprt", p.b[len(p.b)-1]) >= 0:
			p.cut(1)
		case p.short():
			p.b = append(p.b, 'e')
		}
	}
	// Step 1c: a final y after a non-vowel (not the first letter) is i.
	if n := len(p.b); n > 2 && (p.b[n-1] == 'y' || p.b[n-1] == 'Y') && !isVowel(p.b[n-2]) {
		p.b[n-1] = 'i'
	}
	// Step 5's e: removed in R2, or in R1 unless a short syllable precedes it.
	if n := len(p.b); n > 0 && p.b[n-1] == 'e' {
		if n-1 >= p.r2 || n-1 >= p.r1 && !shortSyllableAt(p.b, n-1) {
			p.cut(1)
		}
	}
	return strings.ToLower(string(p.b))
}

// WordFormCandidates returns the forms of an English word that the rule
// could join to it — built from its stem by adding the endings the rule
// removes, and the family table's words — each of which has the same stem;
// the word itself (lower-cased) first. Not every candidate is a word; the
// caller looks up which ones occur. For anything but an English word it
// returns the word alone.
func WordFormCandidates(w string) []string {
	w = strings.ToLower(w)
	st := WordStem(w)
	out := []string{w}
	if st == w && !IsEnglishWord(w) {
		return out
	}
	seen := map[string]bool{w: true}
	add := func(c string) {
		if !seen[c] && WordStem(c) == st {
			seen[c] = true
			out = append(out, c)
		}
	}
	bases := []string{w, st, st + "e"}
	if strings.HasSuffix(st, "i") {
		bases = append(bases, st[:len(st)-1]+"y")
	}
	for fam, to := range wordFamilies {
		if to == st {
			bases = append(bases, fam)
			if strings.HasSuffix(fam, "i") {
				bases = append(bases, fam[:len(fam)-1]+"y")
			}
		}
	}
	for _, b := range bases {
		add(b)
		for _, end := range []string{"s", "es", "ed", "ing", "ings"} {
			add(b + end)
		}
		if n := len(b); n > 1 {
			last := b[n-1]
			if strings.IndexByte("bdfgmnprt", last) >= 0 {
				add(b + string(last) + "ed")
				add(b + string(last) + "ing")
				add(b + string(last) + "ings")
			}
			switch last {
			case 'e':
				add(b + "d")
				add(b[:n-1] + "ing")
				add(b[:n-1] + "ings")
			case 'y', 'i':
				add(b[:n-1] + "ies")
				add(b[:n-1] + "ied")
				add(b[:n-1] + "y")
			}
		}
	}
	return out
}

// SearchToken is a word as the full-text index's tokenizer (Unicode word
// boundaries, then the CJK analyzer) sees it.
type SearchToken struct {
	Text       string // lower-cased
	Start, End int    // byte offsets in the text
	// Pieces: a run of Korean (or Chinese and Japanese) letters alone, which
	// the CJK analyzer indexes as overlapping two-character pieces, so that
	// a word matches anywhere inside it. A Korean run written against
	// digits or Latin letters (31시간, API가) is one mixed word instead,
	// matched whole.
	Pieces bool
}

type runeClass uint8

const (
	rcOther  runeClass = iota
	rcLetter           // a letter of an alphabet (not Hangul, not CJK)
	rcDigit
	rcHangul
	rcCJK // Han, Hiragana, Katakana: never part of an alphabetic word
	rcMark
)

func classOf(r rune) runeClass {
	if r < utf8.RuneSelf { // ASCII, most of the text: no table lookups
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			return rcLetter
		case r >= '0' && r <= '9':
			return rcDigit
		}
		return rcOther
	}
	switch {
	case unicode.Is(unicode.Hangul, r):
		return rcHangul
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return rcCJK
	case unicode.IsLetter(r):
		return rcLetter
	case unicode.IsDigit(r):
		return rcDigit
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Mc, r):
		return rcMark
	}
	return rcOther
}

// SearchTokens splits text the way the index does: letters, digits and
// Hangul written together make one word; "_" joins words; an apostrophe,
// period or colon between two letters joins them (amazon's, node.js), and a
// period, comma, semicolon or apostrophe between two digits (1,000 and
// 1.5); a run of Han or Kana is a token of its own.
func SearchTokens(text string) []SearchToken {
	var out []SearchToken
	start := -1
	mixed := false
	var prevClass runeClass
	flush := func(end int) {
		if start >= 0 {
			s := text[start:end]
			out = append(out, SearchToken{Text: strings.ToLower(s), Start: start, End: end, Pieces: !mixed})
		}
		start, mixed = -1, false
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		c := classOf(r)
		switch c {
		case rcLetter, rcDigit, rcHangul:
			if start >= 0 && prevClass == rcCJK {
				flush(i)
			}
			if start < 0 {
				start = i
			}
			if c != rcHangul {
				mixed = true
			}
		case rcCJK:
			if start >= 0 && prevClass != rcCJK {
				flush(i)
			}
			if start < 0 {
				start = i
			}
		case rcMark:
			// belongs to the rune before it
		default:
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			nc := classOf(next)
			joined := start >= 0 && prevClass != rcCJK && (r == '_' && (nc == rcLetter || nc == rcDigit || nc == rcHangul) ||
				strings.ContainsRune(".'’:", r) && prevClass == rcLetter && nc == rcLetter ||
				strings.ContainsRune(".,;'’", r) && prevClass == rcDigit && nc == rcDigit)
			if !joined {
				flush(i)
			} else {
				mixed = true
			}
		}
		if c != rcMark {
			prevClass = c
		}
		i += size
	}
	flush(len(text))
	// Only a run of Hangul, or of Han and Kana, is cut into pieces.
	for i := range out {
		if out[i].Pieces {
			r, _ := utf8.DecodeRuneInString(out[i].Text)
			out[i].Pieces = classOf(r) == rcHangul || classOf(r) == rcCJK
		}
	}
	return out
}

// SearchForms returns text with each English word (as SearchTokens splits
// it) replaced by its WordStem and everything else kept, so that the index
// reads the same words in the same places: the graph stores searched
// fields this way, and a query's words are rewritten with it too.
func SearchForms(text string) string {
	var b strings.Builder
	last := 0
	for _, t := range SearchTokens(text) {
		if !IsEnglishWord(t.Text) {
			continue
		}
		b.WriteString(text[last:t.Start])
		b.WriteString(WordStem(t.Text))
		last = t.End
	}
	b.WriteString(text[last:])
	return b.String()
}
