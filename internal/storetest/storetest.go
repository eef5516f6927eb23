// Package storetest is the conformance suite of the stores that answer
// filtered questions — Neo4j's Cypher (graph.DB), the read model
// (similarity.Index) and the reference store (internal/refstore) — so that
// a filter means the same in each of them: the meaning of
// ilgraph.CaseFilter.Match.
//
// Run asks a store, over a corpus (Corpora: the seeds and generated
// corpora), every filter Filters makes (fixed ones for each rule, then
// random ones drawn with a seed), and compares each answer with the
// reference store's over the same cases: the ids of a list, in every order
// the store sorts by, pages of it and its total; and, when the store
// answers them, facets, statistics, breakdowns, co-occurrence graphs and
// counts, relationship counts and the ids a filter selects. A store that
// searches text is also asked filters with text, and must answer them as
// the cases its own full-text search finds that Match accepts.
package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/refstore"
)

// Lister lists the cases a filter selects: every store under test does.
type Lister interface {
	ListCases(ctx context.Context, f ilgraph.CaseFilter, s ilgraph.CaseSort, offset, limit int) (*ilgraph.CasePage, error)
}

// The other questions a store may answer; Run asks those it does, and the
// reference store answers them all.
type (
	Faceter interface {
		Facets(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Facets, error)
	}
	Statser interface {
		Stats(ctx context.Context, f ilgraph.CaseFilter) (*ilgraph.Stats, error)
	}
	Breakdowner interface {
		Breakdown(ctx context.Context, rows, cols ilgraph.Axis, f ilgraph.CaseFilter) (*ilgraph.BreakdownCounts, error)
	}
	CooccurrenceDrawer interface {
		Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error)
	}
	CooccurrenceCounter interface {
		CooccurrenceCounts(ctx context.Context, from, to ilgraph.Kind, f ilgraph.CaseFilter) (total int, singles map[ilgraph.Feature]int, pairs map[[2]ilgraph.Feature]int, err error)
	}
	RelationshipCounter interface {
		CaseRelationships(ctx context.Context, f ilgraph.CaseFilter) (int, error)
	}
	IDMatcher interface {
		CaseIDsMatching(ctx context.Context, f ilgraph.CaseFilter) ([]string, error)
	}
)

// Options for a run.
type Options struct {
	// Filters is how many random filters to ask besides the fixed ones
	// (default 300); Seed draws them (default 1).
	Filters int
	Seed    uint64
	// Sorts are the orders the store lists in (default every order but
	// RELEVANCE, which needs text).
	Sorts []ilgraph.CaseSort
	// StatsWithoutRelationships says the store's Stats leaves
	// Relationships to another store (it is then compared with 0).
	StatsWithoutRelationships bool
	// Text says the store searches text (its Lister and IDMatcher take
	// filters with Text): TextFilters filters with words from the corpus's
	// titles and summaries are asked too (default 60), RELEVANCE among the
	// sorts.
	Text        bool
	TextFilters int
	// AggregateEvery asks the aggregates (facets, stats, relationship
	// counts, matched ids, breakdowns, co-occurrence) of every n-th filter
	// only (default 1: of every filter), for a store whose aggregates are
	// slow to ask; lists are asked of every filter.
	AggregateEvery int
}

