package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/session"
)

// tokenMap is an Authenticator over fixed tokens, as the token store
// answers for the tokens it holds.
type tokenMap map[string]ilgraph.Principal

func (m tokenMap) Authenticate(_ context.Context, token string) (ilgraph.Principal, error) {
	if p, ok := m[token]; ok {
		return p, nil
	}
	return ilgraph.Principal{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "unknown token")
}

// testTokens are the tokens the test site knows.
var testTokens = tokenMap{
	"ilg-test-editor":   {Name: "eve", Role: ilgraph.RoleEditor},
	"ilg-test-viewer":   {Name: "val", Role: ilgraph.RoleViewer},
	"ilg-test-reviewer": {Name: "rita", Role: ilgraph.RoleReviewer},
}

// writeSeen is one request to /test/write as it reached the server.
type writeSeen struct {
	origin string
	cookie bool // it carried the session cookie
	csrf   bool // it carried a CSRF header
	status int
}

// testWrite stands for the write path: a state-changing operation that
// needs the editor role, and counts what it changes.
func (s *site) testWrite(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if err := ilgraph.Require(r.Context(), ilgraph.RoleEditor); err != nil {
		status := http.StatusForbidden
		if ilgraph.ErrorCode(err) == ilgraph.EUNAUTHORIZED {
			status = http.StatusUnauthorized
		}
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]int64{"writes": s.writes.Add(1)})
}

// recordWrites notes every request to /test/write (but CORS preflights)
// before the shell authenticates it, and the status it got.
func (s *site) recordWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/test/write" || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		_, err := r.Cookie("ilgraph-session")
		sw := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seen = append(s.seen, writeSeen{origin: r.Header.Get("Origin"), cookie: err == nil, csrf: r.Header.Get(session.CSRFHeader) != "", status: sw.status})
	})
}

func (s *site) takeSeen() []writeSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// markedControls adds to the header a control marked for each role, as a
// screen would add its write controls.
const markedControls = `(() => {
	for (const role of ["viewer", "reviewer", "editor", "admin"]) {
		const el = document.createElement("button");
		el.id = "needs-" + role;
		el.textContent = role;
		el.setAttribute("data-needs-role", role);
		document.querySelector("header.top").append(el);
	}
	return true;
})()`

