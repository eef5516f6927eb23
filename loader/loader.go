// Package loader reads incident cases from files, validates all of them
// against the vocabulary and against each other, and only then hands them to
// the graph store in batches.
package loader

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// VocabFileName is the name of a vocabulary file inside a loaded folder.
const VocabFileName = "vocab.json"

// Store is what a load asks of the graph (graph.DB is one). A check
// (Options.CheckOnly) asks only Vocabulary and ExistingCaseIDs; the rest
// write, in the order Load's phases say.
type Store interface {
	// Vocabulary is the graph's vocabulary, for a load without a vocabulary file.
	Vocabulary(ctx context.Context) (*ilgraph.Vocabulary, error)
	// ExistingCaseIDs says which of ids are cases in the graph (link targets).
	ExistingCaseIDs(ctx context.Context, ids []string) (map[string]bool, error)
	// Migrate creates the constraints and indexes the writes rely on.
	Migrate(ctx context.Context) error
	WriteVocabulary(ctx context.Context, v *ilgraph.Vocabulary) (graph.Counters, error)
	// CaseHashes returns the stored hash of each case of ids the graph has.
	CaseHashes(ctx context.Context, ids []string) (map[string]string, error)
	WriteCases(ctx context.Context, cases []*ilgraph.Case) (graph.Counters, error)
	LinkCases(ctx context.Context, links []graph.Links) (graph.Counters, error)
	DeleteOrphanOrganizations(ctx context.Context) (graph.Counters, error)
	BumpCorpusVersion(ctx context.Context) (graph.Counters, error)
	// PublishLoad moves the corpus version by one per case of ids and
	// names them in the change feed (at most graph.MaxFeed).
	PublishLoad(ctx context.Context, ids []string) (graph.Counters, error)
	// PendingEdits returns the cases changed through the API since they
	// were last exported: a file must not undo them (edits.go).
	PendingEdits(ctx context.Context) (map[string]graph.PendingEdit, error)
}

var _ Store = (*graph.DB)(nil)

// Options control a load.
type Options struct {
	// SkipInvalid loads the valid cases and reports the invalid ones, instead
	// of writing nothing when any case is invalid.
	SkipInvalid bool
	// BatchSize is how many cases one write transaction holds (default 500).
	BatchSize int
	// Progress, if set, receives a progress bar while cases are written.
	Progress io.Writer
	// Now is the clock for date checks (default time.Now).
	Now func() time.Time
	// CheckOnly validates and reports without writing anything.
	CheckOnly bool
	// Strict makes a broken tagging rule (TaggingRules) a problem like any
	// other: the case is invalid. Without it, broken rules are Warnings.
	Strict bool
}

// Report says what a load did.
type Report struct {
	CheckOnly               bool // validated only, nothing written
	Files                   int  // case files read
	Vocabulary              bool // whether a vocabulary file was loaded
	Cases                   int  // valid cases read
	New, Changed, Unchanged int
	Skipped                 Problems // invalid cases left out (SkipInvalid)
	Warnings                Problems // tagging rules the valid cases break (without Strict)
	graph.Counters                   // what the writes changed
	Elapsed                 time.Duration
	// The new and changed cases' ids, while they are at most graph.MaxFeed
	// (nil past it), and whether the vocabulary changed: what finish
	// publishes to the change feed.
	written      []string
	vocabChanged bool
}

// CasesChanged says whether the load wrote a new or changed case, and so
// bumped the corpus version: what is derived from the cases (the stored
// similar cases, similarity indexes) is stale.
func (r *Report) CasesChanged() bool { return !r.CheckOnly && r.New+r.Changed > 0 }

// Summary is the one-line summary printed at the end of a load.
func (r *Report) Summary() string {
	if r.CheckOnly {
		s := fmt.Sprintf("checked %d files: %d valid cases", r.Files, r.Cases)
		if len(r.Skipped) > 0 {
			s += fmt.Sprintf(", %d invalid", skippedCases(r.Skipped))
		}
		if len(r.Warnings) > 0 {
			s += fmt.Sprintf(", %d tagging warning(s) in %d case(s)", len(r.Warnings), skippedCases(r.Warnings))
		}
		return s + fmt.Sprintf("; nothing written; %.2fs", r.Elapsed.Seconds())
	}
	s := fmt.Sprintf("loaded %d cases from %d files (%d new, %d changed, %d unchanged", r.Cases, r.Files, r.New, r.Changed, r.Unchanged)
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf(", %d invalid skipped", skippedCases(r.Skipped))
	}
	if len(r.Warnings) > 0 {
		s += fmt.Sprintf(", %d tagging warning(s) in %d case(s)", len(r.Warnings), skippedCases(r.Warnings))
	}
	return s + fmt.Sprintf("); nodes +%d -%d, relationships +%d -%d, properties set %d; %.2fs",
		r.NodesCreated, r.NodesDeleted, r.RelationshipsCreated, r.RelationshipsDeleted, r.PropertiesSet, r.Elapsed.Seconds())
}

