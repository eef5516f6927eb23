package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/loader"
)

// Corpus is a set of cases both as the files a loader reads and as the
// cases those files hold, so that a store loaded from the files and the
// reference store over the cases hold the same thing.
type Corpus struct {
	Name string
	// Paths are what loader.Load takes: the vocabulary, then the case
	// files.
	Paths []string
	Cases []*ilgraph.Case // as the loader parses them, by id
	Vocab *ilgraph.Vocabulary
}

// Corpora returns the corpora the suite runs over: the seed corpus; the
// seeds with 600 generated cases varied so that every filter field has
// cases on both of its sides (machine-tagged, reviewed, bilingual, every
// severity and none, unmeasured resolution times, no mechanisms); and 400
// varied generated cases alone, from another seed. Every case is valid
// (loader.CheckCase), so a load of the files writes them all.
func Corpora(tb testing.TB) []Corpus {
	tb.Helper()
	seeds := corpus.Seeds(tb)
	vocabPath := filepath.Join(seeds, "vocab.json")
	dir := tb.TempDir()
	mk := func(name string, n int, seed uint64, withSeeds bool) Corpus {
		paths := []string{vocabPath}
		if withSeeds {
			paths = append(paths, filepath.Join(seeds, "cases"))
		}
		if n > 0 {
			p := filepath.Join(dir, fmt.Sprintf("gen-%d-%d.jsonl", n, seed))
			writeVaried(tb, p, seeds, n, seed)
			paths = append(paths, p)
		}
		return read(tb, name, paths)
	}
	return []Corpus{
		mk("seeds", 0, 0, true),
		mk("seeds+600 varied", 600, 1, true),
		mk("400 varied", 400, 7, false),
	}
}

// writeVaried writes n generated cases (gen, with seed) into path, each
// changed at random (from the same seed) in the fields the generator keeps
// constant.
func writeVaried(tb testing.TB, path, seeds string, n int, seed uint64) {
	tb.Helper()
	if err := gen.WriteFile(path, seeds, n, seed); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var c ilgraph.Case
		if err := json.Unmarshal(line, &c); err != nil {
			tb.Fatal(err)
		}
		switch r.IntN(6) {
		case 0: // tagged by an importer, not reviewed: machine-tagged
			c.Review = ilgraph.Review{WrittenBy: ilgraph.ImportWriter}
		case 1: // imported and since reviewed
			c.Review = ilgraph.Review{WrittenBy: ilgraph.ImportWriter, ReviewedAt: "2025-01-02", ReviewedBy: "a reviewer"}
		case 2:
			c.Review.ReviewedAt, c.Review.ReviewedBy = "2024-06-30", "a reviewer"
		}
		switch r.IntN(5) {
		case 0:
			c.Severity = ""
		case 1:
			c.Severity = ilgraph.Severities[r.IntN(len(ilgraph.Severities))]
		}
		if r.IntN(6) == 0 {
			c.Timeline.ResolvedAfter = ""
		}
		if r.IntN(8) == 0 {
			c.Mechanisms = nil
		}
		if r.IntN(4) == 0 { // every English text in Korean too: bilingual
			ko := func(t *ilgraph.Text) {
				if t.En != "" {
					t.Ko = "합성 사고 " + c.ID
				}
			}
			for _, t := range []*ilgraph.Text{&c.Title, &c.Summary, &c.Trigger, &c.Detection, &c.SymptomsText, &c.Lessons} {
				ko(t)
			}
			for i := range c.Remediation {
				ko(&c.Remediation[i].Text)
			}
			for i := range c.ActionItems {
				ko(&c.ActionItems[i].Text)
			}
		}
		b, err := json.Marshal(&c)
		if err != nil {
			tb.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// read parses the corpus's files with the loader's parser and checks every
// case against the vocabulary.
func read(tb testing.TB, name string, paths []string) Corpus {
	tb.Helper()
	v, probs := loader.ParseVocabulary(paths[0])
	if probs != nil {
		tb.Fatal(probs)
	}
	known := map[ilgraph.Kind]map[string]bool{}
	for k, terms := range v.Kinds {
		known[k] = map[string]bool{}
		for _, t := range terms {
			known[k][t.ID] = true
		}
	}
	co := Corpus{Name: name, Paths: paths, Vocab: v}
	add := func(p loader.Parsed) error {
		if ps := loader.CheckCase(p.Case, known, time.Now(), p.Pos); len(ps) > 0 {
			return ps
		}
		co.Cases = append(co.Cases, p.Case)
		return nil
	}
	for _, p := range paths[1:] {
		files := []string{p}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				tb.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".json") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			if ps := loader.ParseFile(f, add); ps != nil {
				tb.Fatalf("corpus %s: %v", name, ps)
			}
		}
	}
	sort.Slice(co.Cases, func(i, j int) bool { return co.Cases[i].ID < co.Cases[j].ID })
	return co
}
