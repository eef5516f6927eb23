package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestEndToEnd drives the binary's run function as a user would: load the
// seeds, refuse an invalid file, serve the API, answer a query, shut down.
func TestEndToEnd(t *testing.T) {
	neo4jtest.MustOpen(t) // an empty graph
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))

	var out, errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", seeds}, &out, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	if want := regexp.MustCompile(`^loaded \d+ cases from \d+ files \(\d+ new`); !want.MatchString(out.String()) {
		t.Errorf("load summary: %q", out.String())
	}

	t.Run("invalid input exits 3 and names the field", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"id":"ILG-9999","org":"E","org_slug":"e","date":"2024-02-30","title":{"en":"t"},"summary":{"en":"s"},"root_cause":"capacity"}`), 0o644)
		var out, errb bytes.Buffer
		code := run(ctx, []string{"load", dir}, &out, &errb)
		if code != exitInvalid || !strings.Contains(errb.String(), `x.json:1: case ILG-9999: field "date"`) {
			t.Errorf("got exit %d, stderr %q", code, errb.String())
		}
	})
	t.Run("check validates and writes nothing", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "new.json"), []byte(`{"id":"ILG-9998","org":"E","org_slug":"e","date":"2024-02-03","title":{"en":"t"},"summary":{"en":"s"},"root_cause":"capacity"}`), 0o644)
		var out, errb bytes.Buffer
		if code := run(ctx, []string{"load", "--check", dir}, &out, &errb); code != exitOK || !strings.HasPrefix(out.String(), "checked 1 files: 1 valid cases") {
			t.Errorf("got exit %d, %q %q", code, out.String(), errb.String())
		}
		out.Reset()
		if code := run(ctx, []string{"similar", "ILG-9998"}, &out, &errb); code != exitFailure {
			t.Errorf("a checked case was written: similar exit %d", code)
		}
	})
	t.Run("similar prints JSON", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(ctx, []string{"similar", "IL-0384", "--k", "3", "--json"}, &out, &errb); code != exitOK {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var list struct {
			Matches []struct {
				Case   struct{ ID string } `json:"case"`
				Score  float64             `json:"score"`
				Shared []struct {
					Kind, ID     string
					Contribution float64
				} `json:"shared"`
			} `json:"matches"`
		}
		err := json.Unmarshal(out.Bytes(), &list)
		got := list.Matches
		if err != nil || len(got) != 3 || got[0].Score <= 0 || len(got[0].Shared) == 0 {
			t.Errorf("similar --json: %v %s", err, out.String())
		}
	})
	t.Run("usage errors exit 2", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(ctx, []string{"load"}, &out, &errb); code != exitUsage {
			t.Errorf("load without paths: exit %d", code)
		}
		if code := run(ctx, []string{"frobnicate"}, &out, &errb); code != exitUsage {
			t.Errorf("unknown command: exit %d", code)
		}
		if code := run(ctx, []string{"serve", "--help"}, &out, &errb); code != exitOK || !strings.Contains(errb.String(), "--addr") {
			t.Errorf("serve --help: exit %d, %q", code, errb.String())
		}
	})

	sctx, stop := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(sctx, []string{"serve", "--addr", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v", err)
	}
	go io.Copy(io.Discard, pr)
	base := regexp.MustCompile(`http://[0-9.:]+`).FindString(line)
	if base == "" {
		t.Fatalf("no address in %q", line)
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readyz: %v %v", resp, err)
	}
	body := `{"query":"{ cases(first: 1) { totalCount } case(id: \"IL-0384\") { id rootCause { id } } }"}`
	resp, err = http.Post(base+"/graphql", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Data struct {
			Cases struct{ TotalCount int }
			Case  struct {
				ID        string
				RootCause struct{ ID string }
			}
		}
	}
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if got.Data.Cases.TotalCount != len(cases) || got.Data.Case.ID != "IL-0384" || got.Data.Case.RootCause.ID != "capacity" {
		t.Errorf("got %+v, want %d cases and IL-0384 rooted in capacity", got.Data, len(cases))
	}
	// Graceful shutdown: a request in flight when the signal comes (here:
	// its body half sent) is still answered, and only then does serve exit.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := `{"query":"{ case(id: \"IL-0384\") { id } }"}`
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(q), q[:10])
	time.Sleep(200 * time.Millisecond)
	stop() // what SIGTERM does
	select {
	case code := <-done:
		t.Fatalf("serve exited (%d) with a request in flight", code)
	case <-time.After(500 * time.Millisecond):
	}
	io.WriteString(conn, q[10:])
	resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v", err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(answer), `"IL-0384"`) {
		t.Errorf("the request in flight: HTTP %d %s", resp.StatusCode, answer)
	}
	conn.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d after shutdown", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
