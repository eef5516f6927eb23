// Package similarity is the similarity service's in-memory index: an inverted
// index from features to cases that ranks the cases most like a case or an
// ad-hoc profile by the weighted Jaccard index defined in the ilgraph
// package (ilgraph.Score), touching only the cases that share a feature with
// the query.
package similarity

import (
	"container/heap"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

// kinds in a fixed order; kindIndex maps a kind to its slot.
var kinds = ilgraph.AllKinds

func kindIndex(k ilgraph.Kind) int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return -1
}

const nKinds = 7

// Index is immutable once built; it is safe for concurrent use.
type Index struct {
	ids      []string
	byID     map[string]int32
	date     []int32 // days since 1970-01-01
	severity []string
	machine  []bool // Case.MachineTagged
	// Case.Bilingual and Case.Reviewed, counted by Stats.
	bilingual, reviewed []bool
	org                 []int32 // feature id of each case's organization, -1 if none
	resolved            []int32 // minutes to resolve, -1 when the case does not say
	year                []int16
	tags                [][]int32 // case -> its feature ids in the case's own order
	orgName             []int32   // case -> its organization's name as it gives it, in names
	names               []string
	orgTerms            map[string]string // organization id -> name, when the store has them
	slot                []int32           // feature id -> its position among its kind's features
	perKind             [nKinds]int       // features of each kind

	features []ilgraph.Feature         // by feature id
	featID   map[ilgraph.Feature]int32 // feature -> id
	postings [][]int32                 // feature id -> cases with it, ascending
	rarity   []float64                 // feature id -> ilgraph.Rarity factor
	caseFeat [][]int32                 // case -> its feature ids, ascending
	count    [][nKinds]float64         // case -> number of features per kind
	rare     [][nKinds]float64         // case -> summed rarity factors per kind

	// The text channel (see text.go): each case's text vector by term id,
	// and the same as postings: term id -> the cases with the term and its
	// weight.
	terms    []string       // term id -> term
	textVec  [][]termWeight // case -> its terms by term id
	textPost [][]termWeight // term id -> cases (in Case) with weights, ascending

	// The corpus statistics the weights follow: rarityN is the N of the
	// rarity factors (the number of cases, or a snapshot's); textStats are
	// the text vectors' statistics when the index computed them itself.
	rarityN   int
	textStats TextStats

	scratch sync.Pool // *scratch, one per concurrent query
	ord     orders    // sort orders of the read model (readmodel.go)

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

// builder makes an index one case at a time, as the cases are read: it
// keeps what the index keeps of a case and hands its text to the analysis
// at once, so that a build never holds every row, nor every text.
type builder struct {
	ix      *Index
	snap    *graph.SimilarSnapshot
	names   map[string]int32
	sev     map[string]string // interned severities
	text    *textAnalyser
	extra   []string // the organization names the analysis leaves out
	ordered orgNamesInOrder
}

// newBuilder starts an index. Its text analysis leaves out the names extra
// (the rows' organizations' name parts; under a snapshot, the snapshot's).
func newBuilder(version int64, snap *graph.SimilarSnapshot, extra []string) *builder {
	b := &builder{
		ix:    &Index{byID: map[string]int32{}, featID: map[ilgraph.Feature]int32{}, Version: version, Built: time.Now()},
		snap:  snap,
		names: map[string]int32{},
		sev:   map[string]string{},
		extra: extra,
	}
	if snap != nil {
		for _, f := range snap.Features {
			b.ix.addFeature(f)
		}
		b.extra = textStatsOf(snap).Extra
	}
	b.text = newTextAnalyser(b.extra)
	return b
}

// add adds the next case.
func (b *builder) add(r ilgraph.CaseFeatures) {
	ix := b.ix
	i := int32(len(ix.ids))
	ix.ids = append(ix.ids, r.ID)
	ix.byID[r.ID] = i
	sev, ok := b.sev[r.Severity]
	if !ok {
		sev = r.Severity
		b.sev[sev] = sev
	}
	ix.severity = append(ix.severity, sev)
	ix.machine = append(ix.machine, r.MachineTagged)
	ix.bilingual = append(ix.bilingual, r.Bilingual)
	ix.reviewed = append(ix.reviewed, r.Reviewed)
	resolved := int32(-1)
	if r.Resolved {
		resolved = int32(r.ResolvedMin)
	}
	ix.resolved = append(ix.resolved, resolved)
	var date int32
	var year int16
	if d, err := time.Parse(ilgraph.DateLayout, r.Date); err == nil {
		date, year = int32(d.Unix()/86400), int16(d.Year())
	}
	ix.date = append(ix.date, date)
	ix.year = append(ix.year, year)
	name, ok := b.names[r.Org]
	if !ok {
		name = int32(len(ix.names))
		b.names[r.Org] = name
		ix.names = append(ix.names, r.Org)
		b.ordered.add(r.Org)
	}
	ix.orgName = append(ix.orgName, name)
	fs := make([]int32, 0, len(r.Features))
	for _, f := range r.Features {
		id, ok := ix.featID[f]
		if !ok {
			id = ix.addFeature(f)
		}
		if !slices.Contains(fs, id) {
			fs = append(fs, id)
		}
	}
	ix.tags = append(ix.tags, fs)
	sorted := slices.Clone(fs)
	slices.Sort(sorted)
	ix.caseFeat = append(ix.caseFeat, sorted)
	org := int32(-1)
	for _, f := range sorted {
		ix.postings[f] = append(ix.postings[f], i)
		if ix.features[f].Kind == ilgraph.KindOrg {
			org = f
		}
	}
	ix.org = append(ix.org, org)
	b.text.add(r.Text)
}

// finish completes the index. Without a snapshot, the organization names
// the cases gave must be the names the analysis left out (a load between
// reading those and reading the cases makes them differ): otherwise it
// returns an error, and the index is not to be used.
func (b *builder) finish() (*Index, error) {
	ix := b.ix
	a := b.text.finish()
	if b.snap == nil && !sameSet(b.ordered.names, b.extra) {
		return nil, ilgraph.Errorf(ilgraph.ECONFLICT, "the cases changed while the similarity index read them (their organizations differ from those read before); it is built again on the next request")
	}
	snap := b.snap
	n := len(ix.ids)
	ix.scratch.New = func() any { return &scratch{acc: make([]accum, n)} }
	ix.rarity = make([]float64, len(ix.features))
	ix.rarityN = n
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
	ix.count = make([][nKinds]float64, n)
	ix.rare = make([][nKinds]float64, n)
	for i, fs := range ix.caseFeat {
		for _, f := range fs {
			k := kindIndex(ix.features[f].Kind)
			ix.count[i][k]++
			ix.rare[i][k] += ix.rarity[f]
		}
	}
	var vecs [][]termWeight
	if snap != nil {
		vecs = a.vectorsWith(textStatsOf(snap))
	} else {
		vecs, ix.textStats = a.ownVectors()
		ix.textStats.Extra = b.ordered.names
	}
	ix.buildText(vecs, a.terms)
	return ix, nil
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

// addFeature numbers a feature the index has not seen.
func (ix *Index) addFeature(f ilgraph.Feature) int32 {
	id := int32(len(ix.features))
	ix.featID[f] = id
	ix.features = append(ix.features, f)
	ix.postings = append(ix.postings, nil)
	k := kindIndex(f.Kind)
	ix.slot = append(ix.slot, int32(ix.perKind[k]))
	ix.perKind[k]++
	return id
}

// termWeight is one term of a text vector (Case is the term id in a case's
// vector, the case in a posting list) with its weight. Weights have single
// precision already (see TextVectors), so float32 holds them exactly.
type termWeight struct {
	Case int32
	W    float32
}

// buildText numbers the terms of the text vectors (each ordered by term,
// by term id in terms) in the order the cases first use them, and makes
// their postings.
func (ix *Index) buildText(vecs [][]termWeight, terms []string) {
	ix.textVec = vecs
	termID := make([]int32, len(terms))
	for i := range termID {
		termID[i] = -1
	}
	for i, v := range vecs {
		for j, t := range v {
			id := termID[t.Case]
			if id < 0 {
				id = int32(len(ix.textPost))
				termID[t.Case] = id
				ix.textPost = append(ix.textPost, nil)
				ix.terms = append(ix.terms, terms[t.Case])
			}
			v[j].Case = id
			ix.textPost[id] = append(ix.textPost[id], termWeight{int32(i), t.W})
		}
	}
}

// TextVector returns a case's text vector (nil for an unknown case).
func (ix *Index) TextVector(id string) ilgraph.TextVector {
	i, ok := ix.byID[id]
	if !ok {
		return nil
	}
	v := make(ilgraph.TextVector, len(ix.textVec[i]))
	for _, t := range ix.textVec[i] {
		v[ix.terms[t.Case]] = float64(t.W)
	}
	return v
}

// Len is the number of cases.
func (ix *Index) Len() int { return len(ix.ids) }

// Has reports whether the index has a case.
func (ix *Index) Has(id string) bool { _, ok := ix.byID[id]; return ok }

// Features returns a case's features (nil for an unknown case).
func (ix *Index) Features(id string) []ilgraph.Feature {
	i, ok := ix.byID[id]
	if !ok {
		return nil
	}
	out := make([]ilgraph.Feature, len(ix.caseFeat[i]))
	for j, f := range ix.caseFeat[i] {
		out[j] = ix.features[f]
	}
	return out
}

// weightOf is a feature's weight under the options.
func (ix *Index) weightOf(f ilgraph.Feature, w ilgraph.Weights, rarity bool) float64 {
	v := w[f.Kind]
	if rarity {
		if id, ok := ix.featID[f]; ok {
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
	if opt.K <= 0 || len(ix.ids) == 0 {
		return nil
	}
	flt := ix.compile(opt.Filter)
	h := &topK{k: opt.K}
	qVec, wText := ix.eachScore(query, exclude, opt, func(c int32, score float64) {
		if score < opt.MinScore || !h.wants(score, ix.ids[c]) || !flt.match(ix, c) {
			return
		}
		h.add(scored{c, score, ix.ids[c]})
	})
	out := h.sorted()
	matches := make([]ilgraph.Match, len(out))
	weight := ix.Weight(opt)
	for i, id := range out {
		var v ilgraph.TextVector
		if wText > 0 {
			v = ix.TextVector(id)
		}
		m := ilgraph.ScoreText(query, ix.Features(id), weight, wText, qVec, v)
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
	id := ix.ids[x]
	wText := opt.Weights[ilgraph.WeightText]
	var qVec ilgraph.TextVector
	if wText > 0 && len(ix.textVec[x]) > 0 {
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
// feature or text with the query, and its ranking score. The text channel
// counts when it has a weight and exclude is a case with text (a stored
// case's query); eachScore returns that case's text vector and the text
// weight in use (0 when the channel is off).
func (ix *Index) eachScore(query []ilgraph.Feature, exclude string, opt ilgraph.SimilarityOptions, fn func(c int32, score float64)) (ilgraph.TextVector, float64) {
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
		qw += w
		if id, ok := ix.featID[f]; ok && w > 0 {
			qs = append(qs, qf{id, w})
		}
	}
	excl := int32(-1)
	if i, ok := ix.byID[exclude]; ok {
		excl = i
	}
	// The text channel is on when it has a weight and the query has text.
	wText := opt.Weights[ilgraph.WeightText]
	var qText []termWeight
	var qVec ilgraph.TextVector
	if excl >= 0 && wText > 0 && len(ix.textVec[excl]) > 0 {
		qText, qVec = ix.textVec[excl], ix.TextVector(exclude)
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
	for _, q := range qText {
		for _, p := range ix.textPost[q.Case] {
			if acc[p.Case] == (accum{}) {
				touched = append(touched, p.Case)
			}
			acc[p.Case].cos += float64(q.W) * float64(p.W)
		}
	}
	defer func() {
		for _, c := range touched {
			acc[c] = accum{}
		}
		sc.touched = touched
	}()
	wk := kindWeights(opt)
	for _, c := range touched {
		shared, cos := acc[c].shared, acc[c].cos
		if c == excl || shared <= 0 && cos <= 0 {
			continue
		}
		cw := ix.ownWeight(c, &wk, opt.Rarity)
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
			w += wk[k] * ix.count[c][k]
		}
	}
	return w
}

// scratch is the per-query working memory, reused across queries.
type scratch struct {
	acc     []accum
	touched []int32
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

// wants reports whether a candidate could enter the top k (cheap, before
// the filter is checked).
func (h *topK) wants(score float64, id string) bool {
	return len(h.xs) < h.k || worse(h.xs[0], scored{score: score, id: id})
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
