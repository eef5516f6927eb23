package memstore

import (
	"maps"
	"slices"
	"sort"
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

// With returns the snapshot after one case's change, at version: the case
// id as r gives it (r nil: the case is gone). s is not changed (readers
// may hold it); the result shares every column and posting list the change
// leaves alone, so a change costs a copy of the columns' headers and of
// the posting lists of the features it touches, not a build.
//
// The numbering stays dense: a new case takes the next number, an updated
// one keeps its own, and a deleted case's number goes to the last case.
// Features are never renumbered: one that no case has any more keeps its
// number with an empty posting list (every answer counts postings, so it
// shows nowhere). Sort orders are made again on first use.
func (s *Snapshot) With(version int64, id string, r *ilgraph.CaseFeatures) (*Snapshot, Moved) {
	old, exists := s.Number(id)
	m := Moved{Old: -1, New: -1, From: -1}
	if exists {
		m.Old = old
	}
	n := &Snapshot{
		ids: s.ids, byID: s.byID, date: s.date, severity: s.severity, sevNames: s.sevNames, title: s.title, machine: s.machine,
		bilingual: s.bilingual, reviewed: s.reviewed, org: s.org, resolved: s.resolved, year: s.year,
		orgName: s.orgName, names: s.names, orgTerms: s.orgTerms, slot: s.slot, fkind: s.fkind, perKind: s.perKind,
		features: s.features, featID: s.featID, postings: slices.Clone(s.postings), feats: s.feats,
		Version: version, Built: time.Now(),
	}
	switch {
	case r == nil && !exists:
	case r == nil:
		n.cloneColumns(0)
		n.byID = s.byID.clone()
		n.byID.remove(&s.ids, old, int32(s.ids.len()-1))
		n.remove(old, &m)
	case exists:
		n.cloneColumns(0)
		m.New = old
		n.set(old, r, s.feats.Sorted(old))
	default:
		n.cloneColumns(1)
		n.byID = s.byID.clone()
		i := int32(n.ids.len())
		n.grow()
		n.ids.set(i, r.ID)
		n.byID.put(&n.ids, i)
		m.New = i
		n.set(i, r, nil)
	}
	n.followOrders(s, m)
	return n, m
}

// followOrders makes n's sort orders from s's, moved by the change m: the
// changed case taken out and put back in its place, the case a delete
// moved renumbered. A pass over each order, where sorting anew costs a
// sort of the corpus. Where s's orders are not made (no list was asked of
// it), n's are not either: they are sorted when a list first needs them,
// not on the path of the change (at a million cases, most of a second).
func (n *Snapshot) followOrders(s *Snapshot, m Moved) {
	if !s.ord.made.Load() {
		return
	}
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
	cases := n.ids.len()
	n.ord.byID, n.ord.idA = moveOrder(s.ord.byID, m, byID, cases)
	n.ord.byDateDesc, n.ord.dateDesc = moveOrder(s.ord.byDateDesc, m, dateDesc, cases)
	n.ord.byDateAsc, n.ord.dateAsc = moveOrder(s.ord.byDateAsc, m, dateAsc, cases)
	n.ord.once.Do(func() { n.ord.made.Store(true) }) // made: ranks has nothing to do
}

// moveOrder returns an order (rank -> case) and its ranks (case -> rank)
// after the change m, from the order before it; cmp sorts the cases after.
func moveOrder(old []int32, m Moved, cmp func(a, b int32) int, cases int) (perm, rank []int32) {
	perm = make([]int32, 0, cases)
	for _, c := range old {
		if c == m.Old {
			continue
		}
		if m.New < 0 && c == m.From {
			c = m.Old
		}
		perm = append(perm, c)
	}
	if m.New >= 0 {
		at := sort.Search(len(perm), func(i int) bool { return cmp(perm[i], m.New) > 0 })
		perm = slices.Insert(perm, at, m.New)
	}
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
func (s *Snapshot) set(i int32, r *ilgraph.CaseFeatures, before []int32) {
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
			id = s.newFeature(f)
		}
		if !slices.Contains(fs, id) {
			fs = append(fs, id)
		}
		if f.Kind == ilgraph.KindOrg && s.orgTerms != nil {
			if _, known := s.orgTerms[f.ID]; !known {
				s.orgTerms = maps.Clone(s.orgTerms)
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
			s.postings[f] = withCase(s.postings[f], i)
		}
	}
	for _, f := range before {
		if _, has := slices.BinarySearch(after, f); !has {
			s.postings[f] = withoutCase(s.postings[f], i)
		}
	}
}

// remove deletes case i: the last case takes its number.
func (s *Snapshot) remove(i int32, m *Moved) {
	last := int32(s.ids.len() - 1)
	for _, f := range s.feats.Sorted(i) {
		s.postings[f] = withoutCase(s.postings[f], i)
	}
	if i != last {
		m.From = last
		for _, f := range s.feats.Sorted(last) {
			s.postings[f] = withCase(withoutCase(s.postings[f], last), i)
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

// newFeature numbers a feature no case had, copying what numbers features.
func (s *Snapshot) newFeature(f ilgraph.Feature) int32 {
	id := int32(len(s.features))
	s.featID = maps.Clone(s.featID)
	s.featID[f] = id
	s.features = append(slices.Clip(s.features), f)
	s.postings = append(s.postings, nil)
	k := kindIndex(f.Kind)
	s.slot = append(slices.Clip(s.slot), int32(s.perKind[k]))
	s.fkind = append(slices.Clip(s.fkind), int8(k))
	s.perKind[k]++
	return id
}

// withCase returns a new ascending list: l with c.
func withCase(l []int32, c int32) []int32 {
	at, found := slices.BinarySearch(l, c)
	if found {
		return l
	}
	out := make([]int32, len(l)+1)
	copy(out, l[:at])
	out[at] = c
	copy(out[at+1:], l[at:])
	return out
}

// withoutCase returns a new ascending list: l without c.
func withoutCase(l []int32, c int32) []int32 {
	at, found := slices.BinarySearch(l, c)
	if !found {
		return l
	}
	out := make([]int32, 0, len(l)-1)
	out = append(out, l[:at]...)
	return append(out, l[at+1:]...)
}
