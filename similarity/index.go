// Package similarity ranks the cases most like a case or an ad-hoc profile
// by the weighted Jaccard index defined in the ilgraph package
// (ilgraph.Score), over the in-memory store's corpus snapshot
// (memstore.Snapshot: its inverted index from features to cases), touching
// only the cases that share a feature or a text term with the query; and
// writes the k most similar cases of each back to the graph as SIMILAR_TO
// relationships (WriteBack).
package similarity

import (
	"container/heap"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/memstore"
)

// kinds in a fixed order: a kind's slot in the per-kind sums, as the
// snapshot numbers kinds (memstore.Snapshot.FeatureKinds).
var kinds = ilgraph.AllKinds

const nKinds = 7

// Index ranks over a corpus snapshot (memstore.Snapshot), shared with the
// in-memory store and the suggestion engine: it adds only what ranking
// needs (rarity factors, per-kind sums, the text channel). It is immutable
// once built; it is safe for concurrent use.
type Index struct {
	snap *memstore.Snapshot
	// The snapshot's columns the ranking reads, shared with it (read only).
	features []ilgraph.Feature      // by feature id
	postings [][]int32              // feature id -> cases with it, ascending
	caseFeat *memstore.FeatureLists // case -> its feature ids, ascending (Sorted)

	rarity []float64         // feature id -> ilgraph.Rarity factor
	count  [][nKinds]uint16  // case -> number of features per kind (at most the kind's terms)
	rare   [][nKinds]float64 // case -> summed rarity factors per kind

	// The text channel (see text.go): each case's text vector by term id,
	// and its postings: term id -> the cases with the term, each with a
	// bound of its weight (textPostings).
	terms    []string         // term id -> term
	termID   map[string]int32 // term -> term id, made by the first With
	textVec  vectors          // case -> its terms by term id, coded (vector.go)
	textPost []textPostings   // term id -> the cases with it, ascending

	// The corpus statistics the weights follow: rarityN is the N of the
	// rarity factors (the number of cases, or a snapshot's); textStats are
	// the text vectors' statistics when the index computed them itself.
	rarityN   int
	textStats TextStats
	// textAn analyses a changed case's text (With) with textStats.Extra:
	// made by the first change and shared by the indexes that follow.
	textAn *lazyAnalyzer
	// bits are the common features' bitsets the ranker reads (rank.go).
	bits featureBits

	scratch sync.Pool // *scratch, one per concurrent query

	// The max-score rankers serving SimilarTo, per option set (serve.go).
	rankMu    sync.Mutex
	rankPools map[rankKey]*rankPool

	// Version is the corpus version the index was built from.
	Version int64
	// Built is when the index was built.
	Built time.Time
}

// Build makes an index of rows.
func Build(rows []ilgraph.CaseFeatures, version int64) *Index {
	return build(rows, version, nil)
}

// BuildFrozen makes an index of rows whose weights follow the frozen
// corpus statistics of snap rather than the rows' own (see Snapshot): a
// feature's rarity factor is Rarity(snap.N, its frequency in snap, 0 when
// snap does not have it) and the text vectors are TextVectorsWith the
// snapshot's statistics. Its features are numbered in snap's order first,
// as the stored write-back state numbers them, so that its sums add in the
// same order. It is what the stored similarity links follow.
func BuildFrozen(rows []ilgraph.CaseFeatures, snap *graph.SimilarSnapshot) *Index {
	return build(rows, 0, snap)
}

func build(rows []ilgraph.CaseFeatures, version int64, snap *graph.SimilarSnapshot) *Index {
	var extra []string
	if snap == nil {
		extra = orgNames(rows)
	}
	b := newBuilder(version, snap, extra)
	for _, r := range rows {
		b.add(r)
	}
	ix, _ := b.finish() // the names come from the rows: they agree
	return ix
}

