package similarity

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// WriteBackResult says what a write-back did.
type WriteBackResult struct {
	Links          int // SIMILAR_TO relationships written (0: left as they were, or k is 0)
	graph.Counters     // what the writes changed
	// Recomputed is how many cases' links were recomputed: all of them, or
	// (Incremental) only those a load can have changed.
	Recomputed  int
	Incremental bool
	// Ranked is how many of the recomputed cases an incremental
	// write-back ranked over the whole corpus; the others' new links
	// came from merging their stored ones with the changed cases.
	Ranked int
	// Why says why a write-back recomputed every case ("" when it did
	// not, or did nothing).
	Why string
	// Phases times the steps of the write-back, in order, for benchmarks.
	Phases []Phase
}

// Phase is one timed step of a write-back.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// The stored links follow a snapshot of the corpus statistics (see
// snapshot.go); a write-back recomputes every case, and takes a new
// snapshot, when the corpus has drifted from it:
const (
	// FullRecomputeShare: when the cases changed, added or deleted since
	// the snapshot exceed this share of the snapshot's cases.
	FullRecomputeShare = 0.2
	// MaxCorpusGrowth: when the number of cases differs from the
	// snapshot's by more than this share of it.
	MaxCorpusGrowth = 0.05
)

// WriteBackStore is what the write-back reads and writes: the cases'
// features (as Load reads them, and for the cases a load changed), the
// record of the last write-back with its frozen statistics, each case's
// stored state, and the SIMILAR_TO relationships. graph.DB implements it.
type WriteBackStore interface {
	RowSource
	// SimilarityRowsOf calls fn with the features of the cases named (an
	// unknown id is left out).
	SimilarityRowsOf(ctx context.Context, ids []string, fn func(ilgraph.CaseFeatures)) error
	// ReadSimilarMeta reads the record of the last write-back, with its
	// snapshot of the corpus statistics when withSnapshot.
	ReadSimilarMeta(ctx context.Context, withSnapshot bool) (*graph.SimilarMeta, error)
	// ScanSimilarState calls fn with every case's stored state.
	ScanSimilarState(ctx context.Context, fn func(graph.CaseSimilarState)) error
	// BeginSimilarWriteBack marks a write-back under way (dropping the
	// stored snapshot when dropSnapshot); FinishSimilarWriteBack records
	// it done.
	BeginSimilarWriteBack(ctx context.Context, dropSnapshot bool) (graph.Counters, error)
	FinishSimilarWriteBack(ctx context.Context, m *graph.SimilarMeta) (graph.Counters, error)
	// ReplaceSimilar replaces the links of the cases named in links (of
	// every case, clearAll); ReplaceSimilarOf does so and stores states.
	ReplaceSimilar(ctx context.Context, links []ilgraph.SimilarLink, clearAll bool, batch int) (graph.Counters, error)
	ReplaceSimilarOf(ctx context.Context, states []graph.CaseSimilarState, links []ilgraph.SimilarLink, clearAll bool, batch int) (graph.Counters, error)
}

// WriteBack stores each case's k most similar cases (the defaults of
// ilgraph.DefaultOptions: default weights with the text channel, rarity
// weighting on) as SIMILAR_TO relationships, replacing the stored ones,
// when the cases changed since the last write-back (casesChanged: the
// caller knows they did, such as a load that wrote a new or changed case;
// the corpus version tells the rest) or k is not the k of the last
// write-back; k = 0 removes them. batch is how many links or cases one
// write transaction holds (default 2000). A load runs it after writing:
// the loader reports whether the cases changed and leaves similarity to
// this package.
//
// The links are computed under the corpus statistics of the last full
// write-back (a snapshot on the corpus meta node), so that after a load
// only the cases it can have changed are recomputed (see affected), with
// the same result as recomputing every case under that snapshot. Every
// case is recomputed, and the snapshot taken again, when there is none,
// when k changed, or when the corpus drifted from it (FullRecomputeShare,
// MaxCorpusGrowth).
func WriteBack(ctx context.Context, db WriteBackStore, k int, casesChanged bool, batch int) (WriteBackResult, error) {
	return writeBack(ctx, db, k, casesChanged, false, batch)
}

