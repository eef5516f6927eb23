package memstore

import (
	"cmp"
	"container/heap"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ilgraph/ilgraph"
)

// The snapshot is the read model of cases × terms that case lists,
// facets, statistics, co-occurrence and same-root-cause pages are answered
// from: everything they select on or count (tags, date, severity,
// organization, time to resolve) is here, so they cost a scan of int32
// slices instead of a walk over every selected case's relationships in
// Neo4j. Every answer here is tested equal to the graph package's Cypher
// answer (readmodel_test.go) and to the reference store's, whose filters
// mean what ilgraph.CaseFilter.Match says (conformance_test.go). Full-text
// search is not here: a filter with text goes to the graph.

// orders holds, per sort, each case's position in the whole corpus sorted
// that way (computed once per snapshot, on first use).
type orders struct {
	once                        sync.Once
	made                        atomic.Bool // the orders are made (once has run)
	dateDesc, dateAsc, idA      []int32     // case -> rank
	byDateDesc, byDateAsc, byID []int32     // rank -> case
}

func (s *Snapshot) ranks(order ilgraph.CaseSort) (rank []int32, reverse bool) {
	s.ord.once.Do(func() {
		n := s.ids.len()
		var perm []int32
		rank := func(less func(a, b int32) int) []int32 {
			perm = make([]int32, n)
			for i := range perm {
				perm[i] = int32(i)
			}
			slices.SortFunc(perm, less)
			r := make([]int32, n)
			for pos, c := range perm {
				r[c] = int32(pos)
			}
			return r
		}
		byID := func(a, b int32) int { return strings.Compare(s.ids.at(a), s.ids.at(b)) }
		s.ord.idA = rank(byID)
		s.ord.byID = perm
		s.ord.dateDesc = rank(func(a, b int32) int {
			if s.date[a] != s.date[b] {
				return int(s.date[b]) - int(s.date[a])
			}
			return byID(a, b)
		})
		s.ord.byDateDesc = perm
		s.ord.dateAsc = rank(func(a, b int32) int {
			if s.date[a] != s.date[b] {
				return int(s.date[a]) - int(s.date[b])
			}
			return byID(a, b)
		})
		s.ord.byDateAsc = perm
		s.ord.made.Store(true)
	})
	switch order {
	case ilgraph.SortDateAsc:
		return s.ord.dateAsc, false
	case ilgraph.SortIDAsc:
		return s.ord.idA, false
	case ilgraph.SortIDDesc:
		return s.ord.idA, true
	}
	return s.ord.dateDesc, false
}

// selection returns the cases f selects (f has no text), in case order.
// It starts from the smallest candidate set the filter names — one term's
// cases, the union of an any-of list's, or the listed ids — and checks
// every other condition on those only.
func (s *Snapshot) selection(f ilgraph.CaseFilter) []int32 {
	c := s.Compile(f)
	if c.none {
		return nil
	}
	n := s.ids.len()
	best, bestSize := -1, n+1
	var sources [][]int32 // candidate lists to merge, per option
	var options [][][]int32
	for _, set := range c.allOf {
		for _, fid := range set {
			options = append(options, [][]int32{s.postings[fid]})
		}
	}
	for _, set := range c.anyOf {
		var ls [][]int32
		for _, fid := range set {
			ls = append(ls, s.postings[fid])
		}
		options = append(options, ls)
	}
	for i, ls := range options {
		size := 0
		for _, l := range ls {
			size += len(l)
		}
		if size < bestSize {
			best, bestSize = i, size
		}
	}
	var out []int32
	if c.only != nil && len(c.only) < bestSize {
		cands := make([]int32, 0, len(c.only))
		for i := range c.only {
			cands = append(cands, i)
		}
		slices.Sort(cands)
		sources = [][]int32{cands}
	} else if best >= 0 {
		sources = options[best]
	}
	if sources == nil {
		for i := 0; i < n; i++ {
			if c.Match(int32(i)) {
				out = append(out, int32(i))
			}
		}
		return out
	}
	var cands []int32
	if len(sources) == 1 {
		cands = sources[0]
	} else {
		for _, l := range sources {
			cands = append(cands, l...)
		}
		slices.Sort(cands)
		cands = slices.Compact(cands)
	}
	for _, i := range cands {
		if c.Match(i) {
			out = append(out, i)
		}
	}
	return out
}

