package relevance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

var inUse = []ilgraph.Judgment{
	{Query: "IL-0001", Match: "IL-0002", Judge: "alice", Grade: 2, Reason: "same broker"},
	{Query: "IL-0001", Match: "IL-0002", Judge: "bob", Grade: 1},
	{Query: "IL-0001", Match: "IL-0003", Judge: "alice", Grade: 0, Reason: "a different\tfailure"},
	{Query: "IL-0004", Match: "IL-0001", Judge: "carol", Grade: 2},
	{Query: "IL-0004", Match: "IL-0005", Judge: "alice", Grade: 0},
	{Query: "IL-0004", Match: "IL-0005", Judge: "bob", Grade: 1},
	{Query: "IL-0004", Match: "IL-0005", Judge: "carol", Grade: 2},
}

func TestWriteTSVIsAJudgedSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inuse.tsv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := WriteTSV(f, inUse)
	f.Close()
	if err != nil || n != 4 {
		t.Fatalf("WriteTSV: %d pairs, %v; want 4", n, err)
	}
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")[1:]
	want := []string{
		"IL-0001\tIL-0002\t1\talice: same broker", // lower median of 1, 2
		"IL-0001\tIL-0003\t0\talice: a different failure",
		"IL-0004\tIL-0001\t2\t",
		"IL-0004\tIL-0005\t1\t", // median of 0, 1, 2
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	s, err := ReadSet(path)
	if err != nil {
		t.Fatalf("the exported file does not read as a judged set: %v", err)
	}
	for _, tc := range []struct {
		q, c string
		g    float64
	}{{"IL-0001", "IL-0002", 1}, {"IL-0001", "IL-0003", 0}, {"IL-0004", "IL-0001", 2}, {"IL-0004", "IL-0005", 1}} {
		if g, ok := s.Grade(tc.q, tc.c); !ok || g != tc.g {
			t.Errorf("%s–%s: got %v (judged %v), want %v", tc.q, tc.c, g, ok, tc.g)
		}
	}
}

func TestFromJudgmentsAveragesJudges(t *testing.T) {
	s := FromJudgments("in-use", inUse)
	if got := strings.Join(s.Queries, ","); got != "IL-0001,IL-0004" || s.Pairs() != 4 || s.Judge != JudgedInUse {
		t.Errorf("queries %s, %d pairs, judge %q", got, s.Pairs(), s.Judge)
	}
	for _, tc := range []struct {
		q, c string
		g    float64
	}{{"IL-0001", "IL-0002", 1.5}, {"IL-0001", "IL-0003", 0}, {"IL-0004", "IL-0005", 1}} {
		if g, _ := s.Grade(tc.q, tc.c); g != tc.g {
			t.Errorf("%s–%s: got %v, want %v", tc.q, tc.c, g, tc.g)
		}
	}
}
