package memstore

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ilgraph/ilgraph"
)

// The aggregate index: what the dashboard questions (statistics, facets,
// co-occurrence, breakdown) count with, made once per snapshot on first
// use. A snapshot is immutable and With makes a new one (with no index),
// so an index never outlives the cases it was made from.
//
// Cases are laid out in "positions": every case by its minutes to resolve
// (cases that do not say first), then by number. Each term of a small kind
// (at most smallKindMax terms: root causes, components, factors, domains,
// symptoms, mechanisms; not organizations) has a bitset over positions,
// and a selection is a bitset over positions too. So a term's count in a
// selection is a popcount of an AND, a pair's count a popcount of a
// three-way AND, and the minutes of a term's selected cases come out
// sorted by walking the set bits in order (the quantiles need them sorted).
// Terms of large kinds (organizations) are counted from their posting
// lists, each case looked up in the selection's bitset.
//
// At 100,000 cases a bitset is 12.5 kB; the ~135 small-kind terms of the
// generated corpus take 1.7 MB (17 B a case), where walking every selected
// case's feature list cost a cache miss or more per case (see
// docs/benchmarks.md).

// smallKindMax is the number of terms up to which a kind's terms get
// bitsets (a variable so that a test can turn the index off).
var smallKindMax = 64

type aggIndex struct {
	n, words int
	pos      []int32 // case -> position
	minAt    []int32 // position -> minutes to resolve (-1: not said)
	yearAt   []int16 // position -> year
	dateAt   []int32 // position -> days since 1970-01-01
	// measured is the first position whose case gives its minutes.
	measured int
	small    [nKinds]bool
	bits     [][]uint64 // feature id -> its cases' positions (nil unless its kind is small)
	// idOrder is every feature id by kind, then term id: lists built in
	// this order need only a stable sort by count.
	idOrder []int32
	// orgAt is, by position, the case's organization term (-1: none),
	// when no case has two (nil otherwise).
	orgAt               []int32
	ones                []uint64 // every position
	bilingual, reviewed []uint64
	years               []ilgraph.YearCount // of every case
	// minYear is the least year of a case; a count per year is a slice
	// from it.
	minYear, nYears int
	// The time axes of the breakdown, made on first use (yearIdx,
	// monthIdx).
	yearOnce, monthOnce sync.Once
	yearAtIdx, monthAt  []int32
	minMonth, nMonths   int
}

type aggOnce struct {
	once sync.Once
	ix   *aggIndex
}

// aggs returns the snapshot's aggregate index, made on first use.
func (s *Snapshot) aggs() *aggIndex {
	s.agg.once.Do(func() { s.agg.ix = s.buildAggs() })
	return s.agg.ix
}

func (s *Snapshot) buildAggs() *aggIndex {
	n := s.ids.len()
	words := (n + 63) / 64
	x := &aggIndex{n: n, words: words}
	// Sorted as one key per case, minutes (offset to be unsigned) above
	// the case number: a sort of integers, with no comparison function.
	keys := make([]uint64, n)
	for c, m := range s.resolved {
		keys[c] = uint64(int64(m)-math.MinInt32)<<32 | uint64(c)
	}
	slices.Sort(keys)
	caseAt := make([]int32, n) // position -> case
	for p, k := range keys {
		caseAt[p] = int32(uint32(k))
	}
	x.pos = make([]int32, n)
	x.minAt = make([]int32, n)
	x.yearAt = make([]int16, n)
	x.dateAt = make([]int32, n)
	x.measured = n
	x.ones = make([]uint64, words)
	x.bilingual, x.reviewed = make([]uint64, words), make([]uint64, words)
	if n > 0 {
		lo, hi := slices.Min(s.year), slices.Max(s.year)
		x.minYear, x.nYears = int(lo), int(hi)-int(lo)+1
	}
	years := make([]int, x.nYears)
	for p, c := range caseAt {
		x.pos[c] = int32(p)
		x.minAt[p], x.yearAt[p], x.dateAt[p] = s.resolved[c], s.year[c], s.date[c]
		if s.resolved[c] >= 0 && x.measured == n {
			x.measured = p
		}
		setBit(x.ones, p)
		if s.bilingual[c] {
			setBit(x.bilingual, p)
		}
		if s.reviewed[c] {
			setBit(x.reviewed, p)
		}
		years[int(s.year[c])-x.minYear]++
	}
	x.years = x.yearList(years)
	for k := range kinds {
		x.small[k] = s.perKind[k] <= smallKindMax
	}
	x.idOrder = make([]int32, len(s.features))
	for i := range x.idOrder {
		x.idOrder[i] = int32(i)
	}
	slices.SortFunc(x.idOrder, func(a, b int32) int {
		if c := cmp.Compare(s.fkind[a], s.fkind[b]); c != 0 {
			return c
		}
		return strings.Compare(s.features[a].ID, s.features[b].ID)
	})
	orgs, withOrg := 0, 0
	for fid, l := range s.postings {
		if s.fkind[fid] == kOrg {
			orgs += len(l)
		}
	}
	for _, o := range s.org {
		if o >= 0 {
			withOrg++
		}
	}
	if orgs == withOrg {
		x.orgAt = make([]int32, n)
		for p, c := range caseAt {
			x.orgAt[p] = s.org[c]
		}
	}
	x.bits = make([][]uint64, len(s.features))
	for fid, l := range s.postings {
		if !x.small[s.fkind[fid]] {
			continue
		}
		b := make([]uint64, words)
		for _, c := range l {
			setBit(b, int(x.pos[c]))
		}
		x.bits[fid] = b
	}
	return x
}

