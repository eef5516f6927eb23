package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"testing"
)

// Every flag of ilgraph serve is in docs/operations.md, where the limits
// table gives each limit its default and flag.
func TestServeFlagsDocumented(t *testing.T) {
	var out, errb bytes.Buffer
	run(context.Background(), []string{"serve", "--help"}, &out, &errb)
	flags := regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`).FindAllStringSubmatch(errb.String(), -1)
	if len(flags) < 30 {
		t.Fatalf("serve --help lists %d flags:\n%s", len(flags), errb.String())
	}
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flags {
		if !regexp.MustCompile(`--` + regexp.QuoteMeta(f[1]) + `([^a-z0-9-]|$)`).Match(doc) {
			t.Errorf("docs/operations.md does not mention --%s", f[1])
		}
	}
}
