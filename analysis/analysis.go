// Package analysis is the one text analysis of ilgraph: it turns English and
// Korean incident text into tokens that search, highlighting, suggested terms
// and the text channel of similarity all match on, so that a word found by
// one feature is found by the others.
//
// Each token keeps its normalized form (what to match on), its surface form
// and byte offsets (what to highlight), and its script. The steps:
//
//   - Words are split the Unicode way: letters and digits of one script make a
//     word; punctuation and spaces split. A word joined by '-', '_' or '/', or
//     written in camelCase ("front-end", "INSUFFICIENT_DATA", "PutMetricData")
//     gives one token per part, all with the same Word index and Whole form, so
//     "front-end" matches the phrase "front end" and its parts match alone.
//     Letters followed by digits stay together ("s3", "ec2", "ipv6").
//   - English words are lower-cased and reduced by the Snowball English
//     (Porter2) stemmer, so "throttled", "throttling" and "throttles" meet.
//     The stemmer is github.com/kljensen/snowball/english: the reference
//     algorithm, pure Go without cgo, no dependencies of its own, small and
//     maintained; a stemmer is a fixed algorithm, so there is little to gain
//     from anything larger (bleve's analysers carry a search engine with them).
//   - Korean words lose their trailing particles and the common verb endings
//     of 하다/되다 and past tenses (장애가, 장애를 → 장애; 지연되었다, 지연됐다 →
//     지연): the longest listed suffix is removed, never leaving an empty
//     word, and one-syllable particles only from words of three or more
//     syllables (증가 and 차이 stay whole). See korean.go.
//   - Other CJK (Han, Kana) gives one token per character.
//   - Stop words are kept and marked Stop, so that offsets stay true; an
//     index leaves them out (Analyzer.Terms). The English list is shorter
//     than the usual one on purpose: "out", "no", "not", "down", "over" and
//     "under" carry meaning in incident text ("out of memory", "no staged
//     rollout"). Phrase matching skips only a few filler words (see Phrase).
//   - Acronyms of two to five capitals ("UPS", "OOM") are not stemmed, and
//     camelCase splits only into parts of real words ("MySQL", "DDoS" stay
//     whole).
//   - Vendor and product names (aws, kinesis, 아마존 …, plus names given at run
//     time) can be set aside with an Analyzer whose DropVendors is set, so that
//     "both incidents happened at AWS" does not make two texts look alike.
package analysis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Script is the writing system of a token.
type Script uint8

// The scripts of tokens.
const (
	Latin  Script = iota // Latin letters, possibly with digits ("s3"); also other alphabets
	Hangul               // Korean
	CJK                  // Han, Hiragana, Katakana: one token per character
	Digit                // digits only
)

func (s Script) String() string {
	switch s {
	case Latin:
		return "latin"
	case Hangul:
		return "hangul"
	case CJK:
		return "cjk"
	case Digit:
		return "digit"
	}
	return "unknown"
}

// Token is one word (or part of a joined word) of a text.
type Token struct {
	Norm    string // the normalized form to match on: stemmed, particles removed
	Surface string // the text as written, text[Start:End]
	Start   int    // byte offset of the first byte
	End     int    // byte offset after the last byte
	Script  Script
	Stop    bool   // a stop word or a bare Korean particle
	Word    int    // index of the written word; the parts of "front-end" share it
	Whole   string // the whole written word, lower-cased, joiners removed ("frontend")
}

// Tokens analyzes text with the default analyzer: every token, vendors kept.
func Tokens(text string) []Token { return defaultAnalyzer.Tokens(text) }

var defaultAnalyzer = New(Options{})

type class uint8

const (
	cNone   class = iota
	cLetter       // a letter of an alphabet
	cDigit
	cHangul
	cCJK
	cMark   // a combining mark: belongs to the rune before it
	cJoiner // - _ / : joins two word parts when written between them
	cApos   // ' ’ : kept inside an English word ("let's")
)

func classify(r rune) class {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			return cLetter
		case '0' <= r && r <= '9':
			return cDigit
		case r == '-' || r == '_' || r == '/':
			return cJoiner
		case r == '\'':
			return cApos
		}
		return cNone
	case r == '’':
		return cApos
	case r == '‐' || r == '‑': // Unicode hyphens
		return cJoiner
	case unicode.Is(unicode.Hangul, r):
		return cHangul
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return cCJK
	case unicode.IsLetter(r):
		return cLetter
	case unicode.IsDigit(r):
		return cDigit
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		return cMark
	}
	return cNone
}