// WriteBackAll recomputes every case's k most similar cases and takes a new
// snapshot of the corpus statistics, as WriteBack does when the corpus has
// drifted (ilgraph load --similar-full).
func WriteBackAll(ctx context.Context, db WriteBackStore, k int, batch int) (WriteBackResult, error) {
	return writeBack(ctx, db, k, true, true, batch)
}

func writeBack(ctx context.Context, db WriteBackStore, k int, casesChanged, full bool, batch int) (WriteBackResult, error) {
	var res WriteBackResult
	if batch <= 0 {
		batch = 2000
	}
	start := time.Now()
	phase := func(name string) {
		res.Phases = append(res.Phases, Phase{name, time.Since(start).Seconds()})
		start = time.Now()
	}
	version, err := db.CorpusVersion(ctx)
	if err != nil {
		return res, err
	}
	meta, err := db.ReadSimilarMeta(ctx, false)
	if err != nil {
		return res, err
	}
	current := meta.Version == version && !meta.Dirty && (k == 0 || meta.Snapshot != nil)
	if !full && !casesChanged && current && meta.K == k || k == 0 && meta.K <= 0 && !meta.Dirty {
		return res, nil
	}
	if !full && k > 0 && meta.K == k && !meta.Dirty && meta.Format == StateFormat && meta.Snapshot != nil {
		if meta, err = db.ReadSimilarMeta(ctx, true); err != nil {
			return res, err
		}
	}
	phase("read the write-back's record")
	if k <= 0 {
		cnt, err := db.BeginSimilarWriteBack(ctx, true)
		res.Counters.Add(cnt)
		if err != nil {
			return res, err
		}
		cnt, err = db.ReplaceSimilar(ctx, nil, true, batch)
		res.Counters.Add(cnt)
		if err != nil {
			return res, err
		}
		cnt, err = db.FinishSimilarWriteBack(ctx, &graph.SimilarMeta{K: 0, Version: version})
		res.Counters.Add(cnt)
		return res, err
	}
	switch {
	case full:
		res.Why = "asked for"
	case meta.Snapshot == nil:
		res.Why = "no snapshot of the corpus statistics"
	case meta.K != k:
		res.Why = fmt.Sprintf("k changed from %d to %d", meta.K, k)
	case meta.Dirty:
		res.Why = "the last write-back did not finish"
	case meta.Format != StateFormat:
		res.Why = fmt.Sprintf("the stored state has layout %d, not %d", meta.Format, StateFormat)
	default:
		done, err := incremental(ctx, db, meta, version, k, batch, &res, phase)
		if err != nil || done {
			return res, err
		}
	}
	return res, writeBackFull(ctx, db, version, k, batch, &res, phase)
}

// writeBackFull recomputes every case under the corpus's own statistics
// and stores them as the new snapshot.
func writeBackFull(ctx context.Context, db WriteBackStore, version int64, k, batch int, res *WriteBackResult, phase func(string)) error {
	cnt, err := db.BeginSimilarWriteBack(ctx, true)
	res.Counters.Add(cnt)
	if err != nil {
		return err
	}
	ix, err := Load(ctx, db)
	if err != nil {
		return err
	}
	phase("build the index")
	all := make([]int32, ix.Len())
	for i := range all {
		all[i] = int32(i)
	}
	depth := Depth(k)
	lists := topKOf(ix, all, depth, ilgraph.DefaultOptions(k))
	phase("compute every case's best cases")
	snap := ix.Snapshot()
	states := make([]graph.CaseSimilarState, ix.Len())
	var links []ilgraph.SimilarLink
	for i, c := range ix.frozenCases(snap) {
		states[i] = stateOf(ix.snap.ID(int32(i)), lists[i], depth)
		states[i].Vec = c.encode()
		links = append(links, lists[i][:min(k, len(lists[i]))]...)
	}
	cnt, err = db.ReplaceSimilarOf(ctx, states, links, true, batch)
	res.Counters.Add(cnt)
	if err != nil {
		return err
	}
	res.Links, res.Recomputed = len(links), ix.Len()
	phase("write the links and each case's state")
	cnt, err = db.FinishSimilarWriteBack(ctx, &graph.SimilarMeta{K: k, Version: version, Cases: ix.Len(), Snapshot: snap, Format: StateFormat})
	res.Counters.Add(cnt)
	return err
}

