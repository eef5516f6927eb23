package jsonapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/nodetest"
)

// redoclyDir holds Redocly's CLI at the version its package-lock.json pins,
// and the lint configuration (redocly.yaml: the recommended ruleset, and why
// a rule is off).
const redoclyDir = "testdata/redocly"

// redoclyReport is what `redocly lint --format json` prints.
type redoclyReport struct {
	Totals struct {
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
		Ignored  int `json:"ignored"`
	} `json:"totals"`
	Version  string `json:"version"`
	Problems []struct {
		RuleID   string `json:"ruleId"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Location []struct {
			Pointer string `json:"pointer"`
		} `json:"location"`
	} `json:"problems"`
}

// TestOpenAPIDocumentPassesRedocly lints the document the server serves at
// /openapi.json with Redocly's CLI, a second OpenAPI 3.1 validator beside
// kin-openapi, written independently of it (TypeScript, its own reading of
// the specification and JSON Schema 2020-12), and fails on every problem it
// reports, warnings included. A broken copy of the document must fail the
// same lint, so a lint that read nothing cannot pass. It needs Node.js and
// npm and installs the pinned package (npm ci) when node_modules is missing;
// under CI=true a missing node or npm is a failure, elsewhere a skip.
func TestOpenAPIDocumentPassesRedocly(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(redoclyDir, "package.json"))
	if err != nil || json.Unmarshal(raw, &pkg) != nil || pkg.Dependencies["@redocly/cli"] == "" {
		t.Fatalf("%s/package.json does not pin @redocly/cli: %v", redoclyDir, err)
	}
	node := nodetest.Node(t, "the OpenAPI lint with Redocly", redoclyDir, "@redocly/cli")

	s := mustServer(t)
	r := s.get("/openapi.json")
	if r.status != 200 {
		t.Fatalf("/openapi.json: %d %s", r.status, clip(r.body))
	}
	dir := t.TempDir()
	served := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(served, r.body, 0o644); err != nil {
		t.Fatal(err)
	}

	rep := lintWithRedocly(t, node, served)
	if rep.Version != pkg.Dependencies["@redocly/cli"] {
		t.Errorf("redocly %s ran, package.json pins %s (stale node_modules? remove it)", rep.Version, pkg.Dependencies["@redocly/cli"])
	}
	if rep.Totals.Ignored != 0 {
		t.Errorf("redocly ignored %d problems: no ignore file belongs here", rep.Totals.Ignored)
	}
	if len(rep.Problems) > 0 || rep.Totals.Errors+rep.Totals.Warnings > 0 {
		var b strings.Builder
		for _, p := range rep.Problems {
			at := ""
			if len(p.Location) > 0 {
				at = p.Location[0].Pointer
			}
			fmt.Fprintf(&b, "  %s %s at %s: %s\n", p.Severity, p.RuleID, at, p.Message)
		}
		t.Errorf("redocly lint finds %d errors and %d warnings in the served /openapi.json:\n%s", rep.Totals.Errors, rep.Totals.Warnings, b.String())
	}

	// The control: the same document with a dangling $ref and an info
	// without its required title must fail.
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["components"].(map[string]any)["schemas"].(map[string]any), "Error")
	delete(doc["info"].(map[string]any), "title")
	broken, _ := json.Marshal(doc)
	brokenPath := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(brokenPath, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, p := range lintWithRedocly(t, node, brokenPath).Problems {
		rules[p.RuleID] = true
	}
	for _, want := range []string{"no-unresolved-refs", "struct"} {
		if !rules[want] {
			t.Errorf("redocly lint of a broken copy reports no %s problem (it reports %v): the lint does not check what it should", want, rules)
		}
	}
}

// lintWithRedocly runs `redocly lint` on a file with the configuration in
// redoclyDir, offline (no telemetry, no update check), and returns its report.
func lintWithRedocly(t *testing.T, node, file string) redoclyReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", "@redocly", "cli", "bin", "cli.js"),
		"lint", "--config", "redocly.yaml", "--format", "json", file)
	cmd.Dir = redoclyDir
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var rep redoclyReport
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil {
		t.Fatalf("redocly lint %s printed no JSON report (%v, exit: %v):\n%s\n%s", file, jerr, err, clip(stdout.Bytes()), clip(stderr.Bytes()))
	}
	// It exits non-zero exactly when it found errors.
	if (err != nil) != (rep.Totals.Errors > 0) {
		t.Fatalf("redocly lint %s: exit %v with %d errors\n%s", file, err, rep.Totals.Errors, clip(stderr.Bytes()))
	}
	return rep
}
