package explore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// fakeStore answers the few store calls these tests make; any other call
// panics (the embedded interface is nil).
type fakeStore struct {
	Store
	counts *ilgraph.BreakdownCounts
	terms  map[ilgraph.Kind][]string
	total  int
	coq    *ilgraph.CooccurrenceQuery
}

func (f *fakeStore) Breakdown(ctx context.Context, rows, cols ilgraph.Axis, _ ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error) {
	return f.counts, nil
}

func (f *fakeStore) Terms(ctx context.Context, k ilgraph.Kind) ([]ilgraph.Term, error) {
	var out []ilgraph.Term
	for _, id := range f.terms[k] {
		out = append(out, ilgraph.Term{Kind: k, ID: id, En: strings.ToUpper(id)})
	}
	return out, nil
}

func (f *fakeStore) VocabularyCounts(ctx context.Context) (map[ilgraph.TermKey]ilgraph.TermInfo, error) {
	out := map[ilgraph.TermKey]ilgraph.TermInfo{}
	for k, ids := range f.terms {
		for _, id := range ids {
			out[ilgraph.TermKey{Kind: k, ID: id}] = ilgraph.TermInfo{Term: ilgraph.Term{Kind: k, ID: id, En: strings.ToUpper(id)}}
		}
	}
	return out, nil
}

func (f *fakeStore) ListCases(ctx context.Context, _ ilgraph.CaseFilter, _ ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error) {
	return &ilgraph.CasePage{Total: f.total}, nil
}

func (f *fakeStore) Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	f.coq = &q
	return &ilgraph.Drawing{}, nil
}

func keysOf(ks []BreakdownKey) string {
	var out []string
	for _, k := range ks {
		out = append(out, fmt.Sprintf("%s=%d", k.Key, k.Count))
	}
	return strings.Join(out, " ")
}