// raw is a token before normalization.
type raw struct {
	start, end int
	script     Script
	word       int
	camel      bool // starts at a camelCase boundary
}

// split cuts text into raw tokens. Invalid UTF-8 bytes split like spaces.
func split(text string) []raw {
	var out []raw
	word := -1
	inWord := false   // the previous rune was part of a word
	joinable := false // the previous rune was a joiner right after a word part
	cur := -1         // index in out of the token being extended, or -1
	var prev rune
	var prevClass class
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			r = ' '
		}
		c := classify(r)
		switch c {
		case cLetter, cDigit, cHangul, cCJK:
			sc := scriptOf(c)
			if !inWord && !joinable {
				word++
			}
			extend, camel := false, false
			if cur >= 0 && inWord {
				t := out[cur]
				switch {
				case c == cCJK || t.script == CJK:
					extend = false
				case t.script == Hangul:
					extend = c == cHangul
				case c == cHangul:
					extend = false
				case t.script == Digit && c == cDigit:
					extend = true
				case t.script == Digit:
					// digits then letters: "5xx", "10am", "2fa" stay whole
					extend = c == cLetter
				case c == cDigit:
					extend = true // "s3", "ec2"
				default:
					camel = camelBoundary(text, i, prev, r, prevClass)
					extend = !camel
				}
			}
			if extend {
				out[cur].end = i + size
				if out[cur].script == Digit && c == cLetter {
					out[cur].script = Latin
				}
			} else {
				if cur >= 0 && inWord && (sc == Hangul) != (out[cur].script == Hangul) {
					word++ // "DynamoDB에": the particle is a word of its own
				}
				out = append(out, raw{start: i, end: i + size, script: sc, word: word, camel: camel})
				cur = len(out) - 1
			}
			inWord, joinable = true, false
		case cMark:
			if cur >= 0 && inWord && out[cur].end == i {
				out[cur].end = i + size
			} else {
				inWord, joinable = false, false
			}
		case cApos:
			// keep an apostrophe between letters of a Latin word ("let's")
			if inWord && cur >= 0 && out[cur].script == Latin && i+size < len(text) {
				next, _ := utf8.DecodeRuneInString(text[i+size:])
				if classify(next) == cLetter {
					out[cur].end = i + size
					break
				}
			}
			inWord, joinable = false, false
		case cJoiner:
			joinable = inWord
			inWord = false
		default:
			inWord, joinable = false, false
		}
		prev, prevClass = r, c
		i += size
	}
	return mergeShortCamel(out)
}

// mergeShortCamel undoes a camelCase split whose parts are too short to be
// words: "MySQL", "DDoS", "FaaS", "OAuth", "IPv6" stay whole, while
// "PutMetricData" and "CloudWatch" split. A split stands when its first part
// has three letters or more and every part at least two.
func mergeShortCamel(rs []raw) []raw {
	out := rs[:0]
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].camel {
			j++
		}
		if j-i > 1 {
			ok := rs[i].end-rs[i].start >= 3
			for k := i; k < j && ok; k++ {
				ok = rs[k].end-rs[k].start >= 2 // camel parts are ASCII-cased letters
			}
			if !ok {
				m := rs[i]
				m.end = rs[j-1].end
				out = append(out, m)
				i = j
				continue
			}
		}
		out = append(out, rs[i:j]...)
		i = j
	}
	return out
}

func scriptOf(c class) Script {
	switch c {
	case cDigit:
		return Digit
	case cHangul:
		return Hangul
	case cCJK:
		return CJK
	}
	return Latin
}

// camelBoundary reports whether a new part starts at r (at byte i):
// "putMetric" → put|Metric, "HTTPServer" → HTTP|Server.
func camelBoundary(text string, i int, prev, r rune, prevClass class) bool {
	if prevClass != cLetter || !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) {
		return true
	}
	if unicode.IsUpper(prev) {
		next, size := utf8.DecodeRuneInString(text[i+len(string(r)):])
		return size > 0 && unicode.IsLower(next) && !isPluralS(text, i+len(string(r)), next)
	}
	return false
}

// isPluralS: "APIs", "VMs" — an upper-case run followed by a lone lower-case s
// ends the word rather than starting one.
func isPluralS(text string, at int, next rune) bool {
	if next != 's' {
		return false
	}
	after, size := utf8.DecodeRuneInString(text[at+1:])
	return size == 0 || classify(after) != cLetter
}