func (o Options) withDefaults() Options {
	if o.Filters == 0 {
		o.Filters = 300
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Sorts == nil {
		o.Sorts = []ilgraph.CaseSort{ilgraph.SortDateDesc, ilgraph.SortDateAsc, ilgraph.SortIDAsc, ilgraph.SortIDDesc}
	}
	if o.TextFilters == 0 {
		o.TextFilters = 60
	}
	if o.AggregateEvery == 0 {
		o.AggregateEvery = 1
	}
	return o
}

// maxFailures is how many disagreements a run reports before it stops: one
// wrong rule usually breaks many filters, and the first ones say enough.
const maxFailures = 12

// T is what Run reports to: a *testing.T, or a recorder in the suite's
// own tests (which check that it fails a store that drifts). Fatalf must
// not return.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Run asks store every filter over co (which store must hold, loaded from
// co.Paths or built from co.Cases) and fails t where an answer differs from
// the reference store's.
func Run(t T, co Corpus, store Lister, opt Options) {
	t.Helper()
	opt = opt.withDefaults()
	r := &run{t: t, ctx: context.Background(), co: co, store: store, ref: refstore.New(co.Cases, co.Vocab), opt: opt}
	start := time.Now()
	filters := Filters(co, opt.Seed, opt.Filters)
	for i, f := range filters {
		r.check(i, f.Name, f.Filter, f.Filter)
		if r.failures >= maxFailures {
			t.Fatalf("%s: stopped after %d disagreements", co.Name, r.failures)
		}
	}
	if !opt.Text {
		t.Logf("%s: %d filters agree with the reference (%s)", co.Name, len(filters), time.Since(start).Round(time.Millisecond))
		return
	}
	m, ok := store.(IDMatcher)
	if !ok {
		t.Fatalf("%s: Options.Text needs a store that matches ids (IDMatcher)", co.Name)
	}
	texts := textFilters(co, opt.Seed, opt.TextFilters)
	forms := 0
	for i, tf := range texts {
		// The text's meaning is the store's own full-text search; the rest of
		// the filter is Match's: the answer must be their intersection.
		textOnly := ilgraph.CaseFilter{Text: tf.Filter.Text, TextMode: tf.Filter.TextMode, TextFields: tf.Filter.TextFields}
		found, err := m.CaseIDsMatching(r.ctx, textOnly)
		if err != nil {
			t.Fatalf("%s: text %q alone: %v", co.Name, textOnly.Text, err)
		}
		if tf.mustFind != "" {
			forms++
			if !slices.Contains(found, tf.mustFind) {
				r.failures++
				t.Errorf("%s: %s: the search for %q does not find %s, whose text has a form of it", co.Name, tf.Name, textOnly.Text, tf.mustFind)
			}
		}
		r.textHits += len(found)
		rest := filters[i%len(filters)]
		ask := rest.Filter
		ask.Text, ask.TextMode, ask.TextFields = textOnly.Text, textOnly.TextMode, textOnly.TextFields
		want := rest.Filter
		want.IDs = intersect(rest.Filter.IDs, found)
		r.check(len(filters)+i, fmt.Sprintf("%s, with %s", rest.Name, tf.Name), ask, want)
		if r.failures >= maxFailures {
			t.Fatalf("%s: stopped after %d disagreements", co.Name, r.failures)
		}
	}
	if r.textHits == 0 {
		t.Errorf("%s: no text filter found any case: the text checks checked nothing", co.Name)
	}
	if forms == 0 && len(texts) >= 20 {
		t.Errorf("%s: no text filter asked for a word form: the word-form check checked nothing", co.Name)
	}
	t.Logf("%s: %d filters and %d with text agree with the reference (%s)", co.Name, len(filters), len(texts), time.Since(start).Round(time.Millisecond))
}

// intersect returns the ids in found that ids (nil: every id) lists; never
// nil, so that an empty intersection selects nothing.
func intersect(ids, found []string) []string {
	out := []string{}
	for _, id := range found {
		if ids == nil || slices.Contains(ids, id) {
			out = append(out, id)
		}
	}
	return out
}

type run struct {
	t        T
	ctx      context.Context
	co       Corpus
	store    Lister
	ref      *refstore.Store
	opt      Options
	failures int
	textHits int
}

// fail reports one disagreement.
func (r *run) fail(name, what, got, want string) {
	r.t.Helper()
	r.failures++
	r.t.Errorf("%s: filter %s: %s differs from the reference\n%s", r.co.Name, name, what, diff(got, want))
}

// check asks the store filter ask and the reference filter want (the same,
// or, for a filter with text, the same with the text resolved into IDs).
func (r *run) check(i int, name string, ask, want ilgraph.CaseFilter) {
	r.t.Helper()
	ctx, s := r.ctx, r.store
	desc := name + " " + show(ask)
	// One disagreement per filter is reported: the others it causes say
	// nothing more.
	before := r.failures
	failed := func() bool { return r.failures > before }
	n := len(r.co.Cases)
	sorts := r.opt.Sorts
	if ask.HasText() {
		sorts = append(slices.Clone(sorts), ilgraph.SortRelevance)
	}
	for si, o := range sorts {
		if failed() {
			break
		}
		full, err := s.ListCases(ctx, ask, o, 0, n+1)
		wsort := o
		if o == ilgraph.SortRelevance {
			wsort = ilgraph.SortIDAsc // the score is the index's: compare the set
		}
		wfull, werr := r.ref.ListCases(ctx, want, wsort, 0, n+1)
		if !sameErr(err, werr) {
			r.fail(desc, fmt.Sprintf("the error of a %s list", o), fmt.Sprint(err), fmt.Sprint(werr))
			continue
		}
		if werr != nil {
			continue
		}
		if o == ilgraph.SortRelevance && full != nil {
			byID := &ilgraph.CasePage{Total: full.Total, Cases: slices.Clone(full.Cases)}
			sort.Slice(byID.Cases, func(a, b int) bool { return byID.Cases[a].ID < byID.Cases[b].ID })
			full = byID
		}
		if got, exp := pageIDs(full), pageIDs(wfull); got != exp {
			r.fail(desc, fmt.Sprintf("the %s list", o), got, exp)
			continue
		}
		if o == ilgraph.SortRelevance || si != i%len(r.opt.Sorts) {
			continue // pages: of one order per filter, in turn; not of the score's
		}
		total := wfull.Total
		// A page from the middle, and in turn: no cases (the total only),
		// the page right after the last case, one past it.
		edges := [][2]int{{0, 0}, {total, 5}, {total + 5, 5}}
		for _, pg := range [][2]int{{total / 3, 7}, edges[i%len(edges)]} {
			if failed() {
				break
			}
			p, err := s.ListCases(ctx, ask, o, pg[0], pg[1])
			if err != nil {
				r.fail(desc, fmt.Sprintf("the %s page [%d, +%d)", o, pg[0], pg[1]), err.Error(), "no error")
				continue
			}
			wp, _ := r.ref.ListCases(ctx, want, o, pg[0], pg[1])
			if g, w := pageIDs(p), pageIDs(wp); g != w {
				r.fail(desc, fmt.Sprintf("the %s page [%d, +%d)", o, pg[0], pg[1]), g, w)
			}
		}
	}
	if i%r.opt.AggregateEvery != 0 {
		return
	}
	i /= r.opt.AggregateEvery // the aggregate questions asked in turn
	if f, ok := s.(Faceter); ok && !failed() {
		got, err := f.Facets(ctx, ask)
		exp, werr := r.ref.Facets(ctx, want)
		r.compare(desc, "facets", got, err, exp, werr)
	}
	if f, ok := s.(Statser); ok && !failed() {
		got, err := f.Stats(ctx, ask)
		exp, werr := r.ref.Stats(ctx, want)
		if exp != nil && r.opt.StatsWithoutRelationships {
			exp.Relationships = 0
		}
		r.compare(desc, "stats", got, err, exp, werr)
	}
	if f, ok := s.(RelationshipCounter); ok && !failed() {
		got, err := f.CaseRelationships(ctx, ask)
		exp, werr := r.ref.CaseRelationships(ctx, want)
		r.compare(desc, "the relationship count", got, err, exp, werr)
	}
	if f, ok := s.(IDMatcher); ok && !failed() {
		got, err := f.CaseIDsMatching(ctx, ask)
		got = slices.Clone(got)
		sort.Strings(got)
		exp, werr := r.ref.CaseIDsMatching(ctx, want)
		r.compare(desc, "the matching ids", got, err, exp, werr)
	}
	axes := []ilgraph.Axis{ilgraph.AxisYear, ilgraph.AxisMonth}
	for _, k := range ilgraph.AllKinds {
		axes = append(axes, ilgraph.Axis(k))
	}
	kinds := ilgraph.AllKinds
	if f, ok := s.(Breakdowner); ok && !failed() {
		rows := axes[i%len(axes)]
		cols := axes[(i/len(axes)+i+1)%len(axes)]
		if cols == rows {
			cols = axes[(i+1)%len(axes)]
		}
		got, err := f.Breakdown(ctx, rows, cols, ask)
		exp, werr := r.ref.Breakdown(ctx, rows, cols, want)
		r.compare(desc, fmt.Sprintf("the breakdown %s × %s", rows, cols), got, err, exp, werr)
	}
	if f, ok := s.(CooccurrenceDrawer); ok && !failed() {
		q := ilgraph.CooccurrenceQuery{From: kinds[i%len(kinds)], To: kinds[(i/len(kinds)+i)%len(kinds)], MinCount: 1 + i%3}
		if i%4 == 0 {
			q.MinSupport = 2
		}
		wq := q
		q.Filter, wq.Filter = ask, want
		switch i % 5 {
		case 1:
			q.Base, wq.Base = &ilgraph.CaseFilter{}, &ilgraph.CaseFilter{}
		case 2:
			base := ilgraph.CaseFilter{DateFrom: r.co.Cases[i%n].Date}
			q.Base, wq.Base = &base, &base
		}
		got, err := f.Cooccurrence(ctx, q)
		exp, werr := r.ref.Cooccurrence(ctx, wq)
		r.compare(desc, fmt.Sprintf("the co-occurrence graph %s → %s (minCount %d, minSupport %d, base %v)", q.From, q.To, q.MinCount, q.MinSupport, q.Base != nil), got, err, exp, werr)
	}
	if f, ok := s.(CooccurrenceCounter); ok && !failed() {
		from, to := kinds[i%len(kinds)], kinds[(i/len(kinds)+i+2)%len(kinds)]
		type counts struct {
			Total   int
			Singles map[ilgraph.Feature]int
			Pairs   map[[2]ilgraph.Feature]int
		}
		var got, exp counts
		var err, werr error
		got.Total, got.Singles, got.Pairs, err = f.CooccurrenceCounts(ctx, from, to, ask)
		exp.Total, exp.Singles, exp.Pairs, werr = r.ref.CooccurrenceCounts(ctx, from, to, want)
		r.compare(desc, fmt.Sprintf("the co-occurrence counts %s → %s", from, to), got, err, exp, werr)
	}
}

// compare reports a difference between two answers (errors by code).
func (r *run) compare(desc, what string, got any, err error, want any, werr error) {
	r.t.Helper()
	if !sameErr(err, werr) {
		r.fail(desc, what+" (error)", fmt.Sprint(err), fmt.Sprint(werr))
		return
	}
	if werr != nil {
		return
	}
	if g, w := render(got), render(want); g != w {
		r.fail(desc, what, g, w)
	}
}

// sameErr reports whether two errors are both nil or have the same code.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return ilgraph.ErrorCode(a) == ilgraph.ErrorCode(b)
}

