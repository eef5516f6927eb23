package storetest

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Filter is a generated filter with a name that says how it was made.
type Filter struct {
	Name   string
	Filter ilgraph.CaseFilter
	// mustFind: a text filter asking a form of a word of this case's text,
	// which its full-text search must find.
	mustFind string
}

// pools are the values filters over a corpus draw from: what its cases
// have, what the vocabulary has that no case has, and what nothing has.
type pools struct {
	terms  map[ilgraph.Kind][]string // terms some case has, by id
	unused map[ilgraph.Kind][]string // vocabulary terms no case has
	ids    []string
	dates  []string // every case's date, sorted
	cases  []*ilgraph.Case
}

func newPools(co Corpus) *pools {
	p := &pools{terms: map[ilgraph.Kind][]string{}, unused: map[ilgraph.Kind][]string{}, cases: co.Cases}
	has := map[ilgraph.Feature]bool{}
	for _, c := range co.Cases {
		p.ids = append(p.ids, c.ID)
		p.dates = append(p.dates, c.Date)
		for _, f := range c.Features() {
			if !has[f] {
				has[f] = true
				p.terms[f.Kind] = append(p.terms[f.Kind], f.ID)
			}
		}
	}
	for _, ts := range p.terms {
		sort.Strings(ts)
	}
	sort.Strings(p.dates)
	for k, ts := range co.Vocab.Kinds {
		for _, t := range ts {
			if !has[ilgraph.Feature{Kind: k, ID: t.ID}] {
				p.unused[k] = append(p.unused[k], t.ID)
			}
		}
	}
	return p
}

// unknownID is a case id no corpus has (generated ids are GEN-, seeds IL-
// and ILG-).
const unknownID = "NOPE-0000001"

func unknownTerm(k ilgraph.Kind) string { return "no-such-" + string(k) }

