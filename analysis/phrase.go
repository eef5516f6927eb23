package analysis

import "slices"

// fillers are the English words a phrase may gain or lose without changing
// its meaning ("out of memory", "out-of-memory", "out of the memory"). They
// are fewer than the stop words on purpose: "일부 사용자" must not shrink to
// "사용자", nor "sign in" to "sign", nor "some users" to "users".
var fillers = setOf("a", "an", "the", "of", "to", "for", "by", "with", "from", "and", "or",
	"is", "are", "was", "were", "be", "been", "it", "its")

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

// Matcher finds many phrases in one text at once: the phrases are kept in a
// trie of their tokens, so a text is scanned once and each position costs
// as many steps as the longest phrase that starts there, however many
// phrases share a prefix (a corpus of 40,000 organizations named
// "Generated Org 0001"… shares two tokens in every name). Build it once; it
// is safe for concurrent use.
type Matcher struct {
	phrases [][]string
	root    trieNode
}

// trieNode is the phrases that start with one token sequence.
type trieNode struct {
	next map[string]*trieNode
	ends []int // the phrases that end here, ascending
}

// NewMatcher returns a Matcher for phrases (as Phrase returns them). The
// index of a phrase in the slice is its id in the results.
func NewMatcher(phrases [][]string) *Matcher {
	m := &Matcher{phrases: phrases}
	for id, p := range phrases {
		n := &m.root
		for _, t := range p {
			if n.next == nil {
				n.next = map[string]*trieNode{}
			}
			c := n.next[t]
			if c == nil {
				c = &trieNode{}
				n.next[t] = c
			}
			n = c
		}
		if n != &m.root {
			n.ends = append(n.ends, id)
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
// phrase's own occurrences do not overlap, different phrases may. It finds
// what Find finds for each phrase: from each position, the trie is walked
// as matchAt walks one phrase — a phrase takes the next token when it is
// the phrase's next token, skips it when it is a filler, and fails
// otherwise — for all the phrases at once.
func (m *Matcher) FindAll(toks []Token) []PhraseMatch {
	var out []PhraseMatch
	var lastEnd map[int]int
	var found []PhraseMatch
	var cur, nxt []walk
	for i, t := range toks {
		first := m.root.next[t.Norm]
		if first == nil {
			continue
		}
		found = found[:0]
		for _, id := range first.ends {
			found = append(found, PhraseMatch{Phrase: id, Match: Match{First: i, Last: i}})
		}
		cur = append(cur[:0], walk{n: first})
		for k := i + 1; k < len(toks) && len(cur) > 0; k++ {
			tk := toks[k].Norm
			filler := fillers[tk]
			nxt = nxt[:0]
			for _, w := range cur {
				c := w.n.next[tk]
				if c != nil && !w.skipped(tk) {
					// The phrases through c take the token.
					for _, id := range c.ends {
						found = append(found, PhraseMatch{Phrase: id, Match: Match{First: i, Last: k}})
					}
					if c.next != nil {
						nxt = append(nxt, walk{n: c})
					}
				}
				if filler && len(w.n.next) > 0 {
					// The others skip it; those through c may not.
					if c != nil && !w.skipped(tk) {
						w.skip = append(w.skip[:len(w.skip):len(w.skip)], tk)
					}
					nxt = append(nxt, w)
				}
			}
			cur, nxt = nxt, cur
		}
		if len(found) > 1 {
			slices.SortStableFunc(found, func(a, b PhraseMatch) int { return a.Phrase - b.Phrase })
		}
		for _, f := range found {
			if e, ok := lastEnd[f.Phrase]; ok && i <= e {
				continue
			}
			f.Start, f.End = t.Start, toks[f.Last].End
			out = append(out, f)
			if lastEnd == nil {
				lastEnd = map[int]int{}
			}
			lastEnd[f.Phrase] = f.Last
		}
	}
	return out
}

// walk is a place in the trie while matching from one position: the node
// reached, less the children whose token was skipped since (a phrase must
// take its next token when it comes, so it cannot be skipped and taken
// later).
type walk struct {
	n    *trieNode
	skip []string
}

func (w walk) skipped(tok string) bool { return slices.Contains(w.skip, tok) }
