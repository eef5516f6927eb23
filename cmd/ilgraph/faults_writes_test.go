//go:build faults

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/resolvers"
)

// What became of one write a writer sent.
const (
	acked   = "acknowledged" // 200/201 with its revision
	refused = "refused"      // 409/404/400: the server said it changed nothing
	unknown = "unknown"      // an error or no answer: it may or may not have happened
)

// writeAttempt is one write a writer of TestWritesAcrossNeo4jKill sent.
// Its name is the principal it was sent as, so the revision it made (if
// any) names it in `by`.
type writeAttempt struct {
	name, id   string
	op         string // create, update, delete, restore; stale: an update at a version the case is not at
	expect     int64  // the version the writer believed the case was at (for a create: its last, 0 if none)
	from       int64  // a restore's version
	body       string // a create's or update's case, compact
	outcome    string
	ackVersion int64
	answer     string // the status and body, or the transport error
	afterKill  bool
}

func (a *writeAttempt) String() string {
	return fmt.Sprintf("%s (%s of %s at version %d, %s)", a.name, a.op, a.id, a.expect, a.outcome)
}

// attemptCredential is a test credential that makes every request an
// editor named by its X-Faults-Attempt header.
type attemptCredential struct{}

func (attemptCredential) Present(*http.Request) bool { return true }

func (attemptCredential) Principal(r *http.Request) (ilgraph.Principal, error) {
	name := r.Header.Get("X-Faults-Attempt")
	if name == "" {
		name = "faults-reader"
	}
	return ilgraph.Principal{Name: name, Role: ilgraph.RoleEditor}, nil
}