// ref is a case as the read model knows it: its id, date, severity,
// organization and tags (in the case's order), nothing else.
func (s *Snapshot) ref(i int32) *ilgraph.Case {
	c := &ilgraph.Case{ID: s.ids.at(i), Date: time.Unix(int64(s.date[i])*86400, 0).UTC().Format(ilgraph.DateLayout),
		Severity: s.sevNames[s.severity[i]], Org: s.names[s.orgName[i]], Title: s.title.get(i)}
	for _, fid := range s.feats.tags(i) {
		f := s.features[fid]
		switch f.Kind {
		case ilgraph.KindRootCause:
			if c.RootCause == "" {
				c.RootCause = f.ID
			}
		case ilgraph.KindComponent:
			c.Components = append(c.Components, f.ID)
		case ilgraph.KindSymptom:
			c.Symptoms = append(c.Symptoms, f.ID)
		case ilgraph.KindContributing:
			c.Contributing = append(c.Contributing, f.ID)
		case ilgraph.KindDomain:
			c.Domain = append(c.Domain, f.ID)
		case ilgraph.KindMechanism:
			c.Mechanisms = append(c.Mechanisms, f.ID)
		case ilgraph.KindOrg:
			c.OrgSlug = f.ID
		}
	}
	return c
}

// ReadModelFields are the case fields the read model holds (ref).
var ReadModelFields = []string{"id", "date", "severity", "title", "org", "org_slug", "root_cause", "components", "symptoms", "contributing", "domain", "mechanisms"}

// ListCases returns the page [offset, offset+limit) of the cases f selects
// in order, and how many f selects. f must have no text, order must not
// be by relevance. The cases hold what the read model holds (see ref).
func (s *Snapshot) ListCases(f ilgraph.CaseFilter, order ilgraph.CaseSort, offset, limit int) ([]*ilgraph.Case, int) {
	if out, total, ok := s.listByDate(f, order, offset, limit); ok {
		return out, total
	}
	if out, total, ok := s.listByBits(f, order, offset, limit); ok {
		return out, total
	}
	sel := s.selection(f)
	total := len(sel)
	if offset >= total || limit <= 0 {
		return nil, total
	}
	rank, reverse := s.ranks(order)
	key := func(c int32) int32 {
		if reverse {
			return -rank[c]
		}
		return rank[c]
	}
	want := min(offset+limit, total)
	var top []int32
	if want*4 >= total {
		top = slices.Clone(sel)
		slices.SortFunc(top, func(a, b int32) int { return int(key(a)) - int(key(b)) })
		top = top[:want]
	} else {
		// The want first by a bounded max-heap: O(total · log want).
		h := &rankHeap{key: key}
		for _, c := range sel {
			if len(h.xs) < want {
				heap.Push(h, c)
			} else if key(c) < key(h.xs[0]) {
				h.xs[0] = c
				heap.Fix(h, 0)
			}
		}
		top = h.xs
		slices.SortFunc(top, func(a, b int32) int { return int(key(a)) - int(key(b)) })
	}
	out := make([]*ilgraph.Case, 0, want-offset)
	for _, c := range top[offset:want] {
		out = append(out, s.ref(c))
	}
	return out, total
}

