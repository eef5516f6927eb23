package explore

import (
	"context"
	"slices"

	"github.com/ilgraph/ilgraph"
)

// Vocabulary returns every term of the given kinds (all kinds when none),
// organizations included, ordered by kind, then id.
func (s *Service) Vocabulary(ctx context.Context, kinds ...ilgraph.Kind) ([]ilgraph.Term, error) {
	if len(kinds) == 0 {
		kinds = ilgraph.AllKinds
	}
	out := []ilgraph.Term{}
	for _, k := range kinds {
		if !k.Valid() {
			return nil, unknownKind(k)
		}
		ts, err := s.store.Terms(ctx, k)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// Terms returns the terms asked for, in order. A vocabulary term comes from
// the shared snapshot; organizations are read in one round trip. A term the
// graph lacks comes back with its id as its label.
func (s *Service) Terms(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	out, err := byTermKey(ctx, s, keys, func(ti ilgraph.TermInfo) ilgraph.Term { return ti.Term }, s.orgTerms)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if out[i].ID == "" {
			out[i] = ilgraph.Term{Kind: k.Kind, ID: k.ID, En: k.ID}
		}
	}
	return out, nil
}

// OrgNameMap returns every organization's name by id from the read model
// (read only), or nil when it is not current: a front door resolving many
// organizations in one request looks them up there instead of in batches.
func (s *Service) OrgNameMap(ctx context.Context) (map[string]string, error) {
	if s.rm == nil {
		return nil, nil
	}
	m, ok, err := s.rm.OrgNameMap(ctx)
	if !ok {
		return nil, err
	}
	return m, err
}

// orgTerms reads organizations: from the read model when it is current
// and knows them all, else in one round trip to the store.
func (s *Service) orgTerms(ctx context.Context, keys []ilgraph.TermKey) ([]ilgraph.Term, error) {
	if s.rm != nil {
		ids := make([]string, len(keys))
		for i, k := range keys {
			ids[i] = k.ID
		}
		names, ok, err := s.rm.OrgNames(ctx, ids)
		if err != nil {
			return nil, err
		}
		if ok {
			out := make([]ilgraph.Term, len(keys))
			missing := false
			for i, k := range keys {
				if names[i] == "" {
					missing = true
					break
				}
				out[i] = ilgraph.Term{Kind: k.Kind, ID: k.ID, En: names[i]}
			}
			if !missing {
				return out, nil
			}
		}
	}
	return s.store.TermsByKey(ctx, keys)
}

// Term returns one term, or ENOTFOUND.
func (s *Service) Term(ctx context.Context, key ilgraph.TermKey) (*ilgraph.Term, error) {
	if !key.Kind.Valid() {
		return nil, unknownKind(key.Kind)
	}
	if key.Kind == ilgraph.KindOrg {
		ts, err := s.store.TermsByKey(ctx, []ilgraph.TermKey{key})
		if err != nil {
			return nil, err
		}
		if len(ts) == 1 && ts[0].ID != "" {
			return &ts[0], nil
		}
	} else {
		vocab, err := s.VocabularySnapshot(ctx)
		if err != nil {
			return nil, err
		}
		if ti, ok := vocab[key]; ok {
			return &ti.Term, nil
		}
	}
	return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no %s %q", key.Kind.Label(), ilgraph.Clip(key.ID, 60))
}

// TermCaseCounts returns how many cases have each term, in order.
func (s *Service) TermCaseCounts(ctx context.Context, keys []ilgraph.TermKey) ([]int, error) {
	return byTermKey(ctx, s, keys, func(ti ilgraph.TermInfo) int { return ti.Cases }, s.store.TermCaseCounts)
}

// byTermKey answers keys in order: vocabulary terms from the shared
// snapshot (read only when one is asked for), organizations in one batch.
func byTermKey[V any](ctx context.Context, s *Service, keys []ilgraph.TermKey, fromVocab func(ilgraph.TermInfo) V,
	orgs func(context.Context, []ilgraph.TermKey) ([]V, error)) ([]V, error) {
	out := make([]V, len(keys))
	var orgKeys []ilgraph.TermKey
	var orgAt []int
	var vocab map[ilgraph.TermKey]ilgraph.TermInfo
	for i, k := range keys {
		if k.Kind == ilgraph.KindOrg {
			orgKeys, orgAt = append(orgKeys, k), append(orgAt, i)
			continue
		}
		if vocab == nil {
			var err error
			if vocab, err = s.VocabularySnapshot(ctx); err != nil {
				return nil, err
			}
		}
		out[i] = fromVocab(vocab[k])
	}
	if len(orgKeys) > 0 {
		vs, err := orgs(ctx, orgKeys)
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			out[orgAt[j]] = v
		}
	}
	return out, nil
}

