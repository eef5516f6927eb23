package ilgraph_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

func TestWordStem(t *testing.T) {
	same := [][]string{
		{"certificate", "certificates", "Certificate"},
		{"expire", "expires", "expired", "expiring", "expiry", "expiries", "expiration", "expirations"},
		{"database", "databases"},
		{"change", "changes", "changed", "changing"},
		{"log", "logs", "logged", "logging"},
		{"copy", "copies", "copied", "copying"},
		{"use", "uses", "used", "using"},
		{"process", "processes", "processed", "processing"},
		{"cache", "caches", "cached", "caching"},
	}
	for _, row := range same {
		for _, w := range row[1:] {
			if a, b := ilgraph.WordStem(row[0]), ilgraph.WordStem(w); a != b {
				t.Errorf("%q and %q are forms of one word: stems %q and %q", row[0], w, a, b)
			}
		}
	}
	apart := [][2]string{
		{"failure", "fail"}, {"configuration", "configure"}, {"us", "use"}, {"evening", "even"},
		{"news", "new"}, {"balancer", "balance"}, {"router", "route"}, {"replica", "replicate"},
		{"plane", "plan"}, {"data", "date"},
	}
	for _, p := range apart {
		if ilgraph.WordStem(p[0]) == ilgraph.WordStem(p[1]) {
			t.Errorf("%q and %q are different words, not forms of one: both stem to %q", p[0], p[1], ilgraph.WordStem(p[0]))
		}
	}
	// Words that are not plain English letters, and stop words, are kept.
	for _, w := range []string{"node.js", "데이터베이스", "31시간", "ipv6", "the", "its", "dns"} {
		if got := ilgraph.WordStem(w); got != w {
			t.Errorf("WordStem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestSearchFormsKeepsEverythingButEnglishWords(t *testing.T) {
	for in, want := range map[string]string{
		"Certificates had EXPIRED on node.js, us-east-1": "certificat had expir on node.js, us-east-1",
		"데이터베이스가 멈췄고 databases failed":                   "데이터베이스가 멈췄고 databas fail",
		"API가 31시간 동안 logging":                           "API가 31시간 동안 log",
	} {
		if got := ilgraph.SearchForms(in); got != want {
			t.Errorf("SearchForms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWordFormCandidatesReachTheCorpus checks, over every English word of
// the seed corpus's titles and summaries, that WordFormCandidates of each
// word lists every other corpus word with the same stem: the forms the
// API reports as matched are looked up from these candidates.
func TestWordFormCandidatesReachTheCorpus(t *testing.T) {
	byStem := map[string][]string{}
	seen := map[string]bool{}
	for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
		for _, text := range []string{c.Title.En, c.Title.Ko, c.Summary.En, c.Summary.Ko} {
			for _, tok := range ilgraph.SearchTokens(text) {
				if ilgraph.IsEnglishWord(tok.Text) && !seen[tok.Text] {
					seen[tok.Text] = true
					st := ilgraph.WordStem(tok.Text)
					byStem[st] = append(byStem[st], tok.Text)
				}
			}
		}
	}
	groups := 0
	for st, words := range byStem {
		if len(words) > 1 {
			groups++
		}
		for _, w := range words {
			cands := ilgraph.WordFormCandidates(w)
			for _, other := range words {
				if !slices.Contains(cands, other) {
					t.Errorf("stem %q: the candidates of %q %v miss %q", st, w, cands, other)
				}
			}
		}
	}
	if groups < 50 {
		t.Errorf("only %d groups of forms in the corpus: the test checks little", groups)
	}
	t.Logf("%d English words, %d stems with more than one form", len(seen), groups)
}
