package suggest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/snapfile"
	"github.com/ilgraph/ilgraph/memstore"
)

// memGraph serves cases held in memory as the graph serves a source and the
// service: what memstore.Source reads and the vocabulary.
type memGraph struct {
	vocab *ilgraph.Vocabulary
	cases []ilgraph.Case
}

func (g *memGraph) CorpusVersion(context.Context) (int64, error) { return 1, nil }

func (g *memGraph) CaseOrganizations(context.Context) ([]string, error) {
	var out []string
	for _, c := range g.cases {
		if !slices.Contains(out, c.Org) {
			out = append(out, c.Org)
		}
	}
	return out, nil
}

func (g *memGraph) OrganizationNames(_ context.Context, fn func(id, name string)) error {
	for _, c := range g.cases {
		fn(c.OrgSlug, c.Org)
	}
	return nil
}

func (g *memGraph) EachCase(_ context.Context, fn func(*ilgraph.Case) error) error {
	for i := range g.cases {
		c := g.cases[i]
		if err := fn(&c); err != nil {
			return err
		}
	}
	return nil
}

func (g *memGraph) Vocabulary(context.Context) (*ilgraph.Vocabulary, error) { return g.vocab, nil }

// served builds an engine as a server does: the service's consumer
// registered with a source that reads the cases (streamed, slimmed,
// analysed on every core). It returns the consumer, its engine and the
// snapshot the engine is over.
func served(t testing.TB, v *ilgraph.Vocabulary, cases []ilgraph.Case, opts Options) (*consumer, *Engine, *memstore.Snapshot) {
	t.Helper()
	g := &memGraph{vocab: v, cases: cases}
	svc := NewService(g, memstore.NewSource(g), opts)
	c, err := svc.src.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return svc.k, c.Value(svc.k).(*Engine), c.Snapshot
}

