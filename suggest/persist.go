package suggest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/snapfile"
	"github.com/ilgraph/ilgraph/memstore"
)

// The engine's section of the snapshot file (memstore.Persister) holds what
// a build learns from the cases' texts, which is what makes a build take
// minutes, so that a restart reads it instead of analysing every text
// again. In order:
//
//   - the options that shape what a build learns: LabelsOnly and the
//     Names. Load refuses a file written under others. Neighbours and the
//     weights only weigh the answers, so they are not written: an engine
//     read back answers under the consumer's, as a build under them would.
//   - the vocabulary's terms in the engine's order. Load makes the phrases
//     and their matcher from them as a build does, without the graph.
//   - the names the analysis sets aside: opts.Names and the name parts of
//     the organizations read before the cases.
//   - the index terms of a few probe sentences, so that a file written
//     before the text analysis changed is refused rather than answered
//     from with terms that a query no longer makes.
//   - the phrases' learned parts: each phrase's term and text (Load checks
//     that they are the phrases the vocabulary makes), the cases whose text
//     contains it and how many of those carry its term.
//   - the BM25 indexes (writeIndex): caseText's, then, but for the
//     baseline, factorText's, English before Korean.
//
// What attach computes (featTerm, termFeat) is not written: Load attaches
// the snapshot read from the same file, as Finish attaches the one built.

var _ memstore.Persister = (*consumer)(nil)

// PersistName names the engine's section of the snapshot file. Change it
// whenever what Save writes changes meaning: its layout, or what the
// analysis makes of a text (the probe catches much of that, not all).
func (k *consumer) PersistName() string { return "suggest/2" }

// probe are the sentences whose index terms the file keeps, to tell that
// the analysis is still the one that made the file: they have stems,
// particles, a vendor and Hangul product names.
var probe = []string{
	"Kafka brokers' disks filled up; consumers lagged, AWS-hosted nodes restarted (HTTP 503) and on-call engineers were paged.",
	"카프카 브로커의 디스크가 가득 차서 컨슈머가 지연되었고, 레디스 노드를 재시작했으며 당직자가 호출되었다.",
}

// Save writes v, an engine Finish returned.
func (k *consumer) Save(w *snapfile.Writer, v any) error {
	e, ok := v.(*Engine)
	if !ok || e == nil {
		return fmt.Errorf("suggest: cannot save a %T", v)
	}
	if e.over != nil {
		// The file holds builds only (memstore.Persister); the overlay is
		// not written, so an engine with one would read back without it.
		return errors.New("suggest: the engine has changes applied since its build; only a build is saved")
	}
	w.Bool(e.opts.LabelsOnly)
	w.Strings(extraNames(e.opts.Names, nil))
	writeTerms(w, e.terms)
	w.Strings(e.extra)
	for _, p := range probe {
		w.Strings(e.words(p))
	}

	n := len(e.phrases)
	terms, texts, cases, tagged := make([]int32, n), make([]string, n), make([][]int32, n), make([]int32, n)
	for i, p := range e.phrases {
		terms[i], texts[i], cases[i], tagged[i] = int32(p.term), p.text, phraseCases(&p), int32(p.tagged)
	}
	w.Int32s(terms)
	w.Strings(texts)
	w.Int32ss(cases)
	w.Int32s(tagged)

	ixs := e.indexes()
	w.Uvarint(uint64(len(ixs)))
	for _, ix := range ixs {
		if err := writeIndex(w, ix); err != nil {
			return err
		}
	}
	return w.Err()
}

// phraseCases are the cases a file lists for a phrase, ascending (a test
// writes others, to see them refused).
var phraseCases = func(p *phrase) []int32 { return p.cases.list() }

// indexes are the engine's BM25 indexes in the file's order.
func (e *Engine) indexes() []*bm25 {
	out := []*bm25{e.index["en"], e.index["ko"]}
	if !e.opts.LabelsOnly {
		out = append(out, e.factors["en"], e.factors["ko"])
	}
	return out
}