// Options configure an Analyzer.
type Options struct {
	// DropVendors leaves out vendor, organization and product names: the
	// built-in list (see IsVendor) and Extra.
	DropVendors bool
	// Extra names more vendors, such as the organizations of a corpus. A name
	// of several words ("Amazon Web Services") is dropped only where the
	// whole name occurs.
	Extra []string
}

// Analyzer turns text into tokens. It is safe for concurrent use.
type Analyzer struct {
	opts    Options
	single  map[string]bool // extra one-word names, by Whole and Norm
	phrases [][]string      // extra names of several words
	matcher *Matcher        // the phrases, indexed by their first token
}

// New returns an Analyzer.
func New(opts Options) *Analyzer {
	a := &Analyzer{opts: opts, single: map[string]bool{}}
	for _, name := range opts.Extra {
		toks := tokens(name)
		var p []string
		for _, t := range toks {
			p = append(p, t.Norm)
		}
		switch {
		case len(p) == 0:
		case len(p) == 1 || len(toks) > 0 && toks[0].Word == toks[len(toks)-1].Word:
			// one written word, perhaps joined ("Stack-Exchange", "PostHog")
			a.single[toks[0].Whole] = true
			if len(p) == 1 {
				a.single[p[0]] = true
			} else {
				a.phrases = append(a.phrases, p)
			}
		default:
			a.phrases = append(a.phrases, p)
		}
	}
	a.matcher = NewMatcher(a.phrases)
	return a
}

// IsVendor reports whether word (a token's Norm or Whole, or any spelling
// that lower-cases to one) names a vendor, organization or product, by the
// built-in list or the Analyzer's extra one-word names.
func (a *Analyzer) IsVendor(word string) bool {
	w := strings.ToLower(word)
	return IsVendor(w) || a.single[w]
}

// Tokens analyzes text. With DropVendors, vendor tokens (every part of a
// joined word whose Whole is a vendor, and every occurrence of an extra
// name of several words) are left out.
func (a *Analyzer) Tokens(text string) []Token {
	toks := tokens(text)
	if !a.opts.DropVendors {
		return toks
	}
	return a.keep(toks, a.VendorWords(toks), toks[:0]) // the marks are its own to change
}

// All analyzes text and keeps every token, vendors too: Tokens of an
// Analyzer without DropVendors. With VendorWords and Kept, one analysis of
// a text serves both it and the Analyzer's Tokens of it, and of any part of
// it that ends where a line does (the tokens up to that line's end).
func All(text string) []Token { return tokens(text) }

// VendorWords marks each of toks whose Whole or Norm names a vendor (what
// IsVendor says): the part of Tokens' vendor dropping that looks at one
// token at a time.
func (a *Analyzer) VendorWords(toks []Token) []bool {
	vendor := make([]bool, len(toks))
	for i, t := range toks {
		vendor[i] = a.IsVendor(t.Whole) || a.IsVendor(t.Norm)
	}
	return vendor
}

// Kept is Tokens(text) given toks = All(text) and vendor =
// VendorWords(toks): without DropVendors toks itself, with it a new slice
// without the vendor tokens. It changes neither toks nor vendor.
func (a *Analyzer) Kept(toks []Token, vendor []bool) []Token {
	if !a.opts.DropVendors {
		return toks
	}
	return a.keep(toks, slices.Clone(vendor), make([]Token, 0, len(toks)))
}

// keep appends to out the tokens of toks neither marked in drop nor part
// of an extra name of several words; it marks those in drop.
func (a *Analyzer) keep(toks []Token, drop []bool, out []Token) []Token {
	// One scan for every extra name of several words (a corpus may name
	// thousands of organizations).
	for _, m := range a.matcher.FindAll(toks) {
		for i := m.First; i <= m.Last; i++ {
			drop[i] = true
		}
	}
	for i, t := range toks {
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out
}

// Words returns the Norm of each of toks that is not a stop word: Terms,
// given the tokens.
func Words(toks []Token) []string {
	var out []string
	for _, t := range toks {
		if !t.Stop {
			out = append(out, t.Norm)
		}
	}
	return out
}

// Terms returns the normalized forms of the tokens that are not stop words:
// what an index stores.
func (a *Analyzer) Terms(text string) []string { return Words(a.Tokens(text)) }

// tokens is the analysis without vendor dropping.
func tokens(text string) []Token {
	rs := split(text)
	out := make([]Token, 0, len(rs))
	lower := make([]string, len(rs)) // each part's share of its word's Whole
	for i, r := range rs {
		surface := text[r.start:r.end]
		p := cachedPart(r.script, surface)
		out = append(out, Token{Norm: p.norm, Surface: surface, Start: r.start, End: r.end, Script: r.script, Stop: p.stop, Word: r.word})
		lower[i] = p.lower
	}
	// Whole: the lower-cased parts of each written word, joined.
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].Word == out[i].Word {
			j++
		}
		w := lower[i]
		if j > i+1 {
			w = strings.Join(lower[i:j], "")
		}
		w = strings.TrimSuffix(w, "'s")
		for k := i; k < j; k++ {
			out[k].Whole = w
		}
		i = j
	}
	return out
}