// builder makes a snapshot and its index one case at a time, as the cases
// are read: the snapshot keeps what it keeps of a case and the case's text
// goes to the analysis at once, so that a build never holds every row, nor
// every text.
type builder struct {
	cases *memstore.Builder
	snap  *graph.SimilarSnapshot
	text  *textAnalyser
	extra []string // the organization names the analysis leaves out
}

// newBuilder starts an index. Its text analysis leaves out the names extra
// (the rows' organizations' name parts; under a snapshot, the snapshot's).
func newBuilder(version int64, snap *graph.SimilarSnapshot, extra []string) *builder {
	var frozen []ilgraph.Feature
	if snap != nil {
		frozen = snap.Features
		extra = textStatsOf(snap).Extra
	}
	return &builder{cases: memstore.NewBuilder(version, frozen), snap: snap, extra: extra, text: newTextAnalyser(textAnalyzer(extra))}
}

// add adds the next case.
func (b *builder) add(r ilgraph.CaseFeatures) {
	b.cases.Add(&r)
	b.text.add(r.Text)
}

// finish completes the index. Without a snapshot, the organization names
// the cases gave must be the names the analysis left out (a load between
// reading those and reading the cases makes them differ): otherwise it
// returns an error, and the index is not to be used.
func (b *builder) finish() (*Index, error) {
	a := b.text.finish()
	s := b.cases.Finish()
	given := namePartsOf(s.OrgNamesGiven())
	if b.snap == nil && !sameSet(given, b.extra) {
		return nil, ilgraph.Errorf(ilgraph.ECONFLICT, "the cases changed while the similarity index read them (their organizations differ from those read before); it is built again on the next request")
	}
	return newIndex(s, a, b.snap, given), nil
}

// newIndex makes the ranking structures over a snapshot whose cases' texts
// a has analysed: under the frozen statistics snap, or (snap nil) the
// corpus's own, whose text analysis left out the organization name parts
// given.
func newIndex(s *memstore.Snapshot, a *analysed, snap *graph.SimilarSnapshot, given []string) *Index {
	ix := indexOver(s)
	ix.weighFeatures(snap)
	var n int
	var df []int32
	if snap != nil {
		st := textStatsOf(snap)
		n, df = st.N, a.frozenDF(st)
	} else {
		ix.textStats, df = a.ownStats()
		ix.textStats.Extra = given
		n = ix.textStats.N
	}
	ix.buildText(a, n, df)
	return ix
}

// indexOver starts an index over s: the snapshot's columns it shares, its
// version, and the per-query scratch sized to its cases. A build
// (newIndex) and a load from a snapshot file (persist.go) both start here.
func indexOver(s *memstore.Snapshot) *Index {
	ix := &Index{snap: s, features: s.FeatureList(), postings: s.Postings(), caseFeat: s.CaseFeatureIDs(),
		Version: s.Version, Built: s.Built, textAn: &lazyAnalyzer{}}
	n := ix.snap.Len()
	ix.scratch.New = func() any { return &scratch{acc: make([]accum, n)} }
	return ix
}

// weighFeatures computes the rarity factors and each case's per-kind sums:
// under the frozen statistics snap, or (snap nil) the corpus's own (N its
// number of cases, a feature's df the length of its postings). A build and
// a load (persist.go) both derive them here, so that a loaded index weighs
// every feature as the built one does, to the bit.
func (ix *Index) weighFeatures(snap *graph.SimilarSnapshot) {
	ix.rarity = make([]float64, len(ix.features))
	ix.rarityN = ix.snap.Len()
	var snapDF []int
	if snap != nil {
		ix.rarityN = snap.N
		snapDF = snap.FeatureDF
	}
	for f, p := range ix.postings {
		df := len(p)
		if snap != nil {
			df = 0
			if f < len(snapDF) {
				df = snapDF[f]
			}
		}
		ix.rarity[f] = ilgraph.Rarity(ix.rarityN, df)
	}
	ix.sumKinds()
}

