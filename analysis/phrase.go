package analysis

// fillers are the English words a phrase may gain or lose without changing
// its meaning ("out of memory", "out-of-memory", "out of the memory"). They
// are fewer than the stop words on purpose: "일부 사용자" must not shrink to
// "사용자", nor "sign in" to "sign", nor "some users" to "users".
var fillers = setOf("a", "an", "the", "of", "to", "for", "by", "with", "from", "and", "or",
	"is", "are", "was", "were", "be", "been", "it", "its")

// IsFiller reports whether a normalized token is a filler word that phrase
// matching skips.
func IsFiller(norm string) bool { return fillers[norm] }

// Phrase returns the normalized token sequence of a label or alias, the form
// Find looks for: its tokens without filler words (all of them if the label
// is only fillers). "Out of memory" → [out memori]; "메모리 부족" → [메모리 부족].
func Phrase(label string) []string {
	toks := tokens(label)
	var p, all []string
	for _, t := range toks {
		all = append(all, t.Norm)
		if !fillers[t.Norm] {
			p = append(p, t.Norm)
		}
	}
	if len(p) == 0 {
		return all
	}
	return p
}

// Match is one occurrence of a phrase in a token list.
type Match struct {
	First, Last int // indexes of the first and last token matched
	Start, End  int // byte offsets in the text: tokens[First].Start, tokens[Last].End
}

// Find returns every occurrence of phrase in toks, left to right, not
// overlapping. Tokens of the phrase must appear in order; filler words in
// the text between them are skipped ("out of memory" matches [out memori]).
func Find(toks []Token, phrase []string) []Match {
	if len(phrase) == 0 {
		return nil
	}
	var out []Match
	for i := 0; i < len(toks); i++ {
		if toks[i].Norm != phrase[0] {
			continue
		}
		if last, ok := matchAt(toks, i, phrase); ok {
			out = append(out, Match{First: i, Last: last, Start: toks[i].Start, End: toks[last].End})
			i = last
		}
	}
	return out
}

func matchAt(toks []Token, i int, phrase []string) (int, bool) {
	k := i + 1
	for j := 1; j < len(phrase); j++ {
		for {
			if k >= len(toks) {
				return 0, false
			}
			if toks[k].Norm == phrase[j] {
				break
			}
			if !fillers[toks[k].Norm] {
				return 0, false
			}
			k++
		}
		k++
	}
	return k - 1, true
}

// Matcher finds many phrases in one text at once: it indexes the phrases by
// their first token, so a text is scanned once however many phrases there
// are. Build it once; it is safe for concurrent use.
type Matcher struct {
	phrases [][]string
	byFirst map[string][]int
}

// NewMatcher returns a Matcher for phrases (as Phrase returns them). The
// index of a phrase in the slice is its id in the results.
func NewMatcher(phrases [][]string) *Matcher {
	m := &Matcher{phrases: phrases, byFirst: map[string][]int{}}
	for i, p := range phrases {
		if len(p) > 0 {
			m.byFirst[p[0]] = append(m.byFirst[p[0]], i)
		}
	}
	return m
}

// PhraseMatch is an occurrence of phrase number Phrase.
type PhraseMatch struct {
	Phrase int
	Match
}

// FindAll returns every occurrence of every phrase in toks, by position; a
// phrase's own occurrences do not overlap, different phrases may.
func (m *Matcher) FindAll(toks []Token) []PhraseMatch {
	var out []PhraseMatch
	lastEnd := map[int]int{}
	for i, t := range toks {
		for _, id := range m.byFirst[t.Norm] {
			if e, ok := lastEnd[id]; ok && i <= e {
				continue
			}
			if last, ok := matchAt(toks, i, m.phrases[id]); ok {
				out = append(out, PhraseMatch{Phrase: id, Match: Match{First: i, Last: last, Start: t.Start, End: toks[last].End}})
				lastEnd[id] = last
			}
		}
	}
	return out
}
