package explore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Dimension is what a breakdown's rows or columns are: years, months or the
// terms of a kind.
type Dimension string

// The dimensions.
const (
	DimYear         Dimension = "YEAR"
	DimMonth        Dimension = "MONTH"
	DimRootCause    Dimension = "ROOT_CAUSE"
	DimComponent    Dimension = "COMPONENT"
	DimSymptom      Dimension = "SYMPTOM"
	DimContributing Dimension = "CONTRIBUTING"
	DimDomain       Dimension = "DOMAIN"
	DimOrg          Dimension = "ORG"
)

// axis maps a dimension to the store's axis.
func (d Dimension) axis() (ilgraph.Axis, error) {
	switch d {
	case DimYear:
		return ilgraph.AxisYear, nil
	case DimMonth:
		return ilgraph.AxisMonth, nil
	}
	k := ilgraph.Kind(strings.ToLower(string(d)))
	if !k.Valid() {
		return "", ilgraph.Errorf(ilgraph.EINVALID, "unknown dimension %q (want YEAR, MONTH or a kind)", ilgraph.Clip(string(d), 40))
	}
	return ilgraph.Axis(k), nil
}

// MaxBreakdownCells bounds the cells of one breakdown: narrow the date
// range or keep the top terms of a kind to stay under it.
const MaxBreakdownCells = 20_000

// BreakdownQuery asks for the cases a filter selects, counted over two
// different dimensions. Top, when set (at least 1), keeps only the Top
// terms of a kind (by cases in the selection); time dimensions are never
// cut.
type BreakdownQuery struct {
	Rows, Columns Dimension
	Filter        ilgraph.CaseFilter
	Top           *int
}

// BreakdownKey is one row or column.
type BreakdownKey struct {
	Key   string // "2019", "2019-03", or a term id
	Label string // the term's English label; the key for years and months
	Count int    // selected cases in this row or column
	Term  *ilgraph.TermKey
}

// BreakdownCell is the number of selected cases in one row and column.
type BreakdownCell struct {
	Row, Column string
	Count       int
}

// Breakdown is a zero-filled table of case counts: every row × every
// column, row by row. Rows and columns of a time dimension run from the
// filter's dateFrom (or the first selected case) to its dateTo (or the
// last), empty years and months included; those of a kind are every term of
// the kind, by cases descending then id. A case with several terms of a
// kind counts under each; a case with none is in no row (or column) of that
// kind.
type Breakdown struct {
	Total         int
	Rows, Columns []BreakdownKey
	Cells         []BreakdownCell
	Truncated     bool // Top cut terms off an axis
}

