package memstore

import (
	"slices"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Filter is a case filter turned into snapshot lookups (Compile). Its meaning is
// ilgraph.CaseFilter.Match's (the conformance suite, internal/storetest,
// checks it): a filter naming a term no case has matches nothing.
type Filter struct {
	s                *Snapshot
	none             bool
	anyOf, allOf     [][]int32 // per kind with a condition: feature ids
	excludeOrg       []int32
	from, to         int32
	hasFrom, hasTo   bool
	severities       []int32 // places in sevNames; nil: any severity
	reviewedOnly     bool
	excludeIDs, only map[int32]bool
}

// Compile turns a filter without text into lookups in the snapshot.
func (s *Snapshot) Compile(f ilgraph.CaseFilter) *Filter {
	c := &Filter{s: s}
	ids := func(k ilgraph.Kind, terms []string) []int32 {
		var out []int32
		for _, t := range terms {
			if id, ok := s.featID[ilgraph.Feature{Kind: k, ID: t}]; ok {
				out = append(out, id)
			}
		}
		return out
	}
	for k, m := range f.Tags {
		if len(m.AnyOf) > 0 {
			a := ids(k, m.AnyOf)
			if len(a) == 0 {
				c.none = true
			}
			c.anyOf = append(c.anyOf, a)
		}
		if len(m.AllOf) > 0 {
			// Repeats count once: [x, x, unknown] needs the unknown term too.
			all := ilgraph.Unique(m.AllOf)
			a := ids(k, all)
			if len(a) < len(all) {
				c.none = true
			}
			c.allOf = append(c.allOf, a)
		}
	}
	c.excludeOrg = ids(ilgraph.KindOrg, f.ExcludeOrgs)
	day := func(s string) int32 {
		d, _ := time.Parse(ilgraph.DateLayout, s)
		return int32(d.Unix() / 86400)
	}
	if f.DateFrom != "" {
		c.from, c.hasFrom = day(f.DateFrom), true
	}
	if f.DateTo != "" {
		c.to, c.hasTo = day(f.DateTo), true
	}
	if len(f.Severities) > 0 {
		c.severities = []int32{}
		for i, name := range s.sevNames {
			if slices.Contains(f.Severities, name) {
				c.severities = append(c.severities, int32(i))
			}
		}
		if len(c.severities) == 0 {
			c.none = true
		}
	}
	c.reviewedOnly = f.ReviewedOnly
	if len(f.ExcludeIDs) > 0 {
		c.excludeIDs = map[int32]bool{}
		for _, id := range f.ExcludeIDs {
			if i, ok := s.Number(id); ok {
				c.excludeIDs[i] = true
			}
		}
	}
	if f.IDs != nil {
		c.only = map[int32]bool{}
		for _, id := range f.IDs {
			if i, ok := s.Number(id); ok {
				c.only[i] = true
			}
		}
	}
	return c
}

// Match reports whether case i meets the filter.
func (c *Filter) Match(i int32) bool {
	s := c.s
	if c.none {
		return false
	}
	if c.hasFrom && s.date[i] < c.from || c.hasTo && s.date[i] > c.to {
		return false
	}
	if c.severities != nil && !slices.Contains(c.severities, s.severity[i]) {
		return false
	}
	if c.reviewedOnly && s.machine[i] {
		return false
	}
	if c.excludeIDs[i] || c.only != nil && !c.only[i] {
		return false
	}
	if slices.Contains(c.excludeOrg, s.org[i]) && s.org[i] >= 0 {
		return false
	}
	fs := s.feats.Sorted(i)
	has := func(f int32) bool { _, ok := slices.BinarySearch(fs, f); return ok }
	for _, set := range c.anyOf {
		found := false
		for _, f := range set {
			if has(f) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, set := range c.allOf {
		for _, f := range set {
			if !has(f) {
				return false
			}
		}
	}
	return true
}
