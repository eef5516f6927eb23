package memstore

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Moved says where one change put the cases of a snapshot (With): the
// numbers consumers index by follow it.
type Moved struct {
	// Old is the changed case's number before (-1: it is new).
	Old int32
	// New is its number after (-1: it was deleted).
	New int32
	// From is, for a delete, the number before of the case that took the
	// deleted case's number (the last case), or -1 when the deleted case
	// was the last.
	From int32
}

// Edit is one case's change as a snapshot takes it: the case's row as
// written, nil when the case was deleted.
type Edit struct {
	ID  string
	Row *ilgraph.CaseFeatures
}

// With returns the snapshot after one case's change, at version: the case
// id as r gives it (r nil: the case is gone). It is WithAll of one edit.
func (s *Snapshot) With(version int64, id string, r *ilgraph.CaseFeatures) (*Snapshot, Moved) {
	n, m := s.WithAll(version, []Edit{{ID: id, Row: r}})
	return n, m[0]
}

// WithAll returns the snapshot after the edits, in order, at version, and
// where each edit put the cases (moves[k] for edits[k], numbered as after
// the edits before it). s is not changed (readers may hold it); the result
// shares every column and posting list the edits leave alone, and copies
// each one they touch once however many edits touch it, so a batch of
// changes costs one copy of the columns' headers, not one a change.
//
// The numbering stays dense: a new case takes the next number, an updated
// one keeps its own, and a deleted case's number goes to the last case.
// Features are never renumbered: one that no case has any more keeps its
// number with an empty posting list (every answer counts postings, so it
// shows nowhere). Where s's sort orders were made, n's follow them (a
// pass over each, and a sort of the cases the edits touched).
func (s *Snapshot) WithAll(version int64, edits []Edit) (*Snapshot, []Moved) {
	n := &Snapshot{
		ids: s.ids, byID: s.byID, date: s.date, severity: s.severity, sevNames: s.sevNames, title: s.title, machine: s.machine,
		bilingual: s.bilingual, reviewed: s.reviewed, org: s.org, resolved: s.resolved, year: s.year,
		orgName: s.orgName, names: s.names, orgTerms: s.orgTerms, slot: s.slot, fkind: s.fkind, perKind: s.perKind,
		features: s.features, featID: s.featID, postings: slices.Clone(s.postings), feats: s.feats,
		Version: version, Built: time.Now(),
	}
	e := editor{n: n, own: map[int32]bool{}}
	for _, ed := range edits {
		if ed.Row != nil && !s.Has(ed.ID) {
			e.room++
		}
	}
	moves := make([]Moved, len(edits))
	for k, ed := range edits {
		moves[k] = e.edit(ed)
	}
	n.followOrders(s, moves)
	return n, moves
}

// editor applies edits to a snapshot of its own (WithAll), copying what
// the snapshot shares with the one it came from the first time an edit
// writes it and writing in place after.
type editor struct {
	n        *Snapshot
	room     int            // cases the edits may add
	cols     bool           // the per-case columns are n's own
	byID     bool           // the id index is n's own
	features bool           // what numbers features is n's own
	own      map[int32]bool // features whose posting list is n's own
}

// edit applies one edit.
func (e *editor) edit(ed Edit) Moved {
	n := e.n
	old, exists := n.Number(ed.ID)
	m := Moved{Old: -1, New: -1, From: -1}
	if exists {
		m.Old = old
	}
	switch {
	case ed.Row == nil && !exists:
	case ed.Row == nil:
		e.columns()
		e.ids()
		n.byID.remove(&n.ids, old, int32(n.ids.len()-1))
		e.remove(old, &m)
	case exists:
		e.columns()
		m.New = old
		e.set(old, ed.Row, n.feats.Sorted(old))
	default:
		e.columns()
		e.ids()
		i := int32(n.ids.len())
		n.grow()
		n.ids.set(i, ed.Row.ID)
		n.byID.put(&n.ids, i)
		m.New = i
		e.set(i, ed.Row, nil)
	}
	return m
}

// columns makes the per-case columns n's own, with room for the cases the
// edits may add.
func (e *editor) columns() {
	if !e.cols {
		e.cols = true
		e.n.cloneColumns(e.room)
	}
}

// ids makes the id index n's own.
func (e *editor) ids() {
	if !e.byID {
		e.byID = true
		e.n.byID = e.n.byID.clone()
	}
}

// posting returns feature f's posting list, n's own.
func (e *editor) posting(f int32) []int32 {
	if !e.own[f] {
		e.own[f] = true
		e.n.postings[f] = slices.Grow(slices.Clip(e.n.postings[f]), 1)
	}
	return e.n.postings[f]
}

// addCase puts case c in feature f's posting list.
func (e *editor) addCase(f, c int32) {
	if at, found := slices.BinarySearch(e.n.postings[f], c); !found {
		e.n.postings[f] = slices.Insert(e.posting(f), at, c)
	}
}

