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
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot write %s", *out)
		}
		defer f.Close()
		w = f
	}
	start := time.Now()
	if err := gen.Write(w, gen.Options{Cases: *n, Seed: *seed, Vocab: vocab, Prior: cases}); err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(stderr, "wrote %d cases to %s in %.1fs\n", *n, *out, time.Since(start).Seconds())
	}
	return nil
}