// render prints an answer so that equal answers print alike: fmt prints
// maps in key order and nil and empty slices alike, floats exactly.
func render(v any) string {
	return fmt.Sprintf("%+v", deref(v))
}

func deref(v any) any {
	switch x := v.(type) {
	case *ilgraph.Facets:
		if x != nil {
			return *x
		}
	case *ilgraph.Stats:
		if x != nil {
			return *x
		}
	case *ilgraph.BreakdownCounts:
		if x != nil {
			return *x
		}
	case *ilgraph.Drawing:
		if x != nil {
			return *x
		}
	}
	return v
}

// pageIDs prints a page: its total and its cases' ids in order.
func pageIDs(p *ilgraph.CasePage) string {
	if p == nil {
		return "<nil>"
	}
	ids := make([]string, len(p.Cases))
	for i, c := range p.Cases {
		ids[i] = c.ID
	}
	return fmt.Sprintf("total %d: %s", p.Total, strings.Join(ids, " "))
}

// show prints a filter's set fields.
func show(f ilgraph.CaseFilter) string {
	var parts []string
	for _, k := range ilgraph.AllKinds {
		if m, ok := f.Tags[k]; ok {
			parts = append(parts, fmt.Sprintf("%s{any %q all %q}", k, m.AnyOf, m.AllOf))
		}
	}
	add := func(name string, set bool, v any) {
		if set {
			parts = append(parts, fmt.Sprintf("%s %v", name, v))
		}
	}
	add("excludeOrgs", f.ExcludeOrgs != nil, fmt.Sprintf("%q", f.ExcludeOrgs))
	add("from", f.DateFrom != "", f.DateFrom)
	add("to", f.DateTo != "", f.DateTo)
	add("severities", f.Severities != nil, fmt.Sprintf("%q", f.Severities))
	add("reviewedOnly", f.ReviewedOnly, true)
	add("excludeIDs", f.ExcludeIDs != nil, clipList(f.ExcludeIDs))
	add("IDs", f.IDs != nil, clipList(f.IDs))
	add("text", f.Text != "", fmt.Sprintf("%q mode %q fields %q", f.Text, f.TextMode, f.TextFields))
	return "{" + strings.Join(parts, ", ") + "}"
}

