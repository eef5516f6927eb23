package admission

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docName is how docs/operations.md writes a key of Classes.
func docName(key string) string {
	if name, ok := strings.CutPrefix(key, "Query."); ok {
		return name
	}
	if name, ok := strings.CutPrefix(key, "mcp "); ok {
		return name
	}
	return key
}

// The table of classes in docs/operations.md is Classes: every key in the
// row of its class, and nothing else there but the MCP methods that are
// not tools.
func TestDocsTableIsClasses(t *testing.T) {
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // class → its backticked names
	code := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(raw), "\n") {
		for cl := Class(0); cl < NumClasses; cl++ {
			if strings.HasPrefix(line, "| "+cl.String()+" | ") {
				if rows[cl.String()] != nil {
					t.Fatalf("docs/operations.md: two rows for %s", cl)
				}
				rows[cl.String()] = []string{}
				for _, m := range code.FindAllStringSubmatch(line, -1) {
					rows[cl.String()] = append(rows[cl.String()], m[1])
				}
			}
		}
	}
	if len(rows) != int(NumClasses) {
		t.Fatalf("docs/operations.md: rows for %d classes, want %d", len(rows), NumClasses)
	}
	names := map[string]string{} // doc name → class
	for key, cl := range Classes {
		names[docName(key)] = cl.String()
	}
	for key, cl := range Classes {
		n := 0
		for _, x := range rows[cl.String()] {
			if x == docName(key) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("docs/operations.md: the %s row names `%s` %d times, want once", cl, docName(key), n)
		}
	}
	for cl, xs := range rows {
		for _, x := range xs {
			if x == "initialize" || x == "tools/list" {
				continue
			}
			if got, ok := names[x]; !ok || got != cl {
				t.Errorf("docs/operations.md: the %s row names `%s`, which admission.Classes puts in %q", cl, x, got)
			}
		}
	}
}
