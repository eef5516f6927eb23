// Package scripts_test checks the scripts a newcomer runs (make run, and the
// local Neo4j runner scripts/neo4j) the way a newcomer runs them: from a
// fresh clone, on ports of their choosing.
//
// None of these tests uses the test Neo4j (scripts/neo4j-test) or its lock:
// TestMakeRunOnChosenPorts runs a Neo4j of its own, in its clone, on free
// ports, so it can run beside every other test package.
package scripts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestMakeRunOnChosenPorts clones the repository at its current commit (so
// it tests what is committed, nothing else), runs `make run` there with
// NEO4J_URI, NEO4J_HTTP_PORT and ILGRAPH_ADDR on free ports, and checks that
// the clone's own Neo4j answers on exactly those ports, that the API serves
// every case of seeds/, and that scripts/neo4j stop stops that Neo4j.
//
// The Neo4j server jars (about 120 MB) come from ILGRAPH_NEO4J_LIB when it
// is set, else from this checkout's .neo4j/lib (where scripts/neo4j and
// scripts/neo4j-test keep them): the clone's scripts/neo4j fills that
// directory with Maven when it is not complete yet, so a fresh machine
// downloads them once. Without Java, Maven (when the jars are missing), git
// or make it skips, except under CI=true, where it fails.
func TestMakeRunOnChosenPorts(t *testing.T) {
	root := corpus.Root(t)
	for _, tool := range []string{"git", "make", "go", "java"} {
		needTool(t, tool)
	}
	lib := os.Getenv("ILGRAPH_NEO4J_LIB")
	if lib == "" {
		lib = filepath.Join(root, ".neo4j", "lib")
	}
	if _, err := os.Stat(filepath.Join(lib, ".complete")); err != nil {
		needTool(t, "mvn") // scripts/neo4j resolves the jars with Maven
	}
	commit, err := output(root, nil, "git", "rev-parse", "HEAD")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not a git checkout (CI=true): %v", root, err)
		}
		t.Skipf("%s is not a git checkout, so there is no commit to clone: %v", root, err)
	}
	commit = strings.TrimSpace(commit)
	if dirty, _ := output(root, nil, "git", "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		t.Logf("uncommitted changes are not part of this test; the clone is at commit %s:\n%s", commit, dirty)
	}

	clone := filepath.Join(t.TempDir(), "ilgraph")
	mustRun(t, root, nil, "git", "clone", "--quiet", "--no-hardlinks", root, clone)
	mustRun(t, clone, nil, "git", "checkout", "--quiet", "--detach", commit)

	ports := freePorts(t, 3)
	boltPort, httpPort, apiPort := ports[0], ports[1], ports[2]
	boltURI := fmt.Sprintf("bolt://127.0.0.1:%d", boltPort)
	api := fmt.Sprintf("http://127.0.0.1:%d", apiPort)
	env := newcomerEnv(map[string]string{
		"NEO4J_URI":         boltURI,
		"NEO4J_HTTP_PORT":   strconv.Itoa(httpPort),
		"ILGRAPH_ADDR":      fmt.Sprintf("127.0.0.1:%d", apiPort),
		"ILGRAPH_NEO4J_LIB": lib,
		// Modest memory: this Neo4j runs beside the test Neo4j and the other
		// test binaries of go test ./....
		"NEO4J_HEAP":      "1g",
		"NEO4J_PAGECACHE": "256m",
	})
	t.Logf("make run in %s: NEO4J_URI=%s NEO4J_HTTP_PORT=%d ILGRAPH_ADDR=127.0.0.1:%d", clone, boltURI, httpPort, apiPort)

	var out syncBuffer
	cmd := exec.Command("make", "run")
	cmd.Dir = clone
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group, so that make, scripts/run and the server it
	// execs stop together; scripts/neo4j starts Neo4j in a session of its
	// own, which only scripts/neo4j stop ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stopServer := func() {
		if stopped {
			return
		}
		stopped = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	// Whatever happens below, the server and the clone's Neo4j stop before
	// t.TempDir removes the clone.
	t.Cleanup(func() {
		stopServer()
		if msg, err := output(clone, env, "scripts/neo4j", "stop"); err != nil {
			t.Errorf("scripts/neo4j stop in the clone: %v\n%s", err, msg)
		}
	})

	// Start-up: the jars (copied once), go build, Neo4j (20-40 s), the load.
	deadline := time.Now().Add(8 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-time.Minute).Before(deadline) {
		deadline = d.Add(-time.Minute)
	}
	for {
		if status, _, err := get(api + "/readyz"); err == nil && status == http.StatusOK {
			break
		}
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("make run exited before /readyz answered 200 (%v):\n%s", err, out.String())
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz did not answer 200 by %s:\n%s", deadline.Format(time.TimeOnly), out.String())
		}
	}

	// Every case of the clone's seeds/, counted from its files here.
	want := countSeedCases(t, filepath.Join(clone, "seeds"))
	var stats struct {
		Data struct {
			Stats struct {
				Cases int `json:"cases"`
			} `json:"stats"`
		} `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	body, _ := json.Marshal(map[string]string{"query": "{ stats { cases } }"})
	resp, err := http.Post(api+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("POST /graphql: %v", err)
	}
	if len(stats.Errors) > 0 || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /graphql { stats { cases } }: HTTP %d, errors %s", resp.StatusCode, stats.Errors)
	}
	if stats.Data.Stats.Cases != want {
		t.Errorf("stats.cases = %d after make run, want the %d cases of seeds/", stats.Data.Stats.Cases, want)
	}

	// The Neo4j that answers is the clone's, on the chosen ports: Bolt
	// answers there, and the server on the chosen HTTP port advertises that
	// Bolt address.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	db, err := graph.Open(ctx, graph.Config{URI: boltURI})
	cancel()
	if err != nil {
		t.Errorf("Bolt on the chosen port %d: %v", boltPort, err)
	} else {
		db.Close()
	}
	status, discovery, err := get(fmt.Sprintf("http://127.0.0.1:%d/", httpPort))
	if err != nil || status != http.StatusOK {
		t.Errorf("Neo4j's HTTP port %d: HTTP %d, %v", httpPort, status, err)
	} else {
		var d struct {
			BoltDirect string `json:"bolt_direct"`
		}
		if err := json.Unmarshal(discovery, &d); err != nil || d.BoltDirect != boltURI {
			t.Errorf("Neo4j on HTTP port %d advertises Bolt %q (%v), want %q", httpPort, d.BoltDirect, err, boltURI)
		}
	}
	pid := neo4jPID(t, clone)
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil ||
		!bytes.Contains(cmdline, []byte("--home-dir="+filepath.Join(clone, ".neo4j", "home"))) {
		t.Errorf("pid %d from the clone's .neo4j/neo4j.pid is not a Neo4j with its home in the clone (%v)", pid, err)
	}

	// Stop the server, then the clone's Neo4j with the same settings.
	stopServer()
	if msg, err := output(clone, env, "scripts/neo4j", "stop"); err != nil {
		t.Fatalf("scripts/neo4j stop in the clone: %v\n%s", err, msg)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", boltPort), time.Second); err == nil {
		c.Close()
		t.Errorf("something still answers on Bolt port %d after scripts/neo4j stop", boltPort)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("Neo4j (pid %d) is still there after scripts/neo4j stop (%v)", pid, err)
	}
}

// TestNeo4jSettings checks what scripts/neo4j makes of the settings, without
// starting anything: the defaults make run uses with nothing set, a chosen
// port on each loopback name, another machine, and settings it refuses with
// a message naming the variable.
func TestNeo4jSettings(t *testing.T) {
	root := corpus.Root(t)
	script := filepath.Join(root, "scripts", "neo4j")
	cases := []struct {
		env       map[string]string
		want      []string // lines of the output
		wantError string   // part of the message when it refuses
	}{
		{env: nil, want: []string{
			"uri bolt://127.0.0.1:7687", "bolt 127.0.0.1:7687", "http 127.0.0.1:7474",
			"dir " + filepath.Join(root, ".neo4j"), "lib " + filepath.Join(root, ".neo4j", "lib"), "start auto"}},
		{env: map[string]string{"NEO4J_URI": "bolt://127.0.0.1:7787", "NEO4J_HTTP_PORT": "7575"},
			want: []string{"bolt 127.0.0.1:7787", "http 127.0.0.1:7575"}},
		{env: map[string]string{"NEO4J_URI": "neo4j://localhost:7790/?policy=x"},
			want: []string{"bolt 127.0.0.1:7790", "http 127.0.0.1:7474"}},
		{env: map[string]string{"NEO4J_URI": "bolt://localhost"}, want: []string{"bolt 127.0.0.1:7687"}},
		{env: map[string]string{"NEO4J_URI": "bolt://[::1]:7791", "NEO4J_HTTP_PORT": "7576"},
			want: []string{"bolt [::1]:7791", "http [::1]:7576"}},
		{env: map[string]string{"NEO4J_URI": "neo4j+s://db.example.com:7687", "ILGRAPH_NEO4J_START": "never"},
			want: []string{"bolt none: db.example.com is another machine", "start never"}},
		{env: map[string]string{"ILGRAPH_NEO4J_DIR": "/srv/n", "ILGRAPH_NEO4J_LIB": "/srv/lib"},
			want: []string{"dir /srv/n", "lib /srv/lib"}},
		{env: map[string]string{"NEO4J_URI": "bolt://127.0.0.1:x7687"}, wantError: "NEO4J_URI=bolt://127.0.0.1:x7687: the port 'x7687'"},
		{env: map[string]string{"NEO4J_URI": "bolt://127.0.0.1:70000"}, wantError: "the port '70000' is not a number from 1 to 65535"},
		{env: map[string]string{"NEO4J_HTTP_PORT": "http"}, wantError: "NEO4J_HTTP_PORT=http: not a number"},
		{env: map[string]string{"NEO4J_URI": "bolt://127.0.0.1:7474"}, wantError: "NEO4J_HTTP_PORT=7474 is the Bolt port"},
	}
	for _, c := range cases {
		name := fmt.Sprint(c.env)
		msg, err := output(root, newcomerEnv(c.env), script, "settings")
		if c.wantError != "" {
			if err == nil || !strings.Contains(msg, c.wantError) {
				t.Errorf("%s: %v, output %q; want a refusal saying %q", name, err, msg, c.wantError)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, msg)
			continue
		}
		lines := strings.Split(strings.TrimSpace(msg), "\n")
		for _, w := range c.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%s: no line %q in\n%s", name, w, msg)
			}
		}
	}
}

// TestEnsureStartsNothingElsewhere checks that make run's step
// `scripts/neo4j ensure` starts nothing (and writes no data directory) for a
// NEO4J_URI naming another machine, or with ILGRAPH_NEO4J_START=never, and
// refuses a start mode it does not know. The ports are free ones, and the
// jar directory is empty, so that a wrong start could not reach a real
// server or start one.
func TestEnsureStartsNothingElsewhere(t *testing.T) {
	root := corpus.Root(t)
	script := filepath.Join(root, "scripts", "neo4j")
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, ".complete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	for _, c := range []struct {
		uri, mode string
		want      string
		fails     bool
	}{
		{uri: fmt.Sprintf("bolt://db.example.com:%d", ports[0]), want: "not this machine: not starting"},
		{uri: fmt.Sprintf("bolt://127.0.0.1:%d", ports[0]), mode: "never", want: "ILGRAPH_NEO4J_START=never: not starting"},
		{uri: fmt.Sprintf("bolt://127.0.0.1:%d", ports[0]), mode: "always", want: "ILGRAPH_NEO4J_START=always: want auto", fails: true},
	} {
		dir := filepath.Join(t.TempDir(), "neo4j")
		env := newcomerEnv(map[string]string{
			"NEO4J_URI": c.uri, "NEO4J_HTTP_PORT": strconv.Itoa(ports[1]), "ILGRAPH_NEO4J_START": c.mode,
			"ILGRAPH_NEO4J_DIR": dir, "ILGRAPH_NEO4J_LIB": lib,
		})
		msg, err := output(root, env, script, "ensure")
		if (err != nil) != c.fails || !strings.Contains(msg, c.want) {
			t.Errorf("NEO4J_URI=%s ILGRAPH_NEO4J_START=%s scripts/neo4j ensure: %v, %q; want failure %v and %q", c.uri, c.mode, err, msg, c.fails, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("NEO4J_URI=%s ILGRAPH_NEO4J_START=%s: ensure created %s (%v)", c.uri, c.mode, dir, err)
		}
	}
}

// TestEveryScriptSettingIsDocumented checks that every environment variable
// the scripts behind make read (scripts/*, .ci/run, the Makefile) has a row
// in README.md's settings table.
func TestEveryScriptSettingIsDocumented(t *testing.T) {
	root := corpus.Root(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Settings\n")
	if !ok {
		t.Fatal(`README.md has no "## Settings" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z][A-Z0-9_]*)` \\|").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	if len(documented) == 0 {
		t.Fatal("no rows in README.md's settings table")
	}
	// Names that are not settings: bash's own, and the Makefile's own
	// variables (set with a plain "=", such as the list of generated
	// directories or a linter's pinned version; a setting is "?=").
	notSettings := map[string]bool{"BASH_SOURCE": true, "PWD": true}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*) = `).FindAllStringSubmatch(string(makefile), -1) {
		notSettings[m[1]] = true
	}
	files := []string{filepath.Join(root, ".ci", "run"), filepath.Join(root, "Makefile")}
	entries, err := os.ReadDir(filepath.Join(root, "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && filepath.Ext(e.Name()) == "" {
			files = append(files, filepath.Join(root, "scripts", e.Name()))
		}
	}
	read := regexp.MustCompile(`\$\$?\{?([A-Z][A-Z0-9_]*)|\$\(([A-Z][A-Z0-9_]*)\)`)
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(data), -1) {
			name := m[1] + m[2]
			if notSettings[name] {
				continue
			}
			seen++
			if !documented[name] {
				t.Errorf("%s reads %s, which README.md's settings table does not list", filepath.Base(f), name)
				documented[name] = true // once
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no variable read in the scripts: the pattern is wrong")
	}
}

