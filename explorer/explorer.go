// Package explorer is ilgraph's web front end for analysts: a single page
// of plain JavaScript modules (no build step) that is a client of the
// GraphQL API at /graphql and of nothing else. Its files are embedded in the
// binary; Handler serves them, each screen's URL answering with the same
// page, which reads its whole state from the URL (docs/explorer.md).
// IDEHandler serves the GraphQL IDE (GraphiQL) the same way, from files
// embedded beside them.
package explorer

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// assets holds what browsers load. The vendored axe-core (for the
// accessibility audit the tests run) is deliberately not embedded: the
// tests inject it from the source tree, and no user needs it. The graph's
// layout runs on d3-force and the three d3 modules it needs.
//
//go:embed assets/index.html assets/app assets/vendor/cytoscape assets/vendor/d3-dispatch assets/vendor/d3-quadtree assets/vendor/d3-timer assets/vendor/d3-force
var assets embed.FS

// ideAssets are the GraphQL IDE's: its page, script and style, and the
// vendored GraphiQL and React it runs on.
//
//go:embed assets/ide assets/vendor/graphiql assets/vendor/react assets/vendor/react-dom
var ideAssets embed.FS

// Assets are the explorer's embedded files, rooted at assets/ (index.html,
// app/, vendor/cytoscape/, vendor/d3-*/).
func Assets() fs.FS { return sub(assets) }

// IDEAssets are the GraphQL IDE's embedded files, rooted at assets/ (ide/,
// vendor/graphiql/, vendor/react/, vendor/react-dom/).
func IDEAssets() fs.FS { return sub(ideAssets) }

func sub(e embed.FS) fs.FS {
	s, err := fs.Sub(e, "assets")
	if err != nil {
		panic(err)
	}
	return s
}

type file struct {
	body, gz    []byte
	etag, ctype string
}

// Screens are the first path segments that answer with the page. The case
// list is the home page: /cases is the JSON API's, on the same server.
var screens = map[string]bool{"": true, "graph": true, "case": true, "topic": true, "live": true, "dashboard": true, "review": true}

// securityHeaders apply to every answer of the explorer and of the IDE: the
// pages load scripts, styles and data from this origin only, and nothing
// may frame them. Cytoscape and React set element styles from script, which
// style-src does not restrict. Fonts may also be data: URLs, because
// GraphiQL's stylesheet carries its fonts inline.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
}

// Handler serves the explorer: /assets/… are the embedded files (gzipped
// when the browser accepts it, revalidated by ETag), and the screens' paths
// (/, /graph, /case/…, /topic/…, /live, /dashboard, /review) answer with the page. Any other path answers the page with 404, and the page shows its
// "not found" view. Mount it at "/".
func Handler() http.Handler {
	files := loadFiles(Assets())
	index := files["index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if !getOrHead(w, r) {
			return
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, "/assets/"); ok {
			f := files[rest]
			if f == nil || rest == "index.html" {
				http.NotFound(w, r)
				return
			}
			serve(w, r, f, http.StatusOK)
			return
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		status := http.StatusOK
		if !screens[first] {
			status = http.StatusNotFound
		}
		serve(w, r, index, status)
	})
}

// IDEHandler serves the GraphQL IDE (GraphiQL, pointed at /graphql): /ide
// answers with its page and /ide/assets/… with the embedded files, under
// the explorer's security headers and caching. Nothing it loads comes from
// another origin, so it works offline. Mount it at "/ide" and
// "/ide/assets/".
func IDEHandler() http.Handler {
	files := ideFiles()
	page := files["ide/index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if !getOrHead(w, r) {
			return
		}
		if r.URL.Path == "/ide" {
			serve(w, r, page, http.StatusOK)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/ide/assets/")
		f := files[rest]
		if !ok || f == nil || rest == "ide/index.html" {
			http.NotFound(w, r)
			return
		}
		serve(w, r, f, http.StatusOK)
	})
}

// ideFiles are loaded once: every API handler (tests make many) mounts the
// IDE, and gzipping GraphiQL takes a moment.
var ideFiles = sync.OnceValue(func() map[string]*file { return loadFiles(IDEAssets()) })

// getOrHead answers any other method with 405 and reports whether the
// request goes on.
func getOrHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

// loadFiles reads every file of root once, with its type, ETag and gzipped
// body.
func loadFiles(root fs.FS) map[string]*file {
	files := map[string]*file{}
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		f := &file{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		f.ctype = mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".js", ".mjs":
			f.ctype = "text/javascript; charset=utf-8"
		case "":
			f.ctype = "text/plain; charset=utf-8"
		}
		if f.ctype == "" {
			f.ctype = "application/octet-stream"
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		if buf.Len() < len(body) {
			f.gz = buf.Bytes()
		}
		files[p] = f
		return nil
	})
	if err != nil {
		panic(err)
	}
	return files
}

func serve(w http.ResponseWriter, r *http.Request, f *file, status int) {
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "no-cache") // revalidate: a new binary serves new files at the same paths
	h.Set("ETag", f.etag)
	h.Add("Vary", "Accept-Encoding")
	if status == http.StatusOK && r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if f.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") || strings.Contains(params, "q=0.")
		}
	}
	return false
}
