package explorer_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestIDEHandler checks the IDE's page and files without a browser: the
// page has no inline script or style and names only files the handler
// serves, from this origin; every answer carries the explorer's security
// headers; nothing outside the IDE's files is served under /ide/assets/.
func TestIDEHandler(t *testing.T) {
	srv := httptest.NewServer(explorer.IDEHandler())
	defer srv.Close()
	exp := httptest.NewServer(explorer.Handler())
	defer exp.Close()
	get := func(base, path string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		b, _ := io.ReadAll(r)
		return resp, string(b)
	}
	explorerResp, _ := get(exp.URL, "/")
	wantCSP := explorerResp.Header.Get("Content-Security-Policy")
	if !strings.Contains(wantCSP, "script-src 'self'") || !strings.Contains(wantCSP, "style-src 'self'") {
		t.Fatalf("explorer CSP %q", wantCSP)
	}

	resp, page := get(srv.URL, "/ide")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/ide: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); csp != wantCSP {
		t.Errorf("/ide: CSP %q, the explorer's is %q", csp, wantCSP)
	}
	if !strings.Contains(page, `data-endpoint="/graphql"`) {
		t.Error("the page does not point GraphiQL at /graphql")
	}
	// No inline code or style: every script has a src, no <style>, no
	// style= or on…= attributes.
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(\s[^>]*)?>`), regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle=`), regexp.MustCompile(`\son[a-z]+=`),
	} {
		for _, m := range bad.FindAllString(page, -1) {
			if !strings.Contains(m, " src=") {
				t.Errorf("the page has inline code or style: %q", m)
			}
		}
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	want := map[string]string{".js": "text/javascript", ".css": "text/css"}
	scripts := 0
	for _, ref := range refs {
		u := ref[1]
		if u == "data:," { // the empty icon, so that browsers do not ask for /favicon.ico
			continue
		}
		if !strings.HasPrefix(u, "/ide/assets/") {
			t.Errorf("the page loads %q, outside /ide/assets/", u)
			continue
		}
		r, body := get(srv.URL, u, "Accept-Encoding", "gzip")
		ext := u[strings.LastIndexByte(u, '.'):]
		if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), want[ext]) || len(body) == 0 {
			t.Errorf("%s: HTTP %d %s, %d bytes", u, r.StatusCode, r.Header.Get("Content-Type"), len(body))
		}
		if r.Header.Get("Content-Security-Policy") != wantCSP || r.Header.Get("ETag") == "" || r.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: CSP %q, ETag %q, encoding %q", u, r.Header.Get("Content-Security-Policy"), r.Header.Get("ETag"), r.Header.Get("Content-Encoding"))
		}
		if r2, _ := get(srv.URL, u, "If-None-Match", r.Header.Get("ETag")); r2.StatusCode != 304 {
			t.Errorf("%s: revalidation HTTP %d, want 304", u, r2.StatusCode)
		}
		if ext == ".js" {
			scripts++
		}
	}
	if scripts != 4 {
		t.Errorf("the page loads %d scripts, want React, ReactDOM, GraphiQL and ide.js", scripts)
	}
	for _, p := range []string{"/ide/assets/ide/index.html", "/ide/assets/vendor/cytoscape/cytoscape.min.js",
		"/ide/assets/vendor/axe-core/axe.min.js", "/ide/assets/app/main.js", "/ide/assets/nope.js", "/ide/other"} {
		if r, _ := get(srv.URL, p); r.StatusCode != 404 {
			t.Errorf("%s: HTTP %d, want 404", p, r.StatusCode)
		}
	}
	// The explorer does not serve the IDE's files.
	if r, _ := get(exp.URL, "/assets/vendor/graphiql/graphiql.min.js"); r.StatusCode != 404 {
		t.Errorf("the explorer serves GraphiQL: HTTP %d", r.StatusCode)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/ide", nil)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 405 {
		t.Errorf("POST /ide: %v %v", r.StatusCode, err)
	}
}

