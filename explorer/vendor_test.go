package explorer_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/explorer"
)

// TestVendoredFilesArePinned checks that the vendored libraries are the
// versions explorer/package.json pins and package-lock.json locks, byte for
// byte as make explorer-vendor copied them (manifest.json holds their
// SHA-256): the embedded files for what browsers load (Cytoscape.js and
// d3-force for the explorer; GraphiQL, React and ReactDOM for the IDE), the source tree for
// axe-core, which only the tests use.
func TestVendoredFilesArePinned(t *testing.T) {
	var pkg struct {
		Dependencies, DevDependencies map[string]string
	}
	readJSON(t, "package.json", &pkg)
	pinned := map[string]string{}
	for n, v := range pkg.Dependencies {
		pinned[n] = v
	}
	for n, v := range pkg.DevDependencies {
		pinned[n] = v
	}
	var lock struct {
		Packages map[string]struct{ Version, Integrity string }
	}
	readJSON(t, "package-lock.json", &lock)
	var manifest []struct{ Package, Version, File, Sha256 string }
	readJSON(t, filepath.Join("assets", "vendor", "manifest.json"), &manifest)
	if len(manifest) == 0 {
		t.Fatal("empty manifest")
	}
	seen := map[string]bool{}
	for _, m := range manifest {
		seen[m.Package] = true
		if pinned[m.Package] != m.Version {
			t.Errorf("%s: manifest has %s, package.json pins %q (run make explorer-vendor)", m.File, m.Version, pinned[m.Package])
		}
		if l := lock.Packages["node_modules/"+m.Package]; l.Version != m.Version || l.Integrity == "" {
			t.Errorf("%s: package-lock.json has %q, manifest %s", m.Package, l.Version, m.Version)
		}
		var body []byte
		var err error
		switch m.Package {
		case "cytoscape", "d3-dispatch", "d3-quadtree", "d3-timer", "d3-force": // embedded: what browsers get
			body, err = fs.ReadFile(explorer.Assets(), "vendor/"+m.File)
		case "graphiql", "react", "react-dom":
			body, err = fs.ReadFile(explorer.IDEAssets(), "vendor/"+m.File)
		default:
			body, err = os.ReadFile(filepath.Join("assets", "vendor", filepath.FromSlash(m.File)))
		}
		if err != nil {
			t.Errorf("%s: %v", m.File, err)
			continue
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != m.Sha256 {
			t.Errorf("%s: SHA-256 %s, manifest says %s: the file is not %s %s as published", m.File, got, m.Sha256, m.Package, m.Version)
		}
	}
	for n := range pinned {
		if !seen[n] {
			t.Errorf("package.json pins %s, which is not vendored", n)
		}
		if v := pinned[n]; strings.ContainsAny(v, "^~<>*x ") {
			t.Errorf("%s: %q is a range, pin an exact version", n, v)
		}
	}
	// Every embedded vendor file is in the manifest.
	embedded := 0
	for _, root := range []fs.FS{explorer.Assets(), explorer.IDEAssets()} {
		fs.WalkDir(root, "vendor", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				embedded++
				found := false
				for _, m := range manifest {
					found = found || "vendor/"+m.File == p
				}
				if !found {
					t.Errorf("embedded %s is not in the manifest", p)
				}
			}
			return nil
		})
	}
	if embedded == 0 {
		t.Error("no vendored file is embedded")
	}
}

func readJSON(t *testing.T, path string, out any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