// Load reads what Save wrote: an engine over s, the snapshot read from the
// same file, that answers as the engine built did. Anything that is not
// what Save writes is an error (recorded in r).
func (k *consumer) Load(ctx context.Context, r *snapfile.Reader, s *memstore.Snapshot) (any, error) {
	fail := func(format string, args ...any) (any, error) {
		r.Fail("suggest: "+format, args...)
		return nil, r.Err()
	}
	if s == nil {
		return nil, errors.New("suggest: no snapshot to load the engine over")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	labelsOnly, names := r.Bool(), r.Strings()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if want := extraNames(k.opts.Names, nil); labelsOnly != k.opts.LabelsOnly || !slices.Equal(names, want) {
		return fail("written under other options (labels only %v, names %q; this server's: labels only %v, names %q)",
			labelsOnly, names, k.opts.LabelsOnly, want)
	}
	v := readVocabulary(r)
	extra := r.Strings()
	if err := r.Err(); err != nil {
		return nil, err
	}
	e, err := newEngine(v, k.opts)
	if err != nil {
		return nil, err
	}
	e.setNames(extra)
	for _, p := range probe {
		got, want := e.words(p), r.Strings()
		if r.Err() == nil && !slices.Equal(got, want) {
			return fail("written by another text analysis: %q makes the terms %q, the file's %q", p, got, want)
		}
	}

	cases := s.Len()
	terms, texts, pcases, tagged := r.Int32s(), r.Strings(), r.Int32ss(), r.Int32s()
	if err := r.Err(); err != nil {
		return nil, err
	}
	n := len(e.phrases)
	if len(terms) != n || len(texts) != n || len(pcases) != n || len(tagged) != n {
		return fail("%d phrases (%d texts, %d case lists, %d counts), the vocabulary makes %d",
			len(terms), len(texts), len(pcases), len(tagged), n)
	}
	for i := range e.phrases {
		p := &e.phrases[i]
		if int(terms[i]) != p.term || texts[i] != p.text {
			return fail("phrase %d is %q of term %d, the vocabulary's %q of term %d", i, texts[i], terms[i], p.text, p.term)
		}
		if !ascendingBelow(pcases[i], cases) {
			return fail("the cases of phrase %q are not ascending case numbers below %d", p.text, cases)
		}
		if tagged[i] < 0 || int(tagged[i]) > len(pcases[i]) {
			return fail("phrase %q: %d of its %d cases tagged", p.text, tagged[i], len(pcases[i]))
		}
		p.cases, p.tagged = caseSetOf(pcases[i]), int(tagged[i])
	}

	want := 4
	if k.opts.LabelsOnly {
		want = 2
	}
	if got := r.Len(); r.Err() == nil && got != want {
		return fail("%d indexes, want %d", got, want)
	}
	var bg background
	ixs := make([]*bm25, want)
	for i := range ixs {
		if ixs[i] = readIndex(r, cases, &bg, i); r.Err() != nil {
			break
		}
		if err := ctx.Err(); err != nil {
			bg.wait()
			return nil, err
		}
	}
	bgErr := bg.wait()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if bgErr != nil {
		return fail("%v", bgErr)
	}
	e.index["en"], e.index["ko"] = ixs[0], ixs[1]
	if !k.opts.LabelsOnly {
		e.factors["en"], e.factors["ko"] = ixs[2], ixs[3]
	}
	e.attach(s)
	return e, nil
}

// ascendingBelow reports whether xs ascend strictly from 0 or more to
// less than n.
func ascendingBelow(xs []int32, n int) bool {
	prev := int32(-1)
	for _, x := range xs {
		if x <= prev || int(x) >= n {
			return false
		}
		prev = x
	}
	return true
}

// writeTerms writes the engine's terms in its order.
func writeTerms(w *snapfile.Writer, ts []ilgraph.Term) {
	w.Uvarint(uint64(len(ts)))
	for _, t := range ts {
		w.String(string(t.Kind))
		w.String(t.ID)
		w.String(t.En)
		w.String(t.Ko)
		w.String(t.Description)
		w.Strings(t.Aliases.En)
		w.Strings(t.Aliases.Ko)
	}
}

// readVocabulary reads what writeTerms wrote as the vocabulary newEngine
// takes. The terms are in the engine's order already, which newEngine's
// sort keeps.
func readVocabulary(r *snapfile.Reader) *ilgraph.Vocabulary {
	v := &ilgraph.Vocabulary{Kinds: map[ilgraph.Kind][]ilgraph.Term{}}
	n := r.Len()
	for i := 0; i < n && r.Err() == nil; i++ {
		var t ilgraph.Term
		t.Kind = ilgraph.Kind(r.String())
		t.ID = r.String()
		t.En = r.String()
		t.Ko = r.String()
		t.Description = r.String()
		t.Aliases.En = r.Strings()
		t.Aliases.Ko = r.Strings()
		if r.Err() != nil {
			break
		}
		if !slices.Contains(ilgraph.VocabKinds, t.Kind) {
			r.Fail("suggest: a term %q of kind %q, not a vocabulary kind", t.ID, t.Kind)
			break
		}
		v.Kinds[t.Kind] = append(v.Kinds[t.Kind], t)
	}
	return v
}

// postingChunk is about how many bytes of postings one run of the file
// holds (one Writer.Bytes): Load reads a run into one allocation and
// slices every term's postings out of it, rather than allocate and read
// each of a million terms' on its own.
const postingChunk = 4 << 20

// postingChunks splits postings of the lengths lens into runs of whole
// postings of at most postingChunk bytes (a longer one is a run of its
// own) and calls f with each run's terms [from, to) and bytes, until f
// returns false. Save and Load split alike, so the runs' sizes are not
// written.
func postingChunks(lens []int32, f func(from, to, size int) bool) {
	from, size := 0, 0
	for i, n := range lens {
		if size > 0 && size+int(n) > postingChunk {
			if !f(from, i, size) {
				return
			}
			from, size = i, 0
		}
		size += int(n)
	}
	if from < len(lens) {
		f(from, len(lens), size)
	}
}

// writeIndex writes a BM25 index: its terms by id (their lengths, then
// their bytes in one string), each term's postings' length, df and last
// case, the postings themselves as they are coded in memory in runs
// (postingChunks), then the cases' lengths, their total and how many
// cases have any text. The scratch of add is not written: the index is
// compacted.
func writeIndex(w *snapfile.Writer, ix *bm25) error {
	words := make([]string, len(ix.post))
	seen := make([]bool, len(ix.post))
	if len(ix.ids) != len(ix.post) {
		return fmt.Errorf("suggest: an index of %d terms with %d postings", len(ix.ids), len(ix.post))
	}
	for word, id := range ix.ids {
		if id < 0 || int(id) >= len(words) || seen[id] {
			return fmt.Errorf("suggest: an index's term %q has the id %d", word, id)
		}
		words[id], seen[id] = word, true
	}
	wordLens, bufLens := make([]int32, len(words)), make([]int32, len(words))
	df, last := make([]int32, len(words)), make([]int32, len(words))
	for i := range words {
		p := &ix.post[i]
		wordLens[i], bufLens[i], df[i], last[i] = int32(len(words[i])), int32(len(p.buf)), p.df, p.last
	}
	w.Int32s(wordLens)
	w.String(strings.Join(words, ""))
	w.Int32s(bufLens)
	w.Int32s(df)
	w.Int32s(last)
	var run []byte
	postingChunks(bufLens, func(from, to, _ int) bool {
		if to-from == 1 {
			w.Bytes(ix.post[from].buf)
			return true
		}
		run = run[:0]
		for i := from; i < to; i++ {
			run = append(run, ix.post[i].buf...)
		}
		w.Bytes(run)
		return true
	})
	w.Int32s(ix.lens)
	w.Int(ix.total)
	w.Int(ix.n)
	return nil
}

// background runs the work of a Load that needs no more of the file — the
// indexes' term maps, the checks of their postings — on goroutines of its
// own while the rest of the file is read, so that the work overlaps the
// reading, on every core, rather than follow it.
type background struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

// run runs f on a goroutine of its own.
func (b *background) run(f func() error) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := f(); err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.mu.Unlock()
		}
	}()
}

