// Package memstore is the in-memory store: one compact snapshot of the
// corpus per corpus version — each case's date, severity, organization,
// flags, time to resolve and tags as int32 columns, and an inverted index
// from features to cases — and the questions the core asks of cases ×
// terms answered from it (case lists in every order, facets, statistics,
// co-occurrence counts, same root cause), with the meaning of a filter
// ilgraph.CaseFilter.Match gives (the conformance suite, internal/storetest,
// checks it). Full-text search is not here: a filter with text goes to the
// graph.
//
// A Source reads the corpus from the graph once per corpus version and
// builds the snapshot; the similarity ranking and the suggestion engine
// build their own structures over the same snapshot in the same read
// (Consumer), so the corpus is read once and held once. The Store is the
// snapshot as the core's read model (explore.ReadModel), passed to the core
// with explore.WithReadModel.
package memstore

import (
	"slices"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
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

// The kinds' indices, as Snapshot.fkind holds them.
var (
	kRootCause    = int8(kindIndex(ilgraph.KindRootCause))
	kComponent    = int8(kindIndex(ilgraph.KindComponent))
	kContributing = int8(kindIndex(ilgraph.KindContributing))
	kDomain       = int8(kindIndex(ilgraph.KindDomain))
	kOrg          = int8(kindIndex(ilgraph.KindOrg))
)

// Snapshot is the corpus at one version, as the in-memory store holds it.
// It is immutable once built and safe for concurrent use. Cases are
// numbered 0…Len()-1 in the order they were read; features 0… in the order
// first met (or a frozen list's order first, see NewBuilder).
type Snapshot struct {
	ids      idColumn // case -> its id (ids.go)
	byID     idIndex  // id -> number
	date     []int32  // days since 1970-01-01
	severity []int32  // case -> its severity's place in sevNames
	sevNames []string // the severities met, in the order first met (appended to on a copy)
	title    titles   // what lists show beside the tags (titles.go)
	machine  []bool   // Case.MachineTagged
	// Case.Bilingual and Case.Reviewed, counted by Stats.
	bilingual, reviewed []bool
	org                 []int32 // feature id of each case's organization, -1 if none
	resolved            []int32 // minutes to resolve, -1 when the case does not say
	year                []int16
	orgName             []int32 // case -> its organization's name as it gives it, in names
	names               []string
	orgTerms            map[string]string // organization id -> name, when the source has them
	slot                []int32           // feature id -> its position among its kind's features
	fkind               []int8            // feature id -> its kind's index in kinds (compared as ints in the aggregates' loops)
	perKind             [nKinds]int       // features of each kind

	features []ilgraph.Feature         // by feature id
	featID   map[ilgraph.Feature]int32 // feature -> id
	postings [][]int32                 // feature id -> cases with it, ascending
	feats    FeatureLists              // case -> its feature ids, in its order and ascending (featlists.go)

	ord orders // sort orders of the read model (readmodel.go)

	byMinutesOnce sync.Once
	byMinutes     []int32 // every case by minutes to resolve (minutesOrder)

	agg   aggOnce   // the aggregate index (aggindex.go)
	every everyCase // the answers for every case (aggindex.go)

	// Version is the corpus version the snapshot was read at.
	Version int64
	// Built is when the snapshot was built.
	Built time.Time
}

// Build makes the snapshot of rows.
func Build(rows []ilgraph.CaseFeatures, version int64) *Snapshot {
	b := NewBuilder(version, nil)
	for i := range rows {
		b.Add(&rows[i])
	}
	return b.Finish()
}

// Builder makes a snapshot one case at a time, as the cases are read.
type Builder struct {
	s     *Snapshot
	names map[string]int32
	sev   map[string]int32 // severity -> its place in sevNames
}

// NewBuilder starts a snapshot at a version. Features lists features to
// number first, in its order (a frozen numbering, such as the one the
// stored similarity state uses); the others are numbered as first met.
func NewBuilder(version int64, features []ilgraph.Feature) *Builder {
	b := &Builder{
		s:     &Snapshot{featID: map[ilgraph.Feature]int32{}, ids: newIDColumn(), title: newTitles(), feats: newFeatureLists(), Version: version, Built: time.Now()},
		names: map[string]int32{},
		sev:   map[string]int32{},
	}
	for _, f := range features {
		b.s.addFeature(f)
	}
	return b
}

// Add adds the next case (its Text is not kept) and returns its number.
func (b *Builder) Add(r *ilgraph.CaseFeatures) int32 {
	s := b.s
	i := int32(s.ids.len())
	s.ids.append(r.ID)
	s.byID.put(&s.ids, i)
	sev, ok := b.sev[r.Severity]
	if !ok {
		sev = int32(len(s.sevNames))
		b.sev[r.Severity] = sev
		s.sevNames = append(s.sevNames, r.Severity)
	}
	s.severity = append(s.severity, sev)
	s.title.append(r.Title)
	s.machine = append(s.machine, r.MachineTagged)
	s.bilingual = append(s.bilingual, r.Bilingual)
	s.reviewed = append(s.reviewed, r.Reviewed)
	resolved := int32(-1)
	if r.Resolved {
		resolved = int32(r.ResolvedMin)
	}
	s.resolved = append(s.resolved, resolved)
	var date int32
	var year int16
	if d, err := time.Parse(ilgraph.DateLayout, r.Date); err == nil {
		date, year = int32(d.Unix()/86400), int16(d.Year())
	}
	s.date = append(s.date, date)
	s.year = append(s.year, year)
	name, ok := b.names[r.Org]
	if !ok {
		name = int32(len(s.names))
		b.names[r.Org] = name
		s.names = append(s.names, r.Org)
	}
	s.orgName = append(s.orgName, name)
	fs := make([]int32, 0, len(r.Features))
	for _, f := range r.Features {
		id, ok := s.featID[f]
		if !ok {
			id = s.addFeature(f)
		}
		if !slices.Contains(fs, id) {
			fs = append(fs, id)
		}
	}
	sorted := sortedIDs(fs)
	s.feats.append(fs, sorted)
	org := int32(-1)
	for _, f := range sorted {
		s.postings[f] = append(s.postings[f], i)
		if s.features[f].Kind == ilgraph.KindOrg {
			org = f
		}
	}
	s.org = append(s.org, org)
	return i
}

// OrgName records an organization's name, so that the store answers
// organization terms too (graph.DB's OrganizationNames calls it).
func (b *Builder) OrgName(id, name string) {
	if b.s.orgTerms == nil {
		b.s.orgTerms = map[string]string{}
	}
	b.s.orgTerms[id] = name
}

// Names are the organization names the cases added so far give, in the
// order first given.
func (b *Builder) Names() []string { return b.s.names }

// Finish returns the snapshot; the builder is not to be used after.
func (b *Builder) Finish() *Snapshot {
	s := b.s
	b.s = nil
	return s
}

// addFeature numbers a feature the snapshot has not seen.
func (s *Snapshot) addFeature(f ilgraph.Feature) int32 {
	id := int32(len(s.features))
	s.featID[f] = id
	s.features = append(s.features, f)
	s.postings = append(s.postings, nil)
	k := kindIndex(f.Kind)
	s.slot = append(s.slot, int32(s.perKind[k]))
	s.fkind = append(s.fkind, int8(k))
	s.perKind[k]++
	return id
}

// Ranking makes a snapshot that only ranks (its filters read empty
// columns: no case has a date, a severity or an organization): of cases
// ids whose feature ids, ascending, in features' numbering, are caseFeat.
// The write-back's incremental step ranks cases computed under a frozen
// snapshot with it.
func Ranking(features []ilgraph.Feature, ids []string, caseFeat [][]int32) *Snapshot {
	n := len(ids)
	s := &Snapshot{
		ids: idColumnOf(ids), features: features,
		featID: make(map[ilgraph.Feature]int32, len(features)), postings: make([][]int32, len(features)),
		feats: featureListsOf(caseFeat, nil),
		date:  make([]int32, n), severity: make([]int32, n), sevNames: []string{""}, machine: make([]bool, n), org: make([]int32, n),
	}
	s.fkind = make([]int8, len(features))
	for f, x := range features {
		s.featID[x] = int32(f)
		s.fkind[f] = int8(kindIndex(x.Kind))
	}
	s.byID, _ = newIDIndex(&s.ids, n)
	for i, fs := range caseFeat {
		s.org[i] = -1
		for _, f := range fs {
			s.postings[f] = append(s.postings[f], int32(i))
		}
	}
	return s
}

// Len is the number of cases.
func (s *Snapshot) Len() int { return s.ids.len() }

// Has reports whether the snapshot has a case.
func (s *Snapshot) Has(id string) bool { _, ok := s.byID.find(&s.ids, id); return ok }

// Number returns a case's number; false for an unknown case.
func (s *Snapshot) Number(id string) (int32, bool) { return s.byID.find(&s.ids, id) }

// ID is case i's id.
func (s *Snapshot) ID(i int32) string { return s.ids.at(i) }

// FeatureList is the features by feature id. Shared: read only.
func (s *Snapshot) FeatureList() []ilgraph.Feature { return s.features }

// FeatureID returns a feature's id; false when no case has it.
func (s *Snapshot) FeatureID(f ilgraph.Feature) (int32, bool) { id, ok := s.featID[f]; return id, ok }

// FeatureKinds are, by feature id, the index of the feature's kind in
// ilgraph.AllKinds. Shared: read only.
func (s *Snapshot) FeatureKinds() []int8 { return s.fkind }

// Postings are, by feature id, the cases with the feature, ascending.
// Shared: read only.
func (s *Snapshot) Postings() [][]int32 { return s.postings }

// CaseFeatureIDs are, by case, the case's feature ids, ascending
// (FeatureLists.Sorted). Shared: read only.
func (s *Snapshot) CaseFeatureIDs() *FeatureLists { return &s.feats }

// Features returns a case's features, by feature id (nil for an unknown
// case).
func (s *Snapshot) Features(id string) []ilgraph.Feature {
	i, ok := s.Number(id)
	if !ok {
		return nil
	}
	fs := s.feats.Sorted(i)
	out := make([]ilgraph.Feature, len(fs))
	for j, f := range fs {
		out[j] = s.features[f]
	}
	return out
}

// OrgNamesGiven are the organization names the cases give, each once, in
// the order first given. Shared: read only.
func (s *Snapshot) OrgNamesGiven() []string { return s.names }