func setBit(b []uint64, p int) { b[p>>6] |= 1 << (p & 63) }

func hasBit(b []uint64, p int32) bool { return b[p>>6]&(1<<(p&63)) != 0 }

func popcount(a []uint64) int {
	n := 0
	for _, w := range a {
		n += bits.OnesCount64(w)
	}
	return n
}

func popcountAnd(a, b []uint64) int {
	n := 0
	b = b[:len(a)]
	for i, w := range a {
		n += bits.OnesCount64(w & b[i])
	}
	return n
}

// sparseWords lists into idx (reused) the indexes of b's non-zero words,
// and reports whether they are few (under a quarter of b): counting b
// against other sets over those words alone (countAnd) then beats counting
// over every word. A term's cases within a year, or a small term's, are
// such a set.
func sparseWords(b []uint64, idx []int32) ([]int32, bool) {
	idx = idx[:0]
	for i, w := range b {
		if w != 0 {
			idx = append(idx, int32(i))
		}
	}
	return idx, len(idx) < len(b)/4
}

// countAnd is popcountAnd(a, b), read over the words at idx alone when
// sparse (a's words elsewhere are zero: sparseWords).
func countAnd(a, b []uint64, idx []int32, sparse bool) int {
	if !sparse {
		return popcountAnd(a, b)
	}
	n := 0
	b = b[:len(a)]
	for _, i := range idx {
		n += bits.OnesCount64(a[i] & b[i])
	}
	return n
}

// pairRow is one term's cases within a selection, counted against other
// terms' cases pair by pair (stats' top pairs, co-occurrence, breakdown):
// over its non-zero words alone when they are few (sparseWords).
type pairRow struct {
	bits   []uint64
	idx    []int32
	sparse bool
}

// set makes r a AND sel.
func (r *pairRow) set(a, sel []uint64) {
	and(r.bits, a, sel)
	r.idx, r.sparse = sparseWords(r.bits, r.idx)
}

// count is how many of r's cases b has.
func (r *pairRow) count(b []uint64) int { return countAnd(r.bits, b, r.idx, r.sparse) }

// and sets dst to a AND b and returns how many bits it has.
func and(dst, a, b []uint64) int {
	n := 0
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		w := a[i] & b[i]
		dst[i] = w
		n += bits.OnesCount64(w)
	}
	return n
}