// wait waits for every f run and returns an error one returned.
func (b *background) wait() error {
	b.wg.Wait()
	return b.err
}

// readIndex reads what writeIndex wrote as the index i of the file, for a
// snapshot of cases cases. The postings are read as they were coded, never
// decoded into pairs; each run of them is checked on bg as soon as it is
// read, and the term map made on bg too, so the index is not to be used
// before bg is waited for. It returns nil when r failed.
func readIndex(r *snapfile.Reader, cases int, bg *background, i int) *bm25 {
	wordLens := r.Int32s()
	words := r.String()
	bufLens, df, last := r.Int32s(), r.Int32s(), r.Int32s()
	if r.Err() != nil {
		return nil
	}
	n := len(wordLens)
	if len(bufLens) != n || len(df) != n || len(last) != n {
		r.Fail("suggest: an index of %d terms with %d postings' lengths, %d dfs, %d last cases", n, len(bufLens), len(df), len(last))
		return nil
	}
	if sum, ok := sumOf(wordLens); !ok || sum != len(words) {
		r.Fail("suggest: an index's terms' lengths do not add up to the %d bytes of its terms", len(words))
		return nil
	}
	if _, ok := sumOf(bufLens); !ok {
		r.Fail("suggest: an index's postings have a negative length")
		return nil
	}
	ix := &bm25{ids: make(map[string]int32, n)}
	if n > 0 { // a build's index without terms has none
		ix.post = make([]postings, n)
	}
	postingChunks(bufLens, func(from, to, size int) bool {
		b := r.Bytes()
		if r.Err() != nil {
			return false
		}
		if len(b) != size {
			r.Fail("suggest: a run of postings of %d bytes, want %d", len(b), size)
			return false
		}
		at := 0
		for t := from; t < to; t++ {
			end := at + int(bufLens[t])
			ix.post[t] = postings{buf: b[at:end:end], last: last[t], df: df[t]}
			at = end
		}
		bg.run(func() error {
			for t := from; t < to; t++ {
				if !ix.post[t].valid(cases) {
					return fmt.Errorf("index %d: the postings of its term %d are not what a build codes", i, t)
				}
			}
			return nil
		})
		return true
	})
	ix.lens = r.Int32s()
	ix.total, ix.n = r.Int(), r.Int()
	if r.Err() != nil {
		return nil
	}
	if len(ix.lens) != cases {
		r.Fail("suggest: an index of %d cases, the snapshot has %d", len(ix.lens), cases)
		return nil
	}
	total, nonEmpty := 0, 0
	for _, l := range ix.lens {
		if l < 0 {
			r.Fail("suggest: a case of %d terms", l)
			return nil
		}
		total += int(l)
		if l > 0 {
			nonEmpty++
		}
	}
	if total != ix.total || nonEmpty != ix.n {
		r.Fail("suggest: an index of %d terms over %d cases with text; its cases' lengths make %d over %d", ix.total, ix.n, total, nonEmpty)
		return nil
	}
	bg.run(func() error {
		// The keys are pieces of words, which the index keeps whole.
		at := 0
		for id, n := range wordLens {
			ix.ids[words[at:at+int(n)]] = int32(id)
			at += int(n)
		}
		if len(ix.ids) != n {
			return fmt.Errorf("index %d: %d terms, %d of them distinct", i, n, len(ix.ids))
		}
		return nil
	})
	return ix
}