// needTool skips the test when a program is missing, except under CI=true,
// where it fails: CI must never pass by skipping.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required (CI=true): make run needs Go, Java 17, Maven, git and make", name)
	}
	t.Skipf("%s is not installed; make run needs Go, Java 17, Maven, git and make (under CI=true this fails instead)", name)
}

// newcomerEnv is this process's environment without any of the settings
// (NEO4J_*, ILGRAPH_*: make test sets the test server's) or make's job
// server variables, plus set; an empty value in set leaves the variable out.
func newcomerEnv(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "NEO4J_") || strings.HasPrefix(k, "ILGRAPH_") ||
			k == "MAKEFLAGS" || k == "MAKELEVEL" || k == "MFLAGS" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range set {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// freePorts returns n distinct loopback ports that nothing listens on now,
// none of them a port of the servers make run and make test use by default.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	taken := map[int]bool{7474: true, 7475: true, 7687: true, 7688: true, 8080: true}
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
		p := l.Addr().(*net.TCPAddr).Port
		if !taken[p] {
			taken[p] = true
			ports = append(ports, p)
		}
	}
	return ports
}

// countSeedCases counts the distinct case ids in the files ilgraph load
// reads from dir: *.json (one case or an array; vocab.json is the
// vocabulary), *.jsonl and *.ndjson (one case a line).
func countSeedCases(t *testing.T, dir string) int {
	t.Helper()
	ids := map[string]bool{}
	add := func(path string, raw []byte) {
		var c struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &c); err != nil || c.ID == "" {
			t.Fatalf("%s: not a case with an id: %v", path, err)
		}
		ids[c.ID] = true
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(path)
		if (ext != ".json" && ext != ".jsonl" && ext != ".ndjson") || d.Name() == "vocab.json" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if ext != ".json" {
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					add(path, line)
				}
			}
			return nil
		}
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
			var list []json.RawMessage
			if err := json.Unmarshal(trimmed, &list); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for _, raw := range list {
				add(path, raw)
			}
			return nil
		}
		add(path, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Fatalf("no case in %s", dir)
	}
	return len(ids)
}

// neo4jPID reads the pid scripts/neo4j wrote for the clone's Neo4j.
func neo4jPID(t *testing.T, clone string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(clone, ".neo4j", "neo4j.pid"))
	if err != nil {
		t.Fatalf("the clone's Neo4j pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("the clone's .neo4j/neo4j.pid: %v", err)
	}
	return pid
}

func get(url string) (int, []byte, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes(), err
}

// output runs a command in dir (env nil: this process's) and returns its
// combined output.
func output(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	if out, err := output(dir, env, name, args...); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// syncBuffer collects the output of make run, written by two pipes' copiers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