// distribution is ilgraph.Distribute of the minutes of the positions in
// b, total of them, from one walk of the set bits (positions are in
// minutes order, so the k-th set bit is the k-th least).
func (x *aggIndex) distribution(total int, b []uint64) ilgraph.Distribution {
	d := ilgraph.Distribution{Cases: total}
	w0 := x.measured >> 6
	if w0 >= len(b) {
		return d
	}
	first := b[w0] &^ (1<<(x.measured&63) - 1) // the measured positions only
	m := bits.OnesCount64(first) + popcount(b[w0+1:])
	d.Measured = m
	if m == 0 {
		return d
	}
	rank := func(q float64) int { return max(int(math.Ceil(q*float64(m)))-1, 0) }
	r25, r50, r75, r90 := rank(0.25), rank(0.5), rank(0.75), rank(0.9)
	i, sum := 0, 0
	for w := w0; w < len(b); w++ {
		v := b[w]
		if w == w0 {
			v = first
		}
		for ; v != 0; v &= v - 1 {
			mins := int(x.minAt[w<<6+bits.TrailingZeros64(v)])
			sum += mins
			if i == 0 {
				d.Min = mins
			}
			if i == r25 {
				d.P25 = mins
			}
			if i == r50 {
				d.Median = mins
			}
			if i == r75 {
				d.P75 = mins
			}
			if i == r90 {
				d.P90 = mins
			}
			i++
		}
	}
	d.Max = int(x.minAt[lastBit(b)])
	d.Mean = float64(sum) / float64(m)
	return d
}

// lastBit is the greatest position in b (b has one).
func lastBit(b []uint64) int {
	for w := len(b) - 1; ; w-- {
		if b[w] != 0 {
			return w<<6 + 63 - bits.LeadingZeros64(b[w])
		}
	}
}

// selectionBits returns the positions of the cases f selects as a bitset
// (shared when it is every case or one term's: read it, never change it)
// and how many they are. Filters of tags of small kinds and dates are
// made of the terms' bitsets; any other is selected case by case
// (selection) and its cases set in a bitset.
func (s *Snapshot) selectionBits(x *aggIndex, f ilgraph.CaseFilter) (sel []uint64, count int) {
	c := s.Compile(f)
	if sel, count, ok := s.filterBits(x, c); ok {
		return sel, count
	}
	sel = make([]uint64, x.words)
	list := s.selection(f)
	for _, c := range list {
		setBit(sel, int(x.pos[c]))
	}
	return sel, len(list)
}

// filterBits is selectionBits for a compiled filter that the bitsets
// express alone — terms of the small kinds, dates, ids left out — and ok
// false for any other. sel may be one of the index's own bitsets: read it,
// never change it.
func (s *Snapshot) filterBits(x *aggIndex, c *Filter) (sel []uint64, count int, ok bool) {
	if c.none {
		return make([]uint64, x.words), 0, true
	}
	if len(c.severities) > 0 || c.reviewedOnly || c.only != nil || len(c.excludeOrg) > 0 {
		return nil, 0, false
	}
	for _, set := range c.anyOf {
		for _, fid := range set {
			if x.bits[fid] == nil {
				return nil, 0, false
			}
		}
	}
	for _, set := range c.allOf {
		for _, fid := range set {
			if x.bits[fid] == nil {
				return nil, 0, false
			}
		}
	}
	sel, count = s.tagDateBits(x, c)
	if len(c.excludeIDs) > 0 {
		sel = slices.Clone(sel)
		for i := range c.excludeIDs {
			if p := x.pos[i]; hasBit(sel, p) {
				sel[p>>6] &^= 1 << (p & 63)
				count--
			}
		}
	}
	return sel, count, true
}

// tagDateBits is the selection of a filter of tags and dates only.
func (s *Snapshot) tagDateBits(x *aggIndex, c *Filter) (sel []uint64, count int) {
	// ANDs and ORs of the terms' bitsets and the date range's.
	var parts [][]uint64
	for _, set := range c.allOf {
		for _, fid := range set {
			parts = append(parts, x.bits[fid])
		}
	}
	for _, set := range c.anyOf {
		if len(set) == 1 {
			parts = append(parts, x.bits[set[0]])
			continue
		}
		u := make([]uint64, x.words)
		for _, fid := range set {
			for i, w := range x.bits[fid] {
				u[i] |= w
			}
		}
		parts = append(parts, u)
	}
	if c.hasFrom || c.hasTo {
		parts = append(parts, s.dateBits(x, c))
	}
	switch len(parts) {
	case 0:
		return x.ones, x.n
	case 1:
		return parts[0], popcount(parts[0])
	}
	sel = make([]uint64, x.words)
	count = and(sel, parts[0], parts[1])
	for _, p := range parts[2:] {
		count = and(sel, sel, p)
	}
	return sel, count
}