// dropCase takes case c out of feature f's posting list.
func (e *editor) dropCase(f, c int32) {
	if at, found := slices.BinarySearch(e.n.postings[f], c); found {
		e.n.postings[f] = slices.Delete(e.posting(f), at, at+1)
	}
}

// followOrders makes n's sort orders from s's, after the edits whose
// moves are given: the cases they touched (changed, created, or given
// another number by a delete) taken out, sorted, and merged back in. A
// pass over each order and a sort of the touched cases, where sorting
// anew costs a sort of the corpus. Where s's orders are not made (no list
// was asked of it), n's are not either: they are sorted when a list first
// needs them, not on the path of the change (at a million cases, most of
// a second).
func (n *Snapshot) followOrders(s *Snapshot, moves []Moved) {
	if !s.ord.made.Load() {
		return
	}
	cases := n.ids.len()
	// The touched cases, by their numbers as the edits go.
	touched := map[int32]bool{}
	for _, m := range moves {
		switch {
		case m.New >= 0:
			touched[m.New] = true
		case m.From >= 0: // a delete: the last case moved to m.Old
			touched[m.Old] = true
			delete(touched, m.From)
		case m.Old >= 0: // the last case deleted
			delete(touched, m.Old)
		}
	}
	moved := make([]int32, 0, len(touched))
	out := make([]uint64, (cases+63)/64) // the touched cases, as bits: the passes below ask once a case
	for c := range touched {
		if int(c) < cases {
			moved = append(moved, c)
			out[c/64] |= 1 << (c % 64)
		}
	}
	// A case untouched keeps its number and its place in every order.
	keep := func(c int32) bool { return int(c) < cases && out[c/64]&(1<<(c%64)) == 0 }
	byID := func(a, b int32) int { return strings.Compare(n.ids.at(a), n.ids.at(b)) }
	dateDesc := func(a, b int32) int {
		if n.date[a] != n.date[b] {
			return int(n.date[b]) - int(n.date[a])
		}
		return byID(a, b)
	}
	dateAsc := func(a, b int32) int {
		if n.date[a] != n.date[b] {
			return int(n.date[a]) - int(n.date[b])
		}
		return byID(a, b)
	}
	n.ord.byID, n.ord.idA = mergeOrder(s.ord.byID, moved, keep, byID, cases)
	n.ord.byDateDesc, n.ord.dateDesc = mergeOrder(s.ord.byDateDesc, moved, keep, dateDesc, cases)
	n.ord.byDateAsc, n.ord.dateAsc = mergeOrder(s.ord.byDateAsc, moved, keep, dateAsc, cases)
	n.ord.once.Do(func() { n.ord.made.Store(true) }) // made: ranks has nothing to do
}

// mergeOrder returns an order (rank -> case) and its ranks (case -> rank)
// of cases cases: the cases of the order before that keep their place
// (keep), in that order, merged with the cases moved, sorted by cmp.
func mergeOrder(old, moved []int32, keep func(int32) bool, cmp func(a, b int32) int, cases int) (perm, rank []int32) {
	moved = slices.Clone(moved)
	slices.SortFunc(moved, cmp)
	perm = make([]int32, 0, cases)
	for _, c := range old {
		if !keep(c) {
			continue
		}
		for len(moved) > 0 && cmp(moved[0], c) < 0 {
			perm = append(perm, moved[0])
			moved = moved[1:]
		}
		perm = append(perm, c)
	}
	perm = append(perm, moved...)
	rank = make([]int32, cases)
	for pos, c := range perm {
		rank[c] = int32(pos)
	}
	return perm, rank
}

// cloneColumns copies the per-case columns (with room for extra more), so
// that the change writes none that s's readers read.
func (s *Snapshot) cloneColumns(extra int) {
	s.ids.At = slices.Grow(slices.Clone(s.ids.At), extra)
	s.date = slices.Grow(slices.Clone(s.date), extra)
	s.severity = slices.Grow(slices.Clone(s.severity), extra)
	s.title.At = slices.Grow(slices.Clone(s.title.At), extra)
	s.machine = slices.Grow(slices.Clone(s.machine), extra)
	s.bilingual = slices.Grow(slices.Clone(s.bilingual), extra)
	s.reviewed = slices.Grow(slices.Clone(s.reviewed), extra)
	s.org = slices.Grow(slices.Clone(s.org), extra)
	s.resolved = slices.Grow(slices.Clone(s.resolved), extra)
	s.year = slices.Grow(slices.Clone(s.year), extra)
	s.orgName = slices.Grow(slices.Clone(s.orgName), extra)
	s.feats.At = slices.Grow(slices.Clone(s.feats.At), extra)
}

