package gen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
)

// EnsureLoaded makes the graph hold exactly the seed vocabulary and n
// generated cases (seed 1), loading them only when it does not already:
// benchmarks reuse a corpus across runs. seeds is the seeds/ folder.
func EnsureLoaded(ctx context.Context, db *graph.DB, seeds string, n int, similarK int) (loaded bool, err error) {
	st, err := db.Stats(ctx, ilgraph.CaseFilter{})
	if err != nil {
		return false, err
	}
	has, err := db.ExistingCaseIDs(ctx, []string{ID(1), ID(n)})
	if err != nil {
		return false, err
	}
	more, err := db.ExistingCaseIDs(ctx, []string{ID(n + 1)})
	if err != nil {
		return false, err
	}
	if st.Cases == n && len(has) == 2 && len(more) == 0 {
		return false, nil
	}
	if err := db.Reset(ctx); err != nil {
		return false, err
	}
	dir, err := os.MkdirTemp("", "ilgraph-gen-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, fmt.Sprintf("gen-%d.jsonl", n))
	if err := WriteFile(path, seeds, n, 1); err != nil {
		return false, err
	}
	rep, err := loader.Load(ctx, db, []string{filepath.Join(seeds, "vocab.json"), path}, loader.Options{BatchSize: 1000})
	if err != nil {
		return true, err
	}
	_, err = similarity.WriteBack(ctx, db, similarK, rep.CasesChanged(), 4000)
	return true, err
}

// WriteFile generates n cases with a seed into path, following the seed
// corpus in the seeds folder.
func WriteFile(path, seeds string, n int, seed uint64) error {
	vocab, probs := loader.ParseVocabulary(filepath.Join(seeds, "vocab.json"))
	if probs != nil {
		return probs
	}
	var prior []*ilgraph.Case
	entries, err := os.ReadDir(filepath.Join(seeds, "cases"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if ps := loader.ParseFile(filepath.Join(seeds, "cases", e.Name()), func(p loader.Parsed) error {
			prior = append(prior, p.Case)
			return nil
		}); ps != nil {
			return ps
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, Options{Cases: n, Seed: seed, Vocab: vocab, Prior: prior}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteChanges writes into path a load that changes a generated corpus of n
// cases: new contents (from another seed) for the cases GEN-1…changed and
// added new cases after GEN-n, without related or recurrence links (their
// targets may not exist). The benchmark and the incremental write-back
// test load it over a corpus made with WriteFile.
func WriteChanges(path, seeds string, n, changed, added int, seed uint64) error {
	all := path + ".all"
	if err := WriteFile(all, seeds, n+added, seed); err != nil {
		return err
	}
	defer os.Remove(all)
	data, err := os.ReadFile(all)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if i >= changed && i < n {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		delete(c, "related")
		delete(c, "recurrence_of")
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}
