package explorer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// paraCase is a seed case whose summary has paragraphs (blank lines) in
// both languages.
const paraCase = "IL-0282"

// navLabels are the top navigation's labels in Korean, by screen.
var navLabels = map[string]string{"cases": "사례", "graph": "그래프", "live": "진행 중인 장애", "dashboard": "대시보드", "review": "검토"}

// englishLabels are the explorer's fixed English labels: every English
// string its modules pair with a Korean one (L("…", "…"), tables of
// labels), and the labels of index.html. In
// Korean none of them may be shown as text outside an element marked
// lang="en".
func englishLabels(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("assets", "app")
	files, err := filepath.Glob(filepath.Join(dir, "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no modules in %s: %v", dir, err)
	}
	// An English string followed by a Korean one: L("…", "…"),
	// field("…", "…", …), ["…", "…"] and { en: "…", ko: "…" }.
	const str = "(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`$]*`)"
	re := regexp.MustCompile(str + "\\s*,\\s*(?:ko:\\s*)?[\"`][^\"`]*\\p{Hangul}")
	seen := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			s := m[1]
			if s[0] == '"' {
				if err := json.Unmarshal([]byte(s), &s); err != nil {
					t.Fatalf("%s: %s: %v", f, m[1], err)
				}
			} else {
				s = s[1 : len(s)-1]
			}
			// Only labels with a word in them: "×" or "" say nothing.
			if s = strings.TrimSpace(s); regexp.MustCompile(`[A-Za-z]{2,}`).MatchString(s) {
				seen[s] = true
			}
		}
	}
	html, err := os.ReadFile(filepath.Join("assets", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`data-nav[^>]*>([^<]+)</a>|class="skip"[^>]*>([^<]+)<`).FindAllStringSubmatch(string(html), -1) {
		for _, s := range m[1:] {
			if s != "" && s != "ilgraph" {
				seen[s] = true
			}
		}
	}
	for _, must := range []string{"Cases", "Graph", "Live incident", "Dashboard", "Review", "Skip to content", "Sign in", "Summary"} {
		if !seen[must] {
			t.Fatalf("the English labels found in the modules lack %q: the extraction is broken", must)
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	t.Logf("%d fixed English labels", len(out))
	return out
}

// untranslated lists, on the page shown, the English text the chrome
// shows in Korean: text nodes and labelling attributes (aria-label,
// title, placeholder) that are one of labels, or that hold an English word
// (three letters or more, not a name such as API or JSON) and no Korean.
// Data is left out: what the page marks with its language (lang="en" or
// "ko" below <html>: texts, terms, names from the API) or translate="no",
// and what is no language (code, time, case ids).
const untranslatedJS = `((labels) => {
	const known = new Set(labels);
	const names = new Set(["API", "JSON", "URL", "HTTP", "CSRF", "GraphQL", "ilgraph", "EN", "IL", "ILG", "SEV", "id", "p25", "p75"]);
	const skip = (el) => {
		if (!el || el.closest('[translate="no"], code, pre, time, .case-id, script, style, noscript, datalist, textarea, head')) return true;
		const marked = el.closest("[lang]");
		return marked && marked !== document.documentElement;
	};
	const bad = new Set();
	const check = (s, where) => {
		s = s.trim();
		if (!s) return;
		if (known.has(s)) { bad.add(where + ": " + s); return; }
		if (/\p{Script=Hangul}/u.test(s)) return;
		for (const w of s.match(/[A-Za-z][A-Za-z0-9]{2,}/g) || []) {
			if (!names.has(w) && !/\d/.test(w)) { bad.add(where + ": " + s); return; }
		}
	};
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n; (n = walk.nextNode()); ) if (!skip(n.parentElement)) check(n.nodeValue, n.parentElement.tagName.toLowerCase());
	for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder]")) {
		if (skip(el)) continue;
		for (const a of ["aria-label", "title", "placeholder"]) if (el.hasAttribute(a)) check(el.getAttribute(a), el.tagName.toLowerCase() + "@" + a);
	}
	return [...bad];
})`

// TestScreensInBrowser opens every screen in English and in Korean under
// the page's own Content Security Policy: Cases, Case, Topic, Graph, Live
// incident with a profile, Dashboard, Review (signed in as a reviewer) and
// a path that is no screen, and Cases with a search and filters, the Graph
// with an expansion and a connection, and the case page's "Why this
// score". Each must load without console errors,
// uncaught exceptions or CSP violations. In Korean the top navigation is
// Korean, <html lang> is "ko", and no fixed English label (nor any other
// English word) is shown outside elements marked English; on the case
// page the summary keeps its paragraphs, one <p> each, as many as the
// seed has. After a route change by keyboard the focus is on the new
// screen's heading, drawn without a focus ring.
func TestScreensInBrowser(t *testing.T) {
	s := mustSite(t)
	// A machine-tagged case, so that the Review screen lists one.
	ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "importer", Role: ilgraph.RoleEditor})
	if _, err := s.core.CreateCase(ctx, machineTagged(t, "IL-0384", "IL-9931")); err != nil {
		t.Fatal(err)
	}
	labels := englishLabels(t)
	labelsJSON, _ := json.Marshal(labels)

	var para *ilgraph.Case
	for _, c := range corpus.Cases(t, corpus.Seeds(t)) {
		if c.ID == paraCase {
			para = c
		}
	}
	if para == nil {
		t.Fatalf("no seed case %s", paraCase)
	}
	wantParas := map[string]int{"en": countParagraphs(para.Summary.En), "ko": countParagraphs(para.Summary.Ko)}
	if wantParas["en"] < 2 || wantParas["ko"] < 2 {
		t.Fatalf("%s's summary has %v paragraphs: the test needs a case with at least two in each language", paraCase, wantParas)
	}

	b := newBrowser(t)
	cspViolations := b.enforceCSP(s.url + "/")
	b.signIn("ilg-test-reviewer")

	screens := []struct {
		name, path, state string
	}{
		{"cases", "/", "ready"},
		// A search with filters: snippets, suggested filters, chips.
		{"cases searched", "/?q=database&rc=capacity&from=2015-01-01", "ready"},
		{"case", "/case/" + paraCase, "ready"},
		{"topic", "/topic/root_cause/capacity", "ready"},
		{"graph", "/graph", "ready"},
		// An expansion and the connection of two cases.
		{"graph connected", "/graph?x=root_cause:capacity&p1=IL-0384&p2=" + paraCase, "ready"},
		{"live", "/live?c=message-broker&s=high-latency&f=limit-unknown", "ready"},
		{"dashboard", "/dashboard", "ready"},
		{"review", "/review", "ready"},
		{"not found", "/no-such-screen", "notfound"},
	}
	for _, lang := range []string{"en", "ko"} {
		for _, sc := range screens {
			t.Run(lang+"/"+sc.name, func(t *testing.T) {
				b.t, s.t = t, t
				u := s.url + sc.path
				if lang == "ko" {
					u += map[bool]string{true: "&", false: "?"}[strings.Contains(u, "?")] + "lang=ko"
				}
				if st, _ := b.open(u); st != sc.state {
					t.Fatalf("%s: state %s, want %s %v", u, st, sc.state, b.takeErrors())
				}
				// The review controls are the reviewer's: the sign-in held.
				if sc.name == "review" && !eval[bool](b, `[...document.querySelectorAll(".review-form")].some((e) => e.checkVisibility())`) {
					t.Errorf("review: no review controls for a reviewer")
				}
				if got := eval[string](b, `document.documentElement.lang`); got != lang {
					t.Errorf("<html lang=%q>, want %q", got, lang)
				}
				if sc.name == "case" {
					// The first similar case's "Why this score", read when
					// opened.
					eval[bool](b, `(() => { const d = document.querySelector("details.why"); d.open = true; return true })()`)
					b.poll(`!!document.querySelector("details.why table")`)
				}
				if lang == "ko" {
					if title := eval[string](b, `document.title`); !regexp.MustCompile(`\p{Hangul}`).MatchString(title) {
						t.Errorf("the page's title is %q in Korean", title)
					}
					got := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll("header nav a[data-screen]")].map((a) => [a.dataset.screen, a.textContent.trim()]))`)
					for screen, want := range navLabels {
						if got[screen] != want {
							t.Errorf("nav %s: %q, want %q", screen, got[screen], want)
						}
					}
					if left := eval[[]string](b, untranslatedJS+"("+string(labelsJSON)+")"); len(left) > 0 {
						t.Errorf("English shown in Korean (%d): %q", len(left), left)
					}
				}
				if sc.name == "case" {
					n := eval[int](b, `(() => {
						const h = [...document.querySelectorAll("section.field > h2")].find((x) => x.textContent === "Summary" || x.textContent === "요약");
						return h ? h.parentElement.querySelectorAll("p").length : -1;
					})()`)
					if n != wantParas[lang] {
						t.Errorf("the summary shows %d <p>, the seed has %d paragraphs (%s)", n, wantParas[lang], lang)
					}
					meta := eval[string](b, `document.querySelector("article.case > p.meta").textContent`)
					if lang == "ko" && strings.Contains(meta, "unknown") {
						t.Errorf("the case's facts say %q in Korean", meta)
					}
					// Durations in words of the language: "38m" in English,
					// "38분" in Korean.
					tl := eval[string](b, `document.querySelector(".timeline").textContent`)
					if unit := regexp.MustCompile(`\d[mhd]\b`).FindString(tl); (lang == "ko") == (unit != "") {
						t.Errorf("the timeline says %q in %s", tl, lang)
					}
				}
				errs := b.takeErrors()
				if sc.state == "notfound" {
					// A path that is no screen answers HTTP 404, as it should:
					// the browser logs that, and nothing else may be.
					errs = slices.DeleteFunc(errs, func(e string) bool {
						return strings.Contains(e, "status of 404") && strings.HasSuffix(e, " "+u)
					})
				}
				if len(errs) > 0 {
					t.Errorf("console errors: %q", errs)
				}
				cspViolations(lang + " " + sc.name)
			})
		}
	}

	// The API down: the error screen, in Korean, retrying.
	t.Run("ko/api down", func(t *testing.T) {
		b.t, s.t = t, t
		s.down.Store(true)
		defer s.down.Store(false)
		if st, _ := b.open(s.url + "/?lang=ko"); st != "error" {
			t.Fatalf("with the API down: state %s", st)
		}
		if left := eval[[]string](b, untranslatedJS+"("+string(labelsJSON)+")"); len(left) > 0 {
			t.Errorf("English shown in Korean (%d): %q", len(left), left)
		}
		// The API's 503s are logged by the browser, as they should be.
		errs := slices.DeleteFunc(b.takeErrors(), func(e string) bool { return strings.Contains(e, "status of 503") })
		if len(errs) > 0 {
			t.Errorf("console errors: %q", errs)
		}
		cspViolations("ko api down")
	})

	t.Run("focus after navigation", func(t *testing.T) {
		b.t, s.t = t, t
		if st, _ := b.open(s.url + "/"); st != "ready" {
			t.Fatalf("cases: state %s", st)
		}
		// By keyboard, where the ring would show: Enter on a focused link,
		// in the header (which stays) and in the screen (which goes).
		for _, step := range []struct{ link, path, heading string }{
			{`header nav a[data-screen="dashboard"]`, "/dashboard", "Dashboard"},
			{`header nav a[data-screen="cases"]`, "/", "Cases"},
			{`.case-list a[href^="/case/"]`, "/case/", ""},
		} {
			eval[bool](b, `(() => { document.querySelector('`+step.link+`').focus(); return true })()`)
			b.do(chromedp.KeyEvent("\r"))
			b.poll(`location.pathname.startsWith("` + step.path + `") && (location.pathname === "/") === ("` + step.path + `" === "/") && document.body.dataset.state === "ready"`)
			got := eval[map[string]string](b, `(() => { const e = document.activeElement; const cs = getComputedStyle(e);
				return { tag: e.tagName, text: e.textContent, h1: document.querySelector("main h1").textContent, outline: cs.outlineStyle, width: cs.outlineWidth } })()`)
			if got["tag"] != "H1" || got["text"] != got["h1"] || (step.heading != "" && got["text"] != step.heading) {
				t.Errorf("after %s the focus is on %s %q, want the screen's h1 %q", step.link, got["tag"], got["text"], got["h1"])
			}
			if got["outline"] != "none" && got["width"] != "0px" {
				t.Errorf("after %s the focused heading is framed: outline %s %s", step.link, got["outline"], got["width"])
			}
		}
		if errs := b.takeErrors(); len(errs) > 0 {
			t.Errorf("console errors: %q", errs)
		}
		cspViolations("focus after navigation")
	})
}

// countParagraphs counts a text's paragraphs as the case format writes
// them: parts separated by blank lines, empty ones not counted.
func countParagraphs(s string) int {
	n := 0
	for _, p := range regexp.MustCompile(`\n[ \t]*\n`).Split(s, -1) {
		if strings.TrimSpace(p) != "" {
			n++
		}
	}
	return n
}
