package explorer_test

import (
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/explorer"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(explorer.Handler())
	defer srv.Close()
	get := func(path string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
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
	for _, p := range []string{"/", "/?q=x", "/graph", "/case/IL-0384", "/topic/component/cache", "/live", "/dashboard"} {
		resp, body := get(p)
		if resp.StatusCode != 200 || !strings.Contains(body, `<script type="module" src="/assets/app/main.js">`) {
			t.Errorf("%s: HTTP %d %.60q", p, resp.StatusCode, body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: CSP %q", p, csp)
		}
	}
	if resp, body := get("/nowhere"); resp.StatusCode != 404 || !strings.Contains(body, "main.js") {
		t.Errorf("/nowhere: HTTP %d, want 404 with the page (it shows 'not found')", resp.StatusCode)
	}
	resp, body := get("/assets/app/main.js", "Accept-Encoding", "gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(body, "import") {
		t.Errorf("main.js: HTTP %d %q %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	if r2, _ := get("/assets/app/main.js", "If-None-Match", resp.Header.Get("ETag")); r2.StatusCode != 304 {
		t.Errorf("revalidation: HTTP %d, want 304", r2.StatusCode)
	}
	if r, _ := get("/assets/app/main.js"); r.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that did not ask for it")
	}
	for _, p := range []string{"/assets/vendor/axe-core/axe.min.js", "/assets/index.html", "/assets/nope.js"} {
		if r, _ := get(p); r.StatusCode != 404 {
			t.Errorf("%s: HTTP %d, want 404", p, r.StatusCode)
		}
	}
	req, _ := http.NewRequest("POST", srv.URL+"/", nil)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 405 {
		t.Errorf("POST /: %v %v", r.StatusCode, err)
	}
}

// TestNoHTMLFromStrings keeps the rule that data is rendered as text: the
// explorer's code (and the IDE's) never parses strings as HTML or code.
func TestNoHTMLFromStrings(t *testing.T) {
	banned := []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setHTMLUnsafe", "createContextualFragment", "javascript:"}
	walk := func(root fs.FS, dir string) {
		err := fs.WalkDir(root, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
				return err
			}
			b, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			for _, w := range banned {
				if strings.Contains(string(b), w) {
					t.Errorf("%s uses %s: build elements with h() and text nodes instead", p, w)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(explorer.Assets(), "app")
	walk(explorer.IDEAssets(), "ide") // the IDE's own script, not the vendored GraphiQL
}
