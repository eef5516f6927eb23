package similarity

import (
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/internal/parallel"
)

// calendar words say when, never how: months, weekdays, times of day and
// time zones, which every report is full of.
var calendar = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
		am pm utc gmt pdt pst pt edt est et cet cest kst jst ist bst aest morning afternoon evening night
		yesterday today weekend weekday`) {
		calendar[w] = true
	}
}

// The text channel's vectors. A case's text (ilgraph.SimilarityText: its
// trigger and lessons) is
// analysed with vendor, product and the corpus's organization names left
// out; stop words, numbers, one-letter words and calendar words (months,
// weekdays, times of day, time zones) are dropped. A term's
// weight in a case is
//
//	(1 + ln tf) × ln(N / df)
//
// (tf: occurrences in the case, N: cases, df: cases with the term), over the
// terms with 2 ≤ df ≤ N/3 only: a term of one case cannot make two cases
// alike, and a term on more than a third of the cases ("outage", "server")
// says nothing about how a failure happened. Each case keeps its
// MaxTextTerms heaviest terms (ties by term), scaled to length 1, each
// weight then rounded to single precision (float32), which is how the index
// stores it: half the memory, and the vectors are still exactly the ones
// the index holds.
const (
	// MaxTextTerms is how many terms a case's text vector keeps.
	MaxTextTerms = 48
	// TextMinDF and TextMaxDFShare bound the document frequency of a term
	// the text channel uses.
	TextMinDF      = 2
	TextMaxDFShare = 1.0 / 3
)

// TextVectors computes the text channel's vector of every row (see above):
// the definition the index's text postings are built from.
func TextVectors(rows []ilgraph.CaseFeatures) []ilgraph.TextVector {
	vs, _ := textVectors(rows)
	return vs
}

// TextStats are the corpus statistics the text vectors follow: the number
// of cases, the document frequency of every term the channel uses (those
// with TextMinDF ≤ df ≤ N·TextMaxDFShare; any other term is left out), and
// the organization names the analyser leaves out.
type TextStats struct {
	N     int
	DF    map[string]int
	Extra []string
}

// textVectors computes the rows' text vectors under the rows' own
// statistics, and returns those statistics.
func textVectors(rows []ilgraph.CaseFeatures) ([]ilgraph.TextVector, TextStats) {
	extra := orgNames(rows)
	a := analyseRows(rows, extra)
	vecs, st := a.ownVectors()
	st.Extra = extra
	return a.maps(vecs), st
}

// TextVectorsWith computes the rows' text vectors under frozen statistics
// (see Snapshot): the same definition with N, the document frequencies and
// the organization names taken from st rather than from the rows.
func TextVectorsWith(rows []ilgraph.CaseFeatures, st TextStats) []ilgraph.TextVector {
	a := analyseRows(rows, st.Extra)
	return a.maps(a.vectorsWith(st))
}

func analyseRows(rows []ilgraph.CaseFeatures, extra []string) *analysed {
	ta := newTextAnalyser(textAnalyzer(extra))
	for _, r := range rows {
		ta.add(r.Text)
	}
	return ta.finish()
}

// orgNames are the name parts of the rows' organizations, in the order the
// rows first name them.
func orgNames(rows []ilgraph.CaseFeatures) []string {
	var on orgNamesInOrder
	for _, r := range rows {
		on.add(r.Org)
	}
	return on.names
}

// orgNamesInOrder collects name parts in the order they are first named.
type orgNamesInOrder struct {
	names []string
	seen  map[string]bool
}

func (o *orgNamesInOrder) add(org string) {
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	for _, name := range analysis.NameParts(org) {
		if !o.seen[name] {
			o.seen[name] = true
			o.names = append(o.names, name)
		}
	}
}

// textAnalyser analyses the texts of many cases on every core, fed one
// text at a time (so that a build can analyse while it still reads, and
// never hold every text): texts go to the workers in batches, each worker
// numbers the terms it meets in a dictionary of its own, and finish merges
// the dictionaries. What it keeps of a text is its distinct terms with
// their counts, ids ascending, each a varint of the gap since the last id
// and a varint of the count: 2 to 3 bytes a term, not a map per case. Analysing the
// texts is most of the work of a build.
type textAnalyser struct {
	an      *analysis.Analyzer
	batch   textBatch
	n       int
	jobs    chan textBatch
	results chan textResult
	workers []*textWorker
	wg      sync.WaitGroup
	done    chan struct{}
	counts  [][]byte // by case, in the numbering of the worker that analysed it
	owner   []uint8  // by case: the worker that analysed it
}

const textBatchSize = 256

type textBatch struct {
	start int
	texts []string
}

type textResult struct {
	start  int
	worker uint8
	counts [][]byte
}

type textWorker struct {
	ids   map[string]int32
	terms []string
}

// textAnalyzer is the text channel's analysis, leaving out the names extra.
func textAnalyzer(extra []string) *analysis.Analyzer {
	return analysis.New(analysis.Options{DropVendors: true, Extra: extra})
}

// lazyAnalyzer is a textAnalyzer made when first asked for. Making one
// analyses every name it leaves out (at a million cases, tens of
// milliseconds), so a change applied to an index reuses its index's.
type lazyAnalyzer struct {
	once sync.Once
	an   *analysis.Analyzer
}

// get returns the analyzer for extra, which must be the same at every call
// (a nil l makes a new one each time).
func (l *lazyAnalyzer) get(extra []string) *analysis.Analyzer {
	if l == nil {
		return textAnalyzer(extra)
	}
	l.once.Do(func() { l.an = textAnalyzer(extra) })
	return l.an
}

func newTextAnalyser(an *analysis.Analyzer) *textAnalyser {
	return newTextAnalyserIn(an, nil)
}

// newTextAnalyserIn is newTextAnalyser whose workers analyse a batch only
// when share has room (nil: always).
func newTextAnalyserIn(an *analysis.Analyzer, share *parallel.Share) *textAnalyser {
	ta := &textAnalyser{
		an:      an,
		jobs:    make(chan textBatch, 4),
		results: make(chan textResult, 4),
		done:    make(chan struct{}),
	}
	workers := min(runtime.GOMAXPROCS(0), 255)
	for w := 0; w < workers; w++ {
		tw := &textWorker{ids: map[string]int32{}}
		ta.workers = append(ta.workers, tw)
		ta.wg.Add(1)
		go func() {
			defer ta.wg.Done()
			tw.run(ta.an, uint8(w), share, ta.jobs, ta.results)
		}()
	}
	go func() { // the only writer of counts and owner
		defer close(ta.done)
		for r := range ta.results {
			if end := r.start + len(r.counts); end > len(ta.counts) {
				ta.counts = slices.Grow(ta.counts, end-len(ta.counts))[:end]
				ta.owner = slices.Grow(ta.owner, end-len(ta.owner))[:end]
			}
			copy(ta.counts[r.start:], r.counts)
			for i := range r.counts {
				ta.owner[r.start+i] = r.worker
			}
		}
	}()
	return ta
}

// add queues the text of the next case.
func (ta *textAnalyser) add(text string) {
	if len(ta.batch.texts) == 0 {
		ta.batch = textBatch{start: ta.n, texts: make([]string, 0, textBatchSize)}
	}
	ta.batch.texts = append(ta.batch.texts, text)
	ta.n++
	if len(ta.batch.texts) == textBatchSize {
		ta.jobs <- ta.batch
		ta.batch = textBatch{}
	}
}

func (w *textWorker) run(an *analysis.Analyzer, id uint8, share *parallel.Share, jobs <-chan textBatch, results chan<- textResult) {
	tf := map[int32]int32{}
	var order []int32
	var buf []byte
	for b := range jobs {
		out := make([][]byte, len(b.texts))
		share.Do(func() {
			for i, text := range b.texts {
				clear(tf)
				order = order[:0]
				for _, t := range an.Tokens(text) {
					if t.Stop || t.Script == analysis.Digit || utf8.RuneCountInString(t.Norm) < 2 || calendar[strings.ToLower(t.Surface)] {
						continue
					}
					id, ok := w.ids[t.Norm]
					if !ok {
						id = int32(len(w.terms))
						// A term may be a slice of the whole text: copy it.
						term := strings.Clone(t.Norm)
						w.ids[term] = id
						w.terms = append(w.terms, term)
					}
					if tf[id] == 0 {
						order = append(order, id)
					}
					tf[id]++
				}
				if len(order) == 0 {
					continue
				}
				slices.Sort(order)
				buf = buf[:0]
				last := int32(0)
				for _, id := range order {
					buf = binary.AppendUvarint(buf, uint64(id-last))
					buf = binary.AppendUvarint(buf, uint64(tf[id]))
					last = id
				}
				out[i] = slices.Clone(buf)
			}
		})
		results <- textResult{start: b.start, worker: id, counts: out}
	}
}

// analysed is the analysis of every case's text: its distinct terms with
// their counts (see textAnalyser), and how to number its terms in terms.
type analysed struct {
	counts [][]byte  // by case
	owner  []uint8   // by case: whose numbering counts[case] is in
	remap  [][]int32 // by worker: its term id -> the id in terms
	terms  []string  // term id -> term
}

// each calls fn with every term of case i (by its id in terms) and its
// count.
func (a *analysed) each(i int, fn func(id, tf int32)) {
	b, m := a.counts[i], a.remap[a.owner[i]]
	local := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		tf, k := binary.Uvarint(b[n:])
		b = b[n+k:]
		local += d
		fn(m[local], int32(tf))
	}
}

// finish waits for the analysis of every text added and merges the
// workers' term numbers into one.
func (ta *textAnalyser) finish() *analysed {
	if len(ta.batch.texts) > 0 {
		ta.jobs <- ta.batch
		ta.batch = textBatch{}
	}
	close(ta.jobs)
	ta.wg.Wait()
	close(ta.results)
	<-ta.done
	// Cases at the end without any term never reached the collector.
	if len(ta.counts) < ta.n {
		ta.counts = slices.Grow(ta.counts, ta.n-len(ta.counts))[:ta.n]
		ta.owner = slices.Grow(ta.owner, ta.n-len(ta.owner))[:ta.n]
	}
	a := &analysed{counts: ta.counts, owner: ta.owner, remap: make([][]int32, len(ta.workers))}
	global := map[string]int32{}
	for w, tw := range ta.workers {
		a.remap[w] = make([]int32, len(tw.terms))
		for local, t := range tw.terms {
			id, ok := global[t]
			if !ok {
				id = int32(len(a.terms))
				global[t] = id
				a.terms = append(a.terms, t)
			}
			a.remap[w][local] = id
		}
		tw.ids, tw.terms = nil, nil
	}
	return a
}

// ownVectors weighs the cases under their own statistics (see above) and
// returns those (but Extra). Each case's counts are released once weighed.
func (a *analysed) ownVectors() ([][]termWeight, TextStats) {
	st, df := a.ownStats()
	return a.weigh(st.N, df), st
}

// ownStats are the cases' own text statistics (but Extra), and the
// document frequency of each term id.
func (a *analysed) ownStats() (TextStats, []int32) {
	st := TextStats{N: len(a.counts), DF: map[string]int{}}
	df := make([]int32, len(a.terms))
	for i := range a.counts {
		a.each(i, func(id, _ int32) { df[id]++ })
	}
	for id, d := range df {
		if d >= TextMinDF && float64(d) <= float64(st.N)*TextMaxDFShare {
			st.DF[a.terms[id]] = int(d)
		}
	}
	return st, df
}

// vectorsWith weighs the cases under frozen statistics.
func (a *analysed) vectorsWith(st TextStats) [][]termWeight {
	return a.weigh(st.N, a.frozenDF(st))
}

// frozenDF is, by term id, the document frequency st gives the term.
func (a *analysed) frozenDF(st TextStats) []int32 {
	df := make([]int32, len(a.terms))
	for id, t := range a.terms {
		df[id] = int32(st.DF[t])
	}
	return df
}

// weigh computes each case's text vector as (term id, weight), ordered by
// term, under N = n and the document frequencies df, and releases the
// case's counts (weighEach; nil for a case without a weighed term).
func (a *analysed) weigh(n int, df []int32) [][]termWeight {
	out := make([][]termWeight, len(a.counts))
	a.weighEach(n, df, func(i int, v []termWeight) {
		if len(v) > 0 {
			out[i] = slices.Clone(v)
		}
	})
	return out
}

// weighEach computes each case's text vector, in case order, as (term id,
// weight) ordered by term, under N = n and the document frequencies df,
// and gives it to fn (empty for a case without a weighed term; fn may
// change it, and must not keep it: the next case's reuses it). It releases
// each case's counts once weighed, so that a build that codes each vector
// as it comes never holds every vector decoded.
func (a *analysed) weighEach(n int, df []int32, fn func(i int, v []termWeight)) {
	N := float64(n)
	type tw struct {
		id int32
		w  float64
	}
	var ws []tw
	var v []termWeight
	for i := range a.counts {
		ws = ws[:0]
		a.each(i, func(id, tf int32) {
			d := int(df[id])
			if d < TextMinDF || float64(d) > N*TextMaxDFShare {
				return
			}
			ws = append(ws, tw{id, (1 + math.Log(float64(tf))) * math.Log(N/float64(d))})
		})
		a.counts[i] = nil
		if len(ws) == 0 {
			fn(i, nil)
			continue
		}
		sort.Slice(ws, func(x, y int) bool {
			if ws[x].w != ws[y].w {
				return ws[x].w > ws[y].w
			}
			return a.terms[ws[x].id] < a.terms[ws[y].id]
		})
		if len(ws) > MaxTextTerms {
			ws = ws[:MaxTextTerms]
		}
		var norm float64
		for _, x := range ws {
			norm += x.w * x.w
		}
		v = v[:0]
		for _, x := range ws {
			v = append(v, termWeight{x.id, float32(x.w / math.Sqrt(norm))})
		}
		slices.SortFunc(v, func(x, y termWeight) int { return strings.Compare(a.terms[x.Case], a.terms[y.Case]) })
		fn(i, v)
	}
}

// maps turns vectors by term id into ilgraph.TextVectors.
func (a *analysed) maps(vecs [][]termWeight) []ilgraph.TextVector {
	out := make([]ilgraph.TextVector, len(vecs))
	for i, v := range vecs {
		m := make(ilgraph.TextVector, len(v))
		for _, t := range v {
			m[a.terms[t.Case]] = float64(t.W)
		}
		out[i] = m
	}
	return out
}
