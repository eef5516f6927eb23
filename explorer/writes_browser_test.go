package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
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

// enforceCSP turns the page's Content Security Policy back on (the other
// browser tests bypass it to inject axe-core) and counts its violations:
// the browser's security log entries on every page, and the page's
// securitypolicyviolation events. It checks first that the count works (an
// inline style element, which the policy refuses, is counted), on the page
// at url. The function it returns fails the test if there were any since.
func (b *browser) enforceCSP(url string) func(where string) {
	b.t.Helper()
	var mu sync.Mutex
	var logged []string
	if err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && (e.Entry.Source == cdplog.EntrySourceSecurity || strings.Contains(e.Entry.Text, "Content Security Policy")) {
			mu.Lock()
			logged = append(logged, e.Entry.Text)
			mu.Unlock()
		}
	}); err != nil {
		b.t.Fatal(err)
	}
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: false}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`})
		return err
	}))
	take := func() []string {
		// Not under the lock: the listener may be waiting for it on the
		// goroutine that would deliver eval's answer.
		seen := eval[[]string](b, `(() => { const v = window.__csp || ["no counter"]; window.__csp = []; return v })()`)
		mu.Lock()
		defer mu.Unlock()
		out := append(logged, seen...)
		logged = nil
		return out
	}
	if st, _ := b.open(url); st != "ready" {
		b.t.Fatalf("%s: state %s", url, st)
	}
	eval[bool](b, `(() => { const s = document.createElement("style"); s.textContent = "p { color: red }"; document.head.append(s); return true })()`)
	b.poll(`window.__csp.length > 0`)
	time.Sleep(200 * time.Millisecond) // the log entry
	if v := take(); len(v) < 2 {
		b.t.Fatalf("the CSP violation counter saw %q for an inline style, want the log entry and the event", v)
	}
	eval[bool](b, `(() => { document.querySelector("head style").remove(); return true })()`)
	b.takeErrors()
	return func(where string) {
		b.t.Helper()
		if v := take(); len(v) > 0 {
			b.t.Errorf("%s: CSP violations: %q", where, v)
		}
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
	cspViolations := b.enforceCSP(s.url + "/")

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

	// A valid edit: the title, and a component added by its label through
	// the typeahead; saved as the next version, with its history entry, and
	// there after a reload.
	var voc struct {
		Vocabulary []struct{ Kind, ID, En string }
	}
	s.api(`{ vocabulary { kind id en } }`, nil, &voc)
	var was0 map[string]any
	if err := json.Unmarshal([]byte(json0), &was0); err != nil {
		t.Fatal(err)
	}
	var addID, addLabel string
	for _, x := range voc.Vocabulary {
		if x.Kind == "COMPONENT" && !slices.Contains(was0["components"].([]any), any(x.ID)) {
			addID, addLabel = x.ID, x.En
			break
		}
	}
	eval[bool](b, fmt.Sprintf(`(() => { const i = document.getElementById("edit-components"); i.value = %q; i.closest(".edit-add").querySelector("button").click(); return true })()`, addLabel))
	if chips := eval[string](b, `document.querySelector('[data-field="components"] .edit-tags').textContent`); !strings.Contains(chips, addID) {
		t.Errorf("after adding %q the components are %q", addLabel, chips)
	}
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
	was["components"] = append(was["components"].([]any), addID)
	if !reflect.DeepEqual(was, now) {
		t.Errorf("the edit changed more than the title and the component added:\nwas %s\nnow %s", json0, c.Case.JSON)
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

	// Someone else saves meanwhile: the page's save is a CONFLICT, says
	// so, saves nothing, and its reload shows the case as it is now.
	read()
	v1, json1 := c.Case.Version, c.Case.JSON
	ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "other", Role: ilgraph.RoleEditor})
	var other map[string]any
	if err := json.Unmarshal([]byte(json1), &other); err != nil {
		t.Fatal(err)
	}
	other["title"].(map[string]any)["en"] = title0
	data, _ := json.Marshal(other)
	if _, err := s.core.UpdateCase(ctx, id, int64(v1), data); err != nil {
		t.Fatal(err)
	}
	eval[bool](b, `(() => { document.getElementById("edit-title-en").value = "a title nobody will see"; document.getElementById("edit-save").click(); return true })()`)
	b.poll(`!!document.getElementById("edit-conflict")`)
	read()
	if c.Case.Version != v1+1 || c.Case.Title.En != title0 {
		t.Errorf("after the conflict the API has version %d, title %q; want %d, %q", c.Case.Version, c.Case.Title.En, v1+1, title0)
	}
	b.screenshot("case-edit-conflict", "#edit-status")
	b.takeErrors() // a CONFLICT answer may be logged as a failed request
	eval[bool](b, `(() => { document.querySelector("#edit-conflict button").click(); return true })()`)
	b.poll(`document.body.dataset.state === "ready" && !document.getElementById("edit-conflict") && !document.querySelector("h1").textContent.includes("(edited in the browser)")`)
	if v := eval[string](b, `document.querySelector("#edit > summary").textContent`); !strings.Contains(v, fmt.Sprintf("version %d", v1+1)) {
		t.Errorf("after the reload the form says %q, want version %d", v, v1+1)
	}
	cspViolations("editing")
}

// machineTagged is the seed case seed as id, machine-tagged: written by
// import, not reviewed, every tag with a confidence (as
// cmd/ilgraph/auth_matrix_writes_test.go makes them).
func machineTagged(t *testing.T, seed, id string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "seeds", "cases", seed+".json"))
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]any{}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	c["id"] = id
	c["related"] = []any{}
	delete(c, "recurrence_of")
	c["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
	tc := map[string]any{"root_cause": map[string]float64{c["root_cause"].(string): 0.5}}
	for _, f := range []string{"components", "symptoms", "contributing", "domain"} {
		conf := map[string]float64{}
		list, _ := c[f].([]any)
		for _, x := range list {
			conf[x.(string)] = 0.5
		}
		if len(conf) > 0 {
			tc[f] = conf
		}
	}
	c["tag_confidence"] = tc
	b, _ := json.Marshal(c)
	return b
}

// TestReviewInBrowser reviews a machine-tagged case on the Review screen:
// the queue as the API lists it, no controls for a viewer, a refused
// decision's problem shown next to it (nothing changed), and a review
// that takes the case out of the queue.
func TestReviewInBrowser(t *testing.T) {
	s := mustSite(t)
	ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "importer", Role: ilgraph.RoleEditor})
	for seed, id := range map[string]string{"IL-0384": "IL-9901", "IL-0282": "IL-9902"} {
		if _, err := s.core.CreateCase(ctx, machineTagged(t, seed, id)); err != nil {
			t.Fatal(err)
		}
	}
	var q struct {
		ReviewQueue struct {
			TotalCount int
			Nodes      []struct {
				Case      struct{ ID string }
				Suggested []struct {
					Kind string
					Term struct{ ID string }
				}
			}
		}
	}
	queue := func() []string {
		s.api(`{ reviewQueue(first: 10) { totalCount nodes { case { id } suggested { kind term { id } } } } }`, nil, &q)
		var ids []string
		for _, n := range q.ReviewQueue.Nodes {
			ids = append(ids, n.Case.ID)
		}
		return ids
	}
	want := queue()
	if len(want) != 2 {
		t.Fatalf("the queue holds %v, want the two cases made", want)
	}
	b := newBrowser(t)
	cspViolations := b.enforceCSP(s.url + "/")
	shownQueue := `[...document.querySelectorAll("#review-queue > li")].map((li) => li.dataset.case)`

	// Signed out (or a viewer): the queue, no controls, no nav link.
	if st, _ := b.open(s.url + "/review"); st != "ready" {
		t.Fatalf("review: state %s %v", st, b.takeErrors())
	}
	if got := eval[[]string](b, shownQueue); !slices.Equal(got, want) {
		t.Errorf("the Review screen lists %v, want the API's %v", got, want)
	}
	b.signIn("ilg-test-viewer")
	if n := eval[int](b, `[...document.querySelectorAll(".review-form, header nav [data-needs-role]")].filter((e) => e.checkVisibility()).length`); n != 0 {
		t.Errorf("a viewer sees %d review controls", n)
	}

	// A reviewer replaces a component with a term that is not one: the
	// problem shows at that decision, and the case is as it was.
	b.signIn("ilg-test-reviewer")
	if !eval[bool](b, `document.querySelector('header nav a[data-screen="review"]').checkVisibility() && document.querySelector(".review-form").checkVisibility()`) {
		t.Fatal("a reviewer does not see the Review link and form")
	}
	id := want[0]
	var c struct {
		Case struct {
			Version       int
			MachineTagged bool
			Mechanisms    []struct{ ID string }
		}
	}
	read := func() {
		s.api(`query($id: ID!) { case(id: $id) { version machineTagged mechanisms { id } } }`, map[string]any{"id": id}, &c)
	}
	read()
	v0 := c.Case.Version
	item := fmt.Sprintf(`document.querySelector('#review-queue > li[data-case=%q]')`, id)
	row := 1 // the first component (row 0 is the root cause)
	if q.ReviewQueue.Nodes[0].Suggested[row].Kind != "COMPONENT" {
		t.Fatalf("the second suggestion of %s is a %s", id, q.ReviewQueue.Nodes[0].Suggested[row].Kind)
	}
	eval[bool](b, fmt.Sprintf(`(() => { const li = %s; const tr = li.querySelector('tr[data-decision="%d"]');
		tr.querySelector('input[value="REPLACE"]').click(); tr.querySelector('input[type="text"]').value = "no-such-term";
		li.querySelector(".mark-reviewed").click(); return true })()`, item, row))
	b.poll(`!!` + item + `.querySelector('tr[data-decision="1"] .problem')`)
	if f := eval[string](b, item+`.querySelector('tr[data-decision="1"] .problem').dataset.problemField`); f != "decisions[1].with" {
		t.Errorf("the problem next to the decision names %q, want decisions[1].with", f)
	}
	b.screenshot("review-problem", "#review-queue")
	read()
	if c.Case.Version != v0 || !c.Case.MachineTagged {
		t.Errorf("a refused review changed %s: version %d → %d, machineTagged %v", id, v0, c.Case.Version, c.Case.MachineTagged)
	}
	b.takeErrors() // an INVALID answer may be logged as a failed request

	// Accept it after all, and add a mechanism by its label through the
	// typeahead: the case is reviewed and leaves the queue.
	var voc struct {
		Vocabulary []struct{ Kind, ID, En string }
	}
	s.api(`{ vocabulary { kind id en } }`, nil, &voc)
	var mechID, mechLabel string
	for _, x := range voc.Vocabulary {
		if x.Kind == "MECHANISM" && !slices.ContainsFunc(c.Case.Mechanisms, func(m struct{ ID string }) bool { return m.ID == x.ID }) {
			mechID, mechLabel = x.ID, x.En
			break
		}
	}
	if !eval[bool](b, fmt.Sprintf(`(() => { const li = %s; li.querySelector('tr[data-decision="%d"] input[value="ACCEPT"]').click();
		const k = li.querySelector(".review-add select"); k.value = "MECHANISM"; k.dispatchEvent(new Event("change"));
		li.querySelector(".review-add input").value = %q; li.querySelector(".review-add button").click();
		if (!li.querySelector('.review-add li[data-add="0"]').textContent.includes(%q)) return false;
		li.querySelector(".mark-reviewed").click(); return true })()`, item, row, mechLabel, mechID)) {
		t.Fatalf("adding the mechanism %q by its label did not list %s", mechLabel, mechID)
	}
	b.poll(`!!document.getElementById("review-saved") && document.body.dataset.state === "ready"`)
	if got := eval[[]string](b, shownQueue); slices.Contains(got, id) || len(got) != 1 {
		t.Errorf("after the review the screen lists %v", got)
	}
	if saved := eval[string](b, `document.getElementById("review-saved").textContent`); !strings.Contains(saved, id+" reviewed") || !strings.Contains(saved, "rita") {
		t.Errorf("after the review the page says %q", saved)
	}
	b.screenshot("review")
	read()
	if c.Case.Version != v0+1 || c.Case.MachineTagged {
		t.Errorf("after the review %s has version %d, machineTagged %v", id, c.Case.Version, c.Case.MachineTagged)
	}
	if !slices.ContainsFunc(c.Case.Mechanisms, func(m struct{ ID string }) bool { return m.ID == mechID }) {
		t.Errorf("after the review %s has mechanisms %v, want %s added", id, c.Case.Mechanisms, mechID)
	}
	if got := queue(); slices.Contains(got, id) {
		t.Errorf("the API's queue still holds %s: %v", id, got)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("errors reviewing: %q", errs)
	}
	cspViolations("reviewing")

	// axe-core, injected (so in a browser that bypasses the CSP), finds
	// nothing serious on the write controls: the Review screen and the
	// case page with its edit form open, signed in as an editor.
	a := newBrowser(t)
	if st, _ := a.open(s.url + "/review"); st != "ready" {
		t.Fatalf("review: state %s", st)
	}
	a.signIn("ilg-test-editor")
	if v := a.axe(); len(v) > 0 {
		t.Errorf("axe on the Review screen: %q", v)
	}
	if st, _ := a.open(s.url + "/case/IL-0384"); st != "ready" {
		t.Fatalf("case: state %s", st)
	}
	a.do(chromedp.Click(chromedp.CSS("#edit > summary")))
	a.poll(`!!document.getElementById("edit-form")`)
	if v := a.axe(); len(v) > 0 {
		t.Errorf("axe on the case page with its write controls: %q", v)
	}
	// And in Korean, no program value shows as text on either.
	for _, u := range []string{"/review?lang=ko", "/case/IL-0384?lang=ko"} {
		if st, _ := a.open(s.url + u); st != "ready" {
			t.Fatalf("%s: state %s", u, st)
		}
		if u != "/review?lang=ko" {
			a.do(chromedp.Click(chromedp.CSS("#edit > summary")))
			a.poll(`!!document.getElementById("edit-form")`)
		}
		if junk := eval[[]string](a, junkText); len(junk) > 0 {
			t.Errorf("%s: text nodes that are program values: %q", u, junk)
		}
	}
	if errs := a.takeErrors(); len(errs) > 0 {
		t.Errorf("errors: %q", errs)
	}
}
