package resolvers_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestGeneratedCodeIsCurrent regenerates the GraphQL executor from
// schema.graphqls in a copy of the module and checks that nothing changes:
// the committed generated code is what `go generate ./...` makes.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	root := corpus.Root(t)
	tmp := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "seeds" || rel == "bin" || rel == "docs") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		// The Go files and what building them needs: the module files, the
		// schema, and the files the explorer (and so the IDE this package
		// serves) and the suggestion engine (its calibration) embed.
		embedded := strings.HasPrefix(filepath.ToSlash(rel), "explorer/assets/") || filepath.ToSlash(rel) == "suggest/calibration.json"
		if !strings.HasSuffix(p, ".go") && !embedded && rel != "go.mod" && rel != "go.sum" && rel != "gqlgen.yml" && rel != "schema.graphqls" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "generate", ".")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go generate: %v\n%s", err, out)
	}
	for _, f := range []string{"generated.go", "models_gen.go", "schema.resolvers.go"} {
		want, _ := os.ReadFile(filepath.Join(root, "resolvers", f))
		got, err := os.ReadFile(filepath.Join(tmp, "resolvers", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("resolvers/%s is stale: run go generate ./... and commit the result", f)
		}
	}
}