// listByBits pages through a selection that the aggregate index's bitsets
// express (filterBits) in the order asked for: its size is the bitset's
// population, and the page is found by walking the cases in that order
// and keeping those in the bitset, rather than by gathering the whole
// selection and sorting it. The walk is short for a large selection and at
// most the corpus (a bit test each) for a small one. ok is false for any
// other filter or order.
func (s *Snapshot) listByBits(f ilgraph.CaseFilter, order ilgraph.CaseSort, offset, limit int) ([]*ilgraph.Case, int, bool) {
	var perm []int32
	reverse := false
	s.ranks(order)
	switch order {
	case "", ilgraph.SortDateDesc:
		perm = s.ord.byDateDesc
	case ilgraph.SortDateAsc:
		perm = s.ord.byDateAsc
	case ilgraph.SortIDAsc:
		perm = s.ord.byID
	case ilgraph.SortIDDesc:
		perm, reverse = s.ord.byID, true
	default:
		return nil, 0, false
	}
	x := s.aggs()
	sel, total, ok := s.filterBits(x, s.Compile(f))
	if !ok {
		return nil, 0, false
	}
	var out []*ilgraph.Case
	if offset >= total || limit <= 0 {
		return out, total, true
	}
	want := min(offset+limit, total)
	seen := 0
	for i := range perm {
		c := perm[i]
		if reverse {
			c = perm[len(perm)-1-i]
		}
		if !hasBit(sel, x.pos[c]) {
			continue
		}
		if seen >= offset {
			out = append(out, s.ref(c))
		}
		if seen++; seen == want {
			break
		}
	}
	return out, total, true
}

// listByDate pages through a selection by dates alone (or none), sorted by
// date, straight from the sorted order: two binary searches, whatever the
// corpus size. ok is false for any other filter or sort.
func (s *Snapshot) listByDate(f ilgraph.CaseFilter, order ilgraph.CaseSort, offset, limit int) ([]*ilgraph.Case, int, bool) {
	for _, m := range f.Tags {
		if !m.IsZero() {
			return nil, 0, false
		}
	}
	if len(f.ExcludeOrgs) > 0 || len(f.Severities) > 0 || len(f.ExcludeIDs) > 0 || f.IDs != nil || f.HasText() || f.ReviewedOnly {
		return nil, 0, false
	}
	desc := order == "" || order == ilgraph.SortDateDesc
	if !desc && order != ilgraph.SortDateAsc {
		return nil, 0, false
	}
	c := s.Compile(f)
	s.ranks(order)
	perm := s.ord.byDateAsc
	if desc {
		perm = s.ord.byDateDesc
	}
	n := len(perm)
	// before reports whether the case at position i sorts before every
	// case the filter keeps; after, after them all.
	before := func(i int) bool {
		d := s.date[perm[i]]
		if desc {
			return c.hasTo && d > c.to
		}
		return c.hasFrom && d < c.from
	}
	after := func(i int) bool {
		d := s.date[perm[i]]
		if desc {
			return c.hasFrom && d < c.from
		}
		return c.hasTo && d > c.to
	}
	lo := sort.Search(n, func(i int) bool { return !before(i) })
	hi := sort.Search(n, func(i int) bool { return after(i) })
	total := max(0, hi-lo)
	var out []*ilgraph.Case
	for i := lo + offset; i < hi && i < lo+offset+limit; i++ {
		out = append(out, s.ref(perm[i]))
	}
	return out, total, true
}

type rankHeap struct {
	xs  []int32
	key func(int32) int32
}

func (h *rankHeap) Len() int           { return len(h.xs) }
func (h *rankHeap) Less(i, j int) bool { return h.key(h.xs[i]) > h.key(h.xs[j]) }
func (h *rankHeap) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *rankHeap) Push(x any)         { h.xs = append(h.xs, x.(int32)) }
func (h *rankHeap) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}

// CaseTags returns a case as the read model holds it (see ref); false for
// an unknown case.
func (s *Snapshot) CaseTags(id string) (*ilgraph.Case, bool) {
	i, ok := s.Number(id)
	if !ok {
		return nil, false
	}
	return s.ref(i), true
}

