package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/loader"
)

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("load", `Usage: ilgraph load [--skip-invalid] [--batch N] PATH...

Validates every case in PATH (files or folders; folders are searched for
*.json, *.jsonl and *.ndjson, and a vocab.json in them is the vocabulary),
then writes them to Neo4j in batched transactions. Any invalid case means
nothing is written and the exit status is 3, unless --skip-invalid is given.
Re-loading unchanged cases changes nothing; a changed case replaces its old
version, tags included.`, stderr)
	skip := fs.Bool("skip-invalid", false, "load the valid cases and report the invalid ones")
	batch := fs.Int("batch", 500, "cases per write transaction")
	quiet := fs.Bool("quiet", false, "no progress bar")
	similarK := fs.Int("similar-k", 5, "store each case's k most similar cases as SIMILAR_TO relationships (0: none)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "ilgraph load: name at least one file or folder (e.g. ilgraph load seeds/)")
		return errUsage
	}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	opt := loader.Options{SkipInvalid: *skip, BatchSize: *batch, SimilarK: *similarK}
	if !*quiet {
		opt.Progress = os.Stderr
	}
	rep, err := loader.Load(ctx, db, fs.Args(), opt)
	if err != nil {
		return err
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(stderr, "skipped: %s\n", p.Error())
	}
	fmt.Fprintln(stdout, rep.Summary())
	return nil
}

func isProblems(err error) bool {
	var ps loader.Problems
	return errors.As(err, &ps)
}
