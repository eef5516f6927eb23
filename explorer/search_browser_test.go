package explorer_test

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestSearchInBrowser checks the Cases screen's search under the page's own
// CSP: a search for a word says how many cases it found and which other
// forms of the word it matched, in both languages; a "did you mean" for a
// misspelt root cause in the URL is a link that applies the suggestion,
// and the root-cause panel keeps the other root causes meanwhile; a search
// too long for the URL is left out with a notice that says why. Any
// console error or CSP violation fails it.
func TestSearchInBrowser(t *testing.T) {
	chromiumPath(t)
	s := mustSite(t)
	b := newBrowser(t)
	cspViolations := b.enforceCSP(s.url + "/")
	seeds := corpus.Cases(t, corpus.Seeds(t))
	// The oracle, from the seed JSON: a case matches when a title or summary
	// has certificate or certificates as a whole word, in any case.
	word := regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}_.'’:])certificates?($|[^\p{L}\p{N}_])`)
	want := 0
	for _, c := range seeds {
		if slices.ContainsFunc([]string{c.Title.En, c.Title.Ko, c.Summary.En, c.Summary.Ko}, word.MatchString) {
			want++
		}
	}
	count := func() string { return eval[string](b, `document.getElementById("result-count").textContent`) }
	number := func(s string) int {
		n, _ := strconv.Atoi(strings.ReplaceAll(regexp.MustCompile(`\d[\d,]*`).FindString(s), ",", ""))
		return n
	}

	t.Run("word forms", func(t *testing.T) {
		b.t, s.t = t, t
		for _, lang := range []struct{ param, also string }{{"", "certificate (also certificates)"}, {"&lang=ko", "certificate (다른 형태: certificates)"}} {
			if st, _ := b.open(s.url + "/?q=certificate" + lang.param); st != "ready" {
				t.Fatalf("state %s", st)
			}
			got := count()
			t.Logf("%s: %q", lang.param, got)
			if number(got) != want || !strings.Contains(got, lang.also) {
				t.Errorf("result count %q: want %d cases and %q", got, want, lang.also)
			}
			if marks := eval[[]string](b, `[...document.querySelectorAll(".case-list mark")].map((m) => m.textContent.toLowerCase())`); !slices.Contains(marks, "certificates") {
				t.Errorf("the snippets do not highlight the form certificates: %q", marks)
			}
		}
	})

	t.Run("did you mean", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/?rc=capacty"); st != "ready" {
			t.Fatalf("state %s", st)
		}
		causes := eval[[]string](b, `(() => {
			const f = [...document.querySelectorAll("fieldset.facet")].find((x) => x.querySelector("legend").textContent === "Root cause");
			return f ? [...f.querySelectorAll("li label")].map((l) => l.textContent) : [];
		})()`)
		if len(causes) < 3 || !slices.ContainsFunc(causes, func(l string) bool { return strings.Contains(strings.ToLower(l), "capacity") }) {
			t.Errorf("with a misspelt root cause the panel lists %q: the other root causes vanished", causes)
		}
		href := eval[string](b, `(() => { const a = document.querySelector(".warnings a.did-you-mean"); return a ? a.getAttribute("href") : "" })()`)
		if u, err := url.Parse(href); err != nil || u.Query().Get("rc") != "capacity" {
			t.Fatalf("the did-you-mean link is %q, want one to rc=capacity", href)
		}
		b.do(chromedp.Click(chromedp.CSS(".warnings a.did-you-mean")))
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`location.search === "?rc=capacity" && document.body.dataset.state === "ready" && !document.querySelector(".warnings")`,
			chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("the suggestion was not applied: %s: %v", b.location(), err)
		}
		n := 0
		for _, c := range seeds {
			if slices.Contains(c.Tags(ilgraph.KindRootCause), "capacity") {
				n++
			}
		}
		if got := count(); number(got) != n {
			t.Errorf("after the suggestion: %q, want %d cases (the seeds' capacity cases)", got, n)
		}
	})

	t.Run("a search too long for the URL", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/?q=" + strings.Repeat("a", 2000)); st != "ready" {
			t.Fatalf("state %s", st)
		}
		n := eval[string](b, `document.getElementById("notice").textContent`)
		if !strings.Contains(n, "longer than 500 characters (2000)") || !strings.Contains(n, "left out") {
			t.Errorf("notice %q does not say what was wrong", n)
		}
		if loc := b.location(); strings.Contains(loc, "q=") {
			t.Errorf("the URL kept the search: %s", loc)
		}
	})
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	cspViolations("searching")
}