func yearCounts(years map[int]int) []ilgraph.YearCount {
	var out []ilgraph.YearCount
	for y, n := range years {
		out = append(out, ilgraph.YearCount{Year: y, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Year < out[j].Year })
	return out
}

// statsWalk is Stats by walking every selected case's features (kinds
// too large for the aggregate index).
func (s *Snapshot) statsWalk(f ilgraph.CaseFilter) *ilgraph.Stats {
	sel := s.selection(f)
	st := &ilgraph.Stats{Cases: len(sel)}
	orgs := make([]bool, len(s.features))
	counts := make([]int, len(s.features))
	mins := make([][]int, len(s.features)) // for root causes and factors
	years := map[int]int{}
	var all []int
	kc, kp := kindIndex(ilgraph.KindRootCause), kindIndex(ilgraph.KindComponent)
	nc := s.perKind[kp]
	pairs := make([]int, s.perKind[kc]*nc)
	var causes, comps []int32
	// A large selection is walked in the order of its minutes to resolve,
	// so that the minutes gathered for the quantiles come out sorted; a
	// small one is walked as it is and its minutes sorted after.
	walk, sorted := sel, false
	if n := s.ids.len(); n > 0 && len(sel) >= n/8 {
		walk, sorted = s.inMinutesOrder(sel), true
	}
	distribute := ilgraph.Distribute
	if sorted {
		distribute = ilgraph.DistributeSorted
	}
	for _, c := range walk {
		years[int(s.year[c])]++
		if s.bilingual[c] {
			st.Bilingual++
		}
		if s.reviewed[c] {
			st.Reviewed++
		}
		m, measured := int(s.resolved[c]), s.resolved[c] >= 0
		if measured {
			all = append(all, m)
		}
		causes, comps = causes[:0], comps[:0]
		for _, fid := range s.feats.Sorted(c) {
			switch s.fkind[fid] {
			case kRootCause:
				causes = append(causes, fid)
			case kComponent:
				comps = append(comps, fid)
				continue
			case kOrg:
				orgs[fid] = true
			case kContributing:
			case kDomain:
				counts[fid]++
				continue
			default:
				continue
			}
			counts[fid]++
			if measured && s.fkind[fid] != kOrg {
				mins[fid] = append(mins[fid], m)
			}
		}
		for _, a := range causes {
			for _, b := range comps {
				pairs[int(s.slot[a])*nc+int(s.slot[b])]++
			}
		}
	}
	st.ResolveAll = distribute(st.Cases, all)
	st.PerYear = yearCounts(years)
	var causeIDs, compIDs []int32 // by slot
	causeIDs, compIDs = make([]int32, s.perKind[kc]), make([]int32, nc)
	for fid, n := range counts {
		ft := s.features[fid]
		switch ft.Kind {
		case ilgraph.KindRootCause:
			causeIDs[s.slot[fid]] = int32(fid)
		case ilgraph.KindComponent:
			compIDs[s.slot[fid]] = int32(fid)
		}
		if n == 0 {
			continue
		}
		tc := ilgraph.TermCount{Kind: ft.Kind, ID: ft.ID, Count: n}
		switch ft.Kind {
		case ilgraph.KindRootCause:
			st.PerRootCause = append(st.PerRootCause, tc)
			st.ResolveByCause = append(st.ResolveByCause, ilgraph.GroupDistribution{Term: tc, Distribution: distribute(n, mins[fid])})
		case ilgraph.KindContributing:
			st.ResolveByFactor = append(st.ResolveByFactor, ilgraph.GroupDistribution{Term: tc, Distribution: distribute(n, mins[fid])})
		case ilgraph.KindOrg:
			st.Organizations++
			st.PerOrg = append(st.PerOrg, tc)
		case ilgraph.KindDomain:
			st.PerDomain = append(st.PerDomain, tc)
		}
	}
	ilgraph.SortTermCounts(st.PerRootCause)
	ilgraph.SortTermCounts(st.PerOrg)
	ilgraph.SortTermCounts(st.PerDomain)
	sortByMedian(st.ResolveByCause)
	sortByMedian(st.ResolveByFactor)
	for i, n := range pairs {
		if n == 0 {
			continue
		}
		a, b := s.features[causeIDs[i/nc]], s.features[compIDs[i%nc]]
		st.TopPairs = append(st.TopPairs, ilgraph.PairCount{
			A: ilgraph.TermCount{Kind: a.Kind, ID: a.ID}, B: ilgraph.TermCount{Kind: b.Kind, ID: b.ID}, Count: n,
		})
	}
	sortTopPairs(st)
	return st
}

// sortByMedian sorts distributions by median, longest first, then term.
func sortByMedian(ds []ilgraph.GroupDistribution) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Median != ds[j].Median {
			return ds[i].Median > ds[j].Median
		}
		return ds[i].Term.ID < ds[j].Term.ID
	})
}

