// Package explorer is ilgraph's web front end for analysts: a single page
// of plain JavaScript modules (no build step) that is a client of the
// GraphQL API at /graphql and of nothing else. Its files are embedded in the
// binary; Handler serves them, each screen's URL answering with the same
// page, which reads its whole state from the URL (docs/explorer.md).
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
)

// assets holds what browsers load. The vendored axe-core (for the
// accessibility audit the tests run) is deliberately not embedded: the
// tests inject it from the source tree, and no user needs it.
//
//go:embed assets/index.html assets/app assets/vendor/cytoscape
var assets embed.FS

// Assets are the embedded files, rooted at assets/ (index.html, app/,
// vendor/cytoscape/).
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

type file struct {
	body, gz    []byte
	etag, ctype string
}

// Screens are the first path segments that answer with the page. The case
// list is the home page: /cases is the JSON API's, on the same server.
var screens = map[string]bool{"": true, "graph": true, "case": true, "topic": true, "live": true, "dashboard": true}

// securityHeaders apply to every answer: the page loads scripts, styles and
// data from this origin only, and nothing may frame it. Cytoscape sets
// element styles from script, which style-src does not restrict.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
}

// Handler serves the explorer: /assets/… are the embedded files (gzipped
// when the browser accepts it, revalidated by ETag), and the screens' paths
// (/, /graph, /case/…, /topic/…, /live, /dashboard) answer with the page. Any other path answers the page with 404, and the page shows its
// "not found" view. Mount it at "/".
func Handler() http.Handler {
	files := map[string]*file{}
	root := Assets()
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
	index := files["index.html"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
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
