package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeGo is a `go` that fails its first calls as a fuzz run can (mode
// flake-once: the first call ends with the engine's deadline race;
// flake-twice: the first two do; crash: the first writes a failing input),
// and passes the others, counting its calls in $COUNT.
const fakeGo = `#!/bin/sh
n=$(cat "$COUNT" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNT"
case "$FAKE_MODE" in
flake-once) if [ $n -eq 1 ]; then echo "--- FAIL: FuzzX (15.02s)"; echo "    context deadline exceeded"; exit 1; fi ;;
flake-twice) if [ $n -le 2 ]; then echo "--- FAIL: FuzzX (15.02s)"; echo "    context deadline exceeded"; exit 1; fi ;;
crash) if [ $n -eq 1 ]; then echo "Failing input written to testdata/fuzz/FuzzX/0123"; echo "    context deadline exceeded"; exit 1; fi ;;
esac
echo PASS
`

// TestFuzzRetriesOnlyTheDeadlineRace: scripts/fuzz runs a target again
// only when it failed with the fuzzing engine's deadline race and wrote no
// failing input, and only once.
func TestFuzzRetriesOnlyTheDeadlineRace(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	targets, err := exec.Command("git", "-C", root, "grep", "-h", "^func Fuzz", "--", "*_test.go").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(targets), "func Fuzz")
	if n == 0 {
		t.Fatal("no fuzz targets found")
	}
	for _, tc := range []struct {
		mode  string
		ok    bool
		calls int
	}{
		{"none", true, n},
		{"flake-once", true, n + 1},
		{"flake-twice", false, 2},
		{"crash", false, 1},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			bin := t.TempDir()
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
				t.Fatal(err)
			}
			count := filepath.Join(bin, "count")
			cmd := exec.Command(filepath.Join(root, "scripts", "fuzz"))
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "COUNT="+count, "FAKE_MODE="+tc.mode, "FUZZTIME=1s")
			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.ok {
				t.Fatalf("exit %v, want success %v\n%s", err, tc.ok, out)
			}
			b, _ := os.ReadFile(count)
			if got, _ := strconv.Atoi(strings.TrimSpace(string(b))); got != tc.calls {
				t.Errorf("go ran %d times, want %d\n%s", got, tc.calls, out)
			}
			retried := strings.Count(string(out), "running it once more")
			if want := map[string]int{"flake-once": 1, "flake-twice": 1}[tc.mode]; retried != want {
				t.Errorf("%d retries announced, want %d\n%s", retried, want, out)
			}
		})
	}
}
