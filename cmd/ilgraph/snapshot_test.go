package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/memstore"
)

// snapshotQueries are the questions whose answers a server that read its
// corpus from the snapshot file must give exactly as the server that built
// it: the dashboards and a list page (replicaQueries), similarity with the
// text channel and rarity, and the suggestion engine's terms and
// neighbours for an English and a Korean description.
var snapshotQueries = append(append([]struct{ name, query string }{}, replicaQueries...), []struct{ name, query string }{
	{"similar", `{ a: similarCases(caseId: "IL-0064", k: 10) { case { id } score shared { kind term { id } contribution } text { cosine contribution } }
	  b: similarCases(caseId: "IL-0206", k: 10, rarity: true) { case { id } score } }`},
	{"suggest", `{ en: suggest(text: "A certificate expired on the load balancer and every TLS handshake failed; the retry storm then overloaded the auth service", lang: "en") { lang rootCauses { term { id } confidence } components { term { id } confidence } symptoms { term { id } confidence } mechanisms { term { id } confidence } neighbours { case { id } score } }
	  ko: suggest(text: "인증서가 만료되어 로드 밸런서에서 TLS 핸드셰이크가 모두 실패했다") { lang rootCauses { term { id } confidence } components { term { id } confidence } neighbours { case { id } score } } }`},
	{"similarToText", `{ similarToText(text: "DNS resolution failed after a configuration push removed the records", k: 5) { profile { rootCause { id } } match { matches { case { id } score } } } }`},
}...)

// answers asks base every snapshot question.
func answers(t *testing.T, c *http.Client, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, q := range snapshotQueries {
		got, err := graphQL(c, base, q.query, nil)
		if err != nil {
			t.Fatalf("%s on %s: %v", q.name, base, err)
		}
		out[q.name] = string(got)
	}
	return out
}

func sameAnswers(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for _, q := range snapshotQueries {
		if got[q.name] != want[q.name] {
			t.Errorf("%s: %s:\ngot  %.400s\nwant %.400s", what, q.name, got[q.name], want[q.name])
		}
	}
}