// dateBits is the bitset of the cases in c's date range, found in the
// date order by two binary searches.
func (s *Snapshot) dateBits(x *aggIndex, c *Filter) []uint64 {
	s.ranks(ilgraph.SortDateAsc)
	perm := s.ord.byDateAsc
	lo := sort.Search(len(perm), func(i int) bool { return !c.hasFrom || s.date[perm[i]] >= c.from })
	hi := sort.Search(len(perm), func(i int) bool { return c.hasTo && s.date[perm[i]] > c.to })
	b := make([]uint64, x.words)
	for _, cs := range perm[lo:max(lo, hi)] {
		setBit(b, int(x.pos[cs]))
	}
	return b
}

// largeCounts counts the selected cases with each term of a large kind
// (by feature id; the others are 0): the posting lists' lengths for every
// case, one pass over the selection for organizations when no case has
// two, each posting looked up in the selection otherwise.
func (s *Snapshot) largeCounts(x *aggIndex, sel []uint64, all bool) []int32 {
	counts := make([]int32, len(s.features))
	orgsDone := false
	if !all && x.orgAt != nil {
		orgsDone = true
		for w, v := range sel {
			for ; v != 0; v &= v - 1 {
				if o := x.orgAt[w<<6+bits.TrailingZeros64(v)]; o >= 0 {
					counts[o]++
				}
			}
		}
	}
	for fid, l := range s.postings {
		if x.bits[fid] != nil || orgsDone && s.fkind[fid] == kOrg {
			continue
		}
		if all {
			counts[fid] = int32(len(l))
			continue
		}
		for _, c := range l {
			if hasBit(sel, x.pos[c]) {
				counts[fid]++
			}
		}
	}
	return counts
}

// termCount counts the selected cases with feature fid (large, from
// largeCounts).
func termCount(x *aggIndex, sel []uint64, large []int32, fid int) int {
	if b := x.bits[fid]; b != nil {
		return popcountAnd(b, sel)
	}
	return int(large[fid])
}