// generatedCases are n cases of the generator's corpus for seed.
func generatedCases(t testing.TB, n int, seed uint64) []ilgraph.Case {
	t.Helper()
	dir := corpus.Seeds(t)
	var buf bytes.Buffer
	err := gen.Write(&buf, gen.Options{Cases: n, Seed: seed, Vocab: corpus.Vocab(t, filepath.Join(dir, "vocab.json")), Prior: corpus.Cases(t, filepath.Join(dir, "cases"))})
	if err != nil {
		t.Fatal(err)
	}
	var out []ilgraph.Case
	for dec := json.NewDecoder(&buf); dec.More(); {
		var c ilgraph.Case
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// saved is the engine's section as Save writes it, in a file of its own.
func saved(t testing.TB, k *consumer, e *Engine) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := snapfile.NewWriter(&buf)
	if err := k.Save(w, e); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loaded reads a file saved wrote back over s; a panic is returned as an
// error, for the tests to report where it happened.
func loaded(k *consumer, s *memstore.Snapshot, file []byte) (e *Engine, err error) {
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	r := snapfile.NewReader(bytes.NewReader(file), "test.snap")
	v, err := k.Load(context.Background(), r, s)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return v.(*Engine), nil
}

// withoutScratch is e with its indexes' build scratch (bm25.tf, order)
// left out, e and its indexes unchanged.
func withoutScratch(e *Engine) Engine {
	c := *e
	strip := func(m map[string]*bm25) map[string]*bm25 {
		out := map[string]*bm25{}
		for lang, ix := range m {
			x := *ix
			x.tf, x.order = nil, nil
			out[lang] = &x
		}
		return out
	}
	c.index, c.factors = strip(e.index), strip(e.factors)
	return c
}

// sameEngine compares an engine read back with the one built, part by
// part, then as a whole (so that a part added to Engine later is compared
// too).
func sameEngine(t *testing.T, got, want *Engine) {
	t.Helper()
	same := func(what string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %v, want %v", what, trim(g), trim(w))
		}
	}
	same("opts", got.opts, want.opts)
	same("terms", got.terms, want.terms)
	same("termIdx", got.termIdx, want.termIdx)
	same("extra", got.extra, want.extra)
	if len(got.phrases) != len(want.phrases) {
		t.Errorf("%d phrases, want %d", len(got.phrases), len(want.phrases))
	} else {
		for i := range want.phrases {
			if g, w := got.phrases[i], want.phrases[i]; !reflect.DeepEqual(g, w) {
				t.Errorf("phrase %d: got %+v, want %+v", i, g, w)
				break
			}
		}
	}
	for _, m := range []struct {
		name      string
		got, want map[string]*bm25
	}{{"index", got.index, want.index}, {"factors", got.factors, want.factors}} {
		if len(m.got) != len(m.want) {
			t.Errorf("%s: %d languages, want %d", m.name, len(m.got), len(m.want))
		}
		for lang, w := range m.want {
			g := m.got[lang]
			if g == nil {
				t.Errorf("%s[%s]: missing", m.name, lang)
				continue
			}
			at := m.name + "[" + lang + "]"
			same(at+".ids", g.ids, w.ids)
			same(at+".lens", g.lens, w.lens)
			same(at+".total", g.total, w.total)
			same(at+".n", g.n, w.n)
			if len(g.post) != len(w.post) || (g.post == nil) != (w.post == nil) {
				t.Errorf("%s.post: %d terms (nil %v), want %d (nil %v)", at, len(g.post), g.post == nil, len(w.post), w.post == nil)
				continue
			}
			for i := range w.post {
				if !reflect.DeepEqual(g.post[i], w.post[i]) {
					t.Errorf("%s.post[%d]: got %+v, want %+v", at, i, g.post[i], w.post[i])
					break
				}
			}
			if g.tf != nil || g.order != nil {
				t.Errorf("%s: read back with add's scratch", at)
			}
		}
	}
	same("featTerm", got.featTerm, want.featTerm)
	same("termFeat", got.termFeat, want.termFeat)
	if got.snap != want.snap {
		t.Error("the engine read back is not over the snapshot it was loaded over")
	}
	same("analyzer", got.analyzer, want.analyzer)
	same("names", got.names, want.names)
	same("matcher", got.matcher, want.matcher)
	if got.over != nil {
		t.Error("an engine read back has an overlay")
	}
	if !t.Failed() && !reflect.DeepEqual(withoutScratch(got), withoutScratch(want)) {
		t.Error("the engines differ in a part not compared above")
	}
}

// trim cuts a value's print for a message.
func trim(v any) string {
	s := fmt.Sprintf("%v", v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// queryTexts are the texts the engines are asked: every case's English and
// Korean text (caseText, cut to what Suggest takes), each with the case it
// comes from, and a few made up (no case).
func queryTexts(cases []ilgraph.Case) (texts, from []string) {
	for i := range cases {
		en, ko := caseText(&cases[i])
		for _, text := range []string{en, ko} {
			text = strings.TrimSpace(text)
			if text == "" {
				continue
			}
			if utf8.RuneCountInString(text) > MaxTextChars {
				text = string([]rune(text)[:MaxTextChars])
			}
			texts, from = append(texts, text), append(from, cases[i].ID)
		}
	}
	for _, text := range []string{
		"Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed",
		"카프카 브로커 디스크가 가득 찼고 컨슈머 지연이 늘었다",
		"our Kafka consumers lag and the broker disks are filling up; producers time out",
		"certificate expired at midnight, every TLS handshake failed",
		"DNS 설정 변경 후 레디스 연결 오류",
		"zzzz qqqq",
	} {
		texts, from = append(texts, text), append(from, "")
	}
	return texts, from
}

// sameAnswers asks both engines every text of queryTexts — with the
// language detected, and in English and Korean with the text's case left
// out — and the text matches; the answers must be equal. It returns how
// many answers named a neighbour, for the caller to check that the test
// says something.
func sameAnswers(t *testing.T, got, want *Engine, cases []ilgraph.Case) int {
	t.Helper()
	texts, from := queryTexts(cases)
	found := 0
	for i, text := range texts {
		for _, q := range []struct{ lang, exclude string }{{"", ""}, {"en", from[i]}, {"ko", from[i]}} {
			g, gerr := got.Suggest(text, q.lang, q.exclude)
			w, werr := want.Suggest(text, q.lang, q.exclude)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%.60q (%q, without %q): error %v, want %v", text, q.lang, q.exclude, gerr, werr)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%.60q (%q, without %q): read back, the engine suggests\n%+v\nbuilt\n%+v", text, q.lang, q.exclude, g, w)
			}
			if w != nil && len(w.Neighbours) > 0 {
				found++
			}
		}
		also := []string{from[i], "NO-SUCH-CASE"}
		gl, gm, gerr := got.TextMatches(text, "", 10, also)
		wl, wm, werr := want.TextMatches(text, "", 10, also)
		if gl != wl || !reflect.DeepEqual(gm, wm) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%.60q: read back, the text matches are %s %+v (%v), built %s %+v (%v)", text, gl, gm, gerr, wl, wm, werr)
		}
	}
	return found
}

