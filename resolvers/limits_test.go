package resolvers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestDocumentBombs sends the documents of issue #15: each is refused or
// answered with few errors, in a response bounded by a small multiple of
// the request, before anything runs.
func TestDocumentBombs(t *testing.T) {
	a := mustAPI(t)
	post := func(query string) (size int, data bool, errs []gqlError) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		resp, err := a.client.Post(a.url+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var env map[string]json.RawMessage
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("HTTP %d: %.200s", resp.StatusCode, raw)
		}
		json.Unmarshal(env["errors"], &errs)
		_, data = env["data"]
		t.Logf("request %d bytes → HTTP %d, %d bytes, %d errors, first: %.120s", len(body), resp.StatusCode, len(raw), len(errs), first(errs))
		return len(raw), data, errs
	}
	fields := func(n, width int, f func(i int) string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			b.WriteString(" ")
			b.WriteString(fmt.Sprintf("%-*s", width, f(i)))
		}
		b.WriteString(" }")
		return b.String()
	}
	limited := func(name string, data bool, errs []gqlError, want string) {
		t.Helper()
		if data || len(errs) != 1 || errs[0].Extensions["code"] != "LIMIT" || !strings.Contains(errs[0].Message, want) {
			t.Errorf("%s: data %v, errors %+v; want one LIMIT error about %s, before execution", name, data, errs, want)
		}
	}

	// 1 MB of 40,000 unknown fields: over the token limit.
	bomb := fields(40000, 24, func(i int) string { return fmt.Sprintf("unknownField%08d", i) })
	size, data, errs := post(bomb)
	if size > 64<<10 {
		t.Errorf("the unknown-fields bomb (%d bytes) answered %d bytes", len(bomb), size)
	}
	limited("40,000 unknown fields", data, errs, "tokens")

	// 1 MB of 9,000 long unknown names, under the token limit: over the
	// field limit (validation is quadratic in fields).
	bomb = fields(9000, 110, func(i int) string { return fmt.Sprintf("u%08d", i) + strings.Repeat("x", 100) })
	_, data, errs = post(bomb)
	limited("9,000 unknown fields", data, errs, "9000 fields")

	// 1 MB of 400 very long unknown names, under every limit: 100 errors,
	// shortened, then one that says how many more.
	bomb = fields(400, 2400, func(i int) string { return fmt.Sprintf("u%08d", i) + strings.Repeat("x", 2390) })
	size, data, errs = post(bomb)
	if size > 64<<10 {
		t.Errorf("400 long unknown fields (%d bytes) answered %d bytes", len(bomb), size)
	}
	if data || len(errs) != 101 || errs[100].Extensions["code"] != "LIMIT" || !strings.Contains(errs[100].Message, "300 more") {
		t.Errorf("400 unknown fields: %d errors, last %+v; want 100 and one saying 300 more", len(errs), errs[len(errs)-1])
	}

	// 20,000 repeated directives; and 150, under the token limit.
	_, data, errs = post("{ __typename" + strings.Repeat(" @skip(if: false)", 20000) + " }")
	limited("20,000 directives", data, errs, "tokens")
	_, data, errs = post("{ __typename" + strings.Repeat(" @skip(if: false)", 150) + " }")
	limited("150 directives", data, errs, "150 directives")

	// 10,000 aliases; and 150.
	_, data, errs = post(fields(10000, 0, func(i int) string { return fmt.Sprintf("a%d: __typename", i) }))
	limited("10,000 aliases", data, errs, "tokens")
	_, data, errs = post(fields(150, 0, func(i int) string { return fmt.Sprintf("a%d: __typename", i) }))
	limited("150 aliases", data, errs, "150 aliases")

	// Under every limit, the same document runs (and runs again from the
	// query cache).
	ok := fields(50, 0, func(i int) string { return fmt.Sprintf("a%d: __typename @include(if: true)", i) })
	for i := 0; i < 2; i++ {
		if _, data, errs = post(ok); !data || len(errs) != 0 {
			t.Errorf("50 aliases and directives: data %v errors %+v", data, errs)
		}
	}
}

func first(errs []gqlError) string {
	if len(errs) == 0 {
		return ""
	}
	return errs[0].Message
}
