package graph

import (
	"context"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
)

// Incremental similarity write-back (see similarity.WriteBack). The stored
// links are computed under frozen corpus statistics, a snapshot kept on the
// corpus meta node, so that a load changes only the links of the cases it
// can reach. Each case records what its links were computed from:
//
//   - similar_hash: the content hash of the version of the case they were
//     computed for (a load that changes the case gives it another);
//   - similar_to: the ids of its best cases, best first: those its links
//     point to, then as many again in reserve;
//   - similar_floor: the score of the last of them (absent when they are
//     all the cases scoring above 0 against it);
//   - similar_vec: the case's features and text vector under the snapshot,
//     encoded by the similarity package, so that a write-back need not
//     read every case's tags and analyse every text again.

// SimilarSnapshot is the frozen corpus statistics the stored links follow:
// the number of cases, each feature's document frequency, the text terms in
// use with theirs, and the organization names the text analyser leaves out.
type SimilarSnapshot struct {
	N         int
	Features  []ilgraph.Feature
	FeatureDF []int
	Terms     []string
	TermDF    []int
	Extra     []string
}

// SimilarMeta is what the corpus meta node says about the stored links.
type SimilarMeta struct {
	K       int   // links per case of the last write-back, -1 for none
	Version int64 // the corpus version they were written for
	Dirty   bool  // a write-back began and did not finish
	Cases   int   // cases when they were written
	Drift   int   // cases changed, added or deleted since the snapshot
	// Format is the version of the per-case state's layout (see
	// similarity.StateFormat); 0 before it was recorded.
	Format int
	// Snapshot is nil when there is none (never made, or a full
	// write-back did not finish).
	Snapshot *SimilarSnapshot
}

// ReadSimilarMeta reads the stored links' record from the corpus meta node.
// Without withSnapshot it reads only whether there is a snapshot (Snapshot
// is then empty but for N): the snapshot lists every feature and term.
func (db *DB) ReadSimilarMeta(ctx context.Context, withSnapshot bool) (*SimilarMeta, error) {
	return read(ctx, db, "reading the similarity write-back's record", func(tx neo4j.ManagedTransaction) (*SimilarMeta, error) {
		m := &SimilarMeta{K: -1}
		recs, err := collect(ctx, tx, `MATCH (m:IlgraphMeta {id: 'corpus'})
RETURN coalesce(m.similar_k, -1) AS k, coalesce(m.similar_version, -1) AS version, coalesce(m.similar_dirty, false) AS dirty,
  coalesce(m.similar_cases, 0) AS cases, coalesce(m.similar_drift, 0) AS drift, coalesce(m.similar_format, 0) AS format, m.similar_snap_n AS n,
  CASE WHEN $all THEN m.similar_snap_features END AS features, CASE WHEN $all THEN m.similar_snap_feature_df END AS feature_df,
  CASE WHEN $all THEN m.similar_snap_terms END AS terms, CASE WHEN $all THEN m.similar_snap_term_df END AS term_df,
  CASE WHEN $all THEN m.similar_snap_extra END AS extra`, map[string]any{"all": withSnapshot})
		if err != nil || len(recs) == 0 {
			return m, err
		}
		r := recs[0]
		m.K, m.Version, m.Cases, m.Drift = int(integer(r, "k")), integer(r, "version"), int(integer(r, "cases")), int(integer(r, "drift"))
		m.Format = int(integer(r, "format"))
		m.Dirty, _, _ = neo4j.GetRecordValue[bool](r, "dirty")
		n, isNil, _ := neo4j.GetRecordValue[int64](r, "n")
		if isNil {
			return m, nil
		}
		s := &SimilarSnapshot{N: int(n), Terms: strs(r, "terms"), Extra: strs(r, "extra"),
			FeatureDF: ints(r, "feature_df"), TermDF: ints(r, "term_df")}
		for _, f := range strs(r, "features") {
			kind, id, _ := strings.Cut(f, "\t")
			s.Features = append(s.Features, ilgraph.Feature{Kind: ilgraph.Kind(kind), ID: id})
		}
		if len(s.Features) != len(s.FeatureDF) || len(s.Terms) != len(s.TermDF) {
			return nil, ilgraph.Errorf(ilgraph.EINTERNAL, "the similarity snapshot on the corpus meta node is inconsistent: %d features with %d frequencies, %d terms with %d", len(s.Features), len(s.FeatureDF), len(s.Terms), len(s.TermDF))
		}
		m.Snapshot = s
		return m, nil
	})
}

// BeginSimilarWriteBack marks a write-back as under way, so that one that
// does not finish is noticed by the next (which then recomputes every
// case). A full write-back (dropSnapshot) also removes the snapshot, which
// it is about to replace.
func (db *DB) BeginSimilarWriteBack(ctx context.Context, dropSnapshot bool) (Counters, error) {
	q := "MERGE (m:IlgraphMeta {id: 'corpus'}) SET m.similar_dirty = true"
	if dropSnapshot {
		q += " REMOVE m.similar_snap_n, m.similar_snap_features, m.similar_snap_feature_df, m.similar_snap_terms, m.similar_snap_term_df, m.similar_snap_extra"
	}
	return write(ctx, db, "recording the similarity write-back", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, q, nil)
	})
}

