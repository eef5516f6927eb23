package similarity

import (
	"slices"
	"time"

	"github.com/ilgraph/ilgraph"
)

// compiled is a case filter turned into index lookups. Its meaning is
// ilgraph.CaseFilter.Match's (the conformance suite, internal/storetest,
// checks it): a filter naming a term no case has matches nothing.
type compiled struct {
	none             bool
	anyOf, allOf     [][]int32 // per kind with a condition: feature ids
	excludeOrg       []int32
	from, to         int32
	hasFrom, hasTo   bool
	severities       []string
	reviewedOnly     bool
	excludeIDs, only map[int32]bool
}

func (ix *Index) compile(f ilgraph.CaseFilter) *compiled {
	c := &compiled{}
	ids := func(k ilgraph.Kind, terms []string) []int32 {
		var out []int32
		for _, t := range terms {
			if id, ok := ix.featID[ilgraph.Feature{Kind: k, ID: t}]; ok {
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
	c.severities = f.Severities
	c.reviewedOnly = f.ReviewedOnly
	if len(f.ExcludeIDs) > 0 {
		c.excludeIDs = map[int32]bool{}
		for _, id := range f.ExcludeIDs {
			if i, ok := ix.byID[id]; ok {
				c.excludeIDs[i] = true
			}
		}
	}
	if f.IDs != nil {
		c.only = map[int32]bool{}
		for _, id := range f.IDs {
			if i, ok := ix.byID[id]; ok {
				c.only[i] = true
			}
		}
	}
	return c
}

func (c *compiled) match(ix *Index, i int32) bool {
	if c.none {
		return false
	}
	if c.hasFrom && ix.date[i] < c.from || c.hasTo && ix.date[i] > c.to {
		return false
	}
	if len(c.severities) > 0 && !slices.Contains(c.severities, ix.severity[i]) {
		return false
	}
	if c.reviewedOnly && ix.machine[i] {
		return false
	}
	if c.excludeIDs[i] || c.only != nil && !c.only[i] {
		return false
	}
	if slices.Contains(c.excludeOrg, ix.org[i]) && ix.org[i] >= 0 {
		return false
	}
	fs := ix.caseFeat[i]
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