// Co-occurring terms listed for one term, per kind: how many when the
// question names no number, and the most.
const (
	DefaultCooccurring = 10
	MaxCooccurring     = MaxPageSize
)

// Cooccurring returns, among the cases with a term, how many have each term
// of kind other, by count descending (at most first of them).
func (s *Service) Cooccurring(ctx context.Context, key ilgraph.TermKey, other ilgraph.Kind, first int) ([]ilgraph.TermCount, error) {
	if first < 0 || first > MaxCooccurring {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldCooccurringSize, "must be from 0 to %d, not %d", MaxCooccurring, first)
	}
	// The read model counts the same thing in memory (the facets of the
	// cases with the term), instead of a scan of those cases in the graph
	// per kind: a topic page asks for six kinds.
	if rm := s.readModel(ilgraph.CaseFilter{}); rm != nil && key.Kind.Valid() && other.Valid() {
		f := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{key.Kind: {AnyOf: []string{key.ID}}}}
		fs, ok, err := rm.FacetCounts(ctx, f)
		if err != nil {
			return nil, err
		}
		if ok {
			out := []ilgraph.TermCount{}
			for _, tc := range fs.Terms[other] { // by count descending, then id
				if len(out) == first {
					break
				}
				if tc.Kind == key.Kind && tc.ID == key.ID {
					continue
				}
				out = append(out, tc)
			}
			return out, nil
		}
	}
	return s.store.Cooccurring(ctx, key.Kind, key.ID, other, first)
}

// Drawing limits and defaults.
const (
	DefaultNeighbourhoodDepth = 1
	DefaultNeighbourhoodLimit = 200
	DefaultMaxHops            = 4
	DefaultConnections        = 10
	DefaultMinCount           = 1
	DefaultMinSupport         = 1
)