func skippedCases(ps Problems) int {
	seen := map[caseKey]bool{}
	for _, p := range ps {
		seen[caseKey{p.Pos.File, p.Pos.Index}] = true
	}
	return len(seen)
}

// caseKey identifies a case by where it is, since ids may be missing or
// duplicated in bad input.
type caseKey struct {
	file  string
	index int
}

type seenCase struct {
	key     caseKey
	pos     Position
	id      string
	related []string
	recur   string
}

// Load loads the cases and vocabulary found at paths (files or folders) into
// db. A folder is searched recursively for *.json, *.jsonl and *.ndjson files;
// a file named vocab.json is the vocabulary. A file named on the command line
// is read whatever its extension. Without a vocabulary file the vocabulary
// already in the graph is used. A check (Options.CheckOnly) may run with a
// nil db: the vocabulary must then be among the files, and links must point
// at cases among them.
//
// Every case is validated before anything is written. With any problem, and
// without SkipInvalid, Load writes nothing and returns the Problems.
//
// A load runs in phases: discover the inputs, validate every case, plan what
// to write, write it, and finish (tidy up and record the change).
func Load(ctx context.Context, db Store, paths []string, opt Options) (*Report, error) {
	start := time.Now()
	opt = opt.withDefaults()
	in, err := discover(ctx, db, paths)
	if err != nil {
		return nil, err
	}
	rep := &Report{Files: len(in.files), Vocabulary: in.vocabPath != "", CheckOnly: opt.CheckOnly}
	v, err := validate(ctx, db, in, opt)
	if err != nil {
		return nil, err
	}
	p, err := plan(in, v, opt, rep)
	if err != nil {
		return nil, err
	}
	afterValidate()
	if opt.CheckOnly {
		rep.Elapsed = time.Since(start)
		return rep, nil
	}
	if err := write(ctx, db, p, opt, rep); err != nil {
		return nil, err
	}
	if err := finish(ctx, db, rep); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// withDefaults fills in the options left at their zero value.
func (opt Options) withDefaults() Options {
	if opt.BatchSize <= 0 {
		opt.BatchSize = 500
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return opt
}

// inputs is what a load reads: the case files and the vocabulary to check
// them against.
type inputs struct {
	files     []string
	vocabPath string // the vocabulary file, or "" when the graph's vocabulary is used
	vocab     *ilgraph.Vocabulary
}

// discover finds the case files and the vocabulary file at paths and reads
// the vocabulary: from its file when there is one, else from the graph
// (which must have one).
func discover(ctx context.Context, db Store, paths []string) (*inputs, error) {
	vocabPath, files, err := findInputs(paths)
	if err != nil {
		return nil, err
	}
	in := &inputs{files: files, vocabPath: vocabPath}
	if vocabPath != "" {
		var probs Problems
		if in.vocab, probs = ParseVocabulary(vocabPath); probs != nil {
			return nil, probs
		}
		return in, nil
	}
	if db == nil {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "no %s among %s, and no database to read the vocabulary from", VocabFileName, strings.Join(paths, ", "))
	}
	if in.vocab, err = db.Vocabulary(ctx); err != nil {
		return nil, err
	}
	if len(in.vocab.Terms()) == 0 {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "no vocabulary: the graph has none yet, so load %s with the cases (e.g. ilgraph load seeds/)", VocabFileName)
	}
	return in, nil
}

// validation is what the validation pass learned: every problem, and every
// case read (its place, id and links only, so that a large load is not held
// in memory), with the invalid ones marked.
type validation struct {
	probs    Problems
	warnings Problems // broken tagging rules of otherwise valid cases (without Strict)
	cases    []seenCase
	bad      map[caseKey]bool
	// Per file: what was read, and the problems its parse reported (the
	// write pass, reading the same bytes, must find exactly these).
	fingerprints map[string]fingerprint
	parseProbs   map[string]map[string]bool
}

