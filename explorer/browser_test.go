package explorer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/explorer"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/similarity"
)

// MaxFirstLoad is the most a screen's first load may transfer (compressed,
// headers included), with the browser cache off.
const MaxFirstLoad = 300 << 10

// chromiumPath finds headless Chromium: $CHROMIUM, then the usual names.
// Without it the browser tests skip, except under CI=true, where they fail.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the explorer's browser tests need Chromium and CI=true: install it (apt-get install -y chromium) or set CHROMIUM")
	}
	t.Skip("no Chromium (apt-get install -y chromium, or set CHROMIUM); under CI=true this fails instead")
	return ""
}

// site is ilgraph serve over the test Neo4j loaded with seeds/: the API and
// the explorer on one server. down makes /graphql answer 503, as a server
// whose API is down would.
type site struct {
	t    *testing.T
	url  string
	down atomic.Bool
}

func mustSite(t *testing.T) *site {
	t.Helper()
	db := neo4jtest.MustOpen(t)
	if _, err := loader.Load(context.Background(), db, []string{corpus.Seeds(t)}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	h := resolvers.NewHandler(explore.New(db, similarity.NewService(db)), resolvers.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ready:  db.Ping,
		Routes: map[string]http.Handler{"/": explorer.Handler()},
	})
	s := &site{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() && r.URL.Path == "/graphql" {
			http.Error(w, "down for the test", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// api asks the API directly, for the answers the page must show.
func (s *site) api(query string, vars map[string]any, out any) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := http.Post(s.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data   json.RawMessage
		Errors []any
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || len(env.Errors) > 0 {
		s.t.Fatalf("API %s: %v %v", query, err, env.Errors)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		s.t.Fatal(err)
	}
}

// browser is one headless Chromium tab with what it saw: console errors,
// uncaught exceptions, dialogs, and the bytes each load transferred.
type browser struct {
	t       *testing.T
	ctx     context.Context
	mu      sync.Mutex
	errs    []string
	dialogs []string
	bytes   float64
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	b := &browser{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.errs = append(b.errs, "console.error: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
			b.errs = append(b.errs, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				b.errs = append(b.errs, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		case *page.EventJavascriptDialogOpening:
			b.dialogs = append(b.dialogs, string(ev.Type)+": "+ev.Message)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		case *network.EventLoadingFinished:
			b.bytes += ev.EncodedDataLength
		}
	}); err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		// The test injects axe-core, which the page's CSP would refuse.
		_, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
		return err
	}))
	return b
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value into out.
func eval[T any](b *browser, js string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluating %.120s: %v", js, err)
	}
	return v
}

// takeErrors returns and forgets the console errors seen so far.
func (b *browser) takeErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.errs
	b.errs = nil
	return e
}

func (b *browser) takeDialogs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.dialogs
	b.dialogs = nil
	return d
}

// open loads a URL afresh and waits for the screen to settle; it returns
// the page state (ready, notfound, error) and the bytes transferred.
func (b *browser) open(url string) (string, float64) {
	b.t.Helper()
	b.mu.Lock()
	b.bytes = 0
	b.mu.Unlock()
	b.do(chromedp.Navigate(url))
	st := b.settle()
	time.Sleep(300 * time.Millisecond) // late resources finish counting
	b.mu.Lock()
	defer b.mu.Unlock()
	return st, b.bytes
}

// settle waits until the screen is no longer loading and returns its
// state.
func (b *browser) settle() string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	st, err := chromedp.Run(ctx, chromedp.Poll[string](`document.body && document.body.dataset.state !== "loading" && document.body.dataset.state`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		b.t.Fatalf("waiting for the screen: %v", err)
	}
	return st
}

func (b *browser) location() string { return eval[string](b, `location.pathname + location.search`) }

// axe runs the axe-core audit (the vendored copy, injected) and returns
// the serious and critical violations.
func (b *browser) axe() []string {
	b.t.Helper()
	src, err := os.ReadFile(filepath.Join("assets", "vendor", "axe-core", "axe.min.js"))
	if err != nil {
		b.t.Fatal(err)
	}
	if !eval[bool](b, string(src)+";\ntypeof axe === 'object'") {
		b.t.Fatal("axe-core did not load")
	}
	return eval[[]string](b, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => v.impact + " " + v.id + ": " + v.help + " — " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")))`)
}

// screenshot writes the viewport to docs/explorer/NAME.png when
// UPDATE_SCREENSHOTS=1 (make explorer-screenshots).
func (b *browser) screenshot(name string) {
	b.t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	dir := filepath.Join("..", "docs", "explorer")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func TestExplorerInBrowser(t *testing.T) {
	chromiumPath(t)
	s := mustSite(t)
	b := newBrowser(t)

	t.Run("screens", func(t *testing.T) {
		b.t = t
		for _, sc := range []struct{ name, path, wantH1 string }{
			{"cases", "/", "Cases"},
			{"graph", "/graph", "Graph"},
			{"case", "/case/IL-0282", "IL-0282"},
			{"topic", "/topic/contributing/circular-dependency", "circular"},
			{"live", "/live?c=message-broker&s=high-latency,high-error-rate&f=limit-unknown", "Live incident"},
			{"dashboard", "/dashboard", "Dashboard"},
		} {
			b.takeErrors()
			st, n := b.open(s.url + sc.path)
			if st != "ready" {
				t.Errorf("%s: state %q", sc.name, st)
			}
			h1 := eval[string](b, `document.querySelector("h1") ? document.querySelector("h1").textContent : ""`)
			if !strings.Contains(strings.ToLower(h1), strings.ToLower(sc.wantH1)) {
				t.Errorf("%s: heading %q, want it to hold %q", sc.name, h1, sc.wantH1)
			}
			if errs := b.takeErrors(); len(errs) > 0 {
				t.Errorf("%s: console errors: %q", sc.name, errs)
			}
			t.Logf("%s: first load transferred %.1f KB", sc.name, n/1024)
			if n > MaxFirstLoad || n == 0 {
				t.Errorf("%s: first load transferred %.0f bytes, want 1 to %d", sc.name, n, MaxFirstLoad)
			}
			b.screenshot(sc.name)
			if v := b.axe(); len(v) > 0 {
				t.Errorf("%s: axe-core: %d serious or critical violations:\n%s", sc.name, len(v), strings.Join(v, "\n"))
			}
		}
	})
}