// Filters returns the fixed filters every run asks — the zero filter, an
// empty non-nil IDs, ids nobody has, each kind with any-of and all-of
// (repeated and unknown terms too), inclusive date bounds, every severity,
// excludes, reviewedOnly — then n random filters drawn with seed, each
// combining one to four conditions of every field but Text. Terms are
// drawn mostly from the corpus (so that selections are not empty), with
// vocabulary terms no case has and terms that do not exist; kinds come
// from ilgraph.Kinds. Every filter is valid.
func Filters(co Corpus, seed uint64, n int) []Filter {
	p := newPools(co)
	var out []Filter
	add := func(name string, f ilgraph.CaseFilter) {
		if err := f.Validate(); err != nil {
			panic(fmt.Sprintf("storetest: generated an invalid filter %s: %v", name, err))
		}
		out = append(out, Filter{Name: name, Filter: f})
	}
	tags := func(k ilgraph.Kind, m ilgraph.TermMatch) ilgraph.CaseFilter {
		return ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{k: m}}
	}
	add("zero", ilgraph.CaseFilter{})
	add("empty non-nil IDs", ilgraph.CaseFilter{IDs: []string{}})
	add("IDs with unknown ids only", ilgraph.CaseFilter{IDs: []string{unknownID, "IL-99999999"}})
	add("IDs with known and unknown ids", ilgraph.CaseFilter{IDs: append(append([]string(nil), p.ids[:min(12, len(p.ids))]...), unknownID)})
	add("IDs and ExcludeIDs overlapping", ilgraph.CaseFilter{IDs: p.ids[:min(6, len(p.ids))], ExcludeIDs: p.ids[3:min(9, len(p.ids))]})
	add("empty non-nil IDs with other conditions", ilgraph.CaseFilter{IDs: []string{}, DateFrom: p.dates[0]})
	add("empty tag matches of every kind", func() ilgraph.CaseFilter {
		f := ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}}
		for _, k := range ilgraph.AllKinds {
			f.Tags[k] = ilgraph.TermMatch{AnyOf: []string{}, AllOf: []string{}}
		}
		return f
	}())
	add("an empty Tags map", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{}})
	for _, k := range ilgraph.AllKinds {
		ts := p.terms[k]
		if len(ts) == 0 {
			add(fmt.Sprintf("%s any-of a term nobody has", k), tags(k, ilgraph.TermMatch{AnyOf: []string{unknownTerm(k)}}))
			continue
		}
		common := p.mostCommon(k)
		add(fmt.Sprintf("%s any-of the commonest and an unknown term", k), tags(k, ilgraph.TermMatch{AnyOf: []string{common, unknownTerm(k)}}))
		add(fmt.Sprintf("%s any-of every term (at most the limit)", k), tags(k, ilgraph.TermMatch{AnyOf: ts[:min(ilgraph.MaxFilterTerms, len(ts))]}))
		add(fmt.Sprintf("%s all-of one case's terms", k), tags(k, ilgraph.TermMatch{AllOf: p.richest(k)}))
		add(fmt.Sprintf("%s all-of a term twice", k), tags(k, ilgraph.TermMatch{AllOf: []string{common, common}}))
		add(fmt.Sprintf("%s all-of a term twice and an unknown term", k), tags(k, ilgraph.TermMatch{AllOf: []string{common, common, unknownTerm(k)}}))
		add(fmt.Sprintf("%s all-of an unknown term", k), tags(k, ilgraph.TermMatch{AllOf: []string{unknownTerm(k)}}))
		add(fmt.Sprintf("%s any-of an unknown term only", k), tags(k, ilgraph.TermMatch{AnyOf: []string{unknownTerm(k)}}))
		add(fmt.Sprintf("%s any-of and all-of", k), tags(k, ilgraph.TermMatch{AnyOf: ts[:min(3, len(ts))], AllOf: []string{common}}))
		if u := p.unused[k]; len(u) > 0 {
			add(fmt.Sprintf("%s any-of a vocabulary term no case has", k), tags(k, ilgraph.TermMatch{AnyOf: u[:1]}))
		}
	}
	mid := p.dates[len(p.dates)/2]
	add("dateFrom a case's date (inclusive)", ilgraph.CaseFilter{DateFrom: mid})
	add("dateTo a case's date (inclusive)", ilgraph.CaseFilter{DateTo: mid})
	add("one day", ilgraph.CaseFilter{DateFrom: mid, DateTo: mid})
	add("dates outside the corpus", ilgraph.CaseFilter{DateFrom: "1961-01-01", DateTo: "1961-12-31"})
	for _, s := range append([]string{""}, ilgraph.Severities...) {
		add(fmt.Sprintf("severity %q", s), ilgraph.CaseFilter{Severities: []string{s}})
	}
	add("reviewedOnly", ilgraph.CaseFilter{ReviewedOnly: true})
	add("excludeOrgs the commonest and an unknown one", ilgraph.CaseFilter{ExcludeOrgs: []string{p.mostCommon(ilgraph.KindOrg), unknownTerm(ilgraph.KindOrg)}})
	add("excludeIDs known and unknown", ilgraph.CaseFilter{ExcludeIDs: []string{p.ids[0], p.ids[len(p.ids)-1], unknownID}})

	r := rand.New(rand.NewPCG(seed, uint64(len(co.Cases))))
	for i := 0; i < n; i++ {
		var f ilgraph.CaseFilter
		var parts []string
		for j, conds := 0, 1+r.IntN(4); j < conds; j++ {
			parts = append(parts, p.condition(r, &f))
		}
		add(fmt.Sprintf("random %d: %v", i, parts), f)
	}
	return out
}

