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

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// drillRange is the date range every dashboard chart is given: it starts
// mid-year, so that a year's bar or cell only drills down correctly when
// the link intersects the year with the chart's range.
const drillRange = "2014-07-01..2024-06-30"

// TestDashboardDrillsDown opens, for each dashboard chart once, the first
// of its drill-down links (the first year's bar by keyboard, the others by
// click) and checks that the Cases screen it opens counts the number the
// chart showed, that the URL holds exactly that selection (a term per
// chart, the chart's range, narrowed to the year for years), and that the
// seeds, counted here by brute force, agree. The page runs under its own
// CSP; any console error or CSP violation fails the test.
func TestDashboardDrillsDown(t *testing.T) {
	chromiumPath(t)
	s := mustSite(t)
	b := newBrowser(t)
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		// newBrowser bypasses the CSP for axe-core, which this test does
		// not inject: here the page runs under its own policy.
		if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: false}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
			window.cspViolations = [];
			document.addEventListener("securitypolicyviolation", (e) =>
				window.cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber));`})
		return err
	}))
	seeds := corpus.Cases(t, corpus.Seeds(t))
	from, to, _ := strings.Cut(drillRange, "..")
	dash := s.url + "/dashboard?" + url.Values{"y": {drillRange}, "r": {drillRange}, "t": {drillRange}, "l": {drillRange}, "b": {drillRange}}.Encode()

	t.Run("time to resolve shows n", func(t *testing.T) {
		b.t, s.t = t, t
		b.takeErrors()
		checkFewMarked(t, b, s.url, seeds, "2024-01-01")
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("console errors: %q", errs)
		}
		if v := eval[[]string](b, `window.cspViolations || ["no CSP listener"]`); len(v) > 0 {
			t.Errorf("CSP violations: %q", v)
		}
	})

	for _, ch := range []struct {
		key, sel string
		params   []string // the term parameters the link must hold
		year     bool     // the link narrows the range to a year
		keyboard bool
	}{
		{key: "y", sel: "a.bar-link", year: true, keyboard: true},
		{key: "r", sel: "ol a.drill", params: []string{"rc"}},
		{key: "t", sel: "ol a.drill", params: []string{"f"}},
		{key: "l", sel: "ol a.drill", params: []string{"rc", "c"}},
		{key: "b", sel: ".heat a.drill", params: []string{"rc"}, year: true},
	} {
		t.Run(ch.key, func(t *testing.T) {
			b.t, s.t = t, t
			b.takeErrors()
			if st, _ := b.open(dash); st != "ready" {
				t.Fatalf("dashboard: state %q", st)
			}
			// The chart's number, from the page: the last number of the
			// link's text (a bar's is its title, "2014: 3").
			pick := eval[map[string]any](b, `(() => {
				const a = document.querySelector('section[aria-labelledby="h-`+ch.key+`"] `+ch.sel+`');
				if (!a) return {};
				a.setAttribute("data-test-pick", "");
				a.focus();
				const m = a.textContent.match(/\d[\d,]*/g);
				return { href: a.getAttribute("href"), n: m ? m[m.length - 1] : "", focused: document.activeElement === a };
			})()`)
			href, _ := pick["href"].(string)
			if href == "" {
				t.Fatalf("chart %s has no drill-down link %q", ch.key, ch.sel)
			}
			want, err := strconv.Atoi(strings.ReplaceAll(pick["n"].(string), ",", ""))
			if err != nil || want <= 0 {
				t.Fatalf("chart %s: link %s shows no count (%q)", ch.key, href, pick["n"])
			}
			if pick["focused"] != true {
				t.Errorf("chart %s: the link %s does not take the keyboard's focus", ch.key, href)
			}
			u, err := url.Parse(href)
			if err != nil || u.Path != "/" {
				t.Fatalf("chart %s: link %q is not the Cases screen", ch.key, href)
			}
			q := u.Query()
			checkDrillParams(t, q, ch.params, ch.year, from, to)

			if ch.keyboard {
				b.do(chromedp.KeyEvent("\r"))
			} else {
				b.do(chromedp.Click(chromedp.CSS("[data-test-pick]")))
			}
			ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
			defer cancel()
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`location.pathname === "/" && document.body.dataset.state === "ready" && !!document.getElementById("result-count")`,
				chromedp.WithPollingTimeout(20*time.Second))); err != nil {
				t.Fatalf("chart %s: the Cases screen did not open from %s: %v", ch.key, href, err)
			}
			if loc := b.location(); loc != href {
				t.Errorf("chart %s: the Cases screen's URL is %s, the link's %s", ch.key, loc, href)
			}
			total := eval[string](b, `document.getElementById("result-count").textContent`)
			m := regexp.MustCompile(`^[\d,]+`).FindString(total)
			got, _ := strconv.Atoi(strings.ReplaceAll(m, ",", ""))
			if got != want {
				t.Errorf("chart %s: the chart shows %d, the Cases screen (%s) %q", ch.key, want, href, total)
			}
			if n := countSeeds(seeds, q); n != want {
				t.Errorf("chart %s: the chart shows %d, the seeds have %d cases for %s", ch.key, want, n, href)
			}
			if errs := b.takeErrors(); len(errs) > 0 {
				t.Errorf("console errors: %q", errs)
			}
			if v := eval[[]string](b, `window.cspViolations || ["no CSP listener"]`); len(v) > 0 {
				t.Errorf("CSP violations: %q", v)
			}
		})
	}
}

// checkDrillParams checks that a drill-down link holds exactly its
// selection: one id for each of terms, the chart's range (from..to),
// within one year when year is set, and nothing else.
func checkDrillParams(t *testing.T, q url.Values, terms []string, year bool, from, to string) {
	t.Helper()
	for k, v := range q {
		if !slices.Contains(terms, k) && k != "from" && k != "to" {
			t.Errorf("link parameter %s=%q: not part of the chart's selection", k, v)
		}
	}
	for _, k := range terms {
		if v := q.Get(k); v == "" || strings.Contains(v, ",") {
			t.Errorf("link parameter %s=%q, want one id", k, v)
		}
	}
	f, e := q.Get("from"), q.Get("to")
	if f < from || e > to || f == "" || e == "" {
		t.Errorf("link range %s..%s is not within the chart's %s..%s", f, e, from, to)
	}
	if year && (len(f) < 4 || !strings.HasPrefix(e, f[:4])) {
		t.Errorf("link range %s..%s is not within one year", f, e)
	}
	if !year && (f != from || e != to) {
		t.Errorf("link range %s..%s, want the chart's %s..%s", f, e, from, to)
	}
}

// checkFewMarked opens the dashboard with the time-to-resolve chart over
// from.. and checks its rows: each shows n, the cases of its factor with a
// measured time, as the seeds have it; a median of fewer than 3 such
// cases, and only such a one, is marked; the marked ones come after the
// others, as many of them as the seeds say fit in the 15 rows.
func checkFewMarked(t *testing.T, b *browser, dash string, seeds []*ilgraph.Case, from string) {
	t.Helper()
	if st, _ := b.open(dash + "/dashboard?t=" + from + ".."); st != "ready" {
		t.Fatalf("dashboard: state %q", st)
	}
	measured := map[string]int{}
	for _, c := range seeds {
		if _, err := ilgraph.ParseDuration(c.Timeline.ResolvedAfter); c.Date < from || c.Timeline.ResolvedAfter == "" || err != nil {
			continue
		}
		for _, f := range c.Contributing {
			measured[f]++
		}
	}
	reliable, few := 0, 0
	for _, n := range measured {
		if n < 3 {
			few++
		} else {
			reliable++
		}
	}
	rows := eval[[]map[string]any](b, `[...document.querySelectorAll('section[aria-labelledby="h-t"] ol.hbars li')].map((li) => ({
		topic: li.querySelector(".hlabel a").getAttribute("href"), text: li.querySelector(".hval").textContent, few: li.classList.contains("few") }))`)
	re := regexp.MustCompile(`n=(\d+)`)
	marked := 0
	for i, r := range rows {
		text, topic := r["text"].(string), r["topic"].(string)
		id := topic[strings.LastIndex(topic, "/")+1:]
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("time to resolve, %s: %q shows no n", id, text)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n != measured[id] {
			t.Errorf("time to resolve, %s: n=%d, the seeds have %d measured cases", id, n, measured[id])
		}
		isFew := r["few"] == true && strings.Contains(text, "too few")
		if (n < 3) != isFew {
			t.Errorf("time to resolve, %s: %q, n=%d, marked as too few: %v", id, text, n, isFew)
		}
		if isFew {
			marked++
		} else if marked > 0 {
			t.Errorf("time to resolve, row %d (%s): a median of enough cases after a marked one", i, id)
		}
	}
	wantShown := min(15, reliable+few)
	wantMarked := min(few, wantShown-min(15, reliable))
	if len(rows) != wantShown || marked != wantMarked || marked == 0 {
		t.Errorf("time to resolve from %s: %d rows, %d marked; the seeds give %d rows, %d marked (need one to check the marking)", from, len(rows), marked, wantShown, wantMarked)
	}
	t.Logf("time to resolve from %s: %d rows, %d marked as resting on fewer than 3 cases", from, len(rows), marked)
}

// countSeeds counts the seed cases a Cases-screen URL selects (rc, c, f:
// one id each; from, to: dates), straight from the files.
func countSeeds(cases []*ilgraph.Case, q url.Values) int {
	n := 0
	for _, c := range cases {
		if rc := q.Get("rc"); rc != "" && c.RootCause != rc {
			continue
		}
		if x := q.Get("c"); x != "" && !slices.Contains(c.Components, x) {
			continue
		}
		if x := q.Get("f"); x != "" && !slices.Contains(c.Contributing, x) {
			continue
		}
		if x := q.Get("from"); x != "" && c.Date < x {
			continue
		}
		if x := q.Get("to"); x != "" && c.Date > x {
			continue
		}
		n++
	}
	return n
}
