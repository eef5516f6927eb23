package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// poll waits until js is true.
func (b *browser) poll(js string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 25*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		b.t.Fatalf("waiting for %s: %v", js, err)
	}
}

// signIn signs in through the header with token and waits for the screen
// to render again.
func (b *browser) signIn(token string) {
	b.t.Helper()
	b.poll(`!!document.getElementById("sign-in") || !!document.getElementById("sign-out")`)
	if eval[bool](b, `!!document.getElementById("sign-out")`) {
		b.do(chromedp.Click(chromedp.CSS("#sign-out")))
		b.poll(`!!document.getElementById("sign-in")`)
	}
	b.do(chromedp.Click(chromedp.CSS("#sign-in")))
	b.poll(`!!document.getElementById("signin-token")`)
	b.do(chromedp.SendKeys(chromedp.CSS("#signin-token"), token), chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")))
	b.poll(`!!document.getElementById("account-who")`)
	if st := b.settle(); st != "ready" {
		b.t.Fatalf("after signing in: state %s %v", st, b.takeErrors())
	}
}

// matchRow is a JavaScript expression for the similar-cases row of match.
func matchRow(match string) string {
	return fmt.Sprintf(`[...document.querySelectorAll("#similar > li")].find((li) => li.querySelector(".similar-head .case-id").textContent === %q)`, match)
}

// writeControls lists the write controls the page shows (visible ones).
const writeControls = `[...document.querySelectorAll("#edit, .judge-form, .judge .hide, .judge .unhide, #show-hidden")]
	.filter((e) => e.checkVisibility()).map((e) => e.id || e.className)`

// TestWritesInBrowser signs in as a viewer, a reviewer and an editor and
// uses the case page's write controls: a viewer sees none; a reviewer
// judges a match and sees the note; an editor hides it and shows it again,
// sees an invalid edit refused with the problem next to its field (and
// nothing changed), and a valid edit saved, with its version and history.
// The page runs under its real Content Security Policy, with no violation.
func TestWritesInBrowser(t *testing.T) {
	s := mustSite(t)
	b := newBrowser(t)
	// Unlike the other browser tests this one injects nothing, so the
	// page's own CSP is enforced, and every violation counted.
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: false}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`})
		return err
	}))
	cspViolations := func(where string) {
		t.Helper()
		if v := eval[[]string](b, `window.__csp || ["no counter"]`); len(v) > 0 {
			t.Errorf("%s: CSP violations: %q", where, v)
		}
	}

	const id = "IL-0384"
	var sim struct {
		SimilarCases []struct {
			Case   struct{ ID string }
			Hidden bool
			Notes  []string
		}
	}
	similar := func(includeHidden bool) []string {
		s.api(`query($id: ID!, $h: Boolean) { similarCases(caseId: $id, includeHidden: $h) { case { id } hidden notes } }`, map[string]any{"id": id, "h": includeHidden}, &sim)
		var ids []string
		for _, m := range sim.SimilarCases {
			ids = append(ids, m.Case.ID)
		}
		return ids
	}
	before := similar(false)
	if len(before) < 2 {
		t.Fatalf("%s has %d similar cases, want at least 2", id, len(before))
	}
	match := before[0]
	caseURL := s.url + "/case/" + id

	// A viewer sees no write control.
	if st, _ := b.open(caseURL); st != "ready" {
		t.Fatalf("case: state %s %v", st, b.takeErrors())
	}
	if got := eval[[]string](b, writeControls); len(got) != 0 {
		t.Errorf("signed out, the case page shows write controls %q", got)
	}
	b.signIn("ilg-test-viewer")
	if got := eval[[]string](b, writeControls); len(got) != 0 {
		t.Errorf("a viewer sees write controls %q", got)
	}

	// A reviewer judges the first match not relevant, with a reason; the
	// note shows on the match, the hide button (an editor's) does not.
	b.signIn("ilg-test-reviewer")
	if got := eval[[]string](b, writeControls); !slices.Contains(got, "judge-form") || slices.ContainsFunc(got, func(x string) bool { return x == "edit" || strings.Contains(x, "hide") }) {
		t.Errorf("a reviewer sees %q, want the judging controls only", got)
	}
	row := matchRow(match)
	eval[bool](b, `(() => { const r = `+row+`; r.querySelector(".judge-form input").value = "a different failure"; r.querySelector('button[data-grade="NOT_RELEVANT"]').click(); return true })()`)
	b.poll(`(() => { const r = ` + row + `; return !!r && !!r.querySelector(".judge-notes") && r.querySelector(".judge-notes").textContent.includes("marked not relevant by rita") })()`)
	if note := eval[string](b, row+`.querySelector(".judge-notes").textContent`); !strings.Contains(note, "a different failure") {
		t.Errorf("the match's note says %q, want the reason", note)
	}
	similar(false)
	if n := sim.SimilarCases[0].Notes; len(n) != 1 || !strings.Contains(n[0], "marked not relevant by rita") {
		t.Errorf("the API's notes for %s: %q", match, n)
	}
	if eval[bool](b, row+`.querySelector(".judge .hide").checkVisibility()`) {
		t.Error("a reviewer sees the hide button")
	}
	b.screenshot("case-judge", "#h-similar")

	// An editor hides the match: it leaves the list (and the API's); with
	// "show hidden matches" (the URL's hidden=1) it is back, marked; then
	// shown again.
	b.signIn("ilg-test-editor")
	b.do(chromedp.Click(chromedp.CSS(`#similar .judge .hide`)))
	b.poll(`!(` + row + `) && document.body.dataset.state === "ready"`)
	if after := similar(false); slices.Contains(after, match) {
		t.Errorf("the API still lists the hidden match: %v", after)
	}
	b.do(chromedp.Click(chromedp.CSS(`#show-hidden`)))
	b.poll(`location.search.includes("hidden=1") && !!(` + row + `) && !!(` + row + `).querySelector(".hidden-note")`)
	b.screenshot("case-hidden", "#h-similar")
	eval[bool](b, `(() => { (`+row+`).querySelector(".judge .unhide").click(); return true })()`)
	b.poll(`!!(` + row + `) && !(` + row + `).querySelector(".hidden-note")`)
	if after := similar(false); !slices.Equal(after, before) {
		t.Errorf("after unhiding, the API lists %v, want %v", after, before)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("errors judging and hiding: %q", errs)
	}
	cspViolations("judging and hiding")

	// The edit form: an invalid duration is refused, the problem shows
	// next to its field, and nothing changes.
	var c struct {
		Case struct {
			Version int
			JSON    string
			Title   struct{ En string }
		}
	}
	read := func() {
		s.api(`query($id: ID!) { case(id: $id) { version json title { en } } }`, map[string]any{"id": id}, &c)
	}
	read()
	v0, json0, title0 := c.Case.Version, c.Case.JSON, c.Case.Title.En
	if st, _ := b.open(caseURL); st != "ready" {
		t.Fatalf("case: state %s", st)
	}
	b.do(chromedp.Click(chromedp.CSS("#edit > summary")))
	b.poll(`!!document.getElementById("edit-form")`)
	b.screenshot("case-edit", "#edit")
	eval[bool](b, `(() => { document.getElementById("edit-timeline-resolved-after").value = "soon"; document.getElementById("edit-save").click(); return true })()`)
	b.poll(`!!document.querySelector("#edit-form .problem[data-problem-field]")`)
	placed := eval[[]string](b, `[...document.querySelectorAll("#edit-form .problem[data-problem-field]")].map((p) => p.dataset.problemField + " @ " + p.parentElement.dataset.field)`)
	if !slices.Contains(placed, "timeline.resolved_after @ timeline.resolved_after") {
		t.Errorf("the problems are placed %q, want timeline.resolved_after next to its field", placed)
	}
	if !eval[bool](b, `document.getElementById("edit-timeline-resolved-after").getAttribute("aria-invalid") === "true"`) {
		t.Error("the invalid field is not marked aria-invalid")
	}
	b.screenshot("case-edit-problem", `[data-field="timeline.resolved_after"]`)
	read()
	if c.Case.Version != v0 || c.Case.JSON != json0 {
		t.Errorf("an invalid edit changed the case: version %d → %d", v0, c.Case.Version)
	}
	b.takeErrors() // an INVALID answer may be logged as a failed request

	// A valid edit: the title; saved as the next version, with its history
	// entry, and there after a reload.
	title := title0 + " (edited in the browser)"
	eval[bool](b, fmt.Sprintf(`(() => { document.getElementById("edit-timeline-resolved-after").value = %q; document.getElementById("edit-title-en").value = %q; document.getElementById("edit-save").click(); return true })()`,
		eval[string](b, `(JSON.parse(`+fmt.Sprintf("%q", json0)+`).timeline || {}).resolved_after || ""`), title))
	b.poll(`!!document.getElementById("edit-saved") && document.body.dataset.state === "ready"`)
	if saved := eval[string](b, `document.getElementById("edit-saved").textContent`); !strings.Contains(saved, fmt.Sprintf("version %d", v0+1)) || !strings.Contains(saved, "update by eve") {
		t.Errorf("after saving the page says %q, want version %d, update by eve", saved, v0+1)
	}
	read()
	if c.Case.Version != v0+1 || c.Case.Title.En != title {
		t.Errorf("after the edit the API has version %d, title %q", c.Case.Version, c.Case.Title.En)
	}
	// The form sends the case whole: nothing but the title changed.
	var was, now map[string]any
	if err := json.Unmarshal([]byte(json0), &was); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(c.Case.JSON), &now); err != nil {
		t.Fatal(err)
	}
	was["title"].(map[string]any)["en"] = title
	if !reflect.DeepEqual(was, now) {
		t.Errorf("the edit changed more than the title:\nwas %s\nnow %s", json0, c.Case.JSON)
	}
	b.screenshot("case-edit-saved")
	if st, _ := b.open(caseURL); st != "ready" {
		t.Fatalf("case after the edit: state %s", st)
	}
	if h1 := eval[string](b, `document.querySelector("h1").textContent`); !strings.Contains(h1, "(edited in the browser)") {
		t.Errorf("after a reload the heading is %q", h1)
	}
	b.do(chromedp.Click(chromedp.CSS("#edit > summary")))
	b.poll(`!!document.getElementById("history")`)
	if hist := eval[string](b, `document.getElementById("history").textContent`); !strings.Contains(hist, fmt.Sprintf("version %d: update by eve", v0+1)) {
		t.Errorf("the history says %q", hist)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("errors editing: %q", errs)
	}
	cspViolations("editing")
}