// sumKinds computes each case's count and summed rarity factors per kind.
// Every case's sums are its own, added in the order of its features, so
// the cases are split among the processors with the same result to the
// bit: a change applied to the corpus (With) moves N and so every rarity
// factor, and this pass is most of what a change costs at a million cases.
// A feature's kind is the snapshot's number for it, not its name's.
func (ix *Index) sumKinds() {
	n := ix.snap.Len()
	ix.count = make([][nKinds]uint16, n)
	ix.rare = make([][nKinds]float64, n)
	fk := ix.snap.FeatureKinds()
	part := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c, r := &ix.count[i], &ix.rare[i]
			for _, f := range ix.caseFeat.Sorted(int32(i)) {
				k := fk[f]
				c[k]++
				r[k] += ix.rarity[f]
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(n/sumKindsChunk, 1))
	if workers == 1 {
		part(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { part(n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}

// sumKindsChunk is the fewest cases worth a goroutine of sumKinds.
const sumKindsChunk = 50_000

// namePartsOf are the name parts of organizations' names, in the order
// first named.
func namePartsOf(orgs []string) []string {
	var o orgNamesInOrder
	for _, org := range orgs {
		o.add(org)
	}
	return o.names
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	for _, s := range a {
		if !in[s] {
			return false
		}
		delete(in, s)
	}
	return len(in) == 0
}

// Corpus is the snapshot the index ranks over.
func (ix *Index) Corpus() *memstore.Snapshot { return ix.snap }

// termWeight is one term of a text vector (Case is the term id in a case's
// vector, the case in a posting list) with its weight. Weights have single
// precision already (see TextVectors), so float32 holds them exactly.
type termWeight struct {
	Case int32
	W    float32
}

// buildText weighs the analysed texts (weighEach, under N = n and the
// document frequencies df), numbers their terms in the order the cases
// first use them, codes each vector as it is weighed, and makes the
// postings.
func (ix *Index) buildText(a *analysed, n int, df []int32) {
	termID := make([]int32, len(a.terms))
	for i := range termID {
		termID[i] = -1
	}
	ix.textVec = newVectors(len(a.counts))
	a.weighEach(n, df, func(i int, v []termWeight) {
		for j, t := range v {
			id := termID[t.Case]
			if id < 0 {
				id = int32(len(ix.terms))
				termID[t.Case] = id
				ix.terms = append(ix.terms, a.terms[t.Case])
			}
			v[j].Case = id
		}
		ix.textVec.set(int32(i), v)
	})
	ix.textPost = invertText(&ix.textVec, len(ix.terms))
}

// textPostings are the cases that have one term, ascending, each with an
// upper bound of the term's weight in it (ub, in 255ths: weightUp). The
// postings serve to find the cases that share a term and to bound their
// cosines; an exact cosine reads the cases' vectors (cosine), which hold
// the weights. A bound in one byte rather than the weight in four keeps
// the postings at 5 bytes a case and term instead of 8, and their walk
// reads no more than before.
type textPostings struct {
	cases []int32
	ub    []uint8
	top   uint8 // the largest of ub (0 for no cases): the term's weight is at most ubWeight[top] in any case
}

// topOf is the largest of ub, 0 for none.
func topOf(ub []uint8) uint8 {
	var q uint8
	for _, u := range ub {
		q = max(q, u)
	}
	return q
}

// ubWeight[q] is the upper bound a posting's ub q stands for: the
// smallest float32 at or above q/255.
var ubWeight = func() (t [256]float32) {
	for q := range t {
		v := float64(q) / 255
		f := float32(v)
		if float64(f) < v {
			f = math.Nextafter32(f, 2)
		}
		t[q] = f
	}
	return t
}()

// weightUp is the least q with ubWeight[q] ≥ w, for a weight in [0, 1]
// (a text vector has norm 1, so none of its weights is above 1).
func weightUp(w float32) uint8 {
	q := int(math.Ceil(float64(w) * 255))
	q = min(max(q, 0), 255)
	for q > 0 && ubWeight[q-1] >= w {
		q--
	}
	for q < 255 && ubWeight[q] < w {
		q++
	}
	return uint8(q)
}

// invertText makes the text postings of the vectors vecs, whose term ids
// are below nTerms: term id -> the cases with the term, ascending, each
// with the bound of the term's weight in it (empty for a term no case has,
// and no lists at all without terms). A build (buildText) and a load
// (persist.go) both invert here. It counts each term's cases first and
// then fills the lists, all pieces of two allocations, each capped at its
// length: the lists that growing each by append makes, bar their
// capacities, in two passes rather than a reallocation per doubling of
// every list (a change copies a list before it writes it: textEditor).
func invertText(vecs *vectors, nTerms int) []textPostings {
	if nTerms == 0 {
		return nil
	}
	count := make([]int, nTerms)
	total := 0
	for c := range vecs.len() {
		v := vecs.get(int32(c))
		for i := 0; i < len(v); {
			id, _, j := v.next(i)
			count[id]++
			total++
			i = j
		}
	}
	cases, ub := make([]int32, total), make([]uint8, total)
	post := make([]textPostings, nTerms)
	at := 0
	for id, c := range count {
		if c > 0 {
			post[id] = textPostings{cases: cases[at : at : at+c], ub: ub[at : at : at+c]}
			at += c
		}
	}
	for c := range vecs.len() {
		v := vecs.get(int32(c))
		for i := 0; i < len(v); {
			id, w, j := v.next(i)
			p := &post[id]
			u := weightUp(w)
			p.cases = append(p.cases, int32(c))
			p.ub = append(p.ub, u)
			p.top = max(p.top, u)
			i = j
		}
	}
	return post
}

// boundCosines adds to acc[c].cos, for every case c with a term of the
// query vector qv, an upper bound of its cosine with qv from the postings —
// the same products in the same order, each weight rounded up: IEEE sums
// and products are monotone, so the bound is never below the exact sum
// (cosine), which is read from the vectors for the cases the bound does
// not rule out. It appends the cases whose sums were all zero to touched.
func (ix *Index) boundCosines(qv []termWeight, acc []accum, touched []int32) []int32 {
	for _, q := range qv {
		post := ix.textPost[q.Case]
		ub := post.ub[:len(post.cases)]
		for j, c := range post.cases {
			if acc[c] == (accum{}) {
				touched = append(touched, c)
			}
			acc[c].cos += float64(q.W) * float64(ubWeight[ub[j]])
		}
	}
	return touched
}

// exactCosine is the cosine of case c with the query vector qv, given the
// sums the postings made for c (boundCosines): 0 when c shares no term,
// and ok false when skip rules c out by the bound of its score (the query's
// and c's own tag weights qw and cw, the text weight wText).
func (ix *Index) exactCosine(qv []termWeight, c int32, sums accum, qw, cw, wText float64, skip func(int32, float64) bool, yw []float32) (cos float64, ok bool) {
	if sums.cos == 0 {
		return 0, true
	}
	if skip != nil && skip(c, ilgraph.RoundScore(ilgraph.JaccardRatio(sums.shared, qw, cw, wText, sums.cos))) {
		return 0, false
	}
	return ix.cosine(qv, c, yw), true
}

// cosine is the text cosine of the vector xv (a query's) with case c's:
// Σ q.W × (c's weight of q's term) over xv in its order, a term c lacks
// adding +0 — the sum, to the bit, that adding each shared term's product
// in xv's order makes. yw is a dense scratch by term id, all zero on entry
// and on return.
func (ix *Index) cosine(xv []termWeight, c int32, yw []float32) float64 {
	// c's terms scattered into yw, their ids kept to clear it after.
	vy := ix.textVec.get(c)
	var idBuf [MaxTextTerms]int32
	ids := idBuf[:0]
	for i := 0; i < len(vy); {
		id, w, j := vy.next(i)
		yw[id], i = w, j
		ids = append(ids, id)
	}
	var cos float64
	for _, q := range xv {
		cos += float64(q.W) * float64(yw[q.Case])
	}
	for _, id := range ids {
		yw[id] = 0
	}
	return cos
}

// TextVector returns a case's text vector (nil for an unknown case).
func (ix *Index) TextVector(id string) ilgraph.TextVector {
	i, ok := ix.snap.Number(id)
	if !ok {
		return nil
	}
	tv := ix.textVec.get(i)
	v := make(ilgraph.TextVector, tv.count())
	for j := 0; j < len(tv); {
		var t termWeight
		t.Case, t.W, j = tv.next(j)
		v[ix.terms[t.Case]] = float64(t.W)
	}
	return v
}

// Len is the number of cases.
func (ix *Index) Len() int { return ix.snap.Len() }

// Has reports whether the index has a case.
func (ix *Index) Has(id string) bool { return ix.snap.Has(id) }

// Features returns a case's features (nil for an unknown case).
func (ix *Index) Features(id string) []ilgraph.Feature { return ix.snap.Features(id) }

// weightOf is a feature's weight under the options.
func (ix *Index) weightOf(f ilgraph.Feature, w ilgraph.Weights, rarity bool) float64 {
	v := w[f.Kind]
	if rarity {
		if id, ok := ix.snap.FeatureID(f); ok {
			v *= ix.rarity[id] // computed once at build
		} else {
			v *= ilgraph.Rarity(ix.rarityN, 0) // a term no case has
		}
	}
	return v
}

// Weight returns the weight function the options define, for explanations
// and brute-force checks.
func (ix *Index) Weight(opt ilgraph.SimilarityOptions) func(ilgraph.Feature) float64 {
	return func(f ilgraph.Feature) float64 { return ix.weightOf(f, opt.Weights, opt.Rarity) }
}

// Similar ranks the cases most like the query features, leaving out the case
// named exclude (the queried case itself). When exclude names a case of the
// index, that case's text is the query's text for the text channel (see
// ilgraph.ScoreText); a profile (exclude "") has no text. It returns at
// most opt.K matches with a positive score of at least opt.MinScore that
// pass opt.Filter (whose Text must already be resolved into IDs), by score
// descending then id ascending, each with its explanation.
func (ix *Index) Similar(query []ilgraph.Feature, exclude string, opt ilgraph.SimilarityOptions) []ilgraph.Match {
	return ix.similar(query, nil, exclude, opt)
}

// SimilarToProfile is Similar for a profile (no query case, no text) whose
// features are held with a confidence: member(f) in (0, 1] (nil: all in
// full), scored by ilgraph.ScoreProfile (each counts with
// ilgraph.ConfidenceWeight of it).
func (ix *Index) SimilarToProfile(query []ilgraph.Feature, member func(ilgraph.Feature) float64, opt ilgraph.SimilarityOptions) []ilgraph.Match {
	return ix.similar(query, member, "", opt)
}

func (ix *Index) similar(query []ilgraph.Feature, member func(ilgraph.Feature) float64, exclude string, opt ilgraph.SimilarityOptions) []ilgraph.Match {
	if opt.K <= 0 || ix.snap.Len() == 0 {
		return nil
	}
	flt := ix.snap.Compile(opt.Filter)
	h := &topK{k: opt.K}
	// A case whose score cannot reach the heap, or that the filter leaves
	// out, is not scored exactly.
	left := func(c int32, score float64) bool {
		return score < opt.MinScore || !h.wants(score, c, ix.snap) || !flt.Match(c)
	}
	qVec, wText := ix.eachScore(query, member, exclude, opt, left, func(c int32, score float64) {
		if !left(c, score) {
			h.add(scored{c, score, ix.snap.ID(c)})
		}
	})
	out := h.sorted()
	matches := make([]ilgraph.Match, len(out))
	weight := ix.Weight(opt)
	for i, id := range out {
		var v ilgraph.TextVector
		if wText > 0 {
			v = ix.TextVector(id)
		}
		m := ilgraph.ScoreProfile(query, member, ix.Features(id), weight, wText, qVec, v)
		m.ID = id
		// The explanation's score is the definition's, computed afresh; it
		// equals the ranking score (both rounded).
		matches[i] = m
	}
	return matches
}

// explain returns the matches Similar returns for the stored case x when
// its ranking gives ids.
func (ix *Index) explain(x int32, ids []string, opt ilgraph.SimilarityOptions) []ilgraph.Match {
	id := ix.snap.ID(x)
	wText := opt.Weights[ilgraph.WeightText]
	var qVec ilgraph.TextVector
	if wText > 0 && len(ix.textVec.get(x)) > 0 {
		qVec = ix.TextVector(id)
	} else {
		wText = 0
	}
	query, weight := ix.Features(id), ix.Weight(opt)
	matches := make([]ilgraph.Match, len(ids))
	for i, m := range ids {
		var v ilgraph.TextVector
		if wText > 0 {
			v = ix.TextVector(m)
		}
		matches[i] = ilgraph.ScoreText(query, ix.Features(m), weight, wText, qVec, v)
		matches[i].ID = m
	}
	return matches
}

// eachScore calls fn with every case (but exclude) that shares a weighted
// feature or text with the query, and its ranking score, but for the cases
// that share text and for which skip (when not nil) is true of an upper
// bound of their score: those it may leave out without scoring them
// exactly. The text channel counts when it has a weight and exclude is a
// case with text (a stored case's query); eachScore returns that case's
// text vector and the text weight in use (0 when the channel is off).
func (ix *Index) eachScore(query []ilgraph.Feature, member func(ilgraph.Feature) float64, exclude string, opt ilgraph.SimilarityOptions, skip func(c int32, ub float64) bool, fn func(c int32, score float64)) (ilgraph.TextVector, float64) {
	// The query's distinct features with their weights.
	seen := map[ilgraph.Feature]bool{}
	var qw float64
	type qf struct {
		id int32
		w  float64
	}
	var qs []qf
	for _, f := range query {
		if seen[f] {
			continue
		}
		seen[f] = true
		w := ix.weightOf(f, opt.Weights, opt.Rarity)
		if member != nil {
			// A feature held with confidence c weighs w·m, m =
			// ConfidenceWeight(c), on the query's side; the union qw + cw −
			// shared then counts w for a shared one, as
			// ilgraph.ScoreProfile does.
			w *= ilgraph.ConfidenceWeight(member(f))
		}
		qw += w
		if id, ok := ix.snap.FeatureID(f); ok && w > 0 {
			qs = append(qs, qf{id, w})
		}
	}
	excl := int32(-1)
	if i, ok := ix.snap.Number(exclude); ok {
		excl = i
	}
	// The text channel is on when it has a weight and the query has text.
	wText := opt.Weights[ilgraph.WeightText]
	var qText []termWeight
	var qVec ilgraph.TextVector
	if excl >= 0 && wText > 0 && len(ix.textVec.get(excl)) > 0 {
		qText, qVec = ix.textVec.get(excl).terms(nil), ix.TextVector(exclude)
	} else {
		wText = 0
	}
	// Dense accumulators: shared weight and text cosine per case, and the
	// cases touched.
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	acc, touched := sc.acc, sc.touched[:0]
	for _, q := range qs {
		for _, c := range ix.postings[q.id] {
			if acc[c] == (accum{}) {
				touched = append(touched, c)
			}
			acc[c].shared += q.w
		}
	}
	// Bounds of the cosines; the exact ones below, where they count.
	touched = ix.boundCosines(qText, acc, touched)
	defer func() {
		for _, c := range touched {
			acc[c] = accum{}
		}
		sc.touched = touched
	}()
	yw := sc.termScratch(len(ix.textPost))
	wk := kindWeights(opt)
	for _, c := range touched {
		if c == excl {
			continue
		}
		shared, cw := acc[c].shared, ix.ownWeight(c, &wk, opt.Rarity)
		cos, ok := ix.exactCosine(qText, c, acc[c], qw, cw, wText, skip, yw)
		if !ok || shared <= 0 && cos <= 0 {
			continue
		}
		fn(c, ilgraph.RoundScore(ilgraph.JaccardRatio(shared, qw, cw, wText, cos)))
	}
	return qVec, wText
}

// kindWeights are the options' weights of the tag kinds, in kinds order.
func kindWeights(opt ilgraph.SimilarityOptions) [nKinds]float64 {
	var wk [nKinds]float64
	for i, k := range kinds {
		wk[i] = opt.Weights[k]
	}
	return wk
}

// ownWeight is case c's own tag weight under the kind weights wk: per kind,
// its weight times c's summed rarity factors (rarity on) or c's count of
// features of that kind. Every way of scoring (eachScore, the reverse
// scores of the write-back, the max-score ranker) takes a score's
// denominator from here, adding in this order, so that they agree to the
// bit.
func (ix *Index) ownWeight(c int32, wk *[nKinds]float64, rarity bool) float64 {
	var w float64
	for k := 0; k < nKinds; k++ {
		if rarity {
			w += wk[k] * ix.rare[c][k]
		} else {
			w += wk[k] * float64(ix.count[c][k])
		}
	}
	return w
}

// scratch is the per-query working memory, reused across queries.
type scratch struct {
	acc     []accum
	touched []int32
	yw      []float32 // term id -> a case's weight (cosine's scratch)
}

// termScratch is sc.yw, all zero, with at least n terms.
func (sc *scratch) termScratch(n int) []float32 {
	if len(sc.yw) < n {
		sc.yw = make([]float32, n)
	}
	return sc.yw
}

// accum is one case's running sums: shared tag weight and text cosine.
type accum struct{ shared, cos float64 }

type scored struct {
	c     int32
	score float64
	id    string
}

// topK keeps the k best by score descending, id ascending.
type topK struct {
	k  int
	xs []scored // a min-heap: the worst kept at xs[0]
}

func worse(a, b scored) bool { // a ranks below b
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

func (h *topK) Len() int           { return len(h.xs) }
func (h *topK) Less(i, j int) bool { return worse(h.xs[i], h.xs[j]) }
func (h *topK) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *topK) Push(x any)         { h.xs = append(h.xs, x.(scored)) }
func (h *topK) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

// wants reports whether case c, of the snapshot s, could enter the top k
// with its score (cheap, before the filter is checked): its id is read only
// when the score ties the heap's last.
func (h *topK) wants(score float64, c int32, s *memstore.Snapshot) bool {
	if len(h.xs) < h.k {
		return true
	}
	if last := h.xs[0]; last.score != score {
		return last.score < score
	}
	return h.xs[0].id > s.ID(c)
}

func (h *topK) add(s scored) {
	if len(h.xs) < h.k {
		heap.Push(h, s)
		return
	}
	if worse(h.xs[0], s) {
		h.xs[0] = s
		heap.Fix(h, 0)
	}
}

func (h *topK) sorted() []string {
	xs := slices.Clone(h.xs)
	sort.Slice(xs, func(i, j int) bool { return worse(xs[j], xs[i]) })
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.id
	}
	return out
}

// TopKAll computes every case's k most similar cases, on every core, for
// storing in the graph. opt.K is replaced by k.
func TopKAll(ix *Index, k int, opt ilgraph.SimilarityOptions) []ilgraph.SimilarLink {
	all := make([]int32, ix.Len())
	for i := range all {
		all[i] = int32(i)
	}
	var out []ilgraph.SimilarLink
	for _, ls := range topKOf(ix, all, k, opt) {
		out = append(out, ls...)
	}
	return out
}