// TestSessionInBrowser signs in through the explorer's header, sees the
// controls marked for a role appear and go, writes from the page with the
// CSRF token, and shows that a page of another origin — same-site, so
// that the browser attaches the cookie, and cross-site — can neither write
// nor sign the browser out, by fetch or by form.
func TestSessionInBrowser(t *testing.T) {
	s := mustSite(t)
	b := newBrowser(t)
	if st, _ := b.open(s.url + "/"); st != "ready" {
		t.Fatalf("cases: state %s %v", st, b.takeErrors())
	}
	poll := func(js string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			t.Fatalf("waiting for %s: %v", js, err)
		}
	}
	addMarked := func() { eval[bool](b, markedControls) }
	addMarked()
	shown := func() []string {
		t.Helper()
		poll(`new Promise((ok) => requestAnimationFrame(() => ok(true)))`)
		return eval[[]string](b, `[...document.querySelectorAll("[data-needs-role][id^=needs-]")].filter((e) => getComputedStyle(e).display !== "none").map((e) => e.id)`)
	}
	if got := shown(); len(got) != 0 {
		t.Errorf("signed out, the page shows %v", got)
	}
	// rolesUpTo lists the marked controls a role may use, from the role
	// order alone.
	rolesUpTo := func(r ilgraph.Role) []string {
		var out []string
		for _, x := range ilgraph.Roles {
			if x <= r {
				out = append(out, "needs-"+x.String())
			}
		}
		return out
	}
	signIn := func(token string) {
		t.Helper()
		b.do(chromedp.Click(chromedp.CSS("#sign-in")))
		poll(`!!document.getElementById("signin-token")`)
		b.do(chromedp.SendKeys(chromedp.CSS("#signin-token"), token), chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")))
	}

	// A wrong token: an error, no session.
	signIn("not-a-token")
	poll(`!!document.getElementById("signin-error")`)
	if s.sessions.Len() != 0 {
		t.Fatalf("%d sessions after a refused sign-in", s.sessions.Len())
	}
	b.takeErrors() // the 401 is logged by the browser
	b.do(chromedp.Click(chromedp.CSS("#signin-form button.link")))

	// The editor signs in: the header says so, the screen renders again
	// (its API requests carry the CSRF token, or they would be refused),
	// the viewer's to editor's controls show and the admin's does not.
	signIn("ilg-test-editor")
	poll(`!!document.getElementById("account-who")`)
	if st := b.settle(); st != "ready" {
		t.Fatalf("after sign-in: state %s %v", st, b.takeErrors())
	}
	if who := eval[string](b, `document.getElementById("account-who").textContent`); !strings.Contains(who, "eve") || !strings.Contains(who, "editor") {
		t.Errorf("the header says %q, want eve and editor", who)
	}
	if got, want := shown(), rolesUpTo(ilgraph.RoleEditor); !slices.Equal(got, want) {
		t.Errorf("signed in as editor, the page shows %v, want %v", got, want)
	}
	// The token is kept nowhere the page can read, nor is the cookie.
	kept := eval[string](b, `JSON.stringify([document.cookie, {...localStorage}, {...sessionStorage}, document.getElementById("main").parentElement.outerHTML.includes("ilg-test-editor")])`)
	if kept != `["",{},{},false]` {
		t.Errorf("cookie, localStorage, sessionStorage, token in the page: %s", kept)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("errors signed in: %v", errs)
	}
	// A write from the explorer: it carries the CSRF token and counts.
	write := `import("/assets/app/lib.js").then((m) => m.send("/test/write", {method: "POST"})).then((r) => r.status)`
	if st := eval[int](b, write); st != 200 || s.writes.Load() != 1 {
		t.Fatalf("the explorer's write: HTTP %d, %d writes", st, s.writes.Load())
	}
	if seen := s.takeSeen(); len(seen) != 1 || !seen[0].cookie || !seen[0].csrf {
		t.Errorf("the explorer's write arrived as %+v, want the cookie and the CSRF token", seen)
	}

	// The IDE, on the same origin, gets the cookie too and sends the CSRF
	// token with it: signed in, it reads the schema and runs a query.
	b.do(chromedp.Navigate(s.url + "/ide"))
	poll(`!!document.querySelector(".graphiql-query-editor .CodeMirror")`)
	poll(`!!document.querySelector(".graphiql-query-editor .CodeMirror") && !document.querySelector(".graphiql-spinner")`)
	eval[bool](b, `(() => { document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.setValue("{ stats { cases } }"); return true })()`)
	b.do(chromedp.Click(chromedp.CSS(".graphiql-execute-button")))
	poll(`(() => { const cm = document.querySelector(".result-window .CodeMirror"); return !!cm && cm.CodeMirror.getValue().includes('"cases"'); })()`)
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("the IDE, signed in: %v", errs)
	}

	// Another origin: the same host on another port (same-site: the
	// browser sends the SameSite=Strict cookie along) and, by the name
	// localhost, another site (it does not).
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>elsewhere</title></head><body><p>another site</p></body></html>`)
	}))
	defer evil.Close()
	u, _ := url.Parse(evil.URL)
	target := s.url
	for _, origin := range []string{evil.URL, "http://localhost:" + u.Port()} {
		sameSite := origin == evil.URL
		func() {
			b.do(chromedp.Navigate(origin + "/"))
			before := s.writes.Load()
			// fetch with credentials, as a form would (no preflight).
			eval[string](b, fmt.Sprintf(`fetch(%q, {method: "POST", credentials: "include", mode: "no-cors", body: "x"}).then(() => "sent", (e) => String(e))`, target+"/test/write"))
			// With a guessed CSRF header: a preflight, which the server does
			// not grant, so it is never sent.
			guessed := eval[string](b, fmt.Sprintf(`fetch(%q, {method: "POST", credentials: "include", headers: {%q: "guess"}}).then((r) => "HTTP " + r.status, (e) => "refused")`, target+"/test/write", session.CSRFHeader))
			if guessed != "refused" {
				t.Errorf("%s: a cross-origin write with a custom header: %s, want the browser's refusal", origin, guessed)
			}
			// The CSRF token cannot be read from there.
			if got := eval[string](b, fmt.Sprintf(`fetch(%q, {credentials: "include"}).then((r) => r.text(), (e) => "refused")`, target+session.Pattern)); got != "refused" {
				t.Errorf("%s: another origin read the session: %.80q", origin, got)
			}
			// Signing out needs DELETE: preflighted, refused.
			eval[string](b, fmt.Sprintf(`fetch(%q, {method: "DELETE", credentials: "include"}).then((r) => "HTTP " + r.status, (e) => "refused")`, target+session.Pattern))
			// A form POST, which navigates to the answer.
			eval[bool](b, fmt.Sprintf(`(() => {
				const f = document.createElement("form");
				f.method = "POST"; f.action = %q;
				const i = document.createElement("input"); i.name = "x"; i.value = "1"; f.append(i);
				document.body.append(f); f.submit(); return true;
			})()`, target+"/test/write"))
			// The navigation replaces the page being polled: poll again
			// until the answer's page is there.
			landed := fmt.Sprintf(`location.href === %q && document.readyState === "complete"`, target+"/test/write")
			for deadline := time.Now().Add(15 * time.Second); ; {
				ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
				ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](landed))
				cancel()
				if err == nil && ok {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: the form's answer did not load", origin)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if s.writes.Load() != before {
				t.Errorf("%s: another origin's requests wrote: %d writes, want %d", origin, s.writes.Load(), before)
			}
			seen := s.takeSeen()
			if len(seen) != 2 {
				t.Fatalf("%s: requests to /test/write: %+v, want the fetch and the form", origin, seen)
			}
			for _, w := range seen {
				if w.origin != origin || w.csrf {
					t.Errorf("%s: a request arrived as %+v, want from %s, without a CSRF token", origin, w, origin)
				}
				// Same-site, the browser attached the cookie and the server
				// refused the request (403); cross-site it did not, and the
				// request was anonymous (401).
				if sameSite && (!w.cookie || w.status != http.StatusForbidden) {
					t.Errorf("%s: same-site: %+v, want the cookie sent and 403", origin, w)
				}
				if !sameSite && (w.cookie || w.status != http.StatusUnauthorized) {
					t.Errorf("%s: cross-site: %+v, want no cookie and 401", origin, w)
				}
			}
			if s.sessions.Len() != 1 {
				t.Errorf("%s: %d sessions, want the editor's still", origin, s.sessions.Len())
			}
			b.takeErrors()
		}()
	}

	// Back on the explorer, still signed in; writes still count there.
	if st, _ := b.open(s.url + "/"); st != "ready" {
		t.Fatalf("back: state %s", st)
	}
	poll(`!!document.getElementById("account-who")`)
	addMarked()
	if st := eval[int](b, write); st != 200 || s.writes.Load() != 2 {
		t.Errorf("the explorer's second write: HTTP %d, %d writes", st, s.writes.Load())
	}

	// Sign out: the server ends the session, the page withholds the
	// controls, and a write is anonymous.
	b.do(chromedp.Click(chromedp.CSS("#sign-out")))
	poll(`!!document.getElementById("sign-in")`)
	if s.sessions.Len() != 0 {
		t.Errorf("%d sessions after signing out", s.sessions.Len())
	}
	if got := shown(); len(got) != 0 {
		t.Errorf("signed out, the page shows %v", got)
	}
	if st := eval[int](b, write); st != http.StatusUnauthorized || s.writes.Load() != 2 {
		t.Errorf("a write signed out: HTTP %d, %d writes", st, s.writes.Load())
	}

	// A viewer sees the viewer's control only, and the server refuses the
	// editor's write whatever the page does.
	b.settle()
	signIn("ilg-test-viewer")
	poll(`!!document.getElementById("account-who")`)
	if got, want := shown(), rolesUpTo(ilgraph.RoleViewer); !slices.Equal(got, want) {
		t.Errorf("signed in as viewer, the page shows %v, want %v", got, want)
	}
	if st := eval[int](b, write); st != http.StatusForbidden || s.writes.Load() != 2 {
		t.Errorf("a viewer's write: HTTP %d, %d writes", st, s.writes.Load())
	}
	s.takeSeen()

	// A private corpus: signed out, the page loads and its screen says to
	// sign in; signed in, the screen shows the cases.
	b.do(chromedp.Click(chromedp.CSS("#sign-out")))
	poll(`!!document.getElementById("sign-in")`)
	s.private.Store(true)
	defer s.private.Store(false)
	if st, _ := b.open(s.url + "/"); st != "error" {
		t.Fatalf("private, signed out: state %s, want the error screen", st)
	}
	if msg := eval[string](b, `document.querySelector("#main .error").textContent`); !strings.Contains(msg, "Sign in") {
		t.Errorf("private, signed out, the screen says %q: want a pointer to signing in", msg)
	}
	b.takeErrors() // the 401s
	signIn("ilg-test-viewer")
	poll(`!!document.getElementById("account-who")`)
	if st := b.settle(); st != "ready" {
		t.Fatalf("private, signed in: state %s %v", st, b.takeErrors())
	}
	if n := eval[int](b, `document.querySelectorAll(".case-card").length`); n == 0 {
		t.Error("private, signed in: no cases listed")
	}
}
