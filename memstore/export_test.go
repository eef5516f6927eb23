package memstore

// SetSmallKindMax sets how many terms a kind may have to get bitsets in
// the aggregate index (-1: none, so every aggregate walks the cases) for
// the snapshots built after, until restore.
func SetSmallKindMax(n int) (restore func()) {
	old := smallKindMax
	smallKindMax = n
	return func() { smallKindMax = old }
}

// BuildAggregateIndex makes the snapshot's aggregate index anew (for its
// benchmark): what the first aggregate question after a write costs.
func (s *Snapshot) BuildAggregateIndex() { s.buildAggs() }

// WriteSnapshot and ReadSnapshot are the snapshot's section of the
// snapshot file (persist.go), for the round-trip tests.
var (
	WriteSnapshot = writeSnapshot
	ReadSnapshot  = readSnapshot
)
