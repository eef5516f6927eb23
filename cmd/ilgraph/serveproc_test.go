package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// servedProc is one ilgraph serve process.
type servedProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *lockedBuffer
	exited chan struct{}
	err    error // its exit, once exited is closed
}

// startServe runs ilgraph serve on addr (without the rate limit, the
// explorer and the IDE) and waits until /readyz answers ready; the test's
// end kills it if it still runs.
func startServe(t *testing.T, bin, addr string, args ...string) *servedProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--rate-limit", "0", "--explorer=false", "--ide=false", "--shutdown-grace", "15s"}, args...)...)
	cmd.Env = append(os.Environ(), neo4jEnv()...)
	p := &servedProc{cmd: cmd, addr: addr, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		if r, err := http.Get("http://" + addr + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("ilgraph serve on %s exited at start: %v\n%s", addr, p.err, p.tail())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("ilgraph serve on %s not ready in 90 s:\n%s", addr, p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLog waits until the server has logged msg.
func (p *servedProc) waitLog(t *testing.T, msg string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(p.stderr.String(), msg) {
		if time.Now().After(deadline) {
			t.Fatalf("ilgraph serve did not log %q in 90 s:\n%s", msg, p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *servedProc) tail() string {
	s := p.stderr.String()
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