// sortTopPairs keeps the 20 pairs seen most often (then by terms).
func sortTopPairs(st *ilgraph.Stats) {
	sort.Slice(st.TopPairs, func(i, j int) bool {
		x, y := st.TopPairs[i], st.TopPairs[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		if x.A.ID != y.A.ID {
			return x.A.ID < y.A.ID
		}
		return x.B.ID < y.B.ID
	})
	st.TopPairs = st.TopPairs[:min(20, len(st.TopPairs))]
}

// inMinutesOrder returns the cases of sel (ascending) in the order of their
// minutes to resolve (cases that do not say first).
func (s *Snapshot) inMinutesOrder(sel []int32) []int32 {
	order := s.minutesOrder()
	if len(sel) == len(order) {
		return order
	}
	in := make([]uint64, (s.ids.len()+63)/64)
	for _, c := range sel {
		in[c>>6] |= 1 << (c & 63)
	}
	out := make([]int32, 0, len(sel))
	for _, c := range order {
		if in[c>>6]&(1<<(c&63)) != 0 {
			out = append(out, c)
		}
	}
	return out
}

// minutesOrder is every case by minutes to resolve, made once per snapshot
// on first use (a snapshot is immutable; With makes a new one).
func (s *Snapshot) minutesOrder() []int32 {
	s.byMinutesOnce.Do(func() {
		o := make([]int32, s.ids.len())
		for i := range o {
			o[i] = int32(i)
		}
		slices.SortFunc(o, func(a, b int32) int { return cmp.Compare(s.resolved[a], s.resolved[b]) })
		s.byMinutes = o
	})
	return s.byMinutes
}

// Cooccurrence counts, over the cases f selects, the cases with each term
// of kinds from and to (Singles) and with each pair a (of from) and b (of
// to) together (Pairs; a.id < b.id when the kinds are the same), and how
// many cases f selects (Total).
type Cooccurrence struct {
	Total   int
	Singles map[ilgraph.Feature]int
	Pairs   map[[2]ilgraph.Feature]int
}

// cooccurrenceWalk is Cooccurrence by walking every selected case's
// features (kinds too large for the aggregate index).
func (s *Snapshot) cooccurrenceWalk(from, to ilgraph.Kind, f ilgraph.CaseFilter) *Cooccurrence {
	sel := s.selection(f)
	out := &Cooccurrence{Total: len(sel), Singles: map[ilgraph.Feature]int{}, Pairs: map[[2]ilgraph.Feature]int{}}
	ka, kb := kindIndex(from), kindIndex(to)
	if ka < 0 || kb < 0 {
		return out
	}
	fa, fb := int8(ka), int8(kb)
	singles := make([]int32, len(s.features))
	// Pairs count in a dense matrix by the terms' slots among their kinds
	// when it is small (root causes × components: tens × hundreds), in a
	// map otherwise (organizations × organizations).
	na, nb := s.perKind[ka], s.perKind[kb]
	var dense []int32
	if na*nb <= 1<<20 {
		dense = make([]int32, na*nb)
	}
	pairs := map[[2]int32]int{}
	var as, bs []int32
	for _, c := range sel {
		as, bs = as[:0], bs[:0]
		for _, fid := range s.feats.Sorted(c) {
			k := s.fkind[fid]
			if k == fa {
				as = append(as, fid)
			}
			if k == fb {
				bs = append(bs, fid)
			}
			if k == fa || k == fb {
				singles[fid]++
			}
		}
		for _, a := range as {
			for _, b := range bs {
				if from == to && s.features[a].ID >= s.features[b].ID {
					continue
				}
				if dense != nil {
					dense[int(s.slot[a])*nb+int(s.slot[b])]++
				} else {
					pairs[[2]int32{a, b}]++
				}
			}
		}
	}
	var bySlotA, bySlotB []int32
	if dense != nil {
		bySlotA, bySlotB = make([]int32, na), make([]int32, nb)
	}
	for fid, n := range singles {
		if dense != nil {
			if s.fkind[fid] == fa {
				bySlotA[s.slot[fid]] = int32(fid)
			}
			if s.fkind[fid] == fb {
				bySlotB[s.slot[fid]] = int32(fid)
			}
		}
		if n > 0 {
			out.Singles[s.features[fid]] = int(n)
		}
	}
	for i, n := range dense {
		if n > 0 {
			pairs[[2]int32{bySlotA[i/nb], bySlotB[i%nb]}] = int(n)
		}
	}
	for p, n := range pairs {
		out.Pairs[[2]ilgraph.Feature{s.features[p[0]], s.features[p[1]]}] = n
	}
	return out
}

// SameRootCause returns the other cases with the root cause of case id,
// ordered by how many other features they share with it, then date
// descending, then id; the page [offset, offset+limit) of them, each with
// its shared terms by kind (sorted), the case holding only its id and
// date, and how many there are. ok is false for an unknown case.
func (s *Snapshot) SameRootCause(id string, offset, limit int) (refs []ilgraph.CrossRef, total int, ok bool) {
	a, ok := s.Number(id)
	if !ok {
		return nil, 0, false
	}
	fa := s.feats.Sorted(a)
	// Each candidate's count of shared features is a sum over its own
	// features of a mark (a's other features), and the page needs only
	// the candidates of the counts it reaches sorted: candidates are
	// bucketed by count, and only the buckets the page reaches are sorted
	// by date.
	mark := make([]bool, len(s.features))
	var causes []int32
	for _, fid := range fa {
		if s.fkind[fid] == kRootCause {
			causes = append(causes, fid)
		} else {
			mark[fid] = true
		}
	}
	var seen []uint64 // for a case with two root causes or more
	if len(causes) > 1 {
		seen = make([]uint64, (s.ids.len()+63)/64)
	}
	type cand struct {
		c      int32
		shared int
	}
	var cands []cand
	perShared := make([]int, len(fa)+1)
	for _, fid := range causes {
		for _, c := range s.postings[fid] {
			if c == a {
				continue
			}
			if seen != nil {
				if hasBit(seen, c) {
					continue
				}
				setBit(seen, int(c))
			}
			n := 0
			for _, g := range s.feats.Sorted(c) {
				if mark[g] {
					n++
				}
			}
			cands = append(cands, cand{c, n})
			perShared[n]++
		}
	}
	total = len(cands)
	if offset >= total || limit <= 0 {
		return nil, total, true
	}
	// The page's candidates have a count of shared features from lo to hi;
	// skip is how many candidates with more than hi come before them.
	end := min(offset+limit, total)
	hi, lo, skip, upTo := -1, 0, 0, 0
	for n := len(perShared) - 1; n >= 0; n-- {
		if perShared[n] == 0 {
			continue
		}
		if upTo+perShared[n] <= offset {
			upTo += perShared[n]
			continue
		}
		if hi < 0 {
			hi, skip = n, upTo
		}
		upTo += perShared[n]
		lo = n
		if upTo >= end {
			break
		}
	}
	page := cands[:0:0]
	for _, x := range cands {
		if x.shared >= lo && x.shared <= hi {
			page = append(page, x)
		}
	}
	rank, _ := s.ranks(ilgraph.SortDateDesc)
	slices.SortFunc(page, func(x, y cand) int {
		if x.shared != y.shared {
			return y.shared - x.shared
		}
		return int(rank[x.c]) - int(rank[y.c])
	})
	cands = page[offset-skip : end-skip]
	for _, x := range cands {
		ref := ilgraph.CrossRef{Case: s.ref(x.c), Shared: map[ilgraph.Kind][]string{}}
		for _, k := range kinds {
			if k != ilgraph.KindRootCause {
				ref.Shared[k] = []string{}
			}
		}
		fc := s.feats.Sorted(x.c)
		for _, fid := range fa {
			ft := s.features[fid]
			if ft.Kind == ilgraph.KindRootCause {
				continue
			}
			if _, in := slices.BinarySearch(fc, fid); in {
				ref.Shared[ft.Kind] = append(ref.Shared[ft.Kind], ft.ID)
			}
		}
		for _, ids := range ref.Shared {
			sort.Strings(ids)
		}
		refs = append(refs, ref)
	}
	return refs, total, true
}