// sameAfterWrites applies the same writes to both engines (a case changed
// into another's text and tags, one deleted, one created) and compares
// their answers: an engine read back follows writes as the one built.
func sameAfterWrites(t *testing.T, got, want *Engine, cases []ilgraph.Case) {
	t.Helper()
	if len(cases) < 3 {
		return
	}
	changed := cases[1]
	changed.ID = cases[0].ID
	created := cases[2]
	created.ID = "NEW-1"
	for _, w := range []struct {
		id string
		c  *ilgraph.Case
	}{{cases[0].ID, &changed}, {cases[2].ID, nil}, {created.ID, &created}} {
		ch := []memstore.Applied{{ID: w.id, Case: w.c}}
		got, want = got.with(ch), want.with(ch)
	}
	sameAnswers(t, got, want, cases[:10:10])
}

// TestPersistRoundTrip saves engines built as a server builds them — over
// the seed corpus with the default options and the labels-only baseline,
// over a generated corpus with names set aside, and over no case at all —
// reads each back over the same snapshot, and checks that the engine read
// back is the one built, part by part, and answers alike: every case's
// English and Korean text and a few made-up ones, with a case left out or
// not, the text matches, and after the same writes.
func TestPersistRoundTrip(t *testing.T) {
	v, seedCases, _ := seeds(t)
	generated := generatedCases(t, 2000, 7)
	var someGenerated []ilgraph.Case // their texts repeat the seeds': a few say enough
	for i := 0; i < len(generated); i += 10 {
		someGenerated = append(someGenerated, generated[i])
	}
	for _, tc := range []struct {
		name           string
		cases, queries []ilgraph.Case
		opts           Options
	}{
		{"seeds", seedCases, seedCases, Options{}},
		{"seeds/labels-only", seedCases, seedCases, Options{LabelsOnly: true}},
		{"generated", generated, someGenerated, Options{Names: []string{"Acme Cloud Services", "Initech", "Acme Cloud Services"}}},
		{"empty", nil, nil, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, built, snap := served(t, v, tc.cases, tc.opts)
			file := saved(t, k, built)
			got, err := loaded(k, snap, file)
			if err != nil {
				t.Fatal(err)
			}
			sameEngine(t, got, built)
			if t.Failed() {
				return
			}
			if len(tc.opts.Names) > 0 && len(got.extra) < 2 {
				t.Errorf("the analysis sets aside %q, want the options' names and the organizations'", got.extra)
			}
			found := sameAnswers(t, got, built, tc.queries)
			if len(tc.queries) > 0 && !tc.opts.LabelsOnly && found < len(tc.queries) {
				t.Errorf("%d answers named neighbours for %d cases' texts: the comparison says little", found, len(tc.queries))
			}
			sameAfterWrites(t, got, built, tc.queries)
			t.Logf("%d cases: %d bytes", len(tc.cases), len(file))
		})
	}
}