// FinishSimilarWriteBack records a finished write-back: m's k, version,
// case count and drift, and its snapshot when m has one (a nil snapshot
// leaves the stored one as it is).
func (db *DB) FinishSimilarWriteBack(ctx context.Context, m *SimilarMeta) (Counters, error) {
	p := map[string]any{"k": int64(m.K), "version": m.Version, "cases": int64(m.Cases), "drift": int64(m.Drift), "format": int64(m.Format)}
	q := `MERGE (m:IlgraphMeta {id: 'corpus'})
SET m.similar_k = $k, m.similar_version = $version, m.similar_cases = $cases, m.similar_drift = $drift, m.similar_dirty = false,
  m.similar_format = $format`
	if s := m.Snapshot; s != nil {
		features := make([]string, len(s.Features))
		for i, f := range s.Features {
			features[i] = string(f.Kind) + "\t" + f.ID
		}
		p["n"], p["features"], p["feature_df"] = int64(s.N), features, int64s(s.FeatureDF)
		p["terms"], p["term_df"], p["extra"] = nonNil(s.Terms), int64s(s.TermDF), nonNil(s.Extra)
		q += `, m.similar_snap_n = $n, m.similar_snap_features = $features, m.similar_snap_feature_df = $feature_df,
  m.similar_snap_terms = $terms, m.similar_snap_term_df = $term_df, m.similar_snap_extra = $extra`
	}
	return write(ctx, db, "recording the similarity write-back", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, q, p)
	})
}

func int64s(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// CaseSimilarState is what a case records about its stored links.
type CaseSimilarState struct {
	ID string
	// Current is whether its links were computed for the case's version
	// as it is; Hash is the case's content hash (ScanSimilarState reads it
	// only for a case that is not current).
	Hash    string
	Current bool
	// To are the ids of its best cases, best first: its links, then a
	// reserve of the next best (similar_to). Every case not in To ranks
	// below the last of them, whose score is Floor; Floor is -1 when To
	// holds every case that scores above 0 against it.
	To    []string
	Floor float64
	Vec   []byte // the case under the snapshot (see the similarity package)
	// KeepLinks leaves the case's SIMILAR_TO links as they are
	// (ReplaceSimilarOf): only its reserve changed.
	KeepLinks bool
}

// ScanSimilarState calls fn with every case's similarity state, in one
// streaming read: a few hundred bytes per case, no relationship read.
func (db *DB) ScanSimilarState(ctx context.Context, fn func(CaseSimilarState)) error {
	_, err := read(ctx, db, "reading the similarity links' state", func(tx neo4j.ManagedTransaction) (struct{}, error) {
		res, err := tx.Run(ctx, `MATCH (n:Case)
WITH n, coalesce(n.similar_hash = coalesce(n.content_hash, ''), false) AS current
RETURN n.id AS id, current, CASE WHEN current THEN null ELSE coalesce(n.content_hash, '') END AS hash,
  n.similar_to AS similar_to, coalesce(n.similar_floor, -1.0) AS floor, n.similar_vec AS vec`, nil)
		if err != nil {
			return struct{}{}, err
		}
		for res.Next(ctx) {
			r := res.Record()
			st := CaseSimilarState{ID: str(r, "id"), Hash: str(r, "hash"), To: strs(r, "similar_to")}
			st.Current, _, _ = neo4j.GetRecordValue[bool](r, "current")
			st.Floor, _, _ = neo4j.GetRecordValue[float64](r, "floor")
			st.Vec, _, _ = neo4j.GetRecordValue[[]byte](r, "vec")
			fn(st)
		}
		return struct{}{}, res.Err()
	})
	return err
}

// ReplaceSimilarOf replaces the stored links of the cases in states with
// links (all of them from those cases), in batches, and records each
// case's state: Hash as the version the links were computed for (the
// case's current hash when empty), To, Floor, and Vec when it is not nil.
// With clearAll every stored link of every case is removed first (a full
// write-back).
func (db *DB) ReplaceSimilarOf(ctx context.Context, states []CaseSimilarState, links []ilgraph.SimilarLink, clearAll bool, batch int) (Counters, error) {
	var total Counters
	if clearAll {
		c, err := db.ReplaceSimilar(ctx, nil, true, batch)
		total.Add(c)
		if err != nil {
			return total, err
		}
	}
	del := ""
	if !clearAll {
		del = "\nWITH a, row WHERE NOT row.keep\nMATCH (a)-[r:SIMILAR_TO]->()\nDELETE r"
	}
	for i := 0; i < len(states); i += batch {
		part := states[i:min(i+batch, len(states))]
		rows := make([]map[string]any, len(part))
		for j, st := range part {
			row := map[string]any{"id": st.ID, "hash": st.Hash, "to": nonNil(st.To), "floor": st.Floor, "keep": st.KeepLinks}
			if st.Vec != nil {
				row["vec"] = st.Vec
			}
			rows[j] = row
		}
		c, err := write(ctx, db, "recording similarity links' state", func(tx neo4j.ManagedTransaction) (Counters, error) {
			return exec(ctx, tx, `UNWIND $rows AS row
MATCH (a:Case {id: row.id})
SET a.similar_hash = CASE WHEN row.hash = '' THEN coalesce(a.content_hash, '') ELSE row.hash END,
  a.similar_to = row.to, a.similar_floor = CASE WHEN row.floor < 0 THEN null ELSE row.floor END,
  a.similar_vec = coalesce(row.vec, a.similar_vec)
REMOVE a.similar_n, a.similar_kth`+del, map[string]any{"rows": rows})
		})
		if err != nil {
			return total, err
		}
		total.Add(c)
	}
	c, err := db.ReplaceSimilar(ctx, links, false, batch)
	total.Add(c)
	return total, err
}