func clipList(xs []string) string {
	if len(xs) > 8 {
		return fmt.Sprintf("%q… (%d)", xs[:8], len(xs))
	}
	return fmt.Sprintf("%q", xs)
}

// diff shows two renderings from where they first differ.
func diff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-120)
	cut := func(s string) string {
		s = s[min(from, len(s)):]
		if len(s) > 400 {
			s = s[:400] + "…"
		}
		if from > 0 {
			s = "…" + s
		}
		return s
	}
	return fmt.Sprintf("   got %s\n  want %s", cut(got), cut(want))
}

// textFilters makes n text-only filters from words of the corpus's titles
// and summaries (English words of four letters or more, Korean words of
// two or more), in every text mode and field set.
func textFilters(co Corpus, seed uint64, n int) []Filter {
	var titles, all [][]string
	var owner []string // the case each list of all comes from
	for _, c := range co.Cases {
		for i, t := range []string{c.Title.En, c.Title.Ko, c.Summary.En, c.Summary.Ko} {
			var ws []string
			for _, w := range strings.Fields(t) {
				if plainWord(w) {
					ws = append(ws, w)
				}
			}
			if len(ws) == 0 {
				continue
			}
			all = append(all, ws)
			owner = append(owner, c.ID)
			if i < 2 {
				titles = append(titles, ws)
			}
		}
	}
	var out []Filter
	if len(all) == 0 {
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x7e47))
	modes := []ilgraph.TextMode{"", ilgraph.TextAll, ilgraph.TextAny, ilgraph.TextPhrase}
	fields := []ilgraph.TextFields{"", ilgraph.TextInAll, ilgraph.TextInTitles}
	for i := 0; i < n; i++ {
		f := ilgraph.CaseFilter{TextMode: modes[r.IntN(len(modes))], TextFields: fields[r.IntN(len(fields))]}
		src := all
		if f.TextFields == ilgraph.TextInTitles {
			src = titles
		}
		k := r.IntN(len(src))
		ws := src[k]
		j := r.IntN(len(ws))
		// One filter in four asks, for an English word of a case's title or
		// summary, another of its forms (ilgraph.WordStem): it must find
		// the case the word came from.
		if f.TextFields != ilgraph.TextInTitles && f.TextMode != ilgraph.TextPhrase && r.IntN(4) == 0 {
			if forms := ilgraph.WordFormCandidates(ws[j]); len(forms) > 1 {
				f.Text = forms[1+r.IntN(len(forms)-1)]
				out = append(out, Filter{Name: fmt.Sprintf("text %d, a form of %q", i, ws[j]), Filter: f, mustFind: owner[k]})
				continue
			}
		}
		switch {
		case f.TextMode == ilgraph.TextPhrase && j+1 < len(ws):
			f.Text = ws[j] + " " + ws[j+1]
		case r.IntN(2) == 0:
			other := all[r.IntN(len(all))]
			f.Text = ws[j] + " " + other[r.IntN(len(other))]
		default:
			f.Text = ws[j]
		}
		out = append(out, Filter{Name: fmt.Sprintf("text %d", i), Filter: f})
	}
	return out
}

// plainWord reports whether w is an English word of four letters or more
// or a Korean word of two or more, with nothing else in it.
func plainWord(w string) bool {
	latin, hangul := 0, 0
	for _, r := range w {
		switch {
		case r < 128 && unicode.IsLetter(r):
			latin++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		default:
			return false
		}
	}
	return latin >= 4 && hangul == 0 || hangul >= 2 && latin == 0
}