// TestPersistOptions: an engine read back under options that change what a
// build learns (the baseline, the names set aside) is refused; under
// options that only weigh the answers it is read and answers as an engine
// built under them.
func TestPersistOptions(t *testing.T) {
	v, cases, _ := seeds(t)
	k, built, snap := served(t, v, cases, Options{})
	file := saved(t, k, built)
	for _, opts := range []Options{{LabelsOnly: true}, {Names: []string{"Acme"}}, {LabelsOnly: true, Neighbours: 3}} {
		other := &consumer{store: k.store, opts: opts}
		if _, err := loaded(other, snap, file); err == nil || !strings.Contains(err.Error(), "other options") {
			t.Errorf("read back under %+v: error %v, want one of other options", opts, err)
		}
	}
	kb, baseline, bsnap := served(t, v, cases, Options{LabelsOnly: true})
	if _, err := loaded(k, bsnap, saved(t, kb, baseline)); err == nil || !strings.Contains(err.Error(), "other options") {
		t.Errorf("the baseline's file read back by the default engine: error %v, want one of other options", err)
	}

	weighed := Options{Neighbours: 3, PhraseWeight: 0.7, VoteWeight: 0.5}
	_, want, _ := served(t, v, cases, weighed)
	got, err := loaded(&consumer{store: k.store, opts: weighed}, snap, file)
	if err != nil {
		t.Fatalf("read back under %+v: %v", weighed, err)
	}
	sameAnswers(t, got, want, cases[:20])
}

// TestPersistRefusesOtherSnapshot: the indexes number the cases of the
// snapshot they were built with; over a snapshot of other cases the
// section is refused.
func TestPersistRefusesOtherSnapshot(t *testing.T) {
	v, cases, _ := seeds(t)
	k, built, _ := served(t, v, cases, Options{})
	_, _, fewer := served(t, v, cases[:len(cases)/2], Options{})
	if _, err := loaded(k, fewer, saved(t, k, built)); err == nil || !strings.Contains(err.Error(), "cases") {
		t.Errorf("read back over a snapshot of %d cases, not %d: error %v, want one of the cases", fewer.Len(), len(cases), err)
	}
}

// TestPersistRefusesBadData saves engines changed so as to write what a
// build never makes — a file whose checksum is right — and checks that
// Load refuses each with its own error rather than panic or return an
// engine that would.
func TestPersistRefusesBadData(t *testing.T) {
	v, cases, _ := seeds(t)
	k, built, snap := served(t, v, cases, Options{})
	n := int32(len(cases))
	// index returns a copy of e's English case text index for a change, in
	// a copy of e's index map.
	index := func(e *Engine) *bm25 {
		x := *e.index["en"]
		x.post = slices.Clone(x.post)
		e.index = map[string]*bm25{"en": &x, "ko": e.index["ko"]}
		return &x
	}
	for _, tc := range []struct {
		name   string
		change func(e *Engine)
		want   string
	}{
		{"a phrase fewer", func(e *Engine) { e.phrases = e.phrases[:len(e.phrases)-1] }, "phrases"},
		{"another vocabulary", func(e *Engine) {
			e.terms = slices.Clone(e.terms)
			e.terms[0].En = "a label no phrase has"
		}, "phrase"},
		{"a term of no kind", func(e *Engine) {
			e.terms = slices.Clone(e.terms)
			e.terms[0].Kind = "colour"
		}, "kind"},
		{"a phrase's case beyond the corpus", func(e *Engine) {
			phraseCases = func(p *phrase) []int32 { return append(p.cases.list(), n) }
		}, "ascending"},
		{"a phrase's cases out of order", func(e *Engine) {
			phraseCases = func(p *phrase) []int32 {
				l := p.cases.list()
				slices.Reverse(l)
				return l
			}
		}, "ascending"},
		{"a phrase more tagged than found", func(e *Engine) {
			e.phrases = slices.Clone(e.phrases)
			e.phrases[0].tagged = e.phrases[0].cases.len() + 1
		}, "tagged"},
		{"a posting beyond the corpus", func(e *Engine) {
			x := index(e)
			x.post[0] = postings{}
			x.post[0].add(n, 1)
		}, "postings"},
		{"a posting's count written out below 2", func(e *Engine) {
			x := index(e)
			x.post[0] = postings{buf: []byte{1<<1 | 1, 1}, last: 1, df: 1} // case 1, count 1 where none is written
		}, "postings"},
		{"a posting's count of 0", func(e *Engine) {
			x := index(e)
			x.post[0] = postings{buf: []byte{1<<1 | 1, 0}, last: 1, df: 1}
		}, "postings"},
		{"a count with no posting before it", func(e *Engine) {
			x := index(e)
			x.post[0] = postings{buf: []byte{1<<1 | 1}, last: 1, df: 1} // the count is missing
		}, "postings"},
		{"postings not ascending", func(e *Engine) {
			x := index(e)
			x.post[0] = postings{buf: []byte{5 << 1, 0 << 1}, last: 5, df: 2} // case 5 twice
		}, "postings"},
		{"a df that is not the postings'", func(e *Engine) { index(e).post[0].df++ }, "postings"},
		{"a last case that is not the postings'", func(e *Engine) { index(e).post[0].last++ }, "postings"},
		{"a cut varint", func(e *Engine) { index(e).post[0].buf = []byte{0x81} }, "postings"},
		{"a total that is not the cases'", func(e *Engine) { index(e).total++ }, "cases' lengths"},
		{"a case more", func(e *Engine) { x := index(e); x.lens = append(slices.Clone(x.lens), 0) }, "cases"},
		{"another analysis", func(e *Engine) { e.extra = append(slices.Clone(e.extra), "brokers") }, "text analysis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			was := phraseCases // a change may write the phrases' cases otherwise
			defer func() { phraseCases = was }()
			e := *built
			tc.change(&e)
			_, err := loaded(k, snap, saved(t, k, &e))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "panic") {
				t.Errorf("error %v, want one about %s", err, tc.want)
			}
		})
	}
	if err := k.Save(snapfile.NewWriter(&bytes.Buffer{}), built.with([]memstore.Applied{{ID: cases[0].ID}})); err == nil {
		t.Error("an engine with writes applied was saved")
	}
	if err := k.Save(snapfile.NewWriter(&bytes.Buffer{}), "an engine"); err == nil {
		t.Error("a string was saved as an engine")
	}
}

