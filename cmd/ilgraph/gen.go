package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/loader"
)

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", `Usage: ilgraph gen --cases N [--seed S] --out PATH

Writes a synthetic corpus of N cases in the incident-library format, as JSON
Lines, to PATH (a file, or - for standard output). The output is the same for
the same seed, and streamed: N may be a million. Ids are GEN-0000001…, which
cannot collide with the seed corpus. Term frequencies, and which components,
symptoms, factors and domains go with each root cause, follow the seed corpus.`, stderr)
	n := fs.Int("cases", 1000, "how many cases")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "output file, or - for standard output")
	vocabPath := fs.String("vocab", "seeds/vocab.json", "vocabulary to tag with")
	prior := fs.String("prior", "seeds/cases", "cases whose frequencies to follow")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || *n < 0 {
		fmt.Fprintln(stderr, "ilgraph gen: --out is required and --cases must not be negative")
		return errUsage
	}
	vocab, probs := loader.ParseVocabulary(*vocabPath)
	if probs != nil {
		return probs
	}
	var cases []*ilgraph.Case
	err := filepath.WalkDir(*prior, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		if ps := loader.ParseFile(p, func(x loader.Parsed) error { cases = append(cases, x.Case); return nil }); ps != nil {
			return ps
		}
		return nil
	})
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "reading the prior corpus %s", *prior)
	}
	opt := gen.Options{Cases: *n, Seed: *seed, Vocab: vocab, Prior: cases}
	if *out == "-" {
		return gen.Write(stdout, opt)
	}
	start := time.Now()
	if err := writeGenFile(*out, opt); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d cases to %s in %.1fs\n", *n, *out, time.Since(start).Seconds())
	return nil
}

// createFile opens the output of gen; tests replace it to make Close fail.
var createFile = func(path string) (io.WriteCloser, error) { return os.Create(path) }

// writeGenFile writes the corpus to path. The file's Close error is returned:
// on some file systems a failed write shows only there, and the file is then
// incomplete.
func writeGenFile(path string, opt gen.Options) error {
	f, err := createFile(path)
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot write %s", path)
	}
	if err := gen.Write(f, opt); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
