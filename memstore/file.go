package memstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph/internal/snapfile"
)

// Identified is a Graph that names itself with an id made once per
// database (graph.DB implements it): a snapshot file records the id of
// the graph it was read from, and is read back only over that graph, so
// that a file is never taken for another database that happens to be at
// the same corpus version (one emptied and loaded again, a test's).
type Identified interface {
	CorpusID(ctx context.Context) (string, error)
}

// SnapshotFile is the name of the snapshot file in Source.SnapshotDir.
const SnapshotFile = "corpus.snap"

// fileHeader opens the file, before the snapshot's section.
const fileHeader = "ilgraph corpus"

// binaryID names the ilgraph build that writes and reads a file: a hash of
// its executable. A file is read back only by the same build, since what
// a build computes (the analysis of the texts, the weights) may change
// from one to the next without any section's name changing; a new release
// builds once and writes the file again.
var binaryID = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
})

// corpusID is the graph's id when the source keeps a file ("" otherwise,
// or when the graph has none).
func (s *Source) corpusID(ctx context.Context) (string, error) {
	g, ok := s.g.(Identified)
	if s.SnapshotDir == "" || !ok {
		return "", nil
	}
	return g.CorpusID(ctx)
}

// FileLoads counts the corpora read from the snapshot file (at most one per
// process: the first).
func (s *Source) FileLoads() int64 { return s.fileLoads.Load() }

// LastFileLoad is how long reading the snapshot file took (0 when it was
// not read).
func (s *Source) LastFileLoad() time.Duration { return time.Duration(s.loadNS.Load()) }

// LastFileSave is how long the last write of the snapshot file took (0
// before the first).
func (s *Source) LastFileSave() time.Duration { return time.Duration(s.saveNS.Load()) }

// WaitSaved waits for the snapshot file being written, if any.
func (s *Source) WaitSaved() { s.saves.Wait() }

// logger is Logger, or one that says nothing.
func (s *Source) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// fromFile reads the first corpus from the snapshot file, once per source:
// when the file was written over this graph at the graph's corpus version,
// or at one the change feed leads on from (then it is followed up to the
// graph's). Otherwise (no file, another graph, another format, too far
// behind, damaged) it reports false and the corpus is built from the graph.
func (s *Source) fromFile(ctx context.Context) (*Corpus, bool) {
	if s.SnapshotDir == "" {
		return nil, false
	}
	// reading is set before fileTried, so that a reader never finds the
	// file neither to be tried nor being read while it is (followWait).
	s.reading.Store(true)
	defer s.reading.Store(false)
	if s.fileTried.Swap(true) {
		return nil, false
	}
	if _, _, ok := s.v.Peek(); ok {
		return nil, false
	}
	start := time.Now()
	c, err := s.readFile(ctx)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.logger().Warn("the snapshot file is not used; building the corpus from the graph", "err", err)
		}
		return nil, false
	}
	version, err := s.g.CorpusVersion(ctx)
	if err != nil {
		return nil, false
	}
	if c.Version > version {
		s.logger().Warn("the snapshot file is ahead of the graph; building the corpus from the graph", "file", c.Version, "graph", version)
		return nil, false
	}
	at := c.Version
	if at < version {
		next, ok := s.followFrom(ctx, c, at)
		if !ok {
			s.logger().Info("the snapshot file is too far behind the graph for the change feed; building the corpus from the graph", "file", at, "graph", version)
			return nil, false
		}
		c = next
	}
	s.loadNS.Store(int64(time.Since(start)))
	s.fileLoads.Add(1)
	s.logger().Info("snapshot file read", "cases", c.Len(), "fileVersion", at, "version", c.Version,
		"seconds", time.Since(start).Seconds())
	return c, true
}