// TestIDEInBrowser opens /ide in headless Chromium, under its CSP, with
// every request to another origin failed and counted; runs a query in
// GraphiQL and checks that the result pane shows the number of seed cases.
func TestIDEInBrowser(t *testing.T) {
	chromiumPath(t)
	wantCases := len(corpus.Cases(t, corpus.Seeds(t))) // from the seed files, not the database
	if wantCases == 0 {
		t.Fatal("no seed cases")
	}
	s := mustSite(t)
	b := newBrowser(t)

	var mu sync.Mutex
	var local, blocked []string
	chromedp.Listen(b.ctx, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			u := ev.Request.URL
			mine := u == s.url || strings.HasPrefix(u, s.url+"/")
			mu.Lock()
			if mine {
				local = append(local, u)
			} else {
				blocked = append(blocked, u)
			}
			mu.Unlock()
			go func() {
				if mine {
					chromedp.Call(b.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				} else {
					chromedp.Call(b.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
				}
			}()
		}
	})
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		// newBrowser bypasses the CSP for axe-core, which this test does
		// not inject: here the page runs under its own policy.
		if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: false}); err != nil {
			return err
		}
		// Every CSP violation the document sees, whether or not the console
		// reports it.
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
			window.cspViolations = [];
			document.addEventListener("securitypolicyviolation", (e) =>
				window.cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber));`}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
		return err
	}))
	b.takeErrors()
	b.mu.Lock()
	b.bytes = 0
	b.mu.Unlock()

	b.do(chromedp.Navigate(s.url + "/ide"))
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	// GraphiQL is up when its query editor is, and has the schema when the
	// documentation explorer can show the query type.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector(".graphiql-query-editor .CodeMirror")`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("GraphiQL did not start: %v; page text %q; console %q", err, eval[string](b, `document.body.innerText.slice(0, 200)`), b.takeErrors())
	}
	const query = `{ stats { cases } }`
	eval[bool](b, `(() => { document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.setValue(`+fmt.Sprintf("%q", query)+`); return true })()`)
	b.do(chromedp.Click(chromedp.CSS(".graphiql-execute-button")))
	shown, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const cm = document.querySelector(".result-window .CodeMirror");
		const v = cm && cm.CodeMirror.getValue();
		return v && v.includes('"cases"') && v;
	})()`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("no result shown: %v; console %q", err, b.takeErrors())
	}
	var res struct {
		Data struct{ Stats struct{ Cases int } }
	}
	if err := json.Unmarshal([]byte(shown), &res); err != nil {
		t.Fatalf("the result pane shows %q: %v", shown, err)
	}
	if res.Data.Stats.Cases != wantCases {
		t.Errorf("the result pane says %d cases, the seeds have %d", res.Data.Stats.Cases, wantCases)
	}
	// What a person sees, not only the editor's model.
	if txt := eval[string](b, `document.querySelector(".result-window").innerText`); !strings.Contains(txt, fmt.Sprintf(`"cases": %d`, wantCases)) {
		t.Errorf("the result pane reads %q, want it to show \"cases\": %d", txt, wantCases)
	}
	editor := eval[string](b, `document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.getValue()`)
	if editor != query {
		t.Errorf("the query editor holds %q, want %q", editor, query)
	}
	// The schema reached the IDE (introspection within the API's depth
	// limit): the documentation explorer opens on the query type, and its
	// page for Query lists the fields the schema has.
	b.do(chromedp.Click(chromedp.CSS(`.graphiql-sidebar button[aria-label="Show Documentation Explorer"]`)))
	docs, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const d = document.querySelector(".graphiql-doc-explorer-content");
		return d && (d.innerText.includes("Query") || d.innerText.includes("Error")) && d.innerText;
	})()`, chromedp.WithPollingTimeout(15*time.Second)))
	if err != nil || strings.Contains(docs, "Error") {
		t.Errorf("the documentation explorer shows %q (%v), want the schema's root types", docs, err)
	} else {
		b.do(chromedp.Click(chromedp.CSS(`.graphiql-doc-explorer-content a.graphiql-doc-explorer-type-name`)))
		fields, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
			const d = document.querySelector(".graphiql-doc-explorer-content");
			return d && d.innerText.includes("stats") && d.innerText;
		})()`, chromedp.WithPollingTimeout(15*time.Second)))
		if err != nil || !strings.Contains(fields, "similarCases") {
			t.Errorf("the documentation explorer's Query page: %q (%v), want stats and similarCases", fields, err)
		}
	}
	time.Sleep(300 * time.Millisecond) // late reports arrive

	if v := eval[[]string](b, `window.cspViolations`); len(v) > 0 {
		t.Errorf("CSP violations: %q", v)
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	mu.Lock()
	local, nBlocked := append([]string(nil), local...), append([]string(nil), blocked...)
	mu.Unlock()
	b.mu.Lock()
	t.Logf("/ide: %d requests to the test server (%.0f KB transferred, cache off), %d to other origins", len(local), b.bytes/1024, len(nBlocked))
	b.mu.Unlock()
	if len(nBlocked) > 0 {
		t.Errorf("the IDE asked other origins for %d resources: %q", len(nBlocked), nBlocked)
	}
	// The interception saw the page's loads: its six files and at least the
	// introspection and the query.
	assetsSeen, apiSeen := 0, 0
	for _, u := range local {
		switch {
		case strings.HasPrefix(u, s.url+"/ide/assets/"):
			assetsSeen++
		case strings.HasPrefix(u, s.url+"/graphql"):
			apiSeen++
		}
	}
	if assetsSeen != 6 || apiSeen < 2 {
		t.Errorf("the interception saw %d of the IDE's 6 files and %d API requests (want 2 or more): %q", assetsSeen, apiSeen, local)
	}

	// The settings dialog opens. Radix, which GraphiQL's dialogs use, adds
	// an inline <style> to lock the page's scrolling while one is open; the
	// policy refuses it (the page does not scroll anyway), and that is the
	// only report the IDE causes: from GraphiQL's bundle, for style-src.
	b.do(chromedp.Click(chromedp.CSS(`button[aria-label="Open settings dialog"]`)))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('[role="dialog"]') && document.querySelector('[role="dialog"]').innerText.includes("Theme")`, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Errorf("the settings dialog did not open: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	for _, v := range eval[[]string](b, `window.cspViolations`) {
		if !strings.HasPrefix(v, "style-src-elem inline ") || !strings.Contains(v, "/ide/assets/vendor/graphiql/graphiql.min.js") {
			t.Errorf("CSP violation with a dialog open: %q", v)
		}
	}
	b.takeErrors()

	// The counting sees other origins: a navigation to another loopback
	// origin is failed and counted.
	other := strings.Replace(s.url, "127.0.0.1", "localhost", 1)
	if other == s.url {
		t.Fatalf("test server at %s, not 127.0.0.1", s.url)
	}
	nctx, ncancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer ncancel()
	chromedp.Do(nctx, chromedp.Navigate(other+"/ide")) // fails: blocked
	mu.Lock()
	after := len(blocked)
	mu.Unlock()
	if after != len(nBlocked)+1 {
		t.Errorf("a request to %s: %d blocked, want %d", other, after, len(nBlocked)+1)
	}
	b.takeErrors()
}