// validate is the first pass: it parses every file, validates each case
// against the vocabulary and checks its tagging rules, then the cases
// against each other (duplicate ids) and against the graph (link targets).
// Problems are sorted by place.
func validate(ctx context.Context, db Store, in *inputs, opt Options) (*validation, error) {
	v := &validation{bad: map[caseKey]bool{}, fingerprints: map[string]fingerprint{}, parseProbs: map[string]map[string]bool{}}
	index := in.vocab.Index()
	now := opt.Now()
	pending, err := pendingEdits(ctx, db)
	if err != nil {
		return nil, err
	}
	for _, f := range in.files {
		ps, fp := parseFingerprinted(f, func(p Parsed) error {
			k := caseKey{p.Pos.File, p.Pos.Index}
			probs, warnings := checkParsed(p, index, now, opt.Strict)
			if len(probs) > 0 {
				v.probs = append(v.probs, probs...)
				v.bad[k] = true
			}
			v.warnings = append(v.warnings, warnings...)
			if cp := editConflict(p, pending); cp != nil && !v.bad[k] {
				v.probs = append(v.probs, cp)
				v.bad[k] = true
			}
			v.cases = append(v.cases, seenCase{key: k, pos: p.Pos, id: p.Case.ID, related: p.Case.Related, recur: p.Case.RecurrenceOf})
			return nil
		})
		v.fingerprints[f] = fp
		for _, p := range ps {
			// A syntax error ends its file; the cases before it stay valid
			// (and load with SkipInvalid).
			v.bad[caseKey{p.Pos.File, p.Pos.Index}] = true
			if v.parseProbs[f] == nil {
				v.parseProbs[f] = map[string]bool{}
			}
			v.parseProbs[f][p.Error()] = true
		}
		v.probs = append(v.probs, ps...)
	}
	v.probs = append(v.probs, checkDuplicates(v.cases, v.bad)...)
	linkProbs, err := checkLinks(ctx, db, v.cases, v.bad)
	if err != nil {
		return nil, err
	}
	v.probs = append(v.probs, linkProbs...)
	sortProblems(v.probs)
	sortProblems(v.warnings)
	return v, nil
}

// loadPlan is what the write phase writes: the valid cases of the files,
// found again by their place in files that must read as they did when they
// were validated.
type loadPlan struct {
	in           *inputs
	files        []string // the files holding a valid case, in load order
	valid        map[caseKey]bool
	fingerprints map[string]fingerprint
	parseProbs   map[string]map[string]bool
}

