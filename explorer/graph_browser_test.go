package explorer_test

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// graphFilter is the selection the Graph test works under: capacity
// incidents, drawn as components × contributing factors (the root cause is
// not one of the two kinds, so lifts vary).
const graphFilter = "a=component&b=contributing&rc=capacity"

// TestGraphInBrowser opens the Graph screen under a filter, with the page's
// own CSP enforced, and checks what it shows against the API and the seed
// files: every drawn edge's count and lift, as pointing at it shows them,
// are cooccurrence's for that filter, and so is the table of edges (whose
// rows open an edge's cases from the keyboard); a
// clicked edge lists exactly the seeds' cases with both terms under the
// filter, as many as its count, and links to the Cases screen with that
// selection; expanding a term by keyboard (the Node list) adds exactly the
// cases the API's cases query gives for the filter and the term, not the
// term's every case; case nodes carry their short title and id, in Korean
// too. No console error, no CSP violation.
func TestGraphInBrowser(t *testing.T) {
	chromiumPath(t)
	s := mustSite(t)
	b := newBrowser(t)
	cspViolations := b.enforceCSP(s.url + "/")
	seeds := corpus.Cases(t, corpus.Seeds(t))
	clean := func(where string) {
		t.Helper()
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %q", where, errs)
		}
		cspViolations(where)
	}

	type apiEdge struct {
		Source, Target string
		Count          int
		Lift           float64
	}
	var co struct {
		Cooccurrence struct{ Edges []apiEdge }
	}
	s.api(`{ cooccurrence(from: COMPONENT, to: CONTRIBUTING, filter: {rootCauses: ["capacity"]}) { edges { source target count lift } } }`, nil, &co)
	want := map[string]apiEdge{}
	for _, e := range co.Cooccurrence.Edges {
		want[e.Source+"|"+e.Target] = e
	}
	if len(want) < 5 {
		t.Fatalf("the API gives %d edges for %s: too few to test", len(want), graphFilter)
	}
	// seedsWith are the seed cases with root cause capacity and both terms.
	seedsWith := func(source, target string) []string {
		c, _ := strings.CutPrefix(source, "component:")
		f, _ := strings.CutPrefix(target, "contributing:")
		var ids []string
		for _, x := range seeds {
			if x.RootCause == "capacity" && slices.Contains(x.Components, c) && slices.Contains(x.Contributing, f) {
				ids = append(ids, x.ID)
			}
		}
		slices.Sort(ids)
		return ids
	}
	// liftIs says whether the page's lift ("3.63×"; "15×" from 10 on) is
	// x as rounded for display.
	liftIs := func(shown string, x float64) bool {
		v, err := strconv.ParseFloat(strings.TrimSuffix(shown, "×"), 64)
		unit := 0.01
		if x >= 10 {
			unit = 1
		}
		return err == nil && strings.HasSuffix(shown, "×") && math.Abs(v-x) <= unit/2+1e-9
	}

	t.Run("edges show the API's count and lift", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/graph?" + graphFilter); st != "ready" {
			t.Fatalf("state %s", st)
		}
		// Point at every drawn edge, as a mouse does, and read the tooltip.
		got := eval[[]map[string]string](b, `(() => {
			const cy = document.getElementById("cy").cy, tip = document.querySelector(".graph-tip");
			return cy.edges(".co").map((e) => {
				e.emit("mouseover");
				const out = { source: e.data("source"), target: e.data("target"), tip: tip.hidden ? "" : tip.textContent };
				e.emit("mouseout");
				return out;
			});
		})()`)
		if len(got) != len(want) {
			t.Errorf("%d edges drawn, the API has %d", len(got), len(want))
		}
		re := regexp.MustCompile(`: (\d+) cases? with both, lift ([\d.]+×)$`)
		for _, g := range got {
			w, ok := want[g["source"]+"|"+g["target"]]
			m := re.FindStringSubmatch(g["tip"])
			switch {
			case !ok:
				t.Errorf("edge %s — %s is drawn, the API has no such edge", g["source"], g["target"])
			case m == nil:
				t.Errorf("edge %s — %s: tooltip %q shows no count and lift", g["source"], g["target"], g["tip"])
			case m[1] != strconv.Itoa(w.Count) || !liftIs(m[2], w.Lift):
				t.Errorf("edge %s — %s: tooltip %q, the API has %d cases, lift %g", g["source"], g["target"], g["tip"], w.Count, w.Lift)
			}
		}
		// The table of edges, most cases first: the same numbers.
		b.do(chromedp.Click(chromedp.CSS(".edge-details summary")))
		b.poll(`document.querySelectorAll(".edge-table tbody tr").length > 0`)
		rows := eval[[]map[string]string](b, `[...document.querySelectorAll(".edge-table tbody tr")].map((tr) => ({
			key: tr.dataset.edge, count: tr.cells[2].textContent, lift: tr.cells[3].textContent,
			href: tr.cells[2].querySelector("a") ? tr.cells[2].querySelector("a").getAttribute("href") : "" }))`)
		if len(rows) != len(want) {
			t.Errorf("the table has %d edges, the API %d", len(rows), len(want))
		}
		last := 1 << 30
		for _, r := range rows {
			parts := strings.Split(r["key"], "|")
			if len(parts) < 2 {
				t.Errorf("table row %q: not an edge", r["key"])
				continue
			}
			w, ok := want[parts[0]+"|"+parts[1]]
			if !ok {
				w, ok = want[parts[1]+"|"+parts[0]]
			}
			n, _ := strconv.Atoi(r["count"])
			if !ok || n != w.Count || !liftIs(r["lift"], w.Lift) {
				t.Errorf("table row %s: %s cases, lift %s; the API: %d, %g", r["key"], r["count"], r["lift"], w.Count, w.Lift)
			}
			if n > last {
				t.Errorf("table row %s (%d cases) after one with %d: not most cases first", r["key"], n, last)
			}
			last = n
			u, err := url.Parse(r["href"])
			if err != nil || u.Path != "/" {
				t.Errorf("table row %s links to %q, not the Cases screen", r["key"], r["href"])
			} else if c := countSeeds(seeds, u.Query()); c != w.Count {
				t.Errorf("table row %s links to %s, which selects %d seed cases, not %d", r["key"], r["href"], c, w.Count)
			}
		}
		// A row's "Show cases" (the keyboard's click on an edge) opens its
		// cases in the side panel, as many as the row's count.
		if len(rows) > 0 {
			b.do(chromedp.Focus(chromedp.CSS(".edge-table tbody tr:first-child button")), chromedp.KeyEvent("\r"))
			b.poll(`document.querySelector(".edge-panel").dataset.edge === ` + strconv.Quote(rows[0]["key"]) + ` && document.querySelector(".edge-panel").dataset.state === "ready"`)
			if n := eval[string](b, `String(document.querySelectorAll(".edge-panel li[data-case]").length)`); n != rows[0]["count"] {
				t.Errorf("the first row's \"Show cases\" lists %s cases, the row says %s", n, rows[0]["count"])
			}
		}
		clean("edges")
	})

	t.Run("a clicked edge lists its cases", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/graph?" + graphFilter); st != "ready" {
			t.Fatalf("state %s", st)
		}
		// The heaviest edge, then one of a single case: clicked on the drawing.
		keys := eval[[]string](b, `(() => {
			const es = document.getElementById("cy").cy.edges(".co").sort((a, b) => b.data("count") - a.data("count"));
			return [es[0].id(), es[es.length - 1].id()];
		})()`)
		for _, key := range keys {
			eval[bool](b, `(() => { document.getElementById("cy").cy.getElementById(`+strconv.Quote(key)+`).emit("tap"); return true })()`)
			b.poll(`document.querySelector(".edge-panel").dataset.edge === ` + strconv.Quote(key) + ` && document.querySelector(".edge-panel").dataset.state === "ready"`)
			p := eval[struct {
				Count string
				Lift  string
				Cases []string
				Href  string
			}](b, `(() => { const p = document.querySelector(".edge-panel"); const a = p.querySelector("a.edge-open"); return {
				count: p.querySelector(".edge-count").textContent, lift: p.querySelector(".edge-lift").textContent,
				cases: [...p.querySelectorAll("li[data-case]")].map((li) => li.dataset.case), href: a ? a.getAttribute("href") : "" } })()`)
			parts := strings.Split(key, "|")
			w := want[parts[0]+"|"+parts[1]]
			if w.Count == 0 {
				w = want[parts[1]+"|"+parts[0]]
			}
			brute := seedsWith(w.Source, w.Target)
			got := slices.Sorted(slices.Values(p.Cases))
			if p.Count != strconv.Itoa(w.Count) || !liftIs(p.Lift, w.Lift) || len(p.Cases) != w.Count {
				t.Errorf("edge %s: the panel shows %s cases, lift %s, and lists %d; the API: %d, %g", key, p.Count, p.Lift, len(p.Cases), w.Count, w.Lift)
			}
			if !slices.Equal(got, brute) {
				t.Errorf("edge %s lists %q; the seeds with capacity and both terms: %q", key, got, brute)
			}
			u, err := url.Parse(p.Href)
			if err != nil || u.Path != "/" || u.Query().Get("rc") != "capacity" || countSeeds(seeds, u.Query()) != len(brute) {
				t.Errorf("edge %s: the Cases link %q does not select its %d cases", key, p.Href, len(brute))
			}
		}
		// The link opens the Cases screen with as many cases.
		b.do(chromedp.Click(chromedp.CSS(".edge-panel a.edge-open")))
		b.poll(`location.pathname === "/" && document.body.dataset.state === "ready" && !!document.getElementById("result-count")`)
		total := eval[string](b, `document.getElementById("result-count").textContent`)
		last := keys[len(keys)-1]
		parts := strings.Split(last, "|")
		n := len(seedsWith(parts[0], parts[1])) + len(seedsWith(parts[1], parts[0]))
		if m := regexp.MustCompile(`^[\d,]+`).FindString(total); m != strconv.Itoa(n) {
			t.Errorf("the Cases screen from edge %s says %q, the seeds have %d", last, total, n)
		}
		clean("edge panel")
	})

	t.Run("a real pointer: hover, then click", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/graph?" + graphFilter); st != "ready" {
			t.Fatalf("state %s", st)
		}
		// The middle of the heaviest edge, in the viewport. Whichever edge
		// the browser finds under the pointer there (another may cross it),
		// the tooltip must show that edge's numbers and a click its cases.
		pt := eval[map[string]float64](b, `(() => {
			const box = document.getElementById("cy"), cy = box.cy;
			box.scrollIntoView({ block: "center" });
			const e = cy.edges(".co").sort((a, b) => b.data("count") - a.data("count"))[0];
			const m = e.renderedMidpoint(), r = box.getBoundingClientRect();
			return { x: r.left + m.x, y: r.top + m.y };
		})()`)
		b.do(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt["x"]-3, pt["y"]-3), chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt["x"], pt["y"]))
		b.poll(`!document.querySelector(".graph-tip").hidden && document.getElementById("cy").cy.edges(".hover").length === 1`)
		h := eval[map[string]string](b, `(() => { const e = document.getElementById("cy").cy.edges(".hover")[0];
			return { key: e.id(), source: e.data("source"), target: e.data("target"), tip: document.querySelector(".graph-tip").textContent } })()`)
		w, ok := want[h["source"]+"|"+h["target"]]
		m := regexp.MustCompile(`: (\d+) cases? with both, lift ([\d.]+×)$`).FindStringSubmatch(h["tip"])
		if !ok || m == nil || m[1] != strconv.Itoa(w.Count) || !liftIs(m[2], w.Lift) {
			t.Errorf("pointing at edge %s — %s shows %q; the API has %d cases, lift %g", h["source"], h["target"], h["tip"], w.Count, w.Lift)
		}
		b.do(chromedp.MouseClickXY(pt["x"], pt["y"]))
		b.poll(`document.querySelector(".edge-panel").dataset.edge === ` + strconv.Quote(h["key"]) + ` && document.querySelector(".edge-panel").dataset.state === "ready"`)
		if n := eval[int](b, `document.querySelectorAll(".edge-panel li[data-case]").length`); n != w.Count {
			t.Errorf("clicking edge %s lists %d cases, the API counts %d", h["key"], n, w.Count)
		}
		if sel := eval[[]string](b, `document.getElementById("cy").cy.edges(":selected").map((e) => e.id())`); !slices.Equal(sel, []string{h["key"]}) {
			t.Errorf("after clicking edge %s the drawing has %q selected", h["key"], sel)
		}
		b.screenshot("graph-edge", ".node-actions")
		clean("pointer")
	})

	t.Run("expanding keeps the filter", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/graph?rc=capacity"); st != "ready" {
			t.Fatalf("state %s", st)
		}
		const term = "component:application-database"
		// By keyboard: the Node list and its button.
		eval[bool](b, `(() => { const f = document.getElementById("gnode"); f.value = "`+term+`"; f.dispatchEvent(new Event("change")); return true })()`)
		b.do(chromedp.Click(chromedp.CSS("#gexpand")))
		b.poll(`location.search.includes("x=") && document.body.dataset.state === "ready" && document.getElementById("cy").cy.nodes("[kind = 'case']").length > 0`)
		if loc := b.location(); !strings.Contains(loc, "rc=capacity") || !strings.Contains(loc, "x="+url.QueryEscape(term)) {
			t.Errorf("after expanding: URL %s", loc)
		}
		drawn := eval[[]string](b, `document.getElementById("cy").cy.nodes("[kind = 'case']").map((n) => n.data("tid")).sort()`)
		var api struct {
			Cases struct {
				TotalCount int
				Nodes      []struct{ ID string }
			}
		}
		s.api(`{ cases(filter: {rootCauses: ["capacity"], components: {anyOf: ["application-database"]}}, first: 100) { totalCount nodes { id } } }`, nil, &api)
		var fromAPI, brute, all []string
		for _, c := range api.Cases.Nodes {
			fromAPI = append(fromAPI, c.ID)
		}
		slices.Sort(fromAPI)
		for _, c := range seeds {
			if slices.Contains(c.Components, "application-database") {
				all = append(all, c.ID)
				if c.RootCause == "capacity" {
					brute = append(brute, c.ID)
				}
			}
		}
		slices.Sort(brute)
		if !slices.Equal(drawn, fromAPI) || !slices.Equal(drawn, brute) || api.Cases.TotalCount != len(brute) {
			t.Errorf("expanding %s under rc=capacity drew cases %q; the API (%d) %q; the seeds %q", term, drawn, api.Cases.TotalCount, fromAPI, brute)
		}
		if len(all) <= len(brute) {
			t.Errorf("the term's cases (%d) are no more than the filtered ones (%d): the test shows nothing", len(all), len(brute))
		}
		if st := eval[string](b, `document.querySelector(".graph-status").textContent`); !strings.Contains(st, fmt.Sprintf("%d cases under the filter", len(brute))) {
			t.Errorf("status %q does not say the %d cases the expansion added", st, len(brute))
		}
		checkCaseLabels(t, b, seeds, "en")
		clean("expanding")
	})

	t.Run("expanding a case keeps the filter", func(t *testing.T) {
		b.t, s.t = t, t
		// IL-0384's linked cases (related or recurring, either way), split
		// by a date: the drawing holds the case and the ones from that date.
		const start = "IL-0384"
		var src *ilgraph.Case
		for _, c := range seeds {
			if c.ID == start {
				src = c
			}
		}
		if src == nil {
			t.Fatalf("no %s in the seeds", start)
		}
		var linked []*ilgraph.Case
		for _, c := range seeds {
			if c.ID != start && (slices.Contains(src.Related, c.ID) || slices.Contains(c.Related, start) || c.RecurrenceOf == start || src.RecurrenceOf == c.ID) {
				linked = append(linked, c)
			}
		}
		dates := make([]string, len(linked))
		for i, c := range linked {
			dates[i] = c.Date
		}
		slices.Sort(dates)
		from := dates[len(dates)/2]
		want := []string{start}
		for _, c := range linked {
			if c.Date >= from {
				want = append(want, c.ID)
			}
		}
		slices.Sort(want)
		if len(want) == 1 || len(want) == len(linked)+1 {
			t.Fatalf("the date %s does not split %s's %d linked cases", from, start, len(linked))
		}
		if st, _ := b.open(s.url + "/graph?from=" + from + "&x=case:" + start); st != "ready" {
			t.Fatalf("state %s", st)
		}
		drawn := eval[[]string](b, `document.getElementById("cy").cy.nodes("[kind = 'case']").map((n) => n.data("tid")).sort()`)
		if !slices.Equal(drawn, want) {
			t.Errorf("expanding %s from %s drew cases %q; the seeds give %q (of %d linked)", start, from, drawn, want, len(linked))
		}
		clean("expanding a case")
	})

	t.Run("case nodes carry short titles in Korean", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/graph?rc=capacity&x=component:application-database,case:IL-0384&lang=ko"); st != "ready" {
			t.Fatalf("state %s", st)
		}
		checkCaseLabels(t, b, seeds, "ko")
		clean("Korean")
	})
}

