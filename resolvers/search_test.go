package resolvers_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
)

// The full-text oracle: what filter.text must select, computed from the seed
// JSON by plain string search, without the index.
//
// The index covers title.en, title.ko, summary.en and summary.ko (titles only
// with textFields: TITLES). A phrase — a word, or with textMode: PHRASE the
// whole text — occurs in a field when its words occur there one after
// another with nothing but spaces or punctuation between them, and:
//
//   - a Korean word may sit inside a longer written word (its end may carry a
//     particle, its start may be part of a compound): the CJK analyzer indexes
//     overlapping two-character pieces, and a phrase of pieces matches any
//     substring. 데이터베이스 occurs in 분산데이터베이스가. The exception: a
//     Korean word written against digits or Latin letters (31시간, API가) is
//     one mixed word to the tokenizer, not cut into pieces, so 시간 does not
//     occur in 31시간 (a limitation of the index, documented in the API).
//   - an English word must be a whole word, in any case. Words join the way
//     Unicode word boundaries (UAX #29, Lucene's tokenizer) join them: "_"
//     always, and an apostrophe, period or colon between letters
//     ("amazon's", "node.js" are one word each). No stemming: the index does
//     not stem, so "failure" does not occur in "failures".
//
// The oracle decides every test word below; none is a stop word (the index
// ignores those) or a one-syllable Korean word (which the CJK analyzer only
// indexes where it stands alone).

type textField struct {
	name  string
	title bool
	get   func(c *ilgraph.Case) string
}