// TestPersistDamagedFile: a file cut short anywhere, or with any one byte
// changed, is refused with an error — from Load or from Close, which
// checks the checksum — never read into an engine or a panic.
func TestPersistDamagedFile(t *testing.T) {
	v, cases, _ := seeds(t)
	k, built, snap := served(t, v, cases, Options{})
	file := saved(t, k, built)
	// Every byte of the header and the options, then positions spread over
	// the file, and its last bytes (the checksum).
	var at []int
	for i := 0; i < 64 && i < len(file); i++ {
		at = append(at, i)
	}
	for i := 64; i < len(file); i += len(file)/150 + 1 {
		at = append(at, i)
	}
	for i := max(len(file)-6, 0); i < len(file); i++ {
		at = append(at, i)
	}
	for _, i := range at {
		if _, err := loaded(k, snap, file[:i]); err == nil || strings.Contains(err.Error(), "panic") {
			t.Errorf("the file cut at %d of %d bytes: error %v, want one", i, len(file), err)
		}
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			bad := slices.Clone(file)
			bad[i] ^= mask
			if _, err := loaded(k, snap, bad); err == nil || strings.Contains(err.Error(), "panic") {
				t.Errorf("the file with byte %d of %d ^%#x: error %v, want one", i, len(file), mask, err)
			}
		}
	}
	if _, err := loaded(k, snap, append(slices.Clone(file), 0)); err == nil {
		t.Error("a file with a byte after its checksum: no error")
	}
}

// BenchmarkPersist measures Save and Load of the engine over BENCH_CASES
// generated cases (default 20,000), against the build they stand for.
func BenchmarkPersist(b *testing.B) {
	n := 20_000
	if s := os.Getenv("BENCH_CASES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("BENCH_CASES=%q: want a number ≥ 1", s)
		}
	}
	v, _, _ := seeds(b)
	cases := generatedCases(b, n, 1)
	start := time.Now()
	k, built, snap := served(b, v, cases, Options{})
	b.Logf("%d cases: built in %v", n, time.Since(start))
	file := saved(b, k, built)
	b.Run("save", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			saved(b, k, built)
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			if _, err := loaded(k, snap, file); err != nil {
				b.Fatal(err)
			}
		}
	})
}