// checkCaseLabels checks every drawn case node's label: its title in lang
// (English where the case has no Korean), cut short, then its id.
func checkCaseLabels(t *testing.T, b *browser, seeds []*ilgraph.Case, lang string) {
	t.Helper()
	byID := map[string]*ilgraph.Case{}
	for _, c := range seeds {
		byID[c.ID] = c
	}
	labels := eval[map[string]string](b, `Object.fromEntries(document.getElementById("cy").cy.nodes("[kind = 'case']").map((n) => [n.data("tid"), n.data("label")]))`)
	if len(labels) == 0 {
		t.Fatal("no case node drawn")
	}
	for id, l := range labels {
		c := byID[id]
		if c == nil {
			t.Errorf("case node %s is no seed case", id)
			continue
		}
		title := c.Title.En
		if lang == "ko" && c.Title.Ko != "" {
			title = c.Title.Ko
		}
		short, gotID, _ := strings.Cut(l, "\n")
		cut := strings.TrimSuffix(short, "…")
		if gotID != id || cut == "" || !strings.HasPrefix(title, cut) || utf8.RuneCountInString(short) > 30 || (cut == short) != (short == title) {
			t.Errorf("case node %s: label %q, want its %s title %q cut to 30 characters, then its id", id, l, lang, title)
		}
	}
}
