package analysis

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// findAllOneByOne is FindAll as it was written before the trie: every
// phrase that starts with a token matched on its own with matchAt. It is
// the definition the trie must keep.
func findAllOneByOne(phrases [][]string, toks []Token) []PhraseMatch {
	var out []PhraseMatch
	lastEnd := map[int]int{}
	for i, t := range toks {
		for id, p := range phrases {
			if len(p) == 0 || p[0] != t.Norm {
				continue
			}
			if e, ok := lastEnd[id]; ok && i <= e {
				continue
			}
			if last, ok := matchAt(toks, i, p); ok {
				out = append(out, PhraseMatch{Phrase: id, Match: Match{First: i, Last: last, Start: t.Start, End: toks[last].End}})
				lastEnd[id] = last
			}
		}
	}
	return out
}

// TestFindAllIsEachPhraseMatched compares the trie with matching each
// phrase on its own, over random phrases and texts drawn from a few words
// and fillers (fillers inside phrases, phrases that are prefixes of others,
// repeated tokens: where a walk over shared prefixes could go wrong).
func TestFindAllIsEachPhraseMatched(t *testing.T) {
	words := []string{"a", "b", "c", "d", "the", "of", "to"}
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 3000; trial++ {
		var phrases [][]string
		for n := rng.Intn(12); len(phrases) < n; {
			p := make([]string, 1+rng.Intn(4))
			for j := range p {
				p[j] = words[rng.Intn(len(words))]
			}
			phrases = append(phrases, p)
		}
		toks := make([]Token, rng.Intn(40))
		for i := range toks {
			toks[i] = Token{Norm: words[rng.Intn(len(words))], Start: 2 * i, End: 2*i + 1}
		}
		got := NewMatcher(phrases).FindAll(toks)
		want := findAllOneByOne(phrases, toks)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			var text []string
			for _, tk := range toks {
				text = append(text, tk.Norm)
			}
			t.Fatalf("phrases %v, text %q:\ngot  %v\nwant %v", phrases, strings.Join(text, " "), got, want)
		}
	}
}

// BenchmarkFindAllManyNames is the analysis of a generated case's text with
// the names of 40,000 organizations set aside, all sharing their first two
// tokens, as at a million generated cases.
func BenchmarkFindAllManyNames(b *testing.B) {
	var names []string
	for i := 0; i < 40000; i++ {
		names = append(names, fmt.Sprintf("Generated Org %04d", i))
	}
	a := New(Options{DropVendors: true, Extra: names})
	text := strings.Repeat("Generated incident 1315: automation affecting application-database at Generated Org 0662. The generated org saw errors. ", 4)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Tokens(text)
	}
}
