package memstore

import (
	"slices"
	"time"

	"context"
	"github.com/ilgraph/ilgraph"

	"github.com/ilgraph/ilgraph/internal/snapfile"
)

// A Persister is a Consumer whose value a Source writes to its snapshot
// file beside the snapshot, and reads back instead of building it
// (Source.SnapshotDir): what takes a build minutes — the analysis of every
// case's text — is read in seconds. A file holds only values of full
// builds, never one that changes were applied to, so that a value read
// back is the one a build at the file's corpus version makes.
type Persister interface {
	Consumer
	// PersistName names the consumer's section of the file. Change it
	// whenever what Save writes changes meaning, so that an older file is
	// refused rather than misread.
	PersistName() string
	// Save writes v, a value this consumer's build returned.
	Save(w *snapfile.Writer, v any) error
	// Load reads what Save wrote and returns the value over s, the
	// snapshot read from the same file; it reads nothing from the graph.
	Load(ctx context.Context, r *snapfile.Reader, s *Snapshot) (any, error)
}

// snapshotSection names the snapshot's own section of the file; bump it
// with any change to what writeSnapshot writes.
const snapshotSection = "memstore/1"

// writeSnapshot writes the columns a build fills from the cases. What is
// derived from them — the maps by id and by feature, each case's sorted
// features, the postings, and the sort orders and aggregates made on first
// use — is made again by readSnapshot, by the rules the builder follows.
func writeSnapshot(w *snapfile.Writer, s *Snapshot) {
	w.String(snapshotSection)
	w.Varint(s.Version)
	w.Varint(s.Built.UnixNano())
	w.StringsOf(s.ids.len(), func(i int) string { return s.ids.at(int32(i)) })
	w.Int32s(s.date)
	// Severities are few: a dictionary and each case's entry in it.
	w.Strings(s.sevNames)
	w.Int32s(s.severity)
	w.Uvarint(uint64(len(s.title.At)))
	for i := range s.title.At {
		t := s.title.get(int32(i))
		w.String(t.En)
		w.String(t.Ko)
	}
	w.Bools(s.machine)
	w.Bools(s.bilingual)
	w.Bools(s.reviewed)
	w.Int32s(s.org)
	w.Int32s(s.resolved)
	w.Int16s(s.year)
	tags := make([][]int32, s.feats.Len())
	for i := range tags {
		tags[i] = s.feats.tags(int32(i))
	}
	w.Int32ss(tags)
	w.Int32s(s.orgName)
	w.Strings(s.names)
	w.Bool(s.orgTerms != nil)
	keys := make([]string, 0, len(s.orgTerms))
	for k := range s.orgTerms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		w.String(k)
		w.String(s.orgTerms[k])
	}
	w.Uvarint(uint64(len(s.features)))
	for _, f := range s.features {
		w.String(string(f.Kind))
		w.String(f.ID)
	}
}

// readSnapshot reads what writeSnapshot wrote and derives the rest, checking
// every number against the columns it indexes so that a damaged file is an
// error, never a panic.
func readSnapshot(r *snapfile.Reader) *Snapshot {
	if name := r.String(); r.Err() == nil && name != snapshotSection {
		r.Fail("its corpus section is %q, this ilgraph reads %q", name, snapshotSection)
	}
	s := &Snapshot{Version: r.Varint()}
	s.Built = time.Unix(0, r.Varint())
	s.ids = newIDColumn()
	r.EachString(s.ids.append)
	s.date = r.Int32s()
	sevs := r.Strings()
	sev := r.Int32s()
	nTitles := r.Len()
	if r.Err() != nil {
		return nil
	}
	n := s.ids.len()
	if len(sev) != n || nTitles != n {
		r.Fail("%d cases but %d severities and %d titles", n, len(sev), nTitles)
		return nil
	}
	for i, j := range sev {
		if j < 0 || int(j) >= len(sevs) {
			r.Fail("case %d's severity %d is not among the %d written", i, j, len(sevs))
			return nil
		}
	}
	s.severity, s.sevNames = sev, sevs
	s.title = newTitles()
	for range nTitles {
		en := r.String()
		s.title.append(ilgraph.Text{En: en, Ko: r.String()})
	}
	s.machine = r.Bools()
	s.bilingual = r.Bools()
	s.reviewed = r.Bools()
	s.org = r.Int32s()
	s.resolved = r.Int32s()
	s.year = r.Int16s()
	tags := r.Int32ss()
	s.orgName = r.Int32s()
	s.names = r.Strings()
	if r.Bool() {
		s.orgTerms = map[string]string{}
	}
	nTerms := r.Len()
	for range nTerms {
		k, v := r.String(), r.String()
		if s.orgTerms == nil {
			r.Fail("organization names without their map")
			return nil
		}
		s.orgTerms[k] = v
	}
	nFeat := r.Len()
	if r.Err() != nil {
		return nil
	}
	s.featID = make(map[ilgraph.Feature]int32, nFeat)
	for range nFeat {
		f := ilgraph.Feature{Kind: ilgraph.Kind(r.String()), ID: r.String()}
		if r.Err() != nil {
			return nil
		}
		if kindIndex(f.Kind) < 0 {
			r.Fail("a feature of unknown kind %q", f.Kind)
			return nil
		}
		if _, dup := s.featID[f]; dup {
			r.Fail("feature %s written twice", f)
			return nil
		}
		s.addFeature(f)
	}
	if r.Err() != nil {
		return nil
	}
	for _, col := range []struct {
		name string
		len  int
	}{{"date", len(s.date)}, {"machine", len(s.machine)}, {"bilingual", len(s.bilingual)}, {"reviewed", len(s.reviewed)},
		{"org", len(s.org)}, {"resolved", len(s.resolved)}, {"year", len(s.year)}, {"tags", len(tags)}, {"orgName", len(s.orgName)}} {
		if col.len != n {
			r.Fail("%d cases but %d entries in the %s column", n, col.len, col.name)
			return nil
		}
	}
	for i, o := range s.orgName {
		if o < 0 || int(o) >= len(s.names) {
			r.Fail("case %d's organization name %d is not among the %d written", i, o, len(s.names))
			return nil
		}
	}
	var dup string
	if s.byID, dup = newIDIndex(&s.ids, n); dup != "" {
		r.Fail("case %q written twice", dup)
		return nil
	}
	// Each case's sorted features and the postings, as Builder.Add makes
	// them: the postings counted first, then filled in case order.
	counts := make([]int32, nFeat)
	total := 0
	for i, fs := range tags {
		if o := s.org[i]; o < -1 || int(o) >= nFeat {
			r.Fail("case %d's organization feature %d is not among the %d written", i, o, nFeat)
			return nil
		}
		for _, f := range fs {
			if f < 0 || int(f) >= nFeat {
				r.Fail("case %d has feature %d, not among the %d written", i, f, nFeat)
				return nil
			}
			counts[f]++
		}
		total += len(fs)
	}
	s.feats = newFeatureLists()
	if len(tags) > 0 {
		s.feats.At = make([]uint64, 0, len(tags))
	}
	var sorted []int32
	for _, fs := range tags {
		sorted = append(sorted[:0], fs...)
		slices.Sort(sorted)
		s.feats.append(fs, sorted)
	}
	all := make([]int32, total)
	at := 0
	for f, c := range counts {
		if c > 0 {
			s.postings[f] = all[at : at : at+int(c)]
			at += int(c)
		}
	}
	for i := range int32(s.feats.Len()) {
		for _, f := range s.feats.Sorted(i) {
			s.postings[f] = append(s.postings[f], i)
		}
	}
	return s
}
