package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/relevance"
)

// runExportJudgments writes the judgments of similar cases stored in
// Neo4j as a judged set in testdata/relevance's format.
func runExportJudgments(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export judgments", `Usage: ilgraph export judgments FILE|-

Writes every judgment of a similar match made in use (docs/api.md#judging-similar-cases)
as a judged set in testdata/relevance's format: query, case, grade 0-2 and
reason, separated by tabs, one line per pair (several judges: the lower
median of their grades, and each judge's reason). - writes to standard
output. ilgraph eval similar --judged reads such files; eval similar
--judgments reads the judgments from Neo4j directly.

(To export cases into a folder named judgments, write ./judgments.)`, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "ilgraph export judgments: name one file to write, or - for standard output")
		return errUsage
	}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	js, err := db.AllJudgments(ctx)
	if err != nil {
		return err
	}
	out, name := stdout, fs.Arg(0)
	if name != "-" {
		f, err := os.Create(name)
		if err != nil {
			return ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot write", name)
		}
		defer f.Close()
		out = f
	}
	n, err := relevance.WriteTSV(out, js)
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot write", name)
	}
	if name != "-" {
		fmt.Fprintf(stdout, "exported %d judged pairs (%d judgments) to %s\n", n, len(js), name)
	}
	return nil
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "judgments" {
		return runExportJudgments(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("export", `Usage: ilgraph export DIR
       ilgraph export judgments FILE|-

Writes every case in Neo4j back as a file in the library's JSON format,
one per case, DIR/<id>.json (as in seeds/cases/), the JSON as stored:
loading the folder again changes nothing. A file DIR/<id>.json of a case
deleted through the API is removed.

Export is how changes made through the API reach the files: until a case's
changes are exported, a load refuses a file that would undo them (a
conflict, exit 3). Once exported, the files are the source again: edit
them, commit them, load them (docs/case-format.md#files-and-edits-made-in-the-product).`, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "ilgraph export: name one folder to write the cases to (e.g. ilgraph export seeds/cases)")
		return errUsage
	}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := exportCases(ctx, db, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d cases to %s (%d written, %d unchanged); %d file(s) of deleted cases removed; changes through the API of %d case(s) now in files\n",
		rep.Cases, fs.Arg(0), rep.Written, rep.Cases-rep.Written, rep.Removed, rep.Settled)
	return nil
}

// exportReport says what an export did.
type exportReport struct {
	Cases   int // cases exported
	Written int // files written (the others held the case already)
	Removed int // files of deleted cases removed
	Settled int // cases whose changes through the API were settled
}

// exportCases writes every case to dir/<id>.json, removes the files there
// of cases deleted through the API, then settles the changes it exported
// (graph.SettleRevisions): the ones made since it read a case stay
// pending. A file already holding a case's JSON is left as it is.
func exportCases(ctx context.Context, db *graph.DB, dir string) (*exportReport, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot create the folder", dir)
	}
	pending, err := db.PendingEdits(ctx)
	if err != nil {
		return nil, err
	}
	rep := &exportReport{}
	settle := map[string]int64{}
	err = db.EachCaseJSON(ctx, func(c graph.StoredCase) error {
		if !ilgraph.CaseIDPattern.MatchString(c.ID) {
			return ilgraph.Errorf(ilgraph.EINTERNAL, "a stored case has the id %q, which is no file name", ilgraph.Clip(c.ID, 60))
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(c.JSON), "", "  "); err != nil {
			return ilgraph.WrapError(ilgraph.EINTERNAL, err, "case %s: its stored JSON does not parse", c.ID)
		}
		buf.WriteByte('\n')
		path := filepath.Join(dir, c.ID+".json")
		wrote, err := writeIfChanged(path, buf.Bytes())
		if err != nil {
			return err
		}
		rep.Cases++
		if wrote {
			rep.Written++
		}
		if _, ok := pending[c.ID]; ok {
			settle[c.ID] = c.Version
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	deleted, err := db.DeletedCases(ctx)
	if err != nil {
		return nil, err
	}
	for id, v := range deleted {
		if !ilgraph.CaseIDPattern.MatchString(id) {
			continue
		}
		switch err := os.Remove(filepath.Join(dir, id+".json")); {
		case err == nil:
			rep.Removed++
		case !errors.Is(err, fs.ErrNotExist):
			return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot remove the file of the deleted case %s", dir, id)
		}
		if _, ok := pending[id]; ok {
			settle[id] = v
		}
	}
	if _, err := db.SettleRevisions(ctx, settle); err != nil {
		return nil, err
	}
	rep.Settled = len(settle)
	return rep, nil
}

// writeIfChanged writes data to path (through a temporary file renamed
// into place) unless the file holds it already.
func writeIfChanged(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return false, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot write", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot write", path)
	}
	return true, nil
}
