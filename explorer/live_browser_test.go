package explorer_test

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// liveDesc is what an on-call engineer might type; the markup in it must
// stay text.
const liveDesc = "The kafka broker's disk filled up and consumers fell behind: a processing backlog, " +
	"high latency, a high error rate and timeouts on the API after a configuration change. <img src=x onerror=alert(1)>"

// liveKinds are the Live screen's kinds, as its URL and the chips' data-term
// name them: the URL parameter, the kind (as suggestedFilters writes it) and
// the ProfileInput field.
var liveKinds = []struct{ param, kind, field string }{
	{"c", "component", "components"},
	{"s", "symptom", "symptoms"},
	{"f", "contributing", "contributing"},
	{"m", "mechanism", "mechanisms"},
	{"d", "domain", "domains"},
}

// liveChip is a chip at the top of the Live screen's form.
type liveChip struct {
	Term   string // kind:id
	Origin string // desc or chosen
	Marker string // the marker's text
	Label  string // the remove button's accessible name
	Lang   string // the marker's language (the page's)
}

func liveChips(b *browser) []liveChip {
	return eval[[]liveChip](b, `[...document.querySelectorAll(".live-profile li.live-chip")].map((li) => ({
		Term: li.dataset.term, Origin: li.dataset.origin, Marker: li.querySelector(".chip-origin").textContent,
		Label: li.querySelector("button.chip-x").getAttribute("aria-label") || "", Lang: li.querySelector(".chip-origin").closest("[lang]").lang }))`)
}

// chipTerms returns the terms of the chips of origin ("" for all), sorted.
func chipTerms(chips []liveChip, origin string) []string {
	var out []string
	for _, c := range chips {
		if origin == "" || c.Origin == origin {
			out = append(out, c.Term)
		}
	}
	slices.Sort(out)
	return out
}

// checkLiveCounts checks that each kind's legend counts the kind's terms in
// the profile: its ticked boxes and its chips.
func checkLiveCounts(t *testing.T, b *browser, where string) {
	t.Helper()
	rows := eval[[]map[string]any](b, `[...document.querySelectorAll("fieldset.pick")].map((fs) => ({
		kind: fs.dataset.kind, legend: fs.querySelector("legend .pick-count").textContent,
		ticked: fs.querySelectorAll("input[type=checkbox]:checked").length,
		chips: document.querySelectorAll('.live-profile li.live-chip[data-term^="' + fs.dataset.kind + ':"]').length }))`)
	if len(rows) != len(liveKinds) {
		t.Errorf("%s: %d pickers, want %d (%v)", where, len(rows), len(liveKinds), rows)
	}
	for _, r := range rows {
		ticked, chips := int(r["ticked"].(float64)), int(r["chips"].(float64))
		if want := "(" + strconv.Itoa(chips) + ")"; r["legend"] != want || ticked != chips {
			t.Errorf("%s: %s legend %q, %d boxes ticked, %d chips", where, r["kind"], r["legend"], ticked, chips)
		}
	}
}

// liveProfile reads the profile a Live URL holds, as ProfileInput, and
// the terms ("kind:id", sorted) the sug parameter marks.
func liveProfile(t *testing.T, u string) (map[string]any, []string, url.Values) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil || pu.Path != "/live" {
		t.Fatalf("%q is not the Live screen's URL", u)
	}
	q := pu.Query()
	profile := map[string]any{}
	param := map[string]string{}
	for _, k := range liveKinds {
		param[k.param] = k.kind
		if v := q.Get(k.param); v != "" {
			profile[k.field] = strings.Split(v, ",")
		}
	}
	var sug []string
	for _, e := range strings.Split(q.Get("sug"), ",") {
		if p, id, ok := strings.Cut(e, ":"); ok {
			sug = append(sug, param[p]+":"+id)
		}
	}
	slices.Sort(sug)
	return profile, sug, q
}