// incremental recomputes the cases a load can have changed, under the
// stored snapshot. It returns false, having written nothing, when the
// corpus drifted too far from the snapshot (res.Why says how).
func incremental(ctx context.Context, db WriteBackStore, meta *graph.SimilarMeta, version int64, k, batch int, res *WriteBackResult, phase func(string)) (bool, error) {
	snap := meta.Snapshot
	// Every case's state: a few hundred bytes each, no tags, no text.
	var states []graph.CaseSimilarState
	if err := db.ScanSimilarState(ctx, func(st graph.CaseSimilarState) { states = append(states, st) }); err != nil {
		return false, err
	}
	phase("read every case's state")
	ids := make([]string, len(states))
	cases := make([]frozenCase, len(states))
	byID := make(map[string]int32, len(states))
	var changed []int32
	var changedIDs []string
	for i, st := range states {
		ids[i], byID[st.ID] = st.ID, int32(i)
		c, ok := decodeFrozen(st.Vec, len(snap.Features), len(snap.Terms))
		if !st.Current || !ok {
			changed = append(changed, int32(i))
			changedIDs = append(changedIDs, st.ID)
			continue
		}
		cases[i] = c
	}
	// A load rewrites a changed case whole, its write-back state with it,
	// so a changed case and a new one look alike here: the drift counts
	// both, and the change in the number of cases (deletions, and the new
	// cases once more: at most twice the cases touched).
	drift := meta.Drift + len(changed) + abs(len(states)-meta.Cases)
	switch {
	case float64(drift) > FullRecomputeShare*float64(snap.N):
		res.Why = fmt.Sprintf("%d cases changed, added or deleted since the snapshot of %d cases (more than %.0f%%)", drift, snap.N, 100*FullRecomputeShare)
		return false, nil
	case math.Abs(float64(len(states)-snap.N)) > MaxCorpusGrowth*float64(snap.N):
		res.Why = fmt.Sprintf("%d cases against %d in the snapshot (more than %.0f%% apart)", len(states), snap.N, 100*MaxCorpusGrowth)
		return false, nil
	}
	cnt, err := db.BeginSimilarWriteBack(ctx, false)
	res.Counters.Add(cnt)
	if err != nil {
		return false, err
	}
	// The changed cases under the snapshot, from their tags and text.
	var rows []ilgraph.CaseFeatures
	if err := db.SimilarityRowsOf(ctx, changedIDs, func(r ilgraph.CaseFeatures) { rows = append(rows, r) }); err != nil {
		return false, err
	}
	featID := make(map[ilgraph.Feature]int32, len(snap.Features))
	for i, f := range snap.Features {
		featID[f] = int32(i)
	}
	termID := make(map[string]int32, len(snap.Terms))
	for i, t := range snap.Terms {
		termID[t] = int32(i)
	}
	nFeat := len(snap.Features)
	vec := map[int32][]byte{}
	for j, c := range frozenOf(rows, snap, featID, termID) {
		i := byID[rows[j].ID]
		cases[i] = c
		vec[i] = c.encode()
	}
	phase("read and analyse the changed cases")
	ix := compactIndex(snap, ids, cases)
	phase("index every case from its stored state")
	isChanged := make([]bool, len(ids))
	for _, c := range changed {
		isChanged[c] = true
	}
	var stale []int32
	floor := make([]float64, len(ids))
	for i, st := range states {
		floor[i] = st.Floor
		for _, to := range st.To {
			if j, ok := byID[to]; !ok || isChanged[j] {
				stale = append(stale, int32(i))
				break
			}
		}
	}
	opt := ilgraph.DefaultOptions(k)
	opt.K = k
	todo, entrants := affected(ix, changed, stale, floor, opt)
	phase("find the affected cases")
	// An unchanged case's best cases are most often its stored ones merged
	// with the changed cases that reach them (mergeTopK); the others are
	// ranked over the whole corpus.
	depth := Depth(k)
	var write []graph.CaseSimilarState
	var links []ilgraph.SimilarLink
	var rank []int32
	for _, x := range todo {
		if isChanged[x] {
			rank = append(rank, x)
			continue
		}
		old := make([]int32, len(states[x].To))
		for j, to := range states[x].To {
			old[j] = -1
			if y, ok := byID[to]; ok {
				old[j] = y
			}
		}
		best, complete, ok := ix.mergeTopK(x, old, floor[x], isChanged, entrants[x], k, depth, opt)
		if !ok {
			rank = append(rank, x)
			continue
		}
		st := graph.CaseSimilarState{ID: ids[x], Hash: states[x].Hash, Floor: -1, KeepLinks: true}
		for _, b := range best {
			st.To = append(st.To, b.id)
		}
		if !complete {
			st.Floor = best[len(best)-1].score
		}
		// The links stay when their cases and (unchanged) scores do.
		for j := 0; j < min(k, len(best)) || j < min(k, len(old)); j++ {
			if j >= len(best) || j >= len(old) || best[j].c != old[j] || isChanged[old[j]] {
				st.KeepLinks = false
				break
			}
		}
		if !st.KeepLinks {
			top := st.To[:min(k, len(st.To))]
			for r, m := range ix.explain(x, top, opt) {
				links = append(links, ilgraph.SimilarLink{From: ids[x], To: m.ID, Score: m.Score, Rank: r + 1})
			}
		}
		write = append(write, st)
	}
	res.Ranked = len(rank)
	for j, list := range topKOf(ix, rank, depth, opt) {
		x := rank[j]
		st := stateOf(ids[x], list, depth)
		st.Hash, st.Vec = states[x].Hash, vec[x]
		write = append(write, st)
		links = append(links, list[:min(k, len(list))]...)
	}
	phase(fmt.Sprintf("recompute them (%d merged, %d ranked)", len(todo)-len(rank), len(rank)))
	cnt, err = db.ReplaceSimilarOf(ctx, write, links, false, batch)
	res.Counters.Add(cnt)
	if err != nil {
		return false, err
	}
	phase("write their links and state")
	m := &graph.SimilarMeta{K: k, Version: version, Cases: len(ids), Drift: drift, Format: StateFormat}
	if len(snap.Features) > nFeat {
		m.Snapshot = snap // features new to it, with frequency 0
	}
	cnt, err = db.FinishSimilarWriteBack(ctx, m)
	res.Counters.Add(cnt)
	res.Links, res.Recomputed, res.Incremental = len(links), len(todo), true
	return true, err
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// StateFormat is the layout of the state the write-back keeps per case
// (graph.CaseSimilarState) and on the meta node; a write-back finding
// another recomputes every case.
const StateFormat = 1

// Depth is how many best cases a case keeps for a write-back of k links
// per case: the k it links to and as many again in reserve, so that a
// load that pushes a few out of a case's top k rarely needs the case
// ranked over the whole corpus again (see mergeTopK).
func Depth(k int) int { return 2 * k }

// stateOf is the state of a case ranked over the corpus: its best cases
// (list, at most depth), and its floor.
func stateOf(id string, list []ilgraph.SimilarLink, depth int) graph.CaseSimilarState {
	st := graph.CaseSimilarState{ID: id, Floor: -1}
	for _, l := range list {
		st.To = append(st.To, l.To)
	}
	if len(list) == depth {
		st.Floor = list[len(list)-1].Score
	}
	return st
}