// sumOf is the sum of xs, false when one is negative.
func sumOf(xs []int32) (int, bool) {
	sum := 0
	for _, x := range xs {
		if x < 0 {
			return 0, false
		}
		sum += int(x)
	}
	return sum, true
}

// valid reports whether p's buffer is what add codes for a corpus of
// cases cases: ascending cases below cases, each a doubled gap (the first
// case itself) with a count of at least 2 after it when the gap's low bit
// says so (and below 2³¹), as many as p.df, the last of them p.last. It is
// the one pass Load makes over the postings: a file that passes its
// checksum yet holds something else (a layout changed without a new
// PersistName) must be refused, not make each, tfIn and scoreNow loop for
// ever or index out of range. It reads a byte at a time, with no call, as
// it runs over every byte of the indexes.
func (p *postings) valid(cases int) bool {
	var (
		c, x  uint64 // the case of the posting before; the number being read
		shift uint
		count bool // x is a count (else a doubled gap)
		df    int32
	)
	for _, b := range p.buf {
		x |= uint64(b&0x7f) << shift
		if b >= 0x80 {
			if shift += 7; shift > 28 { // 5 bytes hold any number below 2³²
				return false
			}
			continue
		}
		if count {
			if x < 2 || x > math.MaxInt32 {
				return false
			}
			x, shift, count = 0, 0, false
			continue
		}
		gap := x >> 1
		switch {
		case df > 0: // a gap to the case before
			if gap == 0 {
				return false
			}
			c += gap
		default: // the first case
			c = gap
		}
		if c >= uint64(cases) {
			return false
		}
		df++
		count = x&1 != 0
		x, shift = 0, 0
	}
	return shift == 0 && !count && df > 0 && df == p.df && int32(c) == p.last
}