// urlTerms lists the URL's terms as "kind:id", sorted.
func urlTerms(q url.Values) []string {
	var out []string
	for _, k := range liveKinds {
		for _, id := range strings.Split(q.Get(k.param), ",") {
			if id != "" {
				out = append(out, k.kind+":"+id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// apiMatches asks similarToProfile directly for the matches of the profile
// and the description's words (the page asks for ten).
func apiMatches(s *site, profile map[string]any, text string) []string {
	var got struct {
		SimilarToProfile struct {
			Matches []struct{ Case struct{ ID string } }
		}
	}
	s.api(`query($p: ProfileInput!, $t: String) { similarToProfile(profile: $p, k: 10, text: $t) { matches { case { id } } } }`, map[string]any{"p": profile, "t": text}, &got)
	var ids []string
	for _, m := range got.SimilarToProfile.Matches {
		ids = append(ids, m.Case.ID)
	}
	return ids
}

const pageMatches = `[...document.querySelectorAll("#matches > li .similar-head .case-id")].map((e) => e.textContent)`

// TestLiveInBrowser is an on-call engineer on the Live incident screen,
// under the page's own CSP: a description, its suggestions as chips marked
// "from your description" (the terms suggest gives above the cut-offs), a
// component and a mechanism chosen by hand, a search whose URL holds the
// description and the terms and whose matches are similarToProfile's; a
// chip removed; the link opened afresh in another browser, in both
// languages; a link with a description too long is cleaned with a notice.
func TestLiveInBrowser(t *testing.T) {
	chromiumPath(t)
	s := mustSite(t)
	b := newBrowser(t)
	csp := b.enforceCSP(s.url + "/live")

	// What the page must mark as from the description: suggest's terms
	// shown as sure, of the kinds the screen picks (a root cause is what it
	// answers, not part of the profile); and what it must offer, not add:
	// the less sure ones above the cut-offs.
	var want, wantLess []string
	sure, less := s.suggested(liveDesc)
	for _, x := range sure {
		if !strings.HasPrefix(x, "root_cause:") {
			want = append(want, x)
		}
	}
	for _, x := range less {
		if !strings.HasPrefix(x, "root_cause:") {
			wantLess = append(wantLess, x)
		}
	}
	slices.Sort(want)
	slices.Sort(wantLess)
	if len(want) < 2 || len(wantLess) < 1 {
		t.Fatalf("suggest gives %v sure and %v less sure for the description: too few to test with", want, wantLess)
	}
	t.Logf("suggested from the description: %v; less sure: %v", want, wantLess)

	b.do(chromedp.SendKeys(chromedp.CSS("#describe"), liveDesc), chromedp.Click(chromedp.CSS("#suggest")))
	b.poll(`document.querySelectorAll(".live-profile li.live-chip").length > 0 || /No terms/.test(document.getElementById("suggest-status").textContent)`)
	chips := liveChips(b)
	if got := chipTerms(chips, "desc"); !slices.Equal(got, want) {
		t.Errorf("chips from the description %v, suggest gives %v", got, want)
	}
	if got := chipTerms(chips, "chosen"); len(got) > 0 {
		t.Errorf("chips marked chosen before anything was chosen: %v", got)
	}
	for _, c := range chips {
		if c.Marker != "from your description" || !strings.HasPrefix(c.Label, "Remove ") || !strings.HasSuffix(c.Label, "(from your description)") || c.Lang != "en" {
			t.Errorf("chip %s: marker %q (lang %s), button %q", c.Term, c.Marker, c.Lang, c.Label)
		}
	}
	offered := eval[[]string](b, `[...document.querySelectorAll(".live-maybe li button")].map((e) => e.dataset.term)`)
	slices.Sort(offered)
	if !slices.Equal(offered, wantLess) {
		t.Errorf("less sure terms offered %v, suggest gives %v", offered, wantLess)
	}
	// Each offered term's tooltip says what its confidence means: the share
	// of such suggestions that were right when tested.
	titles := eval[[]string](b, `[...document.querySelectorAll(".live-maybe li button")].map((e) => e.title)`)
	if len(titles) != len(offered) || len(titles) == 0 {
		t.Errorf("%d tooltips for %d offered terms", len(titles), len(offered))
	}
	tipRE := regexp.MustCompile(`^confidence (\d\.\d\d): suggestions like this were right about (\d+)% of the time when tested$`)
	for _, tip := range titles {
		m := tipRE.FindStringSubmatch(tip)
		if m == nil {
			t.Errorf("offered term's tooltip %q does not say what its confidence means", tip)
			continue
		}
		c, _ := strconv.ParseFloat(m[1], 64)
		// (The two round the same number apart: 0.845 may show as 0.84 and 85%.)
		if pct, _ := strconv.Atoi(m[2]); math.Abs(float64(pct)-c*100) > 1+1e-9 {
			t.Errorf("tooltip %q: %d%% for confidence %.2f", tip, pct, c)
		}
	}
	checkLiveCounts(t, b, "after suggesting")
	// Adding an offered term makes it a chip from the description, and
	// takes it off the offers.
	b.do(chromedp.Click(chromedp.CSS(`.live-maybe li button[data-term="` + offered[0] + `"]`)))
	chips = liveChips(b)
	if got, w := chipTerms(chips, "desc"), append(slices.Clone(want), offered[0]); len(got) != len(w) || !slices.Contains(got, offered[0]) {
		t.Errorf("after adding %s: chips from the description %v, want %v", offered[0], got, w)
	}
	if n := eval[int](b, `document.querySelectorAll(".live-maybe li").length`); n != len(offered)-1 {
		t.Errorf("after adding one: %d offers left, want %d", n, len(offered)-1)
	}
	checkLiveCounts(t, b, "after adding an offered term")
	// Back to the sure ones, so that the rest of the test sees them alone.
	b.do(chromedp.Click(chromedp.CSS(`.live-profile li.live-chip[data-term="` + offered[0] + `"] button.chip-x`)))
	if loc := b.location(); loc != "/live" {
		t.Errorf("suggesting changed the URL to %s: the form is a draft until it is asked", loc)
	}

	// Choose a component and a mechanism by hand: the first of each list
	// not in the profile yet.
	var chosen []string
	for _, k := range []string{"component", "mechanism"} {
		id := eval[string](b, `(() => { const box = document.querySelector('fieldset[data-kind="`+k+`"] input[type=checkbox]:not(:checked)');
			box.setAttribute("data-test-pick", ""); return box.value })()`)
		b.do(chromedp.Click(chromedp.CSS("[data-test-pick]")))
		eval[bool](b, `(() => { document.querySelector("[data-test-pick]").removeAttribute("data-test-pick"); return true })()`)
		chosen = append(chosen, k+":"+id)
	}
	slices.Sort(chosen)
	chips = liveChips(b)
	if got := chipTerms(chips, "chosen"); !slices.Equal(got, chosen) {
		t.Errorf("chips marked chosen %v, ticked %v", got, chosen)
	}
	for _, c := range chips {
		if c.Origin == "chosen" && (c.Marker != "chosen" || !strings.HasSuffix(c.Label, "(chosen)")) {
			t.Errorf("chosen chip %s: marker %q, button %q", c.Term, c.Marker, c.Label)
		}
	}
	checkLiveCounts(t, b, "after choosing")
	before := chipTerms(chips, "")

	// A domain ticked and removed by its chip before asking: the draft
	// loses it, its box is unticked, the URL stays, the focus goes to the
	// next chip's button.
	dom := eval[string](b, `(() => { const box = document.querySelector('fieldset[data-kind="domain"] input[type=checkbox]:not(:checked)');
		box.setAttribute("data-test-pick", ""); return box.value })()`)
	b.do(chromedp.Click(chromedp.CSS("[data-test-pick]")))
	eval[bool](b, `(() => { document.querySelector("[data-test-pick]").removeAttribute("data-test-pick"); return true })()`)
	if got := chipTerms(liveChips(b), ""); !slices.Contains(got, "domain:"+dom) || len(got) != len(before)+1 {
		t.Errorf("after ticking domain %s the chips are %v", dom, got)
	}
	b.do(chromedp.Click(chromedp.CSS(`.live-profile li.live-chip[data-term="domain:` + dom + `"] button.chip-x`)))
	if got := chipTerms(liveChips(b), ""); !slices.Equal(got, before) {
		t.Errorf("after removing domain %s by its chip the chips are %v, want %v", dom, got, before)
	}
	if eval[bool](b, `document.querySelector('fieldset[data-kind="domain"] input[value=`+strconv.Quote(dom)+`]').checked`) {
		t.Errorf("domain %s removed by its chip is still ticked", dom)
	}
	if f := eval[string](b, `document.activeElement.className + " " + (document.activeElement.getAttribute("aria-label") || "")`); !strings.HasPrefix(f, "chip-x ") {
		t.Errorf("after removing a chip the focus is on %q, want the next chip's button", f)
	}
	if loc := b.location(); loc != "/live" {
		t.Errorf("removing a chip before asking changed the URL to %s", loc)
	}
	checkLiveCounts(t, b, "after removing a draft chip")

	// Ask: the URL holds the description and the terms, the box keeps
	// the text, the matches are the API's.
	b.do(chromedp.Click(chromedp.CSS("#live-submit")))
	b.poll(`location.search.includes("desc=") && document.body.dataset.state === "ready"`)
	u := b.location()
	profile, sug, q := liveProfile(t, u)
	if q.Get("desc") != strings.TrimSpace(liveDesc) {
		t.Errorf("the URL's desc is %q, want the description", q.Get("desc"))
	}
	if got := urlTerms(q); !slices.Equal(got, before) {
		t.Errorf("the URL holds %v, the chips were %v", got, before)
	}
	if !slices.Equal(sug, want) {
		t.Errorf("the URL marks %v as from the description, want %v", sug, want)
	}
	if v := eval[string](b, `document.getElementById("describe").value`); v != strings.TrimSpace(liveDesc) {
		t.Errorf("after asking the description box holds %q", v)
	}
	if got := liveChips(b); !slices.Equal(chipTerms(got, "desc"), want) || !slices.Equal(chipTerms(got, "chosen"), chosen) {
		t.Errorf("after asking the chips are %v", got)
	}
	checkLiveCounts(t, b, "after asking")
	matches := eval[[]string](b, pageMatches)
	if api := apiMatches(s, profile, q.Get("desc")); len(api) == 0 || !slices.Equal(matches, api) {
		t.Errorf("the page lists %v, similarToProfile(%v, text) %v", matches, profile, api)
	}
	// The description's words count: the score bars have a text part.
	if n := eval[int](b, `document.querySelectorAll('#matches .seg[data-kind="text"]').length`); n == 0 {
		t.Error("no match shows a part for the description's words")
	}
	if href := eval[string](b, `document.getElementById("live-link").getAttribute("href")`); href != u {
		t.Errorf("the link to this profile is %s, the URL %s", href, u)
	}
	if n := eval[int](b, `document.querySelectorAll("main img").length`); n != 0 {
		t.Errorf("the description's markup made %d img elements", n)
	}

	// Remove the first chip from the description: the page asks again.
	gone := eval[string](b, `(() => { const li = document.querySelector('.live-profile li.live-chip[data-origin="desc"]');
		li.querySelector("button.chip-x").setAttribute("data-test-pick", ""); return li.dataset.term })()`)
	b.do(chromedp.Click(chromedp.CSS("[data-test-pick]")))
	b.poll(`location.pathname + location.search !== ` + strconv.Quote(u) + ` && document.body.dataset.state === "ready"`)
	u2 := b.location()
	profile2, sug2, q2 := liveProfile(t, u2)
	wantTerms := slices.DeleteFunc(slices.Clone(before), func(x string) bool { return x == gone })
	if got := urlTerms(q2); !slices.Equal(got, wantTerms) {
		t.Errorf("after removing %s the URL holds %v, want %v", gone, got, wantTerms)
	}
	if slices.Contains(sug2, gone) || len(sug2) != len(want)-1 {
		t.Errorf("after removing %s the URL marks %v as from the description", gone, sug2)
	}
	if got := chipTerms(liveChips(b), ""); !slices.Equal(got, wantTerms) {
		t.Errorf("after removing %s the chips are %v", gone, got)
	}
	matches2 := eval[[]string](b, pageMatches)
	if api := apiMatches(s, profile2, q2.Get("desc")); !slices.Equal(matches2, api) {
		t.Errorf("after removing %s the page lists %v, similarToProfile %v", gone, matches2, api)
	}
	if v := eval[string](b, `document.getElementById("describe").value`); v != strings.TrimSpace(liveDesc) {
		t.Errorf("after removing a chip the description box holds %q", v)
	}
	// Back: the profile before the removal, its text and its matches.
	b.do(chromedp.NavigateBack())
	b.poll(`location.pathname + location.search === ` + strconv.Quote(u) + ` && document.body.dataset.state === "ready"`)
	if got := liveChips(b); !slices.Equal(chipTerms(got, "desc"), want) || !slices.Equal(chipTerms(got, "chosen"), chosen) {
		t.Errorf("back: the chips are %v", got)
	}
	if v := eval[string](b, `document.getElementById("describe").value`); v != strings.TrimSpace(liveDesc) {
		t.Errorf("back: the description box holds %q", v)
	}
	if got := eval[[]string](b, pageMatches); !slices.Equal(got, matches) {
		t.Errorf("back: the page lists %v, before %v", got, matches)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	if d := b.takeDialogs(); len(d) > 0 {
		t.Errorf("dialogs: %q", d)
	}
	csp("the Live screen")

	// The link, opened afresh in another browser: the same profile.
	b2 := newBrowser(t)
	csp2 := b2.enforceCSP(s.url + u2)
	if st, _ := b2.open(s.url + u2); st != "ready" {
		t.Fatalf("%s: state %s", u2, st)
	}
	chips2 := liveChips(b2)
	if got := chipTerms(chips2, "desc"); !slices.Equal(got, sug2) {
		t.Errorf("opened afresh, the chips from the description are %v, want %v", got, sug2)
	}
	if got := chipTerms(chips2, ""); !slices.Equal(got, wantTerms) {
		t.Errorf("opened afresh, the chips are %v, want %v", got, wantTerms)
	}
	if got := eval[[]string](b2, pageMatches); !slices.Equal(got, matches2) {
		t.Errorf("opened afresh, the page lists %v, before %v", got, matches2)
	}
	if v := eval[string](b2, `document.getElementById("describe").value`); v != strings.TrimSpace(liveDesc) {
		t.Errorf("opened afresh, the description box holds %q", v)
	}
	checkLiveCounts(t, b2, "opened afresh")

	// In Korean the markers are Korean.
	if st, _ := b2.open(s.url + u2 + "&lang=ko"); st != "ready" {
		t.Fatalf("%s in Korean: state %s", u2, st)
	}
	ko := liveChips(b2)
	if got := chipTerms(ko, ""); !slices.Equal(got, wantTerms) {
		t.Errorf("in Korean the chips are %v, want %v", got, wantTerms)
	}
	for _, c := range ko {
		marker := map[string]string{"desc": "설명에서 추천", "chosen": "직접 고름"}[c.Origin]
		if c.Marker != marker || c.Lang != "ko" || !strings.Contains(c.Label, "빼기 ("+marker+")") {
			t.Errorf("in Korean, chip %s (%s): marker %q (lang %s), button %q", c.Term, c.Origin, c.Marker, c.Lang, c.Label)
		}
	}

	// A link whose description is too long, and whose sug names a term
	// not in the profile: both left out with a notice, the rest kept.
	long := "/live?" + url.Values{"c": {"message-broker"}, "desc": {strings.Repeat("x", 2001)}, "sug": {"c:message-broker,s:high-latency"}}.Encode()
	if st, _ := b2.open(s.url + long); st != "ready" {
		t.Fatalf("%s: state %s", long, st)
	}
	notice := eval[string](b2, `document.getElementById("notice").textContent`)
	if !strings.Contains(notice, "desc (the description is over 2,000 characters)") || !strings.Contains(notice, "sug") {
		t.Errorf("a link with a long description and a stray sug: notice %q", notice)
	}
	_, sug3, q3 := liveProfile(t, b2.location())
	if q3.Has("desc") || q3.Get("c") != "message-broker" || !slices.Equal(sug3, []string{"component:message-broker"}) {
		t.Errorf("the cleaned URL is %s", b2.location())
	}
	if v := eval[string](b2, `document.getElementById("describe").value`); v != "" {
		t.Errorf("the description box holds %q after a description was refused", v)
	}
	if errs := b2.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	csp2("the Live screen opened afresh")
}
