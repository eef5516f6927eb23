package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/importer"
	"github.com/ilgraph/ilgraph/loader"
)

const importISSREUsage = `Usage: ilgraph import issre22 [--seeds DIR] [--out FILE] [--report FILE] DIR|FILE...

Imports the ISSRE'22 study's cloud post-mortems (the anomaly_collection
folder of IntelligentDDS/Post-mortems-Analysis: one JSON file of records
per provider period, in folders AWS, Azure and Google). Ids IS-NNNNNNNNN
from the record's key; the organization is the provider; the root-cause
labels give the root cause where docs/import.md's table maps them for
certain, the suggestion engine proposes the rest; duration and detection
time become the timeline, the mitigation labels the remediation. Every case
is machine-tagged.

--report FILE writes one JSON line per record: imported (with the case id,
the labels, the mapped root cause and the case's root cause) or skipped
(with the reason).`

// runImportISSRE is ilgraph import issre22.
func runImportISSRE(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import issre22", importISSREUsage, stderr)
	seeds := fs.String("seeds", "seeds", "the tagged corpus the suggestion engine learns from: a folder with vocab.json and case files")
	out := fs.String("out", "", "write the cases to FILE (JSON Lines) instead of stdout")
	report := fs.String("report", "", "write the per-record result (imported or skipped, and why) to FILE as JSON Lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, importISSREUsage)
		return errUsage
	}
	tagger, corpus, err := seedTagger(*seeds)
	if err != nil {
		return err
	}
	recs, probs, err := importer.ReadISSRE22(fs.Args())
	if err != nil {
		return err
	}
	plain := make([]*importer.Record, len(recs))
	for i, r := range recs {
		plain[i] = r.Record
	}
	res := tagger.Import(plain, importer.ISSREPrefix)
	skipped := append(probs, res.Skipped...)

	if err := writeCases(*out, stdout, res.Cases); err != nil {
		return err
	}
	if *report != "" {
		if err := writeISSREReport(*report, recs, res, skipped); err != nil {
			return err
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	twins := seedTwins(corpus, recs)
	for _, r := range recs {
		if id := twins[r.Key]; id != "" {
			fmt.Fprintf(stderr, "note: %s: record %s is the report seed case %s was written from\n", r.Pos, r.Key, id)
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
	switch {
	case len(skipped) > 0 && len(res.Cases) == 0:
		return ilgraph.Errorf(ilgraph.EINVALID, "no input could be imported")
	case len(skipped) > 0:
		return errPartial{skipped: len(skipped), imported: len(res.Cases)}
	}
	return nil
}

// issreReportLine is one line of ilgraph import issre22 --report.
type issreReportLine struct {
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Key       string   `json:"key,omitempty"`
	Provider  string   `json:"provider,omitempty"`
	Status    string   `json:"status"` // imported or skipped
	ID        string   `json:"id,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Mapped    string   `json:"mapped_root_cause,omitempty"`
	RootCause string   `json:"root_cause,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

func writeISSREReport(path string, recs []*importer.ISSRERecord, res *importer.Result, skipped loader.Problems) error {
	return writeJSONLines(path, func(enc *json.Encoder) error {
		cases := map[string]*ilgraph.Case{}
		for _, c := range res.Cases {
			cases[c.ID] = c
		}
		reported := map[loader.Position]bool{}
		for _, r := range recs {
			l := issreReportLine{File: r.Pos.File, Line: r.Pos.Line, Key: r.Key, Provider: r.Provider.Name, Labels: r.Labels, Mapped: r.Mapped, Status: "skipped"}
			if c := cases[r.ID]; r.ID != "" && c != nil {
				l.Status, l.ID, l.RootCause = "imported", c.ID, c.RootCause
			} else {
				for _, p := range skipped {
					if p.Pos.File == r.Pos.File && p.Pos.Line == r.Pos.Line {
						l.Reason = p.Error()
						reported[p.Pos] = true
						break
					}
				}
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
		for _, p := range skipped {
			if reported[p.Pos] {
				continue
			}
			if err := enc.Encode(issreReportLine{File: p.Pos.File, Line: p.Pos.Line, Status: "skipped", Reason: p.Error()}); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeJSONLines creates path and writes to it, one JSON value a line
// (HTML characters unescaped), what write encodes.
func writeJSONLines(path string, write func(*json.Encoder) error) error {
	f, err := os.Create(path)
	if err != nil {
		return ilgraph.WrapError(ilgraph.EINVALID, err, "cannot write %s", path)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := write(enc); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// seedTwins maps a record's key to the corpus case written from the same
// report (the same link, ignoring scheme, a trailing slash and AWS's /cn/
// locale), when there is one.
func seedTwins(corpus []ilgraph.Case, recs []*importer.ISSRERecord) map[string]string {
	key := func(u string) string {
		u = strings.ToLower(strings.TrimSpace(u))
		u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
		u = strings.Replace(u, "aws.amazon.com/cn/", "aws.amazon.com/", 1)
		return strings.TrimSuffix(u, "/")
	}
	byURL := map[string]string{}
	for _, c := range corpus {
		for _, s := range c.Sources {
			byURL[key(s.URL)] = c.ID
		}
	}
	out := map[string]string{}
	for _, r := range recs {
		if id := byURL[key(r.URL)]; id != "" {
			out[r.Key] = id
		}
	}
	return out
}

const evalImportUsage = `Usage: ilgraph eval import issre22 [--seeds DIR] [--json] DIR|FILE...

Measures the suggestion engine against the ISSRE'22 study's human
root-cause labels: for every record whose labels map to one of our root
causes for certain (docs/import.md), the engine is given the record's text
as ilgraph import issre22 gives it, and the command counts how often its
best root cause, and any of its best three, is the mapped one — per
provider and in all. "partly labelled" are the records with at least one
label that maps (several causes, or a label the table leaves out beside
one it maps); "top-3 any": one of their mapped root causes is among the
engine's best three. A seed case written from the same report is left out
of the engine's evidence for that record.`

// runEvalImport is ilgraph eval import issre22.
func runEvalImport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "issre22" {
		fmt.Fprintln(stderr, evalImportUsage)
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			return nil
		}
		return errUsage
	}
	fs := newFlagSet("eval import issre22", evalImportUsage, stderr)
	seeds := fs.String("seeds", "seeds", "the tagged corpus the suggestion engine learns from")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, evalImportUsage)
		return errUsage
	}
	tagger, corpus, err := seedTagger(*seeds)
	if err != nil {
		return err
	}
	recs, probs, err := importer.ReadISSRE22(fs.Args())
	if err != nil {
		return err
	}
	for _, p := range probs {
		fmt.Fprintf(stderr, "skipped: %s\n", p.Error())
	}
	rows, err := tagger.RootCauseAgreement(recs, seedTwins(corpus, recs))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "provider\trecords\tlabelled\ttop-1\t\ttop-3\t\tpartly labelled\ttop-3 any\t\t")
	pct := func(n, d int) string {
		if d == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t%d\t%s\t\n", r.Provider, r.Records, r.Labelled, r.Top1, pct(r.Top1, r.Labelled), r.Top3, pct(r.Top3, r.Labelled),
			r.Partly, r.PartlyTop3, pct(r.PartlyTop3, r.Partly))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The baseline an engine has to beat: always answering the most
	// frequent mapped root causes of these very records (an in-sample
	// majority guess, which knows the label distribution).
	freq := map[string]int{}
	n := 0
	for _, r := range recs {
		if r.Mapped != "" {
			freq[r.Mapped]++
			n++
		}
	}
	var terms []string
	for k := range freq {
		terms = append(terms, k)
	}
	sort.Slice(terms, func(i, j int) bool {
		return freq[terms[i]] > freq[terms[j]] || freq[terms[i]] == freq[terms[j]] && terms[i] < terms[j]
	})
	if len(terms) > 0 {
		top3 := 0
		for _, k := range terms[:min(3, len(terms))] {
			top3 += freq[k]
		}
		fmt.Fprintf(stdout, "majority baseline (always %s): top-1 %s, top-3 %s of %d labelled\n",
			strings.Join(terms[:min(3, len(terms))], ", "), pct(freq[terms[0]], n), pct(top3, n), n)
	}
	return nil
}

// seedTagger is the importers' tagger, learning from the tagged corpus in
// dir (a folder with vocab.json and case files), and that corpus.
func seedTagger(dir string) (*importer.Tagger, []ilgraph.Case, error) {
	v, corpus, err := readCorpus(dir)
	if err != nil {
		return nil, nil, err
	}
	tagger, err := importer.NewTagger(v, corpus)
	return tagger, corpus, err
}
