// Package nodetest gives tests that run a Node.js program against ilgraph
// (the graphql-http audits, Redocly's lint, the MCP clients) node, with the
// packages pinned in a testdata folder's package-lock.json installed.
package nodetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Node returns the path of node after `npm ci` in dir when any of pkgs is
// missing from its node_modules. Without node or npm the test fails under
// CI=true (CI must never pass by skipping) and skips elsewhere, saying that
// what needs them (e.g. "the MCP client tests") does.
func Node(t testing.TB, what, dir string, pkgs ...string) string {
	t.Helper()
	node, npm := tool(t, what, "node"), tool(t, what, "npm")
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
		break
	}
	return node
}

func tool(t testing.TB, what, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required (CI=true): %v", name, err)
	}
	t.Skipf("%s is not installed; %s need Node.js and npm", name, what)
	return ""
}