// plan decides what to write. Without SkipInvalid any problem stops the load
// (the Problems are the error); otherwise the invalid cases are reported in
// rep.Skipped and left out.
func plan(in *inputs, v *validation, opt Options, rep *Report) (*loadPlan, error) {
	if len(v.probs) > 0 && !opt.SkipInvalid {
		return nil, v.probs
	}
	rep.Skipped = v.probs
	for _, w := range v.warnings {
		// A case left out for another problem is reported for that; its
		// warnings would only repeat it.
		if !v.bad[caseKey{w.Pos.File, w.Pos.Index}] {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	valid := make(map[caseKey]bool, len(v.cases))
	withValid := map[string]bool{}
	for _, c := range v.cases {
		if !v.bad[c.key] {
			valid[c.key] = true
			withValid[c.key.file] = true
		}
	}
	rep.Cases = len(valid)
	v.cases = nil // the write phase needs only the valid set; a large load frees the rest now
	p := &loadPlan{in: in, valid: valid, fingerprints: v.fingerprints, parseProbs: v.parseProbs}
	for _, f := range in.files {
		if withValid[f] {
			p.files = append(p.files, f)
		}
	}
	return p, nil
}

// Test hooks: afterValidate runs between the validation and the write
// phase, beforeWriteFile before the write pass reads a file.
var (
	afterValidate   = func() {}
	beforeWriteFile = func(path string) {}
)

// write is the second pass. It first checks that every file to read again
// is byte for byte what was validated (else nothing is written), makes sure
// of the schema, writes the vocabulary (when loaded from a file), then reads
// the files again and writes the planned cases in batches — each batch only
// its new and changed cases — and last the links between cases, once every
// case exists. A file that changes while it is being written stops the load
// before any of its changed bytes are parsed; the cases written until then
// are the validated ones.
func write(ctx context.Context, db Store, p *loadPlan, opt Options, rep *Report) error {
	for _, f := range p.files {
		if err := verifyFile(f, p.fingerprints[f]); err != nil {
			return err
		}
	}
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if p.in.vocabPath != "" {
		c, err := db.WriteVocabulary(ctx, p.in.vocab)
		if err != nil {
			return err
		}
		rep.Counters.Add(c)
		rep.vocabChanged = c != graph.Counters{}
	}
	bar := newProgress(opt.Progress, rep.Cases)
	defer bar.done()
	w := &caseWriter{db: db, rep: rep, bar: bar}
	for _, f := range p.files {
		beforeWriteFile(f)
		var werr error
		probs, err := parseVerified(f, p.fingerprints[f], func(pc Parsed) error {
			if !p.valid[caseKey{pc.Pos.File, pc.Pos.Index}] {
				return nil
			}
			w.batch = append(w.batch, pc.Case)
			if len(w.batch) >= opt.BatchSize {
				if werr = w.flush(ctx); werr != nil {
					return werr
				}
			}
			return nil
		})
		if werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		// The same bytes parse to the same problems, already reported or
		// skipped; anything else is an error, never dropped.
		for _, pr := range probs {
			if !p.parseProbs[f][pr.Error()] {
				return ilgraph.Errorf(ilgraph.EINTERNAL, "%s: the second read found a problem the validation did not: %v", f, pr)
			}
		}
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	for i := 0; i < len(w.links); i += opt.BatchSize {
		cnt, err := db.LinkCases(ctx, w.links[i:min(i+opt.BatchSize, len(w.links))])
		if err != nil {
			return err
		}
		rep.Counters.Add(cnt)
	}
	return nil
}

// caseWriter writes cases in batches, counting them in rep as new, changed
// or unchanged, and keeps the links of the written ones for the end.
type caseWriter struct {
	db    Store
	rep   *Report
	bar   *progress
	batch []*ilgraph.Case
	links []graph.Links
}

// flush writes the batch's new and changed cases (an unchanged case, whose
// hash the graph already holds, is not written) and empties the batch.
func (w *caseWriter) flush(ctx context.Context) error {
	if len(w.batch) == 0 {
		return nil
	}
	ids := make([]string, len(w.batch))
	for i, c := range w.batch {
		ids[i] = c.ID
	}
	hashes, err := w.db.CaseHashes(ctx, ids)
	if err != nil {
		return err
	}
	var changed []*ilgraph.Case
	for _, c := range w.batch {
		old, exists := hashes[c.ID]
		l := graph.LinksOf(c)
		switch {
		case !exists:
			w.rep.New++
		case old == l.Hash:
			w.rep.Unchanged++
			continue
		default:
			w.rep.Changed++
		}
		changed = append(changed, c)
		w.links = append(w.links, l)
		if w.rep.New+w.rep.Changed <= graph.MaxFeed {
			w.rep.written = append(w.rep.written, c.ID)
		} else {
			w.rep.written = nil
		}
	}
	cnt, err := w.db.WriteCases(ctx, changed)
	if err != nil {
		return err
	}
	w.rep.Counters.Add(cnt)
	w.bar.add(len(w.batch))
	w.batch = w.batch[:0]
	return nil
}

// finish tidies up after the writes: it deletes organizations no case
// belongs to any more and moves the corpus version when a case changed, so
// that what is derived from the cases (similarity indexes, the stored
// similar cases) can tell it is stale; see Report.CasesChanged. A load of
// at most graph.MaxFeed new or changed cases that left the vocabulary as it
// was publishes them to the change feed (graph.DB.PublishLoad): the servers
// over the graph follow it case by case, as they follow writes through
// another server. A larger one, or one that changed the vocabulary (which
// the followed changes do not carry) — even with no case changed, since the
// suggestion engine learns from the terms' labels and aliases — moves the
// version by one, and the servers build their corpus afresh.
func finish(ctx context.Context, db Store, rep *Report) error {
	cnt, err := db.DeleteOrphanOrganizations(ctx)
	if err != nil {
		return err
	}
	rep.Counters.Add(cnt)
	if rep.CasesChanged() && !rep.vocabChanged && len(rep.written) == rep.New+rep.Changed {
		cnt, err := db.PublishLoad(ctx, rep.written)
		if err != nil {
			return err
		}
		rep.Counters.Add(cnt)
		return nil
	}
	if rep.CasesChanged() || rep.vocabChanged {
		cnt, err := db.BumpCorpusVersion(ctx)
		if err != nil {
			return err
		}
		rep.Counters.Add(cnt)
	}
	return nil
}

// checkDuplicates marks every case whose id appears more than once.
func checkDuplicates(cases []seenCase, bad map[caseKey]bool) Problems {
	byID := map[string][]int{}
	for i, c := range cases {
		if c.id != "" {
			byID[c.id] = append(byID[c.id], i)
		}
	}
	var probs Problems
	for id, at := range byID {
		if len(at) < 2 {
			continue
		}
		for _, i := range at {
			var others []string
			for _, j := range at {
				if j != i {
					others = append(others, cases[j].pos.String())
				}
			}
			probs = append(probs, &Problem{Pos: cases[i].pos, CaseID: id, Field: "id", Msg: "duplicate id: also at " + strings.Join(others, ", ")})
			bad[cases[i].key] = true
		}
	}
	return probs
}

// checkLinks checks that every related and recurrence_of target is a valid
// case of this load or a case already in the graph. A case whose target is
// left out becomes invalid too, until nothing changes.
func checkLinks(ctx context.Context, db Store, cases []seenCase, bad map[caseKey]bool) (Problems, error) {
	inLoad := map[string]caseKey{}
	var unknown []string
	for _, c := range cases {
		if c.id != "" {
			inLoad[c.id] = c.key
		}
	}
	want := map[string]bool{}
	for _, c := range cases {
		for _, t := range append(slices.Clone(c.related), c.recur) {
			if t != "" && ilgraph.CaseIDPattern.MatchString(t) {
				want[t] = true
			}
		}
	}
	for t := range want {
		unknown = append(unknown, t)
	}
	sort.Strings(unknown)
	inGraph := map[string]bool{}
	if db == nil {
		unknown = nil // a check without a database: only this load's cases are known
	}
	for i := 0; i < len(unknown); i += 5000 {
		got, err := db.ExistingCaseIDs(ctx, unknown[i:min(i+5000, len(unknown))])
		if err != nil {
			return nil, err
		}
		for id := range got {
			inGraph[id] = true
		}
	}
	known := func(id string) (bool, string) {
		if k, ok := inLoad[id]; ok && !bad[k] {
			return true, ""
		}
		if inGraph[id] {
			return true, ""
		}
		if _, ok := inLoad[id]; ok {
			return false, "is in this load but invalid, and not in the graph"
		}
		if db == nil {
			return false, "is not a case of this load (and there is no database to look in)"
		}
		return false, "is not a known case (not in this load nor in the graph)"
	}
	var probs Problems
	reported := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, c := range cases {
			if bad[c.key] && reported[c.pos.String()+"#links"] {
				continue
			}
			check := func(field, target string) {
				if target == "" || target == c.id || !ilgraph.CaseIDPattern.MatchString(target) {
					return // ValidateCase reports these
				}
				if ok, why := known(target); !ok {
					tag := c.pos.String() + "#" + field
					if !reported[tag] {
						reported[tag] = true
						probs = append(probs, &Problem{Pos: c.pos, CaseID: c.id, Field: field, Msg: fmt.Sprintf("%q %s", target, why)})
					}
					if !bad[c.key] {
						bad[c.key] = true
						changed = true
					}
					reported[c.pos.String()+"#links"] = true
				}
			}
			for i, t := range c.related {
				check(fmt.Sprintf("related[%d]", i), t)
			}
			check("recurrence_of", c.recur)
		}
	}
	return probs, nil
}

func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].Pos, ps[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Index < b.Index
	})
}