// Neighbourhood draws the nodes within depth hops of a case (kind
// ilgraph.NodeKindCase) or a term, at most limit of them. A filter that
// selects anything less than every case keeps, of the cases drawn, those
// it selects (the start node always stays): the others go with their
// relationships, and so do the nodes that were reached only through them
// (every node left is connected to the start), as the Graph screen keeps
// its filter when it expands a node.
func (s *Service) Neighbourhood(ctx context.Context, kind, id string, depth, limit int, f ilgraph.CaseFilter) (*ilgraph.Drawing, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	d, err := s.store.Neighbourhood(ctx, kind, id, depth, limit)
	if err != nil || f.IsZero() {
		return d, err
	}
	start := kind + ":" + id
	var ids []string
	for _, n := range d.Nodes {
		if n.Kind == ilgraph.NodeKindCase && n.Key != start {
			ids = append(ids, n.ID)
		}
	}
	keep, err := s.selected(ctx, f, ids)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	for _, n := range d.Nodes {
		if n.Kind == ilgraph.NodeKindCase && n.Key != start && !keep[n.ID] {
			drop[n.Key] = true
		}
	}
	// What stays connected to the start without the dropped cases.
	adj := map[string][]string{}
	for _, e := range d.Edges {
		if !drop[e.Source] && !drop[e.Target] {
			adj[e.Source] = append(adj[e.Source], e.Target)
			adj[e.Target] = append(adj[e.Target], e.Source)
		}
	}
	reached := map[string]bool{start: true}
	for queue := []string{start}; len(queue) > 0; queue = queue[1:] {
		for _, y := range adj[queue[0]] {
			if !reached[y] {
				reached[y] = true
				queue = append(queue, y)
			}
		}
	}
	out := &ilgraph.Drawing{Truncated: d.Truncated}
	for _, n := range d.Nodes {
		if reached[n.Key] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, e := range d.Edges {
		if reached[e.Source] && reached[e.Target] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out, nil
}

// selected returns which of the cases ids the filter selects.
func (s *Service) selected(ctx context.Context, f ilgraph.CaseFilter, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	if f.IDs != nil {
		ids = slices.DeleteFunc(slices.Clone(ids), func(x string) bool { return !slices.Contains(f.IDs, x) })
	}
	f.IDs = append([]string{}, ids...)
	f, err := s.resolveFilter(ctx, f)
	if err != nil {
		return nil, err
	}
	var cs []*ilgraph.Case
	ok := false
	if rm := s.readModel(f); rm != nil {
		if cs, _, ok, err = rm.ListCases(ctx, f, ilgraph.SortIDAsc, 0, len(ids)); err != nil {
			return nil, err
		}
	}
	if !ok {
		p, err := s.store.ListCases(ctx, f, ilgraph.SortIDAsc, 0, len(ids))
		if err != nil {
			return nil, err
		}
		cs = p.Cases
	}
	for _, c := range cs {
		out[c.ID] = true
	}
	return out, nil
}

// LiftBase says which cases co-occurrence lift is measured over.
type LiftBase string

// The populations lift can be measured over.
const (
	// LiftSelection measures lift over the cases the filter selects (the
	// default): a filter on one of the two kinds then makes every lift 1.
	LiftSelection LiftBase = "SELECTION"
	// LiftCorpus measures lift over every case.
	LiftCorpus LiftBase = "CORPUS"
	// LiftBaseFilter measures lift over the cases a base filter selects.
	LiftBaseFilter LiftBase = "BASE"
)

// CooccurrenceQuery asks for a co-occurrence graph: the pairs of terms of
// kinds From and To that the cases Filter selects have, at least MinCount
// cases each, with their lift measured over LiftBase (Base when BASE; BASE
// is implied when Base is given and LiftBase is empty), leaving out pairs
// whose lift rests on fewer than MinSupport cases.
type CooccurrenceQuery struct {
	From, To   ilgraph.Kind
	Filter     ilgraph.CaseFilter
	LiftBase   LiftBase
	Base       *ilgraph.CaseFilter
	MinCount   int
	MinSupport int
}

// Cooccurrence draws the co-occurrence graph between two kinds over the
// cases a filter selects: edges carry the number of selected cases with
// both terms, their lift and its support (see ilgraph.CooccurrenceQuery).
func (s *Service) Cooccurrence(ctx context.Context, q CooccurrenceQuery) (*ilgraph.Drawing, error) {
	sq := ilgraph.CooccurrenceQuery{From: q.From, To: q.To, Filter: q.Filter, MinCount: q.MinCount, MinSupport: q.MinSupport}
	switch q.LiftBase {
	case "", LiftSelection, LiftBaseFilter:
		if q.LiftBase == LiftBaseFilter && q.Base == nil {
			return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLiftBaseFilter, "is needed to measure lift over a base filter (BASE)")
		}
		if q.LiftBase == LiftSelection && q.Base != nil {
			return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLiftBaseFilter, "is not used when lift is measured over the selection (SELECTION): leave it out, or measure lift over it (BASE)")
		}
		sq.Base = q.Base
	case LiftCorpus:
		if q.Base != nil {
			return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLiftBaseFilter, "is not used when lift is measured over every case (CORPUS): leave it out, or measure lift over it (BASE)")
		}
		sq.Base = &ilgraph.CaseFilter{}
	default:
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldLiftBase, "%q is not SELECTION, CORPUS or BASE", ilgraph.Clip(string(q.LiftBase), 40))
	}
	if q.MinCount < 0 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldMinCount, "must not be negative, not %d", q.MinCount)
	}
	if q.MinSupport < 0 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldMinSupport, "must not be negative, not %d", q.MinSupport)
	}
	if err := sq.Filter.Validate(); err != nil {
		return nil, err
	}
	var err error
	if sq.Filter, err = s.resolveFilter(ctx, sq.Filter); err != nil {
		return nil, err
	}
	if sq.Base != nil && len(sq.Base.Tags)+len(sq.Base.ExcludeOrgs) > 0 {
		base, err := s.resolveFilter(ctx, *sq.Base)
		if err != nil {
			return nil, err
		}
		sq.Base = &base
	}
	if rm := s.readModel(sq.Filter); rm != nil && (sq.Base == nil || !sq.Base.HasText()) {
		if d, ok, err := s.cooccurrenceFromReadModel(ctx, rm, sq); err != nil || ok {
			return d, err
		}
	}
	return s.store.Cooccurrence(ctx, sq)
}

