package suggest

import (
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
)

// analyseByDefinition is what analyse computes, by its definition: each
// text analysed on its own (the case text, the factor text, the case text
// of both languages for the phrases).
func analyseByDefinition(e *Engine, c *ilgraph.Case) analysedCase {
	out := e.analyse(c) // the tags: not what this test is about
	out.terms, out.phrases = [4][]string{}, nil
	words := func(text string) []string { return e.names.terms(e.analyzer.Terms(text), e.analyzer.IsVendor) }
	en, ko := caseText(c)
	out.terms[0], out.terms[1] = words(en), words(ko)
	fen, fko := factorText(c)
	out.terms[2], out.terms[3] = words(fen), words(fko)
	seen := map[int]bool{}
	for _, m := range e.matcher.FindAll(e.names.tokens(analysis.Tokens(en + "\n" + ko))) {
		if !seen[m.Phrase] {
			seen[m.Phrase] = true
			out.phrases = append(out.phrases, m.Phrase)
		}
	}
	return out
}

// analyse analyses each language's text once; its answer is the one of
// analysing every text on its own, for every seed case and for made-up
// ones whose organization's name of several words, a vendor or a Hangul
// product name sits where the case text ends and the factor text begins.
func TestAnalyseOnce(t *testing.T) {
	v, cases, _ := seeds(t)
	made := []ilgraph.Case{
		{ID: "X-1", Org: "Acme Cloud Services",
			Title:        ilgraph.Text{En: "Acme Cloud", Ko: "카프카 브로커 디스크"},
			SymptomsText: ilgraph.Text{En: "consumers lag behind on Acme", Ko: "레디스"},
			Detection:    ilgraph.Text{En: "Cloud Services paged the on-call; Kafka brokers full", Ko: "쿠버네티스 노드"},
			Lessons:      ilgraph.Text{En: "AWS-hosted front-end timed out (HTTP 503)"}},
		{ID: "X-2", Title: ilgraph.Text{En: "cert expiry"}, Summary: ilgraph.Text{Ko: "인증서 만료"}},
		{ID: "X-3"},
	}
	all := append(append([]ilgraph.Case{}, cases...), made...)
	e, err := New(v, all, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		c := &all[i]
		got, want := e.analyse(c), analyseByDefinition(e, c)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: analysed once\n got %+v\nwant %+v", c.ID, got, want)
		}
	}
}