// grow adds one case at the end of every column (cloned with room).
func (s *Snapshot) grow() {
	s.ids.At = append(s.ids.At, 0)
	s.date = append(s.date, 0)
	s.severity = append(s.severity, 0)
	s.title.At = append(s.title.At, 0)
	s.machine = append(s.machine, false)
	s.bilingual = append(s.bilingual, false)
	s.reviewed = append(s.reviewed, false)
	s.org = append(s.org, -1)
	s.resolved = append(s.resolved, -1)
	s.year = append(s.year, 0)
	s.orgName = append(s.orgName, 0)
	s.feats.At = append(s.feats.At, 0)
}

// set writes case i's columns from r, whose features replace before (the
// case's feature ids, ascending; nil for a new case) in the posting lists.
// The columns and the outer posting list are the snapshot's own.
func (e *editor) set(i int32, r *ilgraph.CaseFeatures, before []int32) {
	s := e.n
	sev := slices.Index(s.sevNames, r.Severity)
	if sev < 0 {
		sev = len(s.sevNames)
		s.sevNames = append(slices.Clip(s.sevNames), r.Severity)
	}
	s.severity[i] = int32(sev)
	s.title.set(i, r.Title)
	s.machine[i], s.bilingual[i], s.reviewed[i] = r.MachineTagged, r.Bilingual, r.Reviewed
	s.resolved[i] = -1
	if r.Resolved {
		s.resolved[i] = int32(r.ResolvedMin)
	}
	s.date[i], s.year[i] = 0, 0
	if d, err := time.Parse(ilgraph.DateLayout, r.Date); err == nil {
		s.date[i], s.year[i] = int32(d.Unix()/86400), int16(d.Year())
	}
	name := slices.Index(s.names, r.Org)
	if name < 0 {
		s.names = append(slices.Clip(s.names), r.Org)
		name = len(s.names) - 1
	}
	s.orgName[i] = int32(name)
	fs := make([]int32, 0, len(r.Features))
	for _, f := range r.Features {
		id, ok := s.featID[f]
		if !ok {
			id = e.newFeature(f)
		}
		if !slices.Contains(fs, id) {
			fs = append(fs, id)
		}
		if f.Kind == ilgraph.KindOrg && s.orgTerms != nil {
			if _, known := s.orgTerms[f.ID]; !known {
				e.numbering()
				s.orgTerms[f.ID] = r.Org
			}
		}
	}
	after := sortedIDs(fs)
	s.feats.set(i, fs, after)
	s.org[i] = -1
	for _, f := range after {
		if s.features[f].Kind == ilgraph.KindOrg {
			s.org[i] = f
		}
		if _, had := slices.BinarySearch(before, f); !had {
			e.addCase(f, i)
		}
	}
	for _, f := range before {
		if _, has := slices.BinarySearch(after, f); !has {
			e.dropCase(f, i)
		}
	}
}

// remove deletes case i: the last case takes its number.
func (e *editor) remove(i int32, m *Moved) {
	s := e.n
	last := int32(s.ids.len() - 1)
	for _, f := range s.feats.Sorted(i) {
		e.dropCase(f, i)
	}
	if i != last {
		m.From = last
		for _, f := range s.feats.Sorted(last) {
			e.dropCase(f, last)
			e.addCase(f, i)
		}
		s.ids.At[i], s.date[i], s.severity[i], s.machine[i] = s.ids.At[last], s.date[last], s.severity[last], s.machine[last]
		s.title.At[i] = s.title.At[last]
		s.bilingual[i], s.reviewed[i], s.org[i], s.resolved[i] = s.bilingual[last], s.reviewed[last], s.org[last], s.resolved[last]
		s.year[i], s.orgName[i], s.feats.At[i] = s.year[last], s.orgName[last], s.feats.At[last]
	}
	s.ids.At, s.date, s.severity, s.machine = s.ids.At[:last], s.date[:last], s.severity[:last], s.machine[:last]
	s.title.At = s.title.At[:last]
	s.bilingual, s.reviewed, s.org, s.resolved = s.bilingual[:last], s.reviewed[:last], s.org[:last], s.resolved[:last]
	s.year, s.orgName, s.feats.At = s.year[:last], s.orgName[:last], s.feats.At[:last]
}

// newFeature numbers a feature no case had.
func (e *editor) newFeature(f ilgraph.Feature) int32 {
	e.numbering()
	s := e.n
	id := int32(len(s.features))
	s.featID[f] = id
	s.features = append(s.features, f)
	s.postings = append(s.postings, nil)
	e.own[id] = true
	k := kindIndex(f.Kind)
	s.slot = append(s.slot, int32(s.perKind[k]))
	s.fkind = append(s.fkind, int8(k))
	s.perKind[k]++
	return id
}

// numbering makes what numbers features (and names organizations) n's own.
func (e *editor) numbering() {
	if e.features {
		return
	}
	e.features = true
	s := e.n
	s.featID = maps.Clone(s.featID)
	s.features = slices.Clip(s.features)
	s.slot = slices.Clip(s.slot)
	s.fkind = slices.Clip(s.fkind)
	if s.orgTerms != nil {
		s.orgTerms = maps.Clone(s.orgTerms)
	}
}