// Breakdown counts the cases a filter selects over two dimensions.
func (s *Service) Breakdown(ctx context.Context, q BreakdownQuery) (*Breakdown, error) {
	ra, err := q.Rows.axis()
	if err != nil {
		return nil, err
	}
	ca, err := q.Columns.axis()
	if err != nil {
		return nil, err
	}
	if ra == ca {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "breakdown: rows and columns are both %s; choose two different dimensions", q.Rows)
	}
	if q.Top != nil && *q.Top < 1 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldBreakdownTop, "must be at least 1, not %d", *q.Top)
	}
	if err := q.Filter.Validate(); err != nil {
		return nil, err
	}
	// Time axes are known before counting: refuse a range too long
	// before asking the database anything.
	for _, a := range []ilgraph.Axis{ra, ca} {
		if a == ilgraph.AxisMonth && q.Filter.DateFrom != "" && q.Filter.DateTo != "" {
			if n := len(timeKeys(a, q.Filter.DateFrom, q.Filter.DateTo)); n > MaxBreakdownCells {
				return nil, tooManyCells(n)
			}
		}
	}
	counts, err := s.breakdownCounts(ctx, ra, ca, q.Filter)
	if err != nil {
		return nil, err
	}
	b := &Breakdown{Total: counts.Total}
	axes := []struct {
		axis   ilgraph.Axis
		counts map[string]int
		keys   *[]BreakdownKey
	}{{ra, counts.Rows, &b.Rows}, {ca, counts.Columns, &b.Columns}}
	for _, x := range axes {
		if x.axis == ilgraph.AxisYear || x.axis == ilgraph.AxisMonth {
			first, last := q.Filter.DateFrom, q.Filter.DateTo
			if first == "" {
				first = counts.FirstDate
			}
			if last == "" {
				last = counts.LastDate
			}
			if first == "" {
				first = last
			}
			if last == "" {
				last = first
			}
			keys := timeKeys(x.axis, first, last)
			if len(keys) > MaxBreakdownCells {
				return nil, tooManyCells(len(keys))
			}
			*x.keys = make([]BreakdownKey, len(keys))
			for i, k := range keys {
				(*x.keys)[i] = BreakdownKey{Key: k, Label: k, Count: x.counts[k]}
			}
			continue
		}
		kind := ilgraph.Kind(x.axis)
		terms, err := s.termsOf(ctx, kind)
		if err != nil {
			return nil, err
		}
		keys := make([]BreakdownKey, 0, len(terms))
		seen := map[string]bool{}
		for _, t := range terms {
			seen[t.ID] = true
			keys = append(keys, BreakdownKey{Key: t.ID, Label: t.En, Count: x.counts[t.ID], Term: &ilgraph.TermKey{Kind: kind, ID: t.ID}})
		}
		for id, c := range x.counts { // a term the vocabulary lacks (never, after a valid load)
			if !seen[id] {
				keys = append(keys, BreakdownKey{Key: id, Label: id, Count: c, Term: &ilgraph.TermKey{Kind: kind, ID: id}})
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].Count != keys[j].Count {
				return keys[i].Count > keys[j].Count
			}
			return keys[i].Key < keys[j].Key
		})
		if q.Top != nil && len(keys) > *q.Top {
			keys, b.Truncated = keys[:*q.Top], true
		}
		*x.keys = keys
	}
	if n := len(b.Rows) * len(b.Columns); n > MaxBreakdownCells {
		return nil, tooManyCells(n)
	}
	b.Cells = make([]BreakdownCell, 0, len(b.Rows)*len(b.Columns))
	for _, r := range b.Rows {
		for _, c := range b.Columns {
			b.Cells = append(b.Cells, BreakdownCell{Row: r.Key, Column: c.Key, Count: counts.Cells[[2]string{r.Key, c.Key}]})
		}
	}
	return b, nil
}

// breakdownCounts counts from memory when the read model is current, from
// the store otherwise.
func (s *Service) breakdownCounts(ctx context.Context, ra, ca ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	if rm := s.readModel(f); rm != nil {
		counts, ok, err := rm.BreakdownCounts(ctx, ra, ca, f)
		if err != nil || ok {
			return counts, err
		}
	}
	return s.store.Breakdown(ctx, ra, ca, f)
}

// termsOf returns every term of a kind: from the shared vocabulary snapshot
// (no round trip) for a vocabulary kind, from the store for organizations.
func (s *Service) termsOf(ctx context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	if k == ilgraph.KindOrg {
		return s.store.Terms(ctx, k)
	}
	vocab, err := s.VocabularySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	var out []ilgraph.Term
	for key, ti := range vocab {
		if key.Kind == k {
			out = append(out, ti.Term)
		}
	}
	return out, nil
}

func tooManyCells(n int) error {
	return ilgraph.Errorf(ilgraph.ELIMIT, "breakdown: %d rows or cells, more than %d: narrow the date range or set top", n, MaxBreakdownCells)
}

// timeKeys lists every year ("2019") or month ("2019-03") from the date
// first to the date last (YYYY-MM-DD), both included; none when either is
// empty or not a date. It stops just past MaxBreakdownCells keys.
func timeKeys(a ilgraph.Axis, first, last string) []string {
	from, err1 := time.Parse(ilgraph.DateLayout, first)
	to, err2 := time.Parse(ilgraph.DateLayout, last)
	if err1 != nil || err2 != nil {
		return nil
	}
	var keys []string
	if a == ilgraph.AxisYear {
		for y := from.Year(); y <= to.Year() && len(keys) <= MaxBreakdownCells; y++ {
			keys = append(keys, strconv.Itoa(y))
		}
		return keys
	}
	y, m := from.Year(), int(from.Month())
	for y*12+m <= to.Year()*12+int(to.Month()) && len(keys) <= MaxBreakdownCells {
		keys = append(keys, fmt.Sprintf("%04d-%02d", y, m))
		if m++; m > 12 {
			y, m = y+1, 1
		}
	}
	return keys
}