// TestRestartReadsTheSnapshotFile runs ilgraph serve --snapshot-dir over
// one Neo4j as a restart would: a first server builds the corpus from the
// graph and writes the file; a second, started over the same graph and
// directory, reads the file instead of building (no build in its metrics)
// and answers every question byte for byte as the first. After a write
// through the first, a third reads the file — one version behind — and
// follows the change feed to the graph's version, again without a build,
// and answers as the first. A damaged file, and a file of another
// database (an emptied one loaded again has a new corpus id), are not
// read: the server builds from the graph and says why in its log.
func TestRestartReadsTheSnapshotFile(t *testing.T) {
	neo4jtest.MustOpen(t)
	ctx := context.Background()
	var errb bytes.Buffer
	tok := seedsAndEditor(t, "snapshot-writer")
	bin := buildBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, memstore.SnapshotFile)
	args := []string{"--rate-limit", "0", "--settle-after", "0", "--snapshot-dir", dir}
	client := &http.Client{Timeout: time.Minute}

	first := serveBinary(t, bin, neo4jEnv(), args...)
	waitMetric(t, client, first, "ilgraph_corpus_file_save_seconds", func(v float64) bool { return v > 0 })
	if n := metric(t, client, first, "ilgraph_corpus_file_loads_total"); n != 0 {
		t.Errorf("the first server read %v corpora from a file that did not exist", n)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the first server wrote no snapshot file: %v", err)
	}
	want := answers(t, client, first)

	t.Run("restart reads the file", func(t *testing.T) {
		second := serveBinary(t, bin, neo4jEnv(), args...)
		waitMetric(t, client, second, "ilgraph_corpus_file_loads_total", func(v float64) bool { return v == 1 })
		sameAnswers(t, "the server that read the file", answers(t, client, second), want)
		if n := metric(t, client, second, "ilgraph_corpus_builds_total"); n != 0 {
			t.Errorf("the server that read the file built its corpus %v times, want 0", n)
		}
		if v, w := metric(t, client, second, "ilgraph_corpus_version"), metric(t, client, first, "ilgraph_corpus_version"); v != w {
			t.Errorf("corpus version %v, the first server's %v", v, w)
		}
	})

	t.Run("a file one write behind follows the change feed", func(t *testing.T) {
		createCopy(t, client, first, tok, "IL-0206", "IL-9900")
		third := serveBinary(t, bin, neo4jEnv(), args...)
		waitMetric(t, client, third, "ilgraph_corpus_file_loads_total", func(v float64) bool { return v == 1 })
		got, err := graphQL(client, third, `{ case(id: "IL-9900") { id } similarCases(caseId: "IL-9900", k: 1) { case { id } } }`, nil)
		if want := `{"case":{"id":"IL-9900"},"similarCases":[{"case":{"id":"IL-0206"}}]}`; err != nil || string(got) != want {
			t.Errorf("the new case on the server that followed the feed: %s (%v), want %s", got, err, want)
		}
		sameAnswers(t, "the server that read the file and followed the feed", answers(t, client, third), answers(t, client, first))
		if n := metric(t, client, third, "ilgraph_corpus_builds_total"); n != 0 {
			t.Errorf("the server that followed the feed from the file built its corpus %v times, want 0", n)
		}
		if n := metric(t, client, third, "ilgraph_corpus_follows_total"); n < 1 {
			t.Errorf("the server read the change feed %v times, want 1", n)
		}
	})

	t.Run("a damaged file is not read", func(t *testing.T) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x40
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p := startServeArgs(t, bin, args...)
		p.waitLog(t, "in-memory corpus built")
		if !strings.Contains(p.stderr.String(), "the snapshot file is not used") {
			t.Errorf("the server did not say why it did not read the damaged file:\n%s", p.tail())
		}
		p.waitLog(t, "snapshot file written")
	})

	t.Run("a file of another database is not read", func(t *testing.T) {
		// The database emptied and loaded again up to the file's version,
		// by a load of one more case: the same corpus version, another
		// corpus id.
		db := neo4jtest.MustOpen(t)
		before := metric(t, client, first, "ilgraph_corpus_version")
		if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, &bytes.Buffer{}, &errb); code != exitOK {
			t.Fatalf("load: exit %d: %s", code, errb.String())
		}
		extra := t.TempDir()
		body := corpus.SeedJSON(t, "IL-0110")
		body["id"] = "IL-9901"
		data, _ := json.Marshal(body)
		if err := os.WriteFile(filepath.Join(extra, "IL-9901.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if code := run(ctx, []string{"load", "--quiet", filepath.Join(corpus.Seeds(t), "vocab.json"), extra}, &bytes.Buffer{}, &errb); code != exitOK {
			t.Fatalf("load: exit %d: %s", code, errb.String())
		}
		if v, err := db.CorpusVersion(ctx); err != nil || float64(v) != before {
			t.Fatalf("the reloaded graph is at version %d (%v), want the file's %v", v, err, before)
		}
		p := startServeArgs(t, bin, args...)
		p.waitLog(t, "in-memory corpus built")
		if log := p.stderr.String(); !strings.Contains(log, "written over another graph") {
			t.Errorf("the server did not say the file is of another database:\n%s", p.tail())
		}
		got, err := graphQL(client, "http://"+p.addr, `{ case(id: "IL-9901") { id } a: case(id: "IL-9900") { id } }`, nil)
		if want := `{"case":{"id":"IL-9901"},"a":null}`; err != nil || string(got) != want {
			t.Errorf("the server over the reloaded database: %s (%v), want %s", got, err, want)
		}
	})
}

// seedsAndEditor loads the seeds into the emptied test graph and returns
// a new editor token named name.
func seedsAndEditor(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	var errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, &bytes.Buffer{}, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	var tokOut bytes.Buffer
	if code := run(ctx, []string{"token", "create", "--name", name, "--role", "editor", "--expires", "1d"}, &tokOut, &errb); code != exitOK {
		t.Fatalf("token create: exit %d: %s", code, errb.String())
	}
	return strings.TrimSpace(tokOut.String())
}

// createCopy creates id, a copy of the seed case src, through base's JSON
// API with the token tok.
func createCopy(t *testing.T, client *http.Client, base, tok, src, id string) {
	t.Helper()
	body := corpus.SeedJSON(t, src)
	body["id"] = id
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+"/cases", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("creating %s (a copy of %s): %d %s", id, src, resp.StatusCode, answer)
	}
}

// startServeArgs is startServe on a free port with more arguments.
func startServeArgs(t *testing.T, bin string, args ...string) *servedProc {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return startServe(t, bin, fmt.Sprintf("127.0.0.1:%d", port), args...)
}
