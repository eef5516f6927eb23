package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/similarity"
)

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("load", `Usage: ilgraph load [--skip-invalid] [--check] [--strict] [--batch N] PATH...

Validates every case in PATH (files or folders; folders are searched for
*.json, *.jsonl and *.ndjson, and a vocab.json in them is the vocabulary),
then writes them to Neo4j in batched transactions. Any invalid case means
nothing is written and the exit status is 3, unless --skip-invalid is given.
Re-loading unchanged cases changes nothing; a changed case replaces its old
version, tags included.

The tagging rules a program can check (docs/vocabulary.md, "Checked by the
loader") are warnings: --check prints them, a load counts them. --strict
makes them problems like any other.

After a load that changed any case, each case's --similar-k most similar
cases are stored as SIMILAR_TO relationships: only the cases the load can
have changed are recomputed, under the corpus statistics of the last full
recompute, which runs again when the corpus has drifted from them
(docs/similarity.md). --similar-full recomputes every case now.`, stderr)
	skip := fs.Bool("skip-invalid", false, "load the valid cases and report the invalid ones")
	batch := fs.Int("batch", 500, "cases per write transaction")
	quiet := fs.Bool("quiet", false, "no progress bar")
	check := fs.Bool("check", false, "validate only: report problems and tagging warnings, write nothing")
	strict := fs.Bool("strict", false, "a broken tagging rule is a problem (exit 3, nothing written), not a warning")
	similarK := fs.Int("similar-k", 5, "store each case's k most similar cases as SIMILAR_TO relationships (0: none)")
	similarFull := fs.Bool("similar-full", false, "recompute every case's similar cases under fresh corpus statistics, whatever changed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "ilgraph load: name at least one file or folder (e.g. ilgraph load seeds/)")
		return errUsage
	}
	var store loader.Store // stays nil for a check without a database
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	switch {
	case err != nil && *check && ilgraph.ErrorCode(err) == ilgraph.EUNAVAILABLE:
		// A check needs no database: without one, the vocabulary must be
		// among the files and links must point at cases among them.
		fmt.Fprintln(stderr, "ilgraph load: no database reachable: checking the files on their own (links must point at cases among them)")
	case err != nil:
		return err
	default:
		defer db.Close()
		store = db
	}
	opt := loader.Options{SkipInvalid: *skip || *check, BatchSize: *batch, CheckOnly: *check, Strict: *strict}
	if !*quiet {
		opt.Progress = os.Stderr
	}
	start := time.Now()
	rep, err := loader.Load(ctx, store, fs.Args(), opt)
	if err != nil {
		return err
	}
	if !*check {
		// The stored similar cases follow the cases: rewritten after a load
		// that changed any, or when --similar-k changed.
		wbStart := time.Now()
		var wb similarity.WriteBackResult
		if *similarFull {
			wb, err = similarity.WriteBackAll(ctx, db, *similarK, 4*max(*batch, 0))
		} else {
			wb, err = similarity.WriteBack(ctx, db, *similarK, rep.CasesChanged(), 4*max(*batch, 0))
		}
		if err != nil {
			return err
		}
		if wb.Recomputed > 0 {
			how := "incremental"
			if !wb.Incremental {
				how = "every case: " + wb.Why
			}
			fmt.Fprintf(stderr, "similar cases: %d cases recomputed (%s), %d links, %.1fs\n", wb.Recomputed, how, wb.Links, time.Since(wbStart).Seconds())
			for _, p := range wb.Phases {
				fmt.Fprintf(stderr, "  %-45s %6.2fs\n", p.Name, p.Seconds)
			}
		}
		rep.Counters.Add(wb.Counters)
		rep.Elapsed = time.Since(start)
	}
	label := "skipped"
	if *check {
		label = "invalid"
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(stderr, "%s: %s\n", label, p.Error())
	}
	if *check {
		for _, w := range rep.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w.Error())
		}
	} else if len(rep.Warnings) > 0 {
		fmt.Fprintf(stderr, "%d tagging warning(s); list them with: ilgraph load --check PATH...\n", len(rep.Warnings))
	}
	fmt.Fprintln(stdout, rep.Summary())
	if *check && len(rep.Skipped) > 0 {
		return ilgraph.Errorf(ilgraph.EINVALID, "%d problem(s) found", len(rep.Skipped))
	}
	return nil
}

func isProblems(err error) bool {
	var ps loader.Problems
	return errors.As(err, &ps)
}
