package suggest

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/memstore"
)

var (
	seedOnce   sync.Once
	seedVocab  *ilgraph.Vocabulary
	seedCases  []ilgraph.Case
	seedEngine *Engine
)

func seeds(t testing.TB) (*ilgraph.Vocabulary, []ilgraph.Case, *Engine) {
	t.Helper()
	seedOnce.Do(func() {
		dir := corpus.Seeds(t)
		seedVocab = corpus.Vocab(t, filepath.Join(dir, "vocab.json"))
		for _, c := range corpus.Cases(t, filepath.Join(dir, "cases")) {
			seedCases = append(seedCases, *c)
		}
		var err error
		if seedEngine, err = New(seedVocab, seedCases, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	return seedVocab, seedCases, seedEngine
}

func ids(ss []Suggestion) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

func has(ss []Suggestion, id string) bool {
	for _, s := range ss {
		if s.ID == id {
			return true
		}
	}
	return false
}

func TestSuggestFromTheIssue(t *testing.T) {
	_, _, e := seeds(t)
	for _, tc := range []struct {
		lang, text string
	}{
		{"en", "Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed"},
		{"ko", "Kinesis 프런트엔드 서버들이 운영체제 스레드 한도에 걸렸다. 지연 시간과 오류가 늘었고 CloudWatch 지표가 지연됐다"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			res, err := e.Suggest(tc.text, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Lang != tc.lang {
				t.Errorf("detected %q, want %q", res.Lang, tc.lang)
			}
			if got := res.Top(ilgraph.KindRootCause, 3, 0); !has(got, "capacity") {
				t.Errorf("root causes %v, want capacity in the top 3", ids(got))
			}
			if got := res.Top(ilgraph.KindComponent, 3, 0); !has(got, "message-broker") {
				t.Errorf("components %v, want message-broker in the top 3", ids(got))
			}
			for _, id := range []string{"high-latency", "high-error-rate"} {
				if got := res.Top(ilgraph.KindSymptom, 4, 0); !has(got, id) {
					t.Errorf("symptoms %v, want %s in the top 4", ids(got), id)
				}
			}
			for _, k := range ilgraph.VocabKinds {
				prev := 2.0
				for _, s := range res.ByKind[k] {
					if s.Kind != k || s.Confidence <= 0 || s.Confidence > 1 || s.Confidence > prev {
						t.Errorf("%s: %+v out of range or order", k, s)
					}
					prev = s.Confidence
					for _, ev := range s.Evidence {
						if ev.Phrase != "" && tc.text[ev.Start:ev.End] != ev.Text {
							t.Errorf("evidence %+v: offsets do not give its text", ev)
						}
					}
				}
			}
			// the evidence names the words that matched
			for _, s := range res.ByKind[ilgraph.KindSymptom] {
				if s.ID != "high-latency" {
					continue
				}
				found := false
				for _, ev := range s.Evidence {
					found = found || strings.Contains(ev.Text, "지연") || strings.Contains(strings.ToLower(ev.Text), "latency")
				}
				if !found {
					t.Errorf("high-latency evidence %+v lacks the words that matched", s.Evidence)
				}
			}
		})
	}
}

func TestSuggestLeavesACaseOut(t *testing.T) {
	_, cases, e := seeds(t)
	c := cases[0]
	q := Query(&c, "en")
	with, err := e.Suggest(q, "en", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Neighbours) == 0 || with.Neighbours[0].CaseID != c.ID {
		t.Fatalf("a case's own text should find the case first, got %+v", with.Neighbours)
	}
	without, err := e.Suggest(q, "en", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range without.Neighbours {
		if n.CaseID == c.ID {
			t.Errorf("excluded case %s is a neighbour", c.ID)
		}
	}
	for _, ss := range without.ByKind {
		for _, s := range ss {
			for _, ev := range s.Evidence {
				if ev.CaseID == c.ID {
					t.Errorf("excluded case %s votes for %s", c.ID, s.ID)
				}
			}
		}
	}
}

func TestSuggestInputLimits(t *testing.T) {
	_, _, e := seeds(t)
	for _, tc := range []struct {
		name, text, lang, code string
	}{
		{"empty", "", "", ilgraph.EINVALID},
		{"blank", " \n\t ", "", ilgraph.EINVALID},
		{"too long", strings.Repeat("장", MaxTextChars+1), "", ilgraph.ELIMIT},
		{"longest", strings.Repeat("장", MaxTextChars), "", ""},
		{"bad lang", "disk full", "fr", ilgraph.EINVALID},
		{"invalid UTF-8", "disk \xff\xfe full \xc3", "", ""},
		{"binary", "\x00\x01\x02\x7f\x80\x90\xa0\xff", "", ""},
		{"punctuation", "!!! ??? ...", "en", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Suggest(tc.text, tc.lang, "")
			if got := ilgraph.ErrorCode(err); got != tc.code {
				t.Errorf("error %v (code %q), want code %q", err, got, tc.code)
			}
		})
	}
}

func TestBaselineIsLabelsOnly(t *testing.T) {
	v, cases, _ := seeds(t)
	b, err := New(v, cases, Options{LabelsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Suggest("High latency and a throttling problem; disk full", "en", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.ByKind[ilgraph.KindSymptom]); !has(res.ByKind[ilgraph.KindSymptom], "high-latency") || !has(res.ByKind[ilgraph.KindSymptom], "disk-full") {
		t.Errorf("baseline symptoms %v, want high-latency and disk-full from their labels", got)
	}
	if has(res.ByKind[ilgraph.KindContributing], "missing-rate-limit") {
		t.Error("the baseline must not know the alias throttling")
	}
	if len(res.Neighbours) != 0 {
		t.Error("the baseline has no neighbours")
	}
}

func TestSuggestConcurrent(t *testing.T) {
	_, cases, e := seeds(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cases[i%len(cases)]
			if _, err := e.Suggest(Query(&c, "en"), "", c.ID); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"disk full", "메모리가 부족했다", "\xff", "out-of-memory OOM", "x"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, text, lang string) {
		_, _, e := seeds(t)
		res, err := e.Suggest(text, lang, "")
		if err != nil {
			if c := ilgraph.ErrorCode(err); c != ilgraph.EINVALID && c != ilgraph.ELIMIT {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, ss := range res.ByKind {
			for _, s := range ss {
				if s.Confidence <= 0 || s.Confidence > 1 {
					t.Fatalf("confidence %v", s.Confidence)
				}
			}
		}
	})
}

// BenchmarkSuggest: one case's text over the seed corpus, the confidences
// calibrated (what the server serves) and uncalibrated (the scores alone),
// so that the calibration's cost is read against the rest in one run.
func BenchmarkSuggest(b *testing.B) {
	v, cases, e := seeds(b)
	raw, err := New(v, cases, Options{Uncalibrated: true})
	if err != nil {
		b.Fatal(err)
	}
	q := Query(&cases[0], "en")
	engines := []struct {
		name string
		e    *Engine
	}{{"calibrated", e}, {"uncalibrated", raw}}
	// With cases written since the build (a replica following a load
	// through the change feed, until its settling build): each query
	// scores the written cases beside the build's.
	for _, n := range []int{64, 2000} {
		written := generatedCases(b, n, 7)
		changes := make([]memstore.Applied, n)
		for i := range written {
			changes[i] = memstore.Applied{ID: written[i].ID, Case: &written[i]}
		}
		engines = append(engines, struct {
			name string
			e    *Engine
		}{fmt.Sprintf("calibrated_%d_written", n), e.with(changes)})
	}
	for _, bc := range engines {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.e.Suggest(q, "en", ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	v, cases, _ := seeds(b)
	for b.Loop() {
		if _, err := New(v, cases, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