func TestBreakdownZeroFill(t *testing.T) {
	ctx := context.Background()
	store := &fakeStore{terms: map[ilgraph.Kind][]string{ilgraph.KindComponent: {"cache", "dns", "queue", "api"}}}
	s := New(store, nil)
	store.counts = &ilgraph.BreakdownCounts{Total: 3, FirstDate: "2013-05-02", LastDate: "2016-01-01",
		Rows:    map[string]int{"2013": 1, "2016": 2},
		Columns: map[string]int{"queue": 2, "cache": 2, "api": 1},
		Cells:   map[[2]string]int{{"2013", "queue"}: 1, {"2016", "cache"}: 2, {"2016", "queue"}: 1, {"2016", "api"}: 1}}
	b, err := s.Breakdown(ctx, BreakdownQuery{Rows: DimYear, Columns: DimComponent})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(b.Rows), "2013=1 2014=0 2015=0 2016=2"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	if got, want := keysOf(b.Columns), "cache=2 queue=2 api=1 dns=0"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if len(b.Cells) != 16 || b.Cells[1] != (BreakdownCell{"2013", "queue", 1}) || b.Cells[12] != (BreakdownCell{"2016", "cache", 2}) || b.Cells[5].Count != 0 {
		t.Errorf("cells %v", b.Cells)
	}
	if b.Columns[0].Label != "CACHE" || b.Columns[0].Term == nil || b.Rows[0].Term != nil || b.Rows[0].Label != "2013" {
		t.Errorf("labels: %+v %+v", b.Columns[0], b.Rows[0])
	}

	top := 2
	store.counts = &ilgraph.BreakdownCounts{Total: 3, FirstDate: "2015-12-02", LastDate: "2016-01-01",
		Rows: map[string]int{"queue": 2, "cache": 2, "api": 1}, Columns: map[string]int{"2015-12": 1, "2016-01": 2}, Cells: map[[2]string]int{}}
	b, err = s.Breakdown(ctx, BreakdownQuery{Rows: DimComponent, Columns: DimMonth, Top: &top,
		Filter: ilgraph.CaseFilter{DateFrom: "2015-11-15", DateTo: "2016-02-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(b.Columns), "2015-11=0 2015-12=1 2016-01=2 2016-02=0"; got != want {
		t.Errorf("months %s, want %s", got, want)
	}
	if got, want := keysOf(b.Rows), "cache=2 queue=2"; got != want || !b.Truncated {
		t.Errorf("top 2: %s (truncated %v), want %s", got, b.Truncated, want)
	}

	store.counts = &ilgraph.BreakdownCounts{Rows: map[string]int{}, Columns: map[string]int{}, Cells: map[[2]string]int{}}
	b, err = s.Breakdown(ctx, BreakdownQuery{Rows: DimYear, Columns: DimComponent})
	if err != nil || len(b.Rows) != 0 || len(b.Cells) != 0 || len(b.Columns) != 4 {
		t.Errorf("nothing selected: %+v %v", b, err)
	}
	b, err = s.Breakdown(ctx, BreakdownQuery{Rows: DimYear, Columns: DimComponent, Filter: ilgraph.CaseFilter{DateTo: "2020-06-30"}})
	if err != nil || keysOf(b.Rows) != "2020=0" {
		t.Errorf("nothing selected up to 2020: %+v %v", b, err)
	}

	zero := 0
	for _, q := range []struct {
		q    BreakdownQuery
		code string
	}{
		{BreakdownQuery{Rows: DimYear, Columns: DimYear}, ilgraph.EINVALID},
		{BreakdownQuery{Rows: "WEEK", Columns: DimYear}, ilgraph.EINVALID},
		{BreakdownQuery{Rows: DimYear, Columns: DimComponent, Top: &zero}, ilgraph.EINVALID},
		{BreakdownQuery{Rows: DimMonth, Columns: DimComponent, Filter: ilgraph.CaseFilter{DateFrom: "1000-01-01", DateTo: "2020-01-01"}}, ilgraph.ELIMIT},
	} {
		if _, err := s.Breakdown(ctx, q.q); ilgraph.ErrorCode(err) != q.code {
			t.Errorf("%+v: %v, want %s", q.q, err, q.code)
		}
	}
}

func TestCooccurrenceLiftBase(t *testing.T) {
	ctx := context.Background()
	store := &fakeStore{}
	s := New(store, nil)
	base := &ilgraph.CaseFilter{DateFrom: "2020-01-01"}
	for _, tt := range []struct {
		lb   LiftBase
		base *ilgraph.CaseFilter
		want *ilgraph.CaseFilter
		code string
	}{
		{"", nil, nil, ""},
		{LiftSelection, nil, nil, ""},
		{LiftCorpus, nil, &ilgraph.CaseFilter{}, ""},
		{"", base, base, ""},
		{LiftBaseFilter, base, base, ""},
		{LiftBaseFilter, nil, nil, ilgraph.EINVALID},
		{LiftCorpus, base, nil, ilgraph.EINVALID},
		{LiftSelection, base, nil, ilgraph.EINVALID},
		{"EVERYTHING", nil, nil, ilgraph.EINVALID},
	} {
		store.coq = nil
		_, err := s.Cooccurrence(ctx, CooccurrenceQuery{From: ilgraph.KindRootCause, To: ilgraph.KindComponent, LiftBase: tt.lb, Base: tt.base, MinSupport: 2})
		if ilgraph.ErrorCode(err) != tt.code {
			t.Errorf("%q %v: %v, want %q", tt.lb, tt.base, err, tt.code)
			continue
		}
		if tt.code == "" && (store.coq == nil || !reflect.DeepEqual(store.coq.Base, tt.want) || store.coq.MinSupport != 2) {
			t.Errorf("%q %v: store asked %+v, want base %v", tt.lb, tt.base, store.coq, tt.want)
		}
	}
}

func TestCursorPastTheEnd(t *testing.T) {
	s := New(&fakeStore{total: 10}, nil)
	for offset, ok := range map[int]bool{0: true, 8: true, 9: true, 10: false, 50: false} {
		_, err := s.Cases(context.Background(), CaseQuery{Page: Page{After: EncodeCursor(offset)}})
		if (err == nil) != ok || (!ok && ilgraph.ErrorCode(err) != ilgraph.EINVALID) {
			t.Errorf("after item %d of 10: %v", offset, err)
		}
	}
}
