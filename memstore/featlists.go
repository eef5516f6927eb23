package memstore

import (
	"slices"

	"github.com/ilgraph/ilgraph/internal/arena"
)

// FeatureLists holds each case's feature ids in an arena, twice: in the
// case's own order (as its tags are listed) and ascending (for merging and
// searching). A case's record is n, then its n ids in its order, then the
// same ascending; the case holds the record's 8-byte position, where two
// slices of its own took 48 bytes, two allocations and two pointers.
type FeatureLists struct{ arena.Column[int32] }

func newFeatureLists() FeatureLists { return FeatureLists{arena.NewColumn[int32]()} }

// featureListsOf makes the lists of cases whose ids, in their order, are
// tags (ascending where sorted is nil).
func featureListsOf(tags, sorted [][]int32) FeatureLists {
	l := newFeatureLists()
	l.At = make([]uint64, 0, len(tags))
	for i, fs := range tags {
		s := fs
		if sorted != nil {
			s = sorted[i]
		}
		l.append(fs, s)
	}
	return l
}

// add writes a case's record: tags, its ids in its order, and the same
// ascending.
func (l *FeatureLists) add(tags, sorted []int32) uint64 {
	return l.Add(1+2*len(tags), func(c []int32) []int32 {
		c = append(c, int32(len(tags)))
		c = append(c, tags...)
		return append(c, sorted...)
	})
}

// append adds a case's lists at the end.
func (l *FeatureLists) append(tags, sorted []int32) { l.At = append(l.At, l.add(tags, sorted)) }

// set makes case i's lists tags and sorted (l.At is the snapshot's own).
func (l *FeatureLists) set(i int32, tags, sorted []int32) { l.At[i] = l.add(tags, sorted) }

// Len is the number of cases.
func (l *FeatureLists) Len() int { return len(l.At) }

// Sorted returns case i's feature ids, ascending. Read only.
func (l *FeatureLists) Sorted(i int32) []int32 {
	c := l.Record(i)
	n := uint32(c[0])
	return c[1+n : 1+2*n : 1+2*n]
}

// tags returns case i's feature ids in the case's own order. Read only.
func (l *FeatureLists) tags(i int32) []int32 {
	c := l.Record(i)
	n := uint32(c[0])
	return c[1 : 1+n : 1+n]
}

// sortedIDs returns a copy of fs, ascending.
func sortedIDs(fs []int32) []int32 {
	sorted := slices.Clone(fs)
	slices.Sort(sorted)
	return sorted
}
