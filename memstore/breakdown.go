package memstore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Breakdown counts the cases f selects along two axes — per cell, per row,
// per column and in all — and the dates of the first and last of them: the
// graph's Breakdown answered from the columns and the feature lists. A case
// counts once under each of its values on an axis (a case with two root
// causes is in two rows), and a case with no value on a kind axis is in no
// row (or column) of it.
func (s *Snapshot) Breakdown(rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	rv, err := s.axisOf(rows)
	if err != nil {
		return nil, err
	}
	cv, err := s.axisOf(cols)
	if err != nil {
		return nil, err
	}
	if out, ok := s.breakdownBits(s.aggs(), rv, cv, f); ok {
		return out, nil
	}
	out := &ilgraph.BreakdownCounts{Rows: map[string]int{}, Columns: map[string]int{}, Cells: map[[2]string]int{}}
	sel := s.selection(f)
	out.Total = len(sel)
	if len(sel) == 0 {
		return out, nil
	}
	// Values are ints while counting (a year, a month as year×12+month-1,
	// a feature id) and become keys once, at the end.
	rowN, colN := map[int32]int{}, map[int32]int{}
	cells := map[[2]int32]int{}
	first, last := s.date[sel[0]], s.date[sel[0]]
	var rs, cs []int32
	for _, c := range sel {
		first, last = min(first, s.date[c]), max(last, s.date[c])
		rs, cs = rv.values(s, c, rs[:0]), cv.values(s, c, cs[:0])
		for _, r := range rs {
			rowN[r]++
			for _, v := range cs {
				cells[[2]int32{r, v}]++
			}
		}
		for _, v := range cs {
			colN[v]++
		}
	}
	rk, ck := map[int32]string{}, map[int32]string{}
	for v, n := range rowN {
		rk[v] = rv.key(s, v)
		out.Rows[rk[v]] = n
	}
	for v, n := range colN {
		ck[v] = cv.key(s, v)
		out.Columns[ck[v]] = n
	}
	for rc, n := range cells {
		out.Cells[[2]string{rk[rc[0]], ck[rc[1]]}] = n
	}
	out.FirstDate, out.LastDate = dayString(first), dayString(last)
	return out, nil
}

// breakdownAxis reads one axis's values of a case.
type breakdownAxis struct {
	axis ilgraph.Axis
	kind int8 // of a kind axis: its index in kinds
}

func (s *Snapshot) axisOf(a ilgraph.Axis) (breakdownAxis, error) {
	switch a {
	case ilgraph.AxisYear, ilgraph.AxisMonth:
		return breakdownAxis{axis: a}, nil
	}
	k := kindIndex(ilgraph.Kind(a))
	if k < 0 {
		return breakdownAxis{}, ilgraph.Errorf(ilgraph.EINVALID, "unknown breakdown axis %q", a)
	}
	return breakdownAxis{axis: a, kind: int8(k)}, nil
}

// values appends case c's values on the axis to buf.
func (x breakdownAxis) values(s *Snapshot, c int32, buf []int32) []int32 {
	switch x.axis {
	case ilgraph.AxisYear:
		return append(buf, int32(s.year[c]))
	case ilgraph.AxisMonth:
		y, m, _ := civil(s.date[c])
		return append(buf, y*12+m-1)
	}
	for _, fid := range s.feats.Sorted(c) {
		if s.fkind[fid] == x.kind {
			buf = append(buf, fid)
		}
	}
	return buf
}

// key is the breakdown key of value v: "2019", "2019-03" or a term id.
func (x breakdownAxis) key(s *Snapshot, v int32) string {
	switch x.axis {
	case ilgraph.AxisYear:
		return strconv.Itoa(int(v))
	case ilgraph.AxisMonth:
		return fmt.Sprintf("%04d-%02d", v/12, v%12+1)
	}
	return s.features[v].ID
}

// civil is the proleptic Gregorian year, month (1–12) and day of a count
// of days since 1970-01-01 (H. Hinnant's days-to-civil), without the cost
// of a time.Time per case.
func civil(days int32) (y, m, d int32) {
	z := days + 719468
	era := z
	if z < 0 {
		era = z - 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func dayString(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format(ilgraph.DateLayout)
}