// findInputs expands paths into the vocabulary file (if any) and the case
// files, in a stable order.
func findInputs(paths []string) (vocab string, files []string, err error) {
	if len(paths) == 0 {
		return "", nil, ilgraph.Errorf(ilgraph.EINVALID, "nothing to load: name files or folders")
	}
	setVocab := func(p string) error {
		if vocab != "" && vocab != p {
			return ilgraph.Errorf(ilgraph.EINVALID, "two vocabulary files: %s and %s", vocab, p)
		}
		vocab = p
		return nil
	}
	seen := map[string]bool{}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return "", nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", root)
		}
		if !info.IsDir() {
			if filepath.Base(root) == VocabFileName {
				if err := setVocab(root); err != nil {
					return "", nil, err
				}
			} else if !seen[root] {
				files = append(files, root)
				seen[root] = true
			}
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case d.Name() == VocabFileName:
				return setVocab(p)
			case strings.HasPrefix(d.Name(), "."):
			case hasExt(p, ".json", ".jsonl", ".ndjson"):
				if !seen[p] {
					files = append(files, p)
					seen[p] = true
				}
			}
			return nil
		})
		if err != nil {
			if ilgraph.ErrorCode(err) == ilgraph.EINVALID {
				return "", nil, err
			}
			return "", nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", root)
		}
	}
	return vocab, files, nil
}

func hasExt(p string, exts ...string) bool {
	return slices.Contains(exts, strings.ToLower(filepath.Ext(p)))
}