var textFields = []textField{
	{"title.en", true, func(c *ilgraph.Case) string { return c.Title.En }},
	{"title.ko", true, func(c *ilgraph.Case) string { return c.Title.Ko }},
	{"summary.en", false, func(c *ilgraph.Case) string { return c.Summary.En }},
	{"summary.ko", false, func(c *ilgraph.Case) string { return c.Summary.Ko }},
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }
func isAlnum(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// joinsWords reports whether the runes a, b, c in a row make one word
// (b joins a and c, as in amazon's, node.js).
func joinsWords(a, b, c rune) bool {
	return strings.ContainsRune(".'’:", b) && unicode.IsLetter(a) && unicode.IsLetter(c) && !isHangul(a) && !isHangul(c)
}

// wordStartsAt reports whether an English word may start at byte i of s.
func wordStartsAt(s string, i int) bool {
	if i == 0 {
		return true
	}
	b, n := utf8.DecodeLastRuneInString(s[:i])
	if isAlnum(b) || b == '_' {
		return false
	}
	a, _ := utf8.DecodeLastRuneInString(s[:i-n])
	c, _ := utf8.DecodeRuneInString(s[i:])
	return i-n == 0 || !joinsWords(a, b, c)
}

// wordEndsAt reports whether an English word may end at byte j of s.
func wordEndsAt(s string, j int) bool {
	if j == len(s) {
		return true
	}
	b, n := utf8.DecodeRuneInString(s[j:])
	if isAlnum(b) || b == '_' {
		return false
	}
	a, _ := utf8.DecodeLastRuneInString(s[:j])
	c, _ := utf8.DecodeRuneInString(s[j+n:])
	return j+n == len(s) || !joinsWords(a, b, c)
}

// pureHangulRun reports whether the letters and digits written against byte
// i of s, going left (dir -1) or right (+1), are all Hangul: a Korean word
// glued to digits or Latin letters (31시간, API가) is one mixed word to the
// tokenizer, which the CJK analyzer does not cut into pieces.
func pureHangulRun(s string, i, dir int) bool {
	for {
		var r rune
		var n int
		if dir < 0 {
			r, n = utf8.DecodeLastRuneInString(s[:i])
			i -= n
		} else {
			r, n = utf8.DecodeRuneInString(s[i:])
			i += n
		}
		if n == 0 || !isAlnum(r) {
			return true
		}
		if !isHangul(r) {
			return false
		}
	}
}

// phraseIn reports whether phrase occurs in text, as described above.
func phraseIn(text, phrase string) bool {
	words := strings.Fields(strings.ToLower(phrase))
	if len(words) == 0 {
		return false
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	re := regexp.MustCompile(strings.Join(quoted, `[^\p{L}\p{N}]+`))
	first, _ := utf8.DecodeRuneInString(words[0])
	last, _ := utf8.DecodeLastRuneInString(words[len(words)-1])
	s := strings.ToLower(text)
	for from := 0; from < len(s); {
		loc := re.FindStringIndex(s[from:])
		if loc == nil {
			return false
		}
		i, j := from+loc[0], from+loc[1]
		startOK := wordStartsAt(s, i)
		if isHangul(first) {
			startOK = pureHangulRun(s, i, -1)
		}
		endOK := wordEndsAt(s, j)
		if isHangul(last) {
			endOK = pureHangulRun(s, j, +1)
		}
		if startOK && endOK {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		from = i + n
	}
	return false
}

// textOracle reports whether a case matches a text filter: each phrase of
// the query (its words, or the whole text in PHRASE mode) in any searched
// field; every phrase (ALL, PHRASE) or at least one (ANY).
func textOracle(c *ilgraph.Case, text, mode, fields string) bool {
	f := ilgraph.CaseFilter{Text: text, TextMode: ilgraph.TextMode(mode)}
	found := 0
	phrases := f.TextPhrases()
	for _, p := range phrases {
		for _, tf := range textFields {
			if (fields != "TITLES" || tf.title) && phraseIn(tf.get(c), p) {
				found++
				break
			}
		}
	}
	if mode == "ANY" {
		return found > 0
	}
	return len(phrases) > 0 && found == len(phrases)
}

func TestPhraseInOracle(t *testing.T) {
	for _, tt := range []struct {
		text, phrase string
		want         bool
	}{
		{"분산데이터베이스가 멈췄다", "데이터베이스", true},
		{"데이터센터 전원", "데이터베이스", false},
		{"The Database failed", "database", true},
		{"databases failed", "database", false},
		{"the database's disk", "database", false},
		{"node.js crashed", "node", false},
		{"end. Node crashed", "node", true},
		{"front-end", "end", true},
		{"데이터베이스, 장애", "데이터베이스 장애", true},
		{"데이터베이스가 장애", "데이터베이스 장애", false},
		{"분산데이터베이스 장애가", "데이터베이스 장애", true},
		{"약 31시간 동안", "시간", false},
		{"약 31시간 동안 시간이", "시간", true},
	} {
		if got := phraseIn(tt.text, tt.phrase); got != tt.want {
			t.Errorf("phraseIn(%q, %q) = %v, want %v", tt.text, tt.phrase, got, tt.want)
		}
	}
}

// TestFullTextPrecisionRecall compares full-text search with the oracle
// over the seed corpus: every query must select exactly the cases the oracle
// selects (precision and recall 1.0), in every mode and field set.
func TestFullTextPrecisionRecall(t *testing.T) {
	a := mustAPI(t)
	tests := []struct{ text, mode, fields string }{
		// Korean single words: the pieces of a word match together.
		{"데이터베이스", "", ""},
		{"장애", "", ""},
		{"네트워크", "", ""},
		{"데이터센터", "", ""},
		{"복제", "", ""},
		// English single words, in any case.
		{"database", "", ""},
		{"Configuration", "", ""},
		{"failover", "", ""},
		{"DNS", "", ""},
		// Two words: every one (the default), or any.
		{"데이터베이스 복제", "", ""},
		{"데이터베이스 복제", "ALL", ""},
		{"데이터베이스 복제", "ANY", ""},
		{"database failover", "", ""},
		{"database failover", "ANY", ""},
		{"네트워크 traffic", "", ""},
		// Phrases.
		{"네트워크 장애", "PHRASE", ""},
		{"설정 변경", "PHRASE", ""},
		{"configuration change", "PHRASE", ""},
		{"data center", "PHRASE", ""},
		// Titles only.
		{"데이터베이스", "", "TITLES"},
		{"database", "", "TITLES"},
		{"network outage", "ANY", "TITLES"},
		{"가용 영역", "PHRASE", "TITLES"},
		{"availability zone", "PHRASE", "TITLES"},
		// Korean after digits (3시간), English joined by hyphens (us-east-1).
		{"시간", "", ""},
		{"시간 동안", "PHRASE", ""},
		{"us east", "PHRASE", ""},
		{"load balancer", "PHRASE", ""},
		// Word forms are not merged: failure and failures are different words.
		{"failure", "", ""},
		{"failures", "", ""},
	}
	var sumP, sumR float64
	for _, tt := range tests {
		name := fmt.Sprintf("%s/%s/%s", tt.text, tt.mode, tt.fields)
		t.Run(name, func(t *testing.T) {
			a.t = t
			want := ids(a.where(func(c *ilgraph.Case) bool { return textOracle(c, tt.text, tt.mode, tt.fields) }))
			filter := map[string]any{"text": tt.text}
			if tt.mode != "" {
				filter["textMode"] = tt.mode
			}
			if tt.fields != "" {
				filter["textFields"] = tt.fields
			}
			got, _ := a.listAll("cases", "filter: $filter, sort: ID_ASC,", map[string]any{"filter": filter})
			tp := 0
			for _, id := range got {
				if slices.Contains(want, id) {
					tp++
				}
			}
			precision, recall := 1.0, 1.0
			if len(got) > 0 {
				precision = float64(tp) / float64(len(got))
			}
			if len(want) > 0 {
				recall = float64(tp) / float64(len(want))
			}
			sumP, sumR = sumP+precision, sumR+recall
			t.Logf("%q: %d found, %d expected, precision %.3f, recall %.3f", tt.text, len(got), len(want), precision, recall)
			if precision != 1 || recall != 1 {
				var extra, missing []string
				for _, id := range got {
					if !slices.Contains(want, id) {
						extra = append(extra, id)
					}
				}
				for _, id := range want {
					if !slices.Contains(got, id) {
						missing = append(missing, id)
					}
				}
				t.Errorf("precision %.3f, recall %.3f; found but not expected %v; expected but not found %v", precision, recall, extra, missing)
			}
			if len(want) == 0 {
				t.Errorf("the corpus has no case for %q; the test shows nothing", tt.text)
			}
			checkSnippets(a, filter, tt.text, tt.mode, tt.fields)
		})
	}
	t.Logf("mean precision %.3f, mean recall %.3f over %d queries", sumP/float64(len(tests)), sumR/float64(len(tests)), len(tests))
}

// checkSnippets checks that every case a text filter finds comes with
// snippets that show why: each highlight is, in any case, one of the query's
// phrases, or in PHRASE mode runs from its first word to its last.
func checkSnippets(a *api, filter map[string]any, text, mode, fields string) {
	a.t.Helper()
	var got struct {
		Cases struct {
			Edges []struct {
				Node     struct{ ID string }
				Snippets []struct {
					Field, Language, Text string
					Highlights            []struct{ Start, End int }
				}
			}
		}
	}
	a.must(`query($filter: CaseFilter) { cases(filter: $filter, first: 100) { edges { node { id }
		snippets { field language text highlights { start end } } } } }`, map[string]any{"filter": filter}, &got)
	words := strings.Fields(strings.ToLower(text))
	for _, e := range got.Cases.Edges {
		if len(e.Snippets) == 0 {
			a.t.Errorf("%s: found without a snippet", e.Node.ID)
		}
		for _, sn := range e.Snippets {
			if fields == "TITLES" && sn.Field != "title" {
				a.t.Errorf("%s: a %s snippet for a titles-only search", e.Node.ID, sn.Field)
			}
			if len(sn.Highlights) == 0 {
				a.t.Errorf("%s: a snippet without highlights: %q", e.Node.ID, sn.Text)
			}
			units := utf16.Encode([]rune(sn.Text))
			for _, h := range sn.Highlights {
				if h.Start < 0 || h.End > len(units) || h.Start >= h.End {
					a.t.Errorf("%s: highlight %v outside %q", e.Node.ID, h, sn.Text)
					continue
				}
				hl := strings.ToLower(string(utf16.Decode(units[h.Start:h.End])))
				ok := false
				if mode == "PHRASE" {
					ok = strings.HasPrefix(hl, words[0]) && strings.HasSuffix(hl, words[len(words)-1])
				} else {
					ok = slices.Contains(words, hl)
				}
				if !ok {
					a.t.Errorf("%s: highlight %q for %q in %q", e.Node.ID, hl, text, sn.Text)
				}
			}
		}
	}
}
