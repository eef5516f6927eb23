package main

// The fault tests (faults_test.go, build tag faults) stop and SIGKILL the
// Neo4j they run against. Before they do, guardNeo4j checks that the
// server they are about to stop is the one their control script started:
// when another server already answered on the port, scripts/neo4j reuses
// it and records no process of its own, the stop and the kill then act on
// nothing, and a fault test would fail for the wrong reason ("the load
// succeeded although Neo4j was killed under it") — or, worse, pass. This
// file has no build tag, so that the guard's own test runs with the rest.

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// boltPort is the port of a Bolt URI, 7687 when it names none.
func boltPort(uri string) (int, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return 0, fmt.Errorf("NEO4J_URI=%q: not a URI with a host", uri)
	}
	if u.Port() == "" {
		return 7687, nil
	}
	return strconv.Atoi(u.Port())
}

// checkOwnNeo4j: the process listening on TCP port port is started (0: the
// control script recorded none running).
func checkOwnNeo4j(port, started int) error {
	pid, listening, err := listenerPID(port)
	if err != nil {
		return err
	}
	ours := fmt.Sprintf("pid %d", started)
	if started == 0 {
		ours = "none: its control script recorded no running server, so it reused one it found"
	}
	switch {
	case !listening:
		return fmt.Errorf("nothing listens on port %d: the Neo4j this test started (%s) does not serve it", port, ours)
	case pid == 0:
		return fmt.Errorf("another Neo4j answers on port %d (a process this user cannot see), not the one this test started (%s); stop it, or give the fault tests ports of their own (ILGRAPH_FAULTS_CTL)", port, ours)
	case pid != started:
		return fmt.Errorf("another Neo4j answers on port %d (pid %d), not the one this test started (%s); stop it, or give the fault tests ports of their own (ILGRAPH_FAULTS_CTL)", port, pid, ours)
	}
	return nil
}

// listenerPID finds the process with a TCP socket listening on port, from
// /proc (Linux): the socket's inode in /proc/net/tcp and tcp6, then the
// process holding it among /proc/*/fd. listening is false when no socket
// listens on port; pid is 0 when one does but no process this user can
// read holds it.
func listenerPID(port int) (pid int, listening bool, err error) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			if os.IsNotExist(err) && table == "/proc/net/tcp6" {
				continue
			}
			return 0, false, fmt.Errorf("finding who listens on port %d: %v (the fault tests need Linux's /proc)", port, err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0, false, nil
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, proc := range procs {
		fds, err := os.ReadDir(filepath.Join(proc, "fd"))
		if err != nil {
			continue // another user's, or gone
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(proc, "fd", fd.Name())); err == nil && inodes[link] {
				pid, _ := strconv.Atoi(filepath.Base(proc))
				return pid, true, nil
			}
		}
	}
	return 0, true, nil
}

// freePort is a TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// TestFaultGuard: the guard of the fault tests against listeners it did
// not start. A process of its own — a child that listens on a free port,
// as a Neo4j started by someone else would — is refused with a message
// naming the port and both pids; so is a listener when the control script
// recorded no server; a port nothing listens on is refused too; and the
// process that does listen passes.
func TestFaultGuard(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the guard reads Linux's /proc, as the fault tests' control scripts do")
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	// A foreign listener: a process this test did not record as its Neo4j.
	// The test binary itself, run as a child that only listens.
	foreign := exec.Command(os.Args[0], "-test.run=^TestFaultGuardListener$")
	foreign.Env = append(os.Environ(), fmt.Sprintf("ILGRAPH_GUARD_LISTEN=127.0.0.1:%d", port))
	stdout, err := foreign.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := foreign.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { foreign.Process.Kill(); foreign.Wait() }()
	buf := make([]byte, 9)
	if n, err := stdout.Read(buf); err != nil || string(buf[:n]) != "listening" {
		t.Fatalf("the foreign listener did not start: %q %v", buf[:n], err)
	}
	fpid := foreign.Process.Pid

	// The server the test "started" is this process; the port is the child's.
	err = checkOwnNeo4j(port, os.Getpid())
	want := fmt.Sprintf("another Neo4j answers on port %d (pid %d), not the one this test started (pid %d)", port, fpid, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a foreign listener: %v; want %q", err, want)
	}
	err = checkOwnNeo4j(port, 0)
	want = fmt.Sprintf("another Neo4j answers on port %d (pid %d), not the one this test started (none: its control script recorded no running server", port, fpid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a listener when the script recorded none: %v; want %q", err, want)
	}
	if err := checkOwnNeo4j(port, fpid); err != nil {
		t.Errorf("the listener it recorded: %v", err)
	}

	// A listener of this process, found as such (IPv6 too when there is one).
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		p := ln.Addr().(*net.TCPAddr).Port
		if err := checkOwnNeo4j(p, os.Getpid()); err != nil {
			t.Errorf("its own listener on %s: %v", ln.Addr(), err)
		}
		ln.Close()
		want := fmt.Sprintf("nothing listens on port %d: the Neo4j this test started (pid %d) does not serve it", p, os.Getpid())
		if err := checkOwnNeo4j(p, os.Getpid()); err == nil || err.Error() != want {
			t.Errorf("a closed port: %v; want %q", err, want)
		}
	}
	for uri, want := range map[string]int{"bolt://127.0.0.1:7711": 7711, "neo4j://localhost": 7687, "bolt://[::1]:7690": 7690} {
		if got, err := boltPort(uri); err != nil || got != want {
			t.Errorf("boltPort(%q) = %d, %v; want %d", uri, got, err, want)
		}
	}
}

// TestFaultGuardListener is the foreign listener of TestFaultGuard when run
// as its child; otherwise it does nothing.
func TestFaultGuardListener(t *testing.T) {
	addr := os.Getenv("ILGRAPH_GUARD_LISTEN")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fmt.Print("listening")
	os.Stdout.Sync()
	time.Sleep(10 * time.Minute) // until killed
}