// readFile reads the snapshot file as a corpus, refusing one of another
// graph or with a section no consumer of this source reads.
func (s *Source) readFile(ctx context.Context) (*Corpus, error) {
	id, err := s.corpusID(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fmt.Errorf("the graph has no corpus id: %w", fs.ErrNotExist)
	}
	s.mu.Lock()
	s.started = true
	consumers := s.consumers
	s.mu.Unlock()
	name := filepath.Join(s.SnapshotDir, SnapshotFile)
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := snapfile.NewReaderSize(f, name, st.Size())
	if h := r.String(); r.Err() == nil && h != fileHeader {
		r.Fail("not a corpus snapshot (%q)", h)
	}
	if fileID := r.String(); r.Err() == nil && fileID != id {
		return nil, fmt.Errorf("%s: written over another graph (corpus id %s, the graph's %s)", name, fileID, id)
	}
	bin, err := binaryID()
	if err != nil {
		return nil, err
	}
	if fileBin := r.String(); r.Err() == nil && fileBin != bin {
		return nil, fmt.Errorf("%s: written by another build of ilgraph", name)
	}
	sections := r.Strings()
	if r.Err() != nil {
		return nil, r.Err()
	}
	if len(sections) != len(consumers) {
		return nil, fmt.Errorf("%s: %d consumers' sections, this server has %d", name, len(sections), len(consumers))
	}
	ps := make([]Persister, len(consumers))
	for i, k := range consumers {
		p, ok := k.(Persister)
		if !ok || p.PersistName() != sections[i] {
			return nil, fmt.Errorf("%s: section %d is %q, not what this server's consumer writes", name, i, sections[i])
		}
		ps[i] = p
	}
	snap := readSnapshot(r)
	if r.Err() != nil {
		return nil, r.Err()
	}
	out := &Corpus{Snapshot: snap, values: make(map[Consumer]any, len(consumers))}
	for i, p := range ps {
		v, err := p.Load(ctx, r, snap)
		if err == nil {
			err = r.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, sections[i], err)
		}
		out.values[consumers[i]] = v
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// save writes a corpus just built from the graph to the snapshot file, in
// the background: into a temporary file beside it, synced, then renamed
// over it, so that the file is always a whole one. One write at a time; a
// build that finishes while one is under way is not written (the next
// build is).
func (s *Source) save(c *Corpus, corpusID string, consumers []Consumer) {
	if s.SnapshotDir == "" || corpusID == "" || !s.saving.CompareAndSwap(false, true) {
		return
	}
	ps := make([]Persister, len(consumers))
	for i, k := range consumers {
		p, ok := k.(Persister)
		if !ok {
			s.saving.Store(false)
			return
		}
		ps[i] = p
	}
	s.saves.Add(1)
	go func() {
		defer s.saves.Done()
		defer s.saving.Store(false)
		start := time.Now()
		if err := s.writeFile(c, corpusID, consumers, ps); err != nil {
			s.logger().Warn("writing the snapshot file", "err", err)
			return
		}
		s.saveNS.Store(int64(time.Since(start)))
		s.logger().Info("snapshot file written", "version", c.Version, "seconds", time.Since(start).Seconds())
	}()
}

func (s *Source) writeFile(c *Corpus, corpusID string, consumers []Consumer, ps []Persister) (err error) {
	if err := os.MkdirAll(s.SnapshotDir, 0o755); err != nil {
		return err
	}
	// A write cut short by the process's end leaves its temporary file:
	// one an hour old is no other process's write under way.
	if old, _ := filepath.Glob(filepath.Join(s.SnapshotDir, SnapshotFile+".*.tmp")); len(old) > 0 {
		for _, name := range old {
			if st, err := os.Stat(name); err == nil && time.Since(st.ModTime()) > time.Hour {
				os.Remove(name)
			}
		}
	}
	tmp, err := os.CreateTemp(s.SnapshotDir, SnapshotFile+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := snapfile.NewWriter(tmp)
	bin, err := binaryID()
	if err != nil {
		return err
	}
	w.String(fileHeader)
	w.String(corpusID)
	w.String(bin)
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.PersistName()
	}
	w.Strings(names)
	writeSnapshot(w, c.Snapshot)
	for i, p := range ps {
		if err := p.Save(w, c.values[consumers[i]]); err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.SnapshotDir, SnapshotFile))
}