// TestWritesAcrossNeo4jKill has 16 writers change cases of their own
// through the JSON API — creates, updates, deletes, restores, and updates
// at a stale version — with If-Match, while Neo4j is SIGKILLed under them
// and started again. Each writer records what every write was answered:
// acknowledged, refused, or unknown (an error, or no answer). Afterwards,
// read straight from Neo4j with Cypher of the test's own:
//
//   - every acknowledged write is in its case's history at the version it
//     was answered, every refused one is not, and no write is there twice;
//   - each case's history is versions 1..n, no gap, no duplicate; each
//     revision's previous JSON is the one before's; the case is at version
//     n with the last revision's JSON (absent after a delete);
//   - so a write with an unknown answer is whole or absent: never a
//     revision without its case change, nor a case change without its
//     revision;
//   - every case's tag, organization and link relationships are exactly
//     its JSON's, and no organization is left without a case;
//   - the corpus version moved by exactly the number of revisions (one per
//     committed write), never below what it was before the kill;
//
// and the same server, across the restart, answers every case by id, its
// history, and the case lists (from its in-memory store, rebuilt) as Neo4j
// holds them.
func TestWritesAcrossNeo4jKill(t *testing.T) {
	const (
		writers       = 16
		casesEach     = 3
		ackedBefore   = 64 // acknowledged writes before the kill
		ackedAfterPer = 1  // each writer's acknowledged writes after the restart
	)
	began := time.Now()
	neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	cfg := graph.ConfigFromEnv()
	// As ilgraph serve sets them by default.
	cfg.RetryTime, cfg.FailFast, cfg.ConnectTimeout, cfg.AcquireTimeout = 2*time.Second, time.Second, 2*time.Second, 3*time.Second
	db, err := graph.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mem := newInMemory(db, false)
	core := coreOver(db, mem)
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quietLogger()})
	h := apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quietLogger()}, NoIDE: true, Shell: httpapi.Options{
		Routes: apitest.JSONAPI(nil, api), Credentials: []httpapi.Credential{attemptCredential{}},
		Ready: db.Ping, StoreDown: db.Down}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Timeout: 20 * time.Second}

	templates := writeTemplates(t, db)
	seedsBefore := map[string]string{}
	if err := db.EachCaseJSON(ctx, func(c graph.StoredCase) error { seedsBefore[c.ID] = c.JSON; return nil }); err != nil {
		t.Fatal(err)
	}
	corpus0, err := db.CorpusVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.src.Get(ctx); err != nil { // the store answers from the start
		t.Fatal(err)
	}

	setUp := time.Since(began)
	var (
		mu          sync.Mutex
		attempts    []*writeAttempt
		ackedN      atomic.Int64
		killed      atomic.Bool
		restarted   atomic.Bool
		ackedAfter  [writers]atomic.Int64
		firstAcks   [writers]atomic.Int64 // each writer's first acknowledged write after the restart
		stop        = make(chan struct{})
		wg          sync.WaitGroup
		readsOK     atomic.Int64
		readsFailed atomic.Int64
	)
	record := func(a *writeAttempt) {
		mu.Lock()
		attempts = append(attempts, a)
		mu.Unlock()
		if a.outcome == acked {
			ackedN.Add(1)
		}
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wr := &faultWriter{t: t, w: w, url: srv.URL, client: client, templates: templates, rng: rand.New(rand.NewPCG(uint64(w), 26))}
			for k := range casesEach {
				wr.slots = append(wr.slots, &writerSlot{id: fmt.Sprintf("IL-%04d", 8000+10*w+k), known: true, restorable: map[int64]bool{}})
			}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				s := wr.slots[n%casesEach]
				if !s.known && !wr.refresh(s) {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				a := wr.write(s, fmt.Sprintf("w%02d-%04d", w, n))
				a.afterKill = killed.Load()
				record(a)
				if a.outcome == acked && restarted.Load() {
					if ackedAfter[w].Add(1) == 1 {
						firstAcks[w].Store(time.Now().UnixNano())
					}
				}
				if a.outcome == unknown {
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	// A reader lists cases now and then, so that the in-memory store is
	// asked (and rebuilt) all along.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			if r, err := client.Get(srv.URL + "/cases?limit=20"); err == nil {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				if r.StatusCode == 200 {
					readsOK.Add(1)
				} else {
					readsFailed.Add(1)
				}
			}
		}
	}()
	finish := func() {
		select {
		case <-stop:
		default:
			close(stop)
			wg.Wait()
		}
	}
	defer finish()

	waitFor := func(what string, limit time.Duration, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !done() {
			if time.Now().After(deadline) {
				finish()
				t.Fatalf("%s: not within %v", what, limit)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor(fmt.Sprintf("%d acknowledged writes before the kill", ackedBefore), 60*time.Second, func() bool { return ackedN.Load() >= ackedBefore })
	corpusBeforeKill, err := db.CorpusVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ackedAtKill := ackedN.Load()
	killed.Store(true)
	killedAt := time.Now()
	neo4jCtl(t, "kill")
	time.Sleep(2 * time.Second) // the writers find it gone
	neo4jCtl(t, "start")
	startedAt := time.Now()
	restarted.Store(true)
	waitFor(fmt.Sprintf("each writer's %d acknowledged writes after the restart", ackedAfterPer), 90*time.Second, func() bool {
		for w := range writers {
			if ackedAfter[w].Load() < ackedAfterPer {
				return false
			}
		}
		return true
	})
	finish()
	var firsts []time.Duration
	for w := range writers {
		firsts = append(firsts, time.Unix(0, firstAcks[w].Load()).Sub(startedAt).Round(100*time.Millisecond))
	}
	slices.Sort(firsts)
	t.Logf("each writer's first acknowledged write after the restart, after: %v", firsts)
	t.Logf("set up in %v; kill %v later, Neo4j back %v after it, each writer's writes again %v after that; lists read %d, failed %d",
		setUp.Round(time.Millisecond), killedAt.Sub(began.Add(setUp)).Round(time.Millisecond), startedAt.Sub(killedAt).Round(time.Millisecond), time.Since(startedAt).Round(time.Millisecond),
		readsOK.Load(), readsFailed.Load())

	st, byCase := checkWrites(t, cfg, attempts, seedsBefore, corpus0, corpusBeforeKill, ackedAtKill)

	// The same server answers as Neo4j holds: each case, its history, and
	// the lists from its in-memory store, rebuilt at the corpus version.
	checkServed(t, client, srv.URL, st, byCase)
	built, err := mem.src.Get(ctx)
	if err != nil {
		t.Fatalf("rebuilding the in-memory corpus after the restart: %v", err)
	}
	if built.Version != st.corpusVersion {
		t.Errorf("the in-memory corpus is at corpus version %d, Neo4j at %d", built.Version, st.corpusVersion)
	}
	if cur, err := mem.src.Current(ctx); err != nil || cur == nil {
		t.Errorf("the lists were not answered by the in-memory store: it is not current (%v)", err)
	}
	t.Logf("the whole test took %v", time.Since(began).Round(time.Millisecond))
}

// checkWrites reads Neo4j with the test's own Cypher and checks the writes
// attempts against it (TestWritesAcrossNeo4jKill says what): every
// acknowledged write in its case's history at its version, none refused
// there, each history 1..n with every revision's previous JSON the one
// before's, each case its last revision's JSON and version and exactly
// its JSON's relationships, the seeds untouched, and the corpus version
// moved once per revision and never back across the fault.
func checkWrites(t *testing.T, cfg graph.Config, attempts []*writeAttempt, seedsBefore map[string]string, corpus0, corpusBeforeKill, ackedAtKill int64) (*storedGraph, map[string][]*writeAttempt) {
	t.Helper()
	st := readStored(t, cfg)
	byCase := map[string][]*writeAttempt{}
	byName := map[string]*writeAttempt{}
	counts := map[string]int{}
	for _, a := range attempts {
		byCase[a.id] = append(byCase[a.id], a)
		byName[a.name] = a
		counts[a.outcome]++
		if a.op == "stale" && a.outcome == acked {
			t.Errorf("write %s at a stale version was acknowledged (%s), want refused with CONFLICT", a, a.answer)
		}
		if a.op != "stale" && a.outcome == refused {
			t.Errorf("write %s was refused (%s) although the writer, the case's only one, knew its version: an earlier write is missing or was made twice", a, a.answer)
		}
	}

	// The history of each case, against the writes.
	committed := map[string]*storedRevision{} // attempt name → its revision
	unknownPresent, unknownAbsent := 0, 0
	totalRevisions := 0
	for id, revs := range st.revisions {
		totalRevisions += len(revs)
		if byCase[id] == nil {
			t.Errorf("%s has %d revisions, but no writer wrote it", id, len(revs))
			continue
		}
		for i, r := range revs {
			if want := int64(i + 1); r.version != want {
				t.Errorf("%s: history versions are %v, want 1..%d with no gap or duplicate", id, revisionVersions(revs), len(revs))
				break
			}
		}
		for i, r := range revs {
			a := byName[r.by]
			switch {
			case a == nil || a.id != id:
				t.Errorf("%s version %d: made by %q, which is no write of this case", id, r.version, r.by)
				continue
			case committed[r.by] != nil:
				t.Errorf("%s: write %s is in the history twice (versions %d and %d)", id, a, committed[r.by].version, r.version)
				continue
			}
			committed[r.by] = r
			if a.op == "stale" {
				t.Errorf("%s version %d: write %s named a stale version (%s), yet it is in the history", id, r.version, a, a.answer)
			} else if r.action != a.op {
				t.Errorf("%s version %d: action %q, the write %s was a %s", id, r.version, r.action, a, a.op)
			}
			if r.version != a.expect+1 {
				t.Errorf("%s version %d was made by %s, which named version %d: a write landed on a version it did not name", id, r.version, a, a.expect)
			}
			switch a.outcome {
			case acked:
				if r.version != a.ackVersion {
					t.Errorf("%s: write %s was answered as version %d, the history has it as %d", id, a, a.ackVersion, r.version)
				}
			case refused:
				t.Errorf("%s version %d: write %s was refused (%s), yet it is in the history", id, r.version, a, a.answer)
			}
			var wantJSON string
			switch a.op {
			case "create", "update", "stale":
				wantJSON = a.body
			case "restore":
				if r.restoredFrom != a.from || a.from < 1 || a.from >= r.version {
					t.Errorf("%s version %d: restored from %d, the write %s restored %d", id, r.version, r.restoredFrom, a, a.from)
				} else {
					wantJSON = revs[a.from-1].json
				}
			}
			if r.json != wantJSON {
				t.Errorf("%s version %d (%s): its JSON is not the JSON the write gave:\n got %s\nwant %s", id, r.version, a, clipS(r.json), clipS(wantJSON))
			}
			prev := ""
			if i > 0 {
				prev = revs[i-1].json
			}
			if r.previous != prev {
				t.Errorf("%s version %d (%s): its previous JSON is not version %d's: the case changed without a revision, or a revision without the case\n got %s\nwant %s",
					id, r.version, a, r.version-1, clipS(r.previous), clipS(prev))
			}
		}
	}
	for _, a := range attempts {
		if committed[a.name] != nil {
			if a.outcome == unknown {
				unknownPresent++
			}
			continue
		}
		switch a.outcome {
		case acked:
			t.Errorf("acknowledged write %s, answered as version %d, is not in the history: lost", a, a.ackVersion)
		case unknown:
			unknownAbsent++
		}
	}

	// Each case as stored, against its history.
	for _, ids := range byCase {
		id := ids[0].id
		revs := st.revisions[id]
		c, exists := st.cases[id]
		switch {
		case len(revs) == 0 && exists:
			t.Errorf("%s exists (version %d) with no revision: a case change without its history", id, c.version)
		case len(revs) == 0:
		case revs[len(revs)-1].action == ilgraph.ActionDelete && exists:
			t.Errorf("%s exists (version %d) although its last revision, %d, deletes it", id, c.version, len(revs))
		case revs[len(revs)-1].action == ilgraph.ActionDelete:
		case !exists:
			t.Errorf("%s does not exist although its last revision, %d (%s by %s), wrote it", id, len(revs), revs[len(revs)-1].action, revs[len(revs)-1].by)
		default:
			last := revs[len(revs)-1]
			if c.version != int64(len(revs)) {
				t.Errorf("%s is at version %d, its history has %d revisions", id, c.version, len(revs))
			}
			if c.raw != last.json {
				t.Errorf("%s's stored JSON is not its last revision's (%d, by %s):\n got %s\nwant %s", id, last.version, last.by, clipS(c.raw), clipS(last.json))
			}
		}
	}
	for id := range st.cases {
		if byCase[id] == nil && seedsBefore[id] == "" {
			t.Errorf("%s exists, but neither the seeds nor any writer have it", id)
		}
	}
	for id, raw := range seedsBefore {
		if c, ok := st.cases[id]; !ok || c.raw != raw || c.version != 1 {
			t.Errorf("seed case %s changed, though no writer wrote it (exists %v, version %d)", id, ok, c.version)
		}
	}
	// Every case's relationships are its JSON's.
	for id, c := range st.cases {
		want, err := wantRelationships(c.raw)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if !slices.Equal(c.rels, want) {
			t.Errorf("%s (version %d): relationships %v, its JSON's tags, organization and links are %v", id, c.version, c.rels, want)
		}
	}
	if len(st.orphanOrgs) > 0 {
		t.Errorf("organizations with no case: %v (a write deleted or moved their last case without them)", st.orphanOrgs)
	}

	// The corpus version.
	if st.corpusVersion-corpus0 != int64(totalRevisions) {
		t.Errorf("the corpus version moved by %d (%d → %d), but %d writes committed (revisions): each must move it once, with its revision",
			st.corpusVersion-corpus0, corpus0, st.corpusVersion, totalRevisions)
	}
	if st.corpusVersion < corpus0+int64(counts[acked]) {
		t.Errorf("the corpus version %d is below %d + %d acknowledged writes", st.corpusVersion, corpus0, counts[acked])
	}
	if st.corpusVersion < corpusBeforeKill {
		t.Errorf("the corpus version went back across the kill: %d before, %d after", corpusBeforeKill, st.corpusVersion)
	}
	if st.allRevisions != totalRevisions {
		t.Errorf("%d CaseRevision nodes, %d of them of cases written", st.allRevisions, totalRevisions)
	}
	t.Logf("%d writes: %d acknowledged (%d before the kill), %d refused, %d unknown (%d committed, %d not); %d revisions; corpus version %d → %d (%d before the kill)",
		len(attempts), counts[acked], ackedAtKill, counts[refused], counts[unknown], unknownPresent, unknownAbsent, totalRevisions, corpus0, st.corpusVersion, corpusBeforeKill)
	if counts[unknown] == 0 {
		t.Logf("no write was cut by the kill this time")
	}

	return st, byCase
}

// checkServed checks that the server at url answers every written case by
// id, its history, and the case lists and their totals per root cause as
// Neo4j holds them (st).
func checkServed(t *testing.T, client *http.Client, url string, st *storedGraph, byCase map[string][]*writeAttempt) {
	t.Helper()
	get := func(path string) (int, http.Header, []byte) {
		t.Helper()
		r, err := client.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s after the restart: %v", path, err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, r.Header, b
	}
	for _, as := range byCase {
		id := as[0].id
		status, hdr, b := get("/cases/" + id)
		if c, ok := st.cases[id]; ok {
			if status != 200 || string(b) != c.raw || hdr.Get("ETag") != strconv.Quote(strconv.FormatInt(c.version, 10)) {
				t.Errorf("GET /cases/%s after the restart: %d, ETag %s, %s; Neo4j has version %d, %s", id, status, hdr.Get("ETag"), clipS(string(b)), c.version, clipS(c.raw))
			}
		} else if status != 404 {
			t.Errorf("GET /cases/%s after the restart: %d %s, but Neo4j has no such case", id, status, clipS(string(b)))
		}
		revs := st.revisions[id]
		status, _, b = get("/cases/" + id + "/history")
		var hist struct {
			History []struct {
				Version int64
				Action  string
				By      string
			}
		}
		json.Unmarshal(b, &hist)
		var got, want []string
		for _, r := range hist.History {
			got = append(got, fmt.Sprintf("%d %s %s", r.Version, r.Action, r.By))
		}
		for i := len(revs) - 1; i >= 0; i-- {
			want = append(want, fmt.Sprintf("%d %s %s", revs[i].version, revs[i].action, revs[i].by))
		}
		_, exists := st.cases[id]
		if len(revs) == 0 && !exists && status != 404 || (len(revs) > 0 || exists) && (status != 200 || !slices.Equal(got, want)) {
			t.Errorf("GET /cases/%s/history after the restart: %d %q; Neo4j has %q", id, status, got, want)
		}
	}
	listed := map[string]string{}
	for cursor := ""; ; {
		status, _, b := get("/cases?sort=id_asc&limit=100" + cursor)
		var page struct {
			Total      int
			Cases      []json.RawMessage
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(b, &page); status != 200 || err != nil {
			t.Fatalf("GET /cases after the restart: %d %s", status, clipS(string(b)))
		}
		if page.Total != len(st.cases) {
			t.Errorf("GET /cases after the restart: total %d, Neo4j has %d cases", page.Total, len(st.cases))
		}
		for _, raw := range page.Cases {
			var s struct{ ID string }
			json.Unmarshal(raw, &s)
			listed[s.ID] = string(raw)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = "&cursor=" + page.NextCursor
	}
	roots := map[string]int{}
	for id, c := range st.cases {
		var full ilgraph.Case
		json.Unmarshal([]byte(c.raw), &full)
		roots[full.RootCause]++
		want := listSummary(full)
		got, ok := listed[id]
		if !ok {
			t.Errorf("%s (version %d) is in Neo4j but not in the case list after the restart", id, c.version)
			continue
		}
		var gs map[string]any
		json.Unmarshal([]byte(got), &gs)
		if g := listSummaryOf(gs); g != want {
			t.Errorf("%s in the case list after the restart:\n got %s\nNeo4j's %s", id, g, want)
		}
		delete(listed, id)
	}
	for id := range listed {
		t.Errorf("%s is in the case list after the restart, but not in Neo4j", id)
	}
	for rc, n := range roots {
		status, _, b := get("/cases?limit=0&root_cause=" + rc)
		var page struct{ Total int }
		json.Unmarshal(b, &page)
		if status != 200 || page.Total != n {
			t.Errorf("GET /cases?root_cause=%s after the restart: %d, total %d; Neo4j has %d such cases", rc, status, page.Total, n)
		}
	}
}

// writeTemplates are seed cases that name no other case, as JSON, which
// the loader's validator accepts under another id: the writers' cases are
// copies of them, so their tags vary from write to write.
func writeTemplates(t *testing.T, db *graph.DB) []map[string]any {
	t.Helper()
	v := loader.Validator{DB: db}
	var out []map[string]any
	for _, c := range corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")) {
		if len(c.Related) > 0 || c.RecurrenceOf != "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpus.Seeds(t), "cases", c.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m["id"] = "IL-7999"
		b, _ := json.Marshal(m)
		if _, err := v.ValidateCase(context.Background(), b); err != nil {
			continue
		}
		out = append(out, m)
		if len(out) == 12 {
			break
		}
	}
	if len(out) < 3 {
		t.Fatalf("only %d seed cases name no other and validate as copies", len(out))
	}
	return out
}

type writerSlot struct {
	id         string
	known      bool  // the writer knows the case's state
	exists     bool  // the case exists
	version    int64 // its version; after a delete, the delete's; 0: never written
	restorable map[int64]bool
}

type faultWriter struct {
	t         *testing.T
	w         int
	url       string
	client    *http.Client
	templates []map[string]any
	rng       *rand.Rand
	slots     []*writerSlot
	// token, when set, is the bearer token a write named name is sent
	// with, one whose principal is named name (a real server's
	// credential); unset, the test credential reads X-Faults-Attempt.
	token func(name string) string
}

// refresh reads the case's state from its history after a write whose
// answer was unknown: false when it cannot be read now.
func (wr *faultWriter) refresh(s *writerSlot) bool {
	r, err := wr.client.Get(wr.url + "/cases/" + s.id + "/history")
	if err != nil {
		return false
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode == 404 {
		s.known, s.exists, s.version, s.restorable = true, false, 0, map[int64]bool{}
		return true
	}
	if r.StatusCode != 200 {
		return false
	}
	var hist struct {
		History []struct {
			Version int64
			Action  string
		}
	}
	if err := json.Unmarshal(b, &hist); err != nil || len(hist.History) == 0 {
		wr.t.Errorf("history of %s: %d %s", s.id, r.StatusCode, clipS(string(b)))
		return false
	}
	s.restorable = map[int64]bool{}
	for _, h := range hist.History {
		if h.Action != ilgraph.ActionDelete {
			s.restorable[h.Version] = true
		}
	}
	s.known, s.exists, s.version = true, hist.History[0].Action != ilgraph.ActionDelete, hist.History[0].Version
	return true
}

// write sends one write of the case s as the principal name and records
// what it was answered.
func (wr *faultWriter) write(s *writerSlot, name string) *writeAttempt {
	a := &writeAttempt{name: name, id: s.id, expect: s.version}
	p := wr.rng.IntN(100)
	switch {
	case !s.exists && s.version > 0 && p < 50:
		a.op = "restore"
		var vs []int64
		for v := range s.restorable {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		a.from = vs[wr.rng.IntN(len(vs))]
	case !s.exists:
		a.op = "create"
	case p < 10:
		a.op = "stale"
		a.expect = s.version - 1
		if a.expect < 1 {
			a.expect = s.version + 1
		}
	case p < 25:
		a.op = "delete"
	default:
		a.op = "update"
	}
	var (
		method, path = "PUT", "/cases/" + s.id
		body         []byte
	)
	switch a.op {
	case "create":
		method, path = "POST", "/cases"
	case "delete":
		method = "DELETE"
	case "restore":
		method, path = "POST", path+"/restore"
		body = []byte(fmt.Sprintf(`{"from": %d}`, a.from))
	}
	if a.op == "create" || a.op == "update" || a.op == "stale" {
		m := wr.templates[wr.rng.IntN(len(wr.templates))]
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		title := map[string]any{}
		for k, v := range m["title"].(map[string]any) {
			title[k] = v
		}
		title["en"] = "faults " + name
		c["id"], c["title"], c["related"], c["recurrence_of"] = s.id, title, []any{}, ""
		body, _ = json.Marshal(c)
		var buf bytes.Buffer
		json.Compact(&buf, body)
		a.body = buf.String()
	}
	req, _ := http.NewRequest(method, wr.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Faults-Attempt", name)
	if wr.token != nil {
		req.Header.Set("Authorization", "Bearer "+wr.token(name))
	}
	if a.op != "create" {
		req.Header.Set("If-Match", strconv.Quote(strconv.FormatInt(a.expect, 10)))
	}
	r, err := wr.client.Do(req)
	if err != nil {
		a.outcome, a.answer = unknown, err.Error()
		s.known = false
		return a
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	a.answer = fmt.Sprintf("%d %s", r.StatusCode, clipS(string(b)))
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(b, &e)
	switch {
	case r.StatusCode == 200 || r.StatusCode == 201:
		var rev struct{ Version int64 }
		if err := json.Unmarshal(b, &rev); err != nil || rev.Version == 0 {
			wr.t.Errorf("%s: answered %s", a, a.answer)
		}
		a.outcome, a.ackVersion = acked, rev.Version
		s.version, s.exists = rev.Version, a.op != "delete"
		if s.exists {
			s.restorable[rev.Version] = true
		}
	case r.StatusCode < 500 && slices.Contains([]string{ilgraph.ECONFLICT, ilgraph.ENOTFOUND, ilgraph.EINVALID}, strings.ToLower(e.Error.Code)):
		a.outcome = refused
		if a.op != "stale" {
			s.known = false
		}
	default:
		a.outcome = unknown
		s.known = false
	}
	return a
}

// storedRevision is a CaseRevision node.
type storedRevision struct {
	version, restoredFrom      int64
	action, by, json, previous string
}

type storedCaseRels struct {
	raw     string
	version int64
	rels    []string // "TYPE target", sorted
}

// storedGraph is what the test reads from Neo4j itself, apart from the
// code under test.
type storedGraph struct {
	cases         map[string]storedCaseRels
	revisions     map[string][]*storedRevision // by case id, by version
	allRevisions  int
	corpusVersion int64
	orphanOrgs    []string
}

func readStored(t *testing.T, cfg graph.Config) *storedGraph {
	t.Helper()
	ctx := context.Background()
	drv, err := neo4j.NewDriverWithContext(cfg.URI, neo4j.BasicAuth(cfg.User, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close(ctx)
	q := func(query string) []*neo4j.Record {
		t.Helper()
		var res *neo4j.EagerResult
		var err error
		for try := 0; try < 20; try++ { // Neo4j may still be opening its database
			if res, err = neo4j.ExecuteQuery(ctx, drv, query, nil, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(cfg.Database)); err == nil {
				return res.Records
			}
			time.Sleep(500 * time.Millisecond)
		}
		t.Fatalf("reading Neo4j: %v", err)
		return nil
	}
	st := &storedGraph{cases: map[string]storedCaseRels{}, revisions: map[string][]*storedRevision{}}
	for _, r := range q(`MATCH (n:Case)
RETURN n.id AS id, n.raw AS raw, n.version AS version,
       [(n)-[r]->(x) | type(r) + ' ' + x.id] AS rels`) {
		m := r.AsMap()
		rels := []string{}
		for _, x := range m["rels"].([]any) {
			rels = append(rels, x.(string))
		}
		sort.Strings(rels)
		v, _ := m["version"].(int64)
		st.cases[m["id"].(string)] = storedCaseRels{raw: m["raw"].(string), version: v, rels: rels}
	}
	for _, r := range q(`MATCH (r:CaseRevision)
RETURN r.case_id AS id, r.version AS version, r.action AS action, r.by AS by, r.json AS json,
       r.previous AS previous, r.restored_from AS restored
ORDER BY id, version`) {
		m := r.AsMap()
		rev := &storedRevision{version: m["version"].(int64), action: m["action"].(string), by: m["by"].(string),
			json: m["json"].(string), previous: m["previous"].(string)}
		rev.restoredFrom, _ = m["restored"].(int64)
		id := m["id"].(string)
		st.revisions[id] = append(st.revisions[id], rev)
		st.allRevisions++
	}
	for _, r := range q("MATCH (m:IlgraphMeta {id: 'corpus'}) RETURN m.version AS v") {
		st.corpusVersion, _ = r.AsMap()["v"].(int64)
	}
	for _, r := range q("MATCH (o:Organization) WHERE NOT EXISTS { (o)<-[:AT_ORG]-(:Case) } RETURN o.id AS id") {
		st.orphanOrgs = append(st.orphanOrgs, r.AsMap()["id"].(string))
	}
	return st
}

// caseRelTypes are the relationship types from a case to its terms, as
// docs/graph-model.md lists them.
var caseRelTypes = map[ilgraph.Kind]string{
	ilgraph.KindRootCause: "HAS_ROOT_CAUSE", ilgraph.KindComponent: "HAS_COMPONENT", ilgraph.KindSymptom: "HAS_SYMPTOM",
	ilgraph.KindContributing: "HAS_FACTOR", ilgraph.KindDomain: "IN_DOMAIN", ilgraph.KindMechanism: "HAS_MECHANISM",
	ilgraph.KindOrg: "AT_ORG",
}

// wantRelationships are the relationships a case's JSON gives it: its
// terms, its organization, its related cases and the case it recurs.
func wantRelationships(raw string) ([]string, error) {
	var c ilgraph.Case
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, fmt.Errorf("stored JSON does not parse: %v", err)
	}
	out := []string{}
	for _, k := range ilgraph.AllKinds {
		rel, ok := caseRelTypes[k]
		if !ok {
			return nil, fmt.Errorf("kind %s has no relationship type in the test", k)
		}
		for _, id := range c.Tags(k) {
			out = append(out, rel+" "+id)
		}
	}
	for _, id := range c.Related {
		out = append(out, "RELATED_TO "+id)
	}
	if c.RecurrenceOf != "" {
		out = append(out, "RECURRENCE_OF "+c.RecurrenceOf)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// listSummary is what the case list shows of a case, compared as text.
func listSummary(c ilgraph.Case) string {
	return fmt.Sprintf("%s %q %s %s %v %v %v %v", c.ID, c.Title.En, c.OrgSlug, c.RootCause, nz(c.Components), nz(c.Symptoms), nz(c.Contributing), nz(c.Domain))
}

func listSummaryOf(m map[string]any) string {
	strs := func(k string) []string {
		out := []string{}
		for _, x := range m[k].([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	title, _ := m["title"].(map[string]any)
	return fmt.Sprintf("%s %q %s %s %v %v %v %v", m["id"], title["en"], m["org_slug"], m["root_cause"], strs("components"), strs("symptoms"), strs("contributing"), strs("domain"))
}

func nz(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func revisionVersions(revs []*storedRevision) []int64 {
	out := make([]int64, len(revs))
	for i, r := range revs {
		out[i] = r.version
	}
	return out
}

func clipS(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return strings.TrimSpace(s)
}