// part is what a token's fields owe to its own written form alone.
type part struct {
	norm  string // Token.Norm
	lower string // lower-cased, ’ as ': its share of Token.Whole
	stop  bool   // Token.Stop
}

// analysePart analyses one word part of the script given, as written.
func analysePart(script Script, surface string) part {
	p := part{lower: strings.ToLower(strings.ReplaceAll(surface, "’", "'"))}
	switch script {
	case Latin:
		low := foldWidth(strings.ToLower(surface))
		low = strings.ReplaceAll(low, "’", "'")
		// "US", "IT": a word in capitals is a name, not a stop word
		if stopEN[low] && (len(surface) < 2 || strings.ToUpper(surface) != surface) {
			p.stop = true
		}
		low = strings.TrimSuffix(low, "'s")
		low = strings.ReplaceAll(low, "'", "")
		if isAcronym(surface) {
			p.norm = low // "UPS" is not "ups" → "up"
		} else {
			p.norm = stemEN(low)
		}
	case Hangul:
		p.norm = StemKorean(surface)
		p.stop = stopKO[surface] || stopKO[p.norm]
	default:
		p.norm = foldWidth(strings.ToLower(surface))
	}
	return p
}

// stemEN stems a lower-case English word. Words with digits ("s3", "ipv6")
// and very long words are left as they are.
func stemEN(w string) string {
	if len(w) > 64 {
		return w
	}
	for _, r := range w {
		if r >= '0' && r <= '9' {
			return w
		}
	}
	if s, ok := stemExceptions[w]; ok {
		return s
	}
	if IsVendor(w) {
		return w // names are not English words: "aws" must not become "aw"
	}
	return english.Stem(w, true)
}

// stemExceptions fix stems that would otherwise join unrelated words or
// split related ones in incident text.
var stemExceptions = map[string]string{
	"news":       "news",
	"data":       "data",
	"dns":        "dns",
	"os":         "os",
	"bus":        "bus",
	"status":     "status",
	"kubernetes": "kubernetes",
	"redis":      "redis",
}

// stopEN is a short English stop list (see the package comment).
var stopEN = setOf(
	"a", "an", "the", "and", "or", "but", "nor", "of", "to", "in", "on", "at", "by", "for", "from", "with",
	"into", "onto", "as", "is", "are", "was", "were", "be", "been", "being", "am", "it", "its", "it's",
	"this", "that", "these", "those", "there", "here", "then", "than", "so", "such", "which", "who", "whom",
	"whose", "what", "when", "where", "while", "why", "how", "i", "me", "my", "we", "us", "our", "ours",
	"you", "your", "yours", "he", "him", "his", "she", "her", "hers", "they", "them", "their", "theirs",
	"do", "does", "did", "doing", "have", "has", "had", "having", "would", "should", "could", "can",
	"will", "shall", "may", "might", "must", "if", "because", "about", "also", "again", "each", "both",
	"own", "same", "just", "very", "s", "t", "itself", "themselves", "ourselves", "via", "per", "upon",
	"whether", "yet", "any", "some",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// foldWidth turns full-width ASCII forms ("ｔｅｓｔ", "５") into ASCII.
func foldWidth(s string) string {
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			return strings.Map(func(r rune) rune {
				if r >= 0xFF01 && r <= 0xFF5E {
					return r - 0xFEE0
				}
				return r
			}, s)
		}
	}
	return s
}

// isAcronym: a word of two to five capitals ("UPS", "OOM", "DNS") is an
// acronym, matched as written rather than stemmed.
func isAcronym(s string) bool {
	if len(s) < 2 || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