// cooccurrenceFromReadModel answers a co-occurrence question as the store
// does (graph.DB.Cooccurrence), from the read model's counts over the
// selection and, when the lift has another base, over the base; ok is
// false when the read model is not current.
func (s *Service) cooccurrenceFromReadModel(ctx context.Context, rm ReadModel, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, bool, error) {
	from, to := q.From, q.To
	for _, k := range []ilgraph.Kind{from, to} {
		if !k.Valid() {
			return nil, false, ilgraph.Errorf(ilgraph.EINVALID, "unknown kind %q", k) // as the store says it
		}
	}
	if q.Base != nil {
		if err := q.Base.Validate(); err != nil {
			return nil, false, err
		}
	}
	total, singles, pairs, ok, err := rm.CooccurrenceCounts(ctx, from, to, q.Filter)
	if err != nil || !ok {
		return nil, false, err
	}
	lTotal, lSingles, lPairs := total, singles, pairs
	if q.Base != nil {
		if lTotal, lSingles, lPairs, ok, err = rm.CooccurrenceCounts(ctx, from, to, *q.Base); err != nil || !ok {
			return nil, false, err
		}
	}
	d := &ilgraph.Drawing{}
	used := map[ilgraph.Feature]bool{}
	for p, c := range pairs {
		support := lPairs[p]
		if c < q.MinCount || support < max(q.MinSupport, 1) {
			continue
		}
		a, b := p[0], p[1]
		lift := float64(support) * float64(lTotal) / (float64(lSingles[a]) * float64(lSingles[b]))
		d.Edges = append(d.Edges, ilgraph.Edge{Source: string(from) + ":" + a.ID, Target: string(to) + ":" + b.ID, Type: ilgraph.EdgeCooccurs, Count: c, Support: support, Lift: lift})
		used[a], used[b] = true, true
	}
	if len(used) > ilgraph.MaxDrawingNodes {
		return nil, false, ilgraph.Errorf(ilgraph.ELIMIT, "the co-occurrence graph has %d nodes, more than %d: narrow the filter or raise minCount", len(used), ilgraph.MaxDrawingNodes)
	}
	feats := make([]ilgraph.Feature, 0, len(used))
	keys := make([]ilgraph.TermKey, 0, len(used))
	for f := range used {
		feats, keys = append(feats, f), append(keys, ilgraph.TermKey(f))
	}
	// Labels as the graph has them: empty for a term it lacks.
	labels, err := byTermKey(ctx, s, keys, func(ti ilgraph.TermInfo) string { return ti.En },
		func(ctx context.Context, keys []ilgraph.TermKey) ([]string, error) {
			ts, err := s.orgTerms(ctx, keys)
			out := make([]string, len(ts))
			for i, t := range ts {
				out[i] = t.En
			}
			return out, err
		})
	if err != nil {
		return nil, false, err
	}
	for i, f := range feats {
		d.Nodes = append(d.Nodes, ilgraph.Node{Key: string(f.Kind) + ":" + f.ID, Kind: string(f.Kind), ID: f.ID, Label: labels[i], Count: singles[f]})
	}
	d.Sort()
	return d, true, nil
}

// Connections returns the shortest connections between two cases through
// shared features.
func (s *Service) Connections(ctx context.Context, from, to string, maxHops, limit int) ([]ilgraph.Path, error) {
	return s.store.Connections(ctx, from, to, maxHops, limit)
}

func unknownKind(k ilgraph.Kind) error {
	return ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldKind, "%q is not a kind of term", ilgraph.Clip(string(k), 40))
}
