package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/importer"
	"github.com/ilgraph/ilgraph/loader"
)

const importUsage = `Usage:
  ilgraph import postmortems [--seeds DIR] [--out FILE] DIR|FILE...
  ilgraph import text [--seeds DIR] [--out FILE] FILE
  ilgraph import issre22 [--seeds DIR] [--out FILE] [--report FILE] DIR|FILE...
  ilgraph import markdown [--org NAME] [--seeds DIR] [--out FILE] DIR|FILE...

Turns incidents from outside collections into cases of our format, as JSON
Lines on stdout (or --out FILE), ready for ilgraph load:

  postmortems  the postmortems.app collection's data/*.md files (YAML front
               matter and a Markdown body); ids PM-NNNNNNNNN from the uuid
  text         JSON Lines of {id, org, date, title, description, url}; the
               id is kept when it is a case id (TX-0001), else TX-NNNNNNNNN
  issre22      the ISSRE'22 study's cloud post-mortems (anomaly_collection/
               AWS, Azure, Google JSON files); ids IS-NNNNNNNNN
  markdown     teams' own post-mortems in Markdown (*.md, *.markdown; a
               folder is read with its sub-folders), sections recognised by
               their headings, English or Korean; --org names the
               organization of a document that names none; ids MD-NNNNNNNNN

Every case is tagged by the suggestion engine, with the vocabulary and the
cases of --seeds as its evidence, plus the postmortems.app categories that
map to a term without doubt, and is marked machine-tagged:
review.written_by "import" and a confidence per tag in tag_confidence.
See docs/import.md.

Inputs that cannot become a case (no front matter, broken YAML, no date,
…) are reported with file and line; the rest are imported. Exit status 0:
everything imported; 4: some inputs were skipped, the rest written; 3:
nothing could be imported.`

// exitPartial: some inputs were skipped, the rest written (ilgraph import).
const exitPartial = 4

// errPartial marks an import that skipped some inputs.
type errPartial struct{ skipped, imported int }

func (e errPartial) Error() string {
	return fmt.Sprintf("%d input(s) skipped, %d case(s) imported", e.skipped, e.imported)
}

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "issre22" {
		return runImportISSRE(args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "postmortems" && args[0] != "text" && args[0] != "markdown") {
		fmt.Fprintln(stderr, importUsage)
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			return nil
		}
		return errUsage
	}
	source := args[0]
	fs := newFlagSet("import "+source, importUsage, stderr)
	seeds := fs.String("seeds", "seeds", "the tagged corpus the suggestion engine learns from: a folder with vocab.json and case files")
	out := fs.String("out", "", "write the cases to FILE (JSON Lines) instead of stdout")
	org := ""
	if source == "markdown" {
		fs.StringVar(&org, "org", "", "the organization of a document that names none (an \"Organization:\" line)")
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 || source == "text" && fs.NArg() != 1 {
		fmt.Fprintln(stderr, importUsage)
		return errUsage
	}
	tagger, _, err := seedTagger(*seeds)
	if err != nil {
		return err
	}

	var recs []*importer.Record
	var probs loader.Problems
	prefix := importer.PostmortemPrefix
	switch source {
	case "postmortems":
		recs, probs, err = importer.ReadPostmortems(fs.Args())
	case "markdown":
		prefix = importer.MarkdownPrefix
		recs, probs, err = importer.ReadMarkdown(fs.Args(), org)
	default:
		prefix = importer.TextPrefix
		recs, probs, err = importer.ReadText(fs.Arg(0))
	}
	if err != nil {
		return err
	}
	res := tagger.Import(recs, prefix)
	skipped := append(probs, res.Skipped...)

	if err := writeCases(*out, stdout, res.Cases); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	for _, r := range recs {
		if n := r.DateNote(); n != "" {
			fmt.Fprintf(stderr, "date: %s\n", n)
		}
	}
	for _, p := range skipped {
		fmt.Fprintf(stderr, "skipped: %s\n", p.Error())
	}
	where := "stdout"
	if *out != "" {
		where = *out
	}
	fmt.Fprintf(stderr, "imported %d case(s) to %s, machine-tagged; %d input(s) skipped\n", len(res.Cases), where, len(skipped))
	if kinds := importer.DateKinds(res.Cases); kinds != "" {
		fmt.Fprintf(stderr, "dates: %s\n", kinds)
	}
	switch {
	case len(skipped) > 0 && len(res.Cases) == 0:
		return ilgraph.Errorf(ilgraph.EINVALID, "no input could be imported")
	case len(skipped) > 0:
		return errPartial{skipped: len(skipped), imported: len(res.Cases)}
	}
	return nil
}

// writeCases writes cases as JSON Lines to the file at path (through a
// temporary file renamed into place, so that a failed import leaves no half
// file), or to stdout when path is empty.
func writeCases(path string, stdout io.Writer, cases []*ilgraph.Case) error {
	encode := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, c := range cases {
			if err := enc.Encode(importer.Compact(c)); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	if path == "" {
		return encode(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot write %s", path)
	}
	defer os.Remove(tmp.Name())
	if err := encode(tmp); err != nil {
		tmp.Close()
		return ilgraph.WrapError(ilgraph.EINTERNAL, err, "writing %s", path)
	}
	if err := tmp.Close(); err != nil {
		return ilgraph.WrapError(ilgraph.EINTERNAL, err, "writing %s", path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return ilgraph.WrapError(ilgraph.EINTERNAL, err, "writing %s", path)
	}
	return nil
}