// condition adds one random condition to f and says what it added.
func (p *pools) condition(r *rand.Rand, f *ilgraph.CaseFilter) string {
	kinds := ilgraph.AllKinds
	switch r.IntN(12) {
	case 0, 1, 2: // any-of
		k := kinds[r.IntN(len(kinds))]
		m := p.match(f, k)
		m.AnyOf = append(m.AnyOf, p.someTerms(r, k, 1+r.IntN(3))...)
		f.Tags[k] = m
		return string(k) + " any-of"
	case 3, 4: // all-of, from one case's terms so that some case has them all
		k := kinds[r.IntN(len(kinds))]
		m := p.match(f, k)
		c := p.cases[r.IntN(len(p.cases))]
		ts := c.Tags(k)
		if len(ts) > 0 {
			m.AllOf = append(m.AllOf, ts[r.IntN(len(ts))])
			if len(ts) > 1 && r.IntN(2) == 0 {
				m.AllOf = append(m.AllOf, ts[r.IntN(len(ts))]) // perhaps the same again
			}
		}
		if r.IntN(8) == 0 {
			m.AllOf = append(m.AllOf, p.someTerms(r, k, 1)...)
		}
		f.Tags[k] = m
		return string(k) + " all-of"
	case 5:
		f.ExcludeOrgs = append(f.ExcludeOrgs, p.someTerms(r, ilgraph.KindOrg, 1+r.IntN(3))...)
		return "excludeOrgs"
	case 6: // dates: a case's date or any day around the corpus
		a, b := p.date(r), p.date(r)
		if a > b {
			a, b = b, a
		}
		switch r.IntN(3) {
		case 0:
			f.DateFrom = a
		case 1:
			f.DateTo = b
		default:
			f.DateFrom, f.DateTo = a, b
		}
		if f.DateFrom != "" && f.DateTo != "" && f.DateFrom > f.DateTo {
			f.DateFrom, f.DateTo = f.DateTo, f.DateFrom
		}
		return "dates"
	case 7:
		all := append([]string{""}, ilgraph.Severities...)
		for j := 0; j < 1+r.IntN(2); j++ {
			f.Severities = append(f.Severities, all[r.IntN(len(all))])
		}
		return "severities"
	case 8:
		f.ReviewedOnly = true
		return "reviewedOnly"
	case 9:
		for j := 0; j < 1+r.IntN(20); j++ {
			f.ExcludeIDs = append(f.ExcludeIDs, p.someID(r))
		}
		return "excludeIDs"
	case 10:
		switch r.IntN(4) {
		case 0:
			f.IDs = []string{}
			return "empty IDs"
		case 1:
			f.IDs = []string{unknownID}
			return "unknown IDs"
		}
		f.IDs = []string{}
		for j := 0; j < 1+r.IntN(60); j++ {
			f.IDs = append(f.IDs, p.someID(r))
		}
		return "IDs"
	default: // a kind's empty match: no condition
		k := kinds[r.IntN(len(kinds))]
		m := p.match(f, k)
		if m.AnyOf == nil {
			m.AnyOf = []string{}
		}
		f.Tags[k] = m
		return string(k) + " empty"
	}
}

// match returns f's match of kind k, making f.Tags when it has none.
func (p *pools) match(f *ilgraph.CaseFilter, k ilgraph.Kind) ilgraph.TermMatch {
	if f.Tags == nil {
		f.Tags = map[ilgraph.Kind]ilgraph.TermMatch{}
	}
	return f.Tags[k]
}

// someTerms draws n terms of kind k: mostly ones a case has, now and then
// a vocabulary term no case has or one that does not exist.
func (p *pools) someTerms(r *rand.Rand, k ilgraph.Kind, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		switch x := r.IntN(20); {
		case x == 0:
			out = append(out, unknownTerm(k))
		case x == 1 && len(p.unused[k]) > 0:
			out = append(out, p.unused[k][r.IntN(len(p.unused[k]))])
		case len(p.terms[k]) > 0:
			out = append(out, p.terms[k][r.IntN(len(p.terms[k]))])
		default:
			out = append(out, unknownTerm(k))
		}
	}
	return out
}

func (p *pools) someID(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return unknownID
	}
	return p.ids[r.IntN(len(p.ids))]
}

// date draws a case's date, or a day from a year before the first case to
// a year after the last.
func (p *pools) date(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return p.dates[r.IntN(len(p.dates))]
	}
	first, _ := time.Parse(ilgraph.DateLayout, p.dates[0])
	last, _ := time.Parse(ilgraph.DateLayout, p.dates[len(p.dates)-1])
	span := int(last.Sub(first).Hours()/24) + 730
	return first.AddDate(-1, 0, r.IntN(span)).Format(ilgraph.DateLayout)
}

// mostCommon is the term of kind k the most cases have (the first by id
// among equals).
func (p *pools) mostCommon(k ilgraph.Kind) string {
	n := map[string]int{}
	for _, c := range p.cases {
		for _, t := range c.Tags(k) {
			n[t]++
		}
	}
	best := ""
	for _, t := range p.terms[k] {
		if best == "" || n[t] > n[best] {
			best = t
		}
	}
	return best
}

// richest is the terms of kind k of the case with the most of them.
func (p *pools) richest(k ilgraph.Kind) []string {
	var best []string
	for _, c := range p.cases {
		if ts := c.Tags(k); len(ts) > len(best) {
			best = ts
		}
	}
	return best
}