// sortCounts sorts terms listed in idOrder as ilgraph.SortTermCounts does
// (count descending, then id): a stable sort by count, by counting when
// the counts are small beside the terms (organizations: thousands of
// terms, most with a few cases).
func sortCounts(ts []ilgraph.TermCount) {
	top := 0
	for _, t := range ts {
		top = max(top, t.Count)
	}
	if len(ts) < 64 || top > 16*len(ts) {
		slices.SortStableFunc(ts, func(a, b ilgraph.TermCount) int { return b.Count - a.Count })
		return
	}
	start := make([]int, top+2) // by top - count
	for _, t := range ts {
		start[top-t.Count+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	out := make([]ilgraph.TermCount, len(ts))
	for _, t := range ts {
		out[start[top-t.Count]] = t
		start[top-t.Count]++
	}
	copy(ts, out)
}

// termDistribution returns the count of the selected cases with feature
// fid and the distribution of their minutes (scratch is a bitset to work
// in).
func (s *Snapshot) termDistribution(x *aggIndex, sel, scratch []uint64, fid int) (int, ilgraph.Distribution) {
	if b := x.bits[fid]; b != nil {
		n := and(scratch, b, sel)
		return n, x.distribution(n, scratch)
	}
	n := 0
	var ms []int
	for _, c := range s.postings[fid] {
		if p := x.pos[c]; hasBit(sel, p) {
			n++
			if m := x.minAt[p]; m >= 0 {
				ms = append(ms, int(m))
			}
		}
	}
	slices.Sort(ms)
	return n, ilgraph.DistributeSorted(n, ms)
}

// selectedYears counts the selected cases per year.
func (x *aggIndex) selectedYears(sel []uint64, all bool) []ilgraph.YearCount {
	if all {
		return slices.Clone(x.years)
	}
	years := make([]int, x.nYears)
	for w, v := range sel {
		for ; v != 0; v &= v - 1 {
			years[int(x.yearAt[w<<6+bits.TrailingZeros64(v)])-x.minYear]++
		}
	}
	return x.yearList(years)
}

// yearList is the years with cases of counts by year from minYear.
func (x *aggIndex) yearList(counts []int) []ilgraph.YearCount {
	var out []ilgraph.YearCount
	for i, n := range counts {
		if n > 0 {
			out = append(out, ilgraph.YearCount{Year: x.minYear + i, Count: n})
		}
	}
	return out
}

// everyCase caches the answers to the filter with no condition, made once
// per snapshot on first use (a snapshot made by With starts without).
// Callers get copies: they may change what they get (the core sets
// Stats.Relationships).
type everyCase struct {
	statsOnce, facetsOnce sync.Once
	stats                 *ilgraph.Stats
	facets                *ilgraph.Facets
}

// everything reports whether the filter has no condition.
func (c *Filter) everything() bool {
	return !c.none && len(c.anyOf) == 0 && len(c.allOf) == 0 && len(c.excludeOrg) == 0 && !c.hasFrom && !c.hasTo &&
		len(c.severities) == 0 && !c.reviewedOnly && len(c.excludeIDs) == 0 && c.only == nil
}

// Stats computes the corpus statistics of the cases f selects, all but
// Relationships (a count of stored relationships, SIMILAR_TO included,
// which the snapshot does not hold).
func (s *Snapshot) Stats(f ilgraph.CaseFilter) *ilgraph.Stats {
	if !s.Compile(f).everything() {
		return s.stats(f)
	}
	s.every.statsOnce.Do(func() { s.every.stats = s.stats(f) })
	st := *s.every.stats
	st.PerYear, st.PerRootCause, st.PerOrg = slices.Clone(st.PerYear), slices.Clone(st.PerRootCause), slices.Clone(st.PerOrg)
	st.PerDomain, st.TopPairs = slices.Clone(st.PerDomain), slices.Clone(st.TopPairs)
	st.ResolveByCause, st.ResolveByFactor = slices.Clone(st.ResolveByCause), slices.Clone(st.ResolveByFactor)
	return &st
}

// stats is Stats counted with the aggregate index when the kinds it counts
// by are small, by walking the selected cases otherwise (statsWalk; the
// conformance suite runs both).
func (s *Snapshot) stats(f ilgraph.CaseFilter) *ilgraph.Stats {
	x := s.aggs()
	if !x.small[kRootCause] || !x.small[kComponent] || !x.small[kContributing] || !x.small[kDomain] {
		return s.statsWalk(f)
	}
	sel, count := s.selectionBits(x, f)
	all := count == x.n
	st := &ilgraph.Stats{Cases: count}
	st.PerYear = x.selectedYears(sel, all)
	st.Bilingual, st.Reviewed = popcountAnd(x.bilingual, sel), popcountAnd(x.reviewed, sel)
	st.ResolveAll = x.distribution(count, sel)
	scratch := make([]uint64, x.words)
	var causes, comps []int32 // feature ids
	large := s.largeCounts(x, sel, all)
	for _, f32 := range x.idOrder {
		fid, ft := int(f32), s.features[f32]
		switch s.fkind[fid] {
		case kRootCause, kContributing:
			n, dist := s.termDistribution(x, sel, scratch, fid)
			if n == 0 {
				continue
			}
			tc := ilgraph.TermCount{Kind: ft.Kind, ID: ft.ID, Count: n}
			if s.fkind[fid] == kRootCause {
				causes = append(causes, int32(fid))
				st.PerRootCause = append(st.PerRootCause, tc)
				st.ResolveByCause = append(st.ResolveByCause, ilgraph.GroupDistribution{Term: tc, Distribution: dist})
			} else {
				st.ResolveByFactor = append(st.ResolveByFactor, ilgraph.GroupDistribution{Term: tc, Distribution: dist})
			}
		case kComponent:
			if popcountAnd(x.bits[fid], sel) > 0 {
				comps = append(comps, int32(fid))
			}
		case kOrg:
			if n := termCount(x, sel, large, fid); n > 0 {
				st.Organizations++
				st.PerOrg = append(st.PerOrg, ilgraph.TermCount{Kind: ft.Kind, ID: ft.ID, Count: n})
			}
		case kDomain:
			if n := termCount(x, sel, large, fid); n > 0 {
				st.PerDomain = append(st.PerDomain, ilgraph.TermCount{Kind: ft.Kind, ID: ft.ID, Count: n})
			}
		}
	}
	sortCounts(st.PerRootCause)
	sortCounts(st.PerOrg)
	sortCounts(st.PerDomain)
	sortByMedian(st.ResolveByCause)
	sortByMedian(st.ResolveByFactor)
	row := pairRow{bits: scratch}
	for _, a := range causes {
		row.set(x.bits[a], sel)
		for _, b := range comps {
			if n := row.count(x.bits[b]); n > 0 {
				fa, fb := s.features[a], s.features[b]
				st.TopPairs = append(st.TopPairs, ilgraph.PairCount{
					A: ilgraph.TermCount{Kind: fa.Kind, ID: fa.ID}, B: ilgraph.TermCount{Kind: fb.Kind, ID: fb.ID}, Count: n,
				})
			}
		}
	}
	sortTopPairs(st)
	return st
}

// Facets counts, over the cases f selects, the cases with each term (every
// kind, by count descending, then id) and the cases per year.
func (s *Snapshot) Facets(f ilgraph.CaseFilter) *ilgraph.Facets {
	if !s.Compile(f).everything() {
		return s.facets(f)
	}
	s.every.facetsOnce.Do(func() { s.every.facets = s.facets(f) })
	out := &ilgraph.Facets{Terms: make(map[ilgraph.Kind][]ilgraph.TermCount, len(s.every.facets.Terms)), Years: slices.Clone(s.every.facets.Years)}
	for k, ts := range s.every.facets.Terms {
		out.Terms[k] = slices.Clone(ts)
	}
	return out
}

func (s *Snapshot) facets(f ilgraph.CaseFilter) *ilgraph.Facets {
	x := s.aggs()
	sel, count := s.selectionBits(x, f)
	all := count == x.n
	out := &ilgraph.Facets{Terms: map[ilgraph.Kind][]ilgraph.TermCount{}}
	if count > 0 {
		large := s.largeCounts(x, sel, all)
		for _, f32 := range x.idOrder {
			fid, ft := int(f32), s.features[f32]
			if n := termCount(x, sel, large, fid); n > 0 {
				out.Terms[ft.Kind] = append(out.Terms[ft.Kind], ilgraph.TermCount{Kind: ft.Kind, ID: ft.ID, Count: n})
			}
		}
	}
	for _, ts := range out.Terms {
		sortCounts(ts)
	}
	out.Years = x.selectedYears(sel, all)
	return out
}

// Cooccurrence computes the co-occurrence counts between two kinds: with
// the aggregate index when both kinds are small, by walking the selected
// cases otherwise (cooccurrenceWalk).
func (s *Snapshot) Cooccurrence(from, to ilgraph.Kind, f ilgraph.CaseFilter) *Cooccurrence {
	ka, kb := kindIndex(from), kindIndex(to)
	if ka < 0 || kb < 0 {
		return &Cooccurrence{Total: len(s.selection(f)), Singles: map[ilgraph.Feature]int{}, Pairs: map[[2]ilgraph.Feature]int{}}
	}
	x := s.aggs()
	if !x.small[ka] || !x.small[kb] {
		return s.cooccurrenceWalk(from, to, f)
	}
	sel, count := s.selectionBits(x, f)
	out := &Cooccurrence{Total: count, Singles: map[ilgraph.Feature]int{}, Pairs: map[[2]ilgraph.Feature]int{}}
	if count == 0 {
		return out
	}
	fa, fb := int8(ka), int8(kb)
	var as, bs []int32 // the terms the selection has
	for fid, ft := range s.features {
		k := s.fkind[fid]
		if k != fa && k != fb {
			continue
		}
		n := popcountAnd(x.bits[fid], sel)
		if n == 0 {
			continue
		}
		out.Singles[ft] = n
		if k == fa {
			as = append(as, int32(fid))
		}
		if k == fb {
			bs = append(bs, int32(fid))
		}
	}
	row := pairRow{bits: make([]uint64, x.words)}
	for _, a := range as {
		row.set(x.bits[a], sel)
		for _, b := range bs {
			if from == to && s.features[a].ID >= s.features[b].ID {
				continue
			}
			if n := row.count(x.bits[b]); n > 0 {
				out.Pairs[[2]ilgraph.Feature{s.features[a], s.features[b]}] = n
			}
		}
	}
	return out
}

// breakdownBits is Breakdown with the aggregate index, when one axis is a
// small kind and the other a small kind, the year or the month; ok is
// false otherwise.
func (s *Snapshot) breakdownBits(x *aggIndex, rv, cv breakdownAxis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, bool) {
	smallKind := func(a breakdownAxis) bool {
		return a.axis != ilgraph.AxisYear && a.axis != ilgraph.AxisMonth && x.small[a.kind]
	}
	a, b, swap := rv, cv, false
	if !smallKind(a) {
		a, b, swap = cv, rv, true
	}
	if !smallKind(a) || !smallKind(b) && b.axis != ilgraph.AxisYear && b.axis != ilgraph.AxisMonth {
		return nil, false
	}
	out := &ilgraph.BreakdownCounts{Rows: map[string]int{}, Columns: map[string]int{}, Cells: map[[2]string]int{}}
	sel, count := s.selectionBits(x, f)
	out.Total = count
	if count == 0 {
		return out, true
	}
	aN, bN := map[string]int{}, map[string]int{}
	cells := map[[2]string]int{}
	var as, bs []int32 // the small kinds' terms the selection has
	for fid := range s.features {
		k := s.fkind[fid]
		if k != a.kind && (k != b.kind || !smallKind(b)) {
			continue
		}
		n := popcountAnd(x.bits[fid], sel)
		if n == 0 {
			continue
		}
		if k == a.kind {
			as = append(as, int32(fid))
			aN[s.features[fid].ID] = n
		}
		if smallKind(b) && k == b.kind {
			bs = append(bs, int32(fid))
			bN[s.features[fid].ID] = n
		}
	}
	// A time axis counts in a slice by year (or month) from the first.
	var at []int32 // position -> index in the slice
	var key func(i int) string
	if b.axis == ilgraph.AxisYear || b.axis == ilgraph.AxisMonth {
		at = x.yearIdx()
		key = func(i int) string { return b.key(s, int32(x.minYear+i)) }
		nT := x.nYears
		if b.axis == ilgraph.AxisMonth {
			at = x.monthIdx()
			key = func(i int) string { return b.key(s, int32(x.minMonth+i)) }
			nT = x.nMonths
		}
		totals := make([]int, nT)
		forEachBit(sel, func(p int) { totals[at[p]]++ })
		for i, n := range totals {
			if n > 0 {
				bN[key(i)] = n
			}
		}
		counts := make([]int, nT)
		scratch := make([]uint64, x.words)
		for _, r := range as {
			clear(counts)
			and(scratch, x.bits[r], sel)
			forEachBit(scratch, func(p int) { counts[at[p]]++ })
			for i, n := range counts {
				if n > 0 {
					cells[[2]string{s.features[r].ID, key(i)}] = n
				}
			}
		}
	} else {
		row := pairRow{bits: make([]uint64, x.words)}
		for _, r := range as {
			row.set(x.bits[r], sel)
			for _, c := range bs {
				if n := row.count(x.bits[c]); n > 0 {
					cells[[2]string{s.features[r].ID, s.features[c].ID}] = n
				}
			}
		}
	}
	out.Rows, out.Columns, out.Cells = aN, bN, cells
	if swap {
		out.Rows, out.Columns = bN, aN
		out.Cells = make(map[[2]string]int, len(cells))
		for k, n := range cells {
			out.Cells[[2]string{k[1], k[0]}] = n
		}
	}
	first, last := int32(math.MaxInt32), int32(math.MinInt32)
	forEachBit(sel, func(p int) { first, last = min(first, x.dateAt[p]), max(last, x.dateAt[p]) })
	out.FirstDate, out.LastDate = dayString(first), dayString(last)
	return out, true
}

// forEachBit calls fn with each position in b, ascending.
func forEachBit(b []uint64, fn func(p int)) {
	for w, v := range b {
		for ; v != 0; v &= v - 1 {
			fn(w<<6 + bits.TrailingZeros64(v))
		}
	}
}

// yearIdx is, by position, the case's year less the first year, made on
// first use.
func (x *aggIndex) yearIdx() []int32 {
	x.yearOnce.Do(func() {
		x.yearAtIdx = make([]int32, x.n)
		for p, y := range x.yearAt {
			x.yearAtIdx[p] = int32(int(y) - x.minYear)
		}
	})
	return x.yearAtIdx
}

// monthIdx is, by position, the case's month (year×12 + month-1) less the
// first month's, made on first use.
func (x *aggIndex) monthIdx() []int32 {
	x.monthOnce.Do(func() {
		x.monthAt = make([]int32, x.n)
		lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
		for p, d := range x.dateAt {
			y, m, _ := civil(d)
			x.monthAt[p] = y*12 + m - 1
			lo, hi = min(lo, x.monthAt[p]), max(hi, x.monthAt[p])
		}
		for p := range x.monthAt {
			x.monthAt[p] -= lo
		}
		x.minMonth, x.nMonths = int(lo), int(hi-lo)+1
	})
	return x.monthAt
}
