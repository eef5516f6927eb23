package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ilgraph/ilgraph/graph"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Soak is the JSON of a soak run: the server as deployed (default limits,
// admission included) under a steady mixed load through its three doors —
// GraphQL, the JSON API and MCP — and a paced stream of writes, window by
// window, to show what a long run does that a short one hides: memory,
// goroutines or open files that only grow, latency that only rises, errors
// that only come late.
type Soak struct {
	When     string `json:"when"`
	Machine  string `json:"machine"`
	Cases    int    `json:"cases"`
	Clients  int    `json:"clients"`
	PauseMs  int    `json:"pause_ms"`
	WriteS   int    `json:"write_every_s"`
	Writes   string `json:"writes"`
	Duration string `json:"duration"`
	WindowS  int    `json:"window_s"`
	// WarmupS is how long the server took, after it was ready, to answer
	// every operation once (the similarity index builds then).
	WarmupS float64 `json:"warmup_s"`
	// Ops are the operations each client asks round robin: door, cost
	// class and name.
	Ops     []string     `json:"ops"`
	Windows []SoakWindow `json:"windows"`
	// Verdict: the reasons the run failed; empty when it passed.
	Verdict []string `json:"verdict"`
	// FirstErrors: up to 20 errors, as they came.
	FirstErrors []string `json:"first_errors,omitempty"`
}

// SoakWindow is one stretch of a soak run (a minute by default).
type SoakWindow struct {
	EndS     float64 `json:"end_s"`
	Requests int     `json:"requests"`
	// Refused: answered 429 or 503 (OVERLOADED, RATE_LIMITED) — the
	// server's bounds working. Errors: anything else that did not answer.
	Refused int     `json:"refused"`
	Errors  int     `json:"errors"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	// The server's own figures (/metrics), sampled every 5 s: the medians
	// of the window's samples, and the highest.
	RSSMB         float64 `json:"rss_mb"`
	HeapMB        float64 `json:"heap_inuse_mb"`
	Goroutines    int     `json:"goroutines"`
	OpenFDs       int     `json:"open_fds"`
	RSSMaxMB      float64 `json:"rss_max_mb"`
	GoroutinesMax int     `json:"goroutines_max"`
	OpenFDsMax    int     `json:"open_fds_max"`
	Samples       int     `json:"samples"`
	// ByDoor: per door (graphql, json, mcp), ByDoorClass: per door and
	// cost class ("json/similarity"); latencies of answered requests.
	ByDoor      map[string]SoakStat `json:"by_door"`
	ByDoorClass map[string]SoakStat `json:"by_door_class"`
}

// SoakStat is one door's (or door and class's) requests in a window.
type SoakStat struct {
	Requests int     `json:"requests"`
	Refused  int     `json:"refused"`
	Errors   int     `json:"errors"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
}

var (
	soakFor        time.Duration
	soakClients    int
	soakWindow     time.Duration
	soakPause      time.Duration
	soakWriteEvery time.Duration
	soakToken      string
	soakWrites     string
)

// soakSample is how often the soak reads the server's /metrics.
var soakSample = 5 * time.Second

// summarizeSamples sets w's server figures from the window's samples of
// /metrics: the median of each, and the highest RSS, goroutines and open
// files. A burst of goroutines (GraphQL resolves a page's fields
// concurrently) moves the highest, not the median.
func summarizeSamples(w *SoakWindow, ss []map[string]float64) {
	med := func(name string) float64 {
		xs := make([]float64, len(ss))
		for i, m := range ss {
			xs[i] = m[name]
		}
		sort.Float64s(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	top := func(name string) float64 {
		hi := 0.0
		for _, m := range ss {
			hi = max(hi, m[name])
		}
		return hi
	}
	w.Samples = len(ss)
	w.RSSMB = med("process_resident_memory_bytes") / (1 << 20)
	w.HeapMB = med("go_memstats_heap_inuse_bytes") / (1 << 20)
	w.Goroutines = int(med("go_goroutines"))
	w.OpenFDs = int(med("process_open_fds"))
	w.RSSMaxMB = top("process_resident_memory_bytes") / (1 << 20)
	w.GoroutinesMax = int(top("go_goroutines"))
	w.OpenFDsMax = int(top("process_open_fds"))
}

var (
	soakDoors   = []string{"graphql", "json", "mcp"}
	soakClasses = []string{"lookup", "list", "similarity", "aggregate", "write"}
)

// soakClass is each GraphQL benchmark query's cost class, as the server
// classifies it (admission.Classes).
var soakClass = map[string]string{
	"case_by_id":            "lookup",
	"mission_shared_factor": "list",
	"newest_50_with_tags":   "list",
	"filtered_page_ids":     "list",
	"topic_page":            "list",
	"shared_any_factor":     "list",
	"page_100_all_tags":     "list",
	"dash_same_root_cause":  "list",
	"similarity_top10":      "similarity",
	"dash_facets":           "aggregate",
	"dash_cooccurrence":     "aggregate",
	"dash_stats":            "aggregate",
}

// refusal is an answer that refused the request for load (HTTP 429 or
// 503, code OVERLOADED or RATE_LIMITED): not an error of the soak.
type refusal struct{ msg string }

func (r *refusal) Error() string { return "refused: " + r.msg }

func isRefusal(err error) bool {
	var r *refusal
	return errors.As(err, &r)
}

// refusalCodes are the error codes of a refusal for load.
var refusalCodes = []string{"OVERLOADED", "RATE_LIMITED"}

// classifyHTTP is the outcome of an HTTP answer: nil for 2xx, a refusal
// for 429 and 503, an error for anything else. A GraphQL answer (graphql
// true) with errors is a refusal when every error's code is a refusal's,
// and an error otherwise.
func classifyHTTP(status int, body []byte, graphql bool) error {
	switch {
	case status == 429 || status == 503:
		for _, c := range refusalCodes {
			if bytes.Contains(body, []byte(`"`+c+`"`)) {
				return &refusal{fmt.Sprintf("HTTP %d: %.200s", status, body)}
			}
		}
		return fmt.Errorf("HTTP %d, not a refusal for load: %.300s", status, body)
	case status < 200 || status > 299:
		return fmt.Errorf("HTTP %d: %.300s", status, body)
	case !graphql:
		return nil
	}
	var r struct {
		Errors []struct {
			Message    string
			Extensions struct{ Code string }
		}
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("HTTP %d, not JSON: %v: %.200s", status, err, body)
	}
	if len(r.Errors) == 0 {
		return nil
	}
	for _, e := range r.Errors {
		if !contains(refusalCodes, e.Extensions.Code) {
			return fmt.Errorf("HTTP %d: %.300s", status, body)
		}
	}
	return &refusal{fmt.Sprintf("HTTP %d: %.200s", status, body)}
}

// classifyMCP is the outcome of an MCP tool call. The SDK's client turns
// an HTTP 429 or 503 into an error that names only the status text, so
// the call's own transport (mcpStatus) tells whether the answer was a
// refusal for load (its body's code OVERLOADED or RATE_LIMITED): refused
// is what it saw. Any other error is an error; a tool result marked
// isError is an error unless its text names a refusal's code.
func classifyMCP(res *mcp.CallToolResult, err error, refused string) error {
	if err != nil {
		if refused != "" {
			return &refusal{refused}
		}
		return err
	}
	if res.IsError {
		var text strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		for _, c := range refusalCodes {
			if strings.Contains(text.String(), c) {
				return &refusal{text.String()}
			}
		}
		return fmt.Errorf("tool error: %.300s", text.String())
	}
	return nil
}

// mcpStatus is an MCP client's transport: it notes the last answer that
// refused a request for load (HTTP 429 or 503 whose body names
// OVERLOADED or RATE_LIMITED), which the SDK's error does not show. A
// client makes one call at a time.
type mcpStatus struct {
	next    http.RoundTripper
	mu      sync.Mutex
	refused string
}

func (m *mcpStatus) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.next.RoundTrip(req)
	if err != nil || (resp.StatusCode != 429 && resp.StatusCode != 503) {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr == nil && isRefusal(classifyHTTP(resp.StatusCode, body, false)) {
		m.mu.Lock()
		m.refused = fmt.Sprintf("HTTP %d: %.200s", resp.StatusCode, body)
		m.mu.Unlock()
	}
	return resp, nil
}

// take returns and forgets the refusal last seen.
func (m *mcpStatus) take() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.refused
	m.refused = ""
	return r
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// soakOp is one operation of the mixed load.
type soakOp struct {
	door, class, name string
	do                func(ctx context.Context, s *soakClient, i int) error
}

// soakClient is one client's connections: HTTP for GraphQL and the JSON
// API, its own MCP session.
type soakClient struct {
	http      *http.Client
	base      string
	token     string
	mcp       *mcp.ClientSession
	mcpStatus *mcpStatus
}

func (s *soakClient) connectMCP(ctx context.Context) error {
	if s.mcp != nil {
		s.mcp.Close()
		s.mcp = nil
	}
	if s.mcpStatus == nil {
		s.mcpStatus = &mcpStatus{next: s.http.Transport}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-bench-soak", Version: "1"}, nil)
	hc := &http.Client{Transport: s.mcpStatus, Timeout: s.http.Timeout}
	sess, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("MCP connect: %w", err)
	}
	s.mcp = sess
	return nil
}

// tool calls an MCP tool; after an error other than a refusal it opens a
// new session, so that one broken session does not fail every later call.
func (s *soakClient) tool(ctx context.Context, name string, args map[string]any) error {
	if s.mcp == nil {
		if err := s.connectMCP(ctx); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	s.mcpStatus.take()
	res, err := s.mcp.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	err = classifyMCP(res, err, s.mcpStatus.take())
	if err != nil && !isRefusal(err) && res == nil {
		s.mcp.Close()
		s.mcp = nil
	}
	return err
}

// get asks the JSON API; the answer's body is returned for the writes
// that read before they write.
func (s *soakClient) send(method, path string, body []byte, hdr map[string]string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if s.token != "" && method != http.MethodGet {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data, err
}

func (s *soakClient) get(path string) error {
	status, _, body, err := s.send(http.MethodGet, path, nil, nil)
	if err != nil {
		return err
	}
	return classifyHTTP(status, body, false)
}

// soakTexts are the free texts of the suggestion and matching requests.
var soakTexts = []string{
	"database connection pool exhausted after a deploy, requests timing out",
	"expired TLS certificate broke API calls between services",
	"DNS resolution failures in one region after a configuration change",
	"message broker queue backlog grew until consumers fell behind",
	"cache stampede overloaded the primary database",
	"배포 후 데이터베이스 연결 지연과 오류 증가",
}

// soakOps is the mixed load: every GraphQL benchmark query, and the JSON
// API's and MCP's reads of the same kinds (lookups, lists, similarity,
// suggestions, topics), over the same spreads of arguments.
func soakOps(a *args) []soakOp {
	var ops []soakOp
	for _, q := range queries(a) {
		q := q
		ops = append(ops, soakOp{door: "graphql", class: soakClass[q.name], name: q.name, do: func(_ context.Context, s *soakClient, i int) error {
			return q.soakGraphQL(s, i)
		}})
	}
	day := func(i int) string {
		return time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i*37)%3650).Format("2006-01-02")
	}
	term := func(i int) (string, string) { t := a.terms[(i*7)%len(a.terms)]; return string(t.Kind), t.ID }
	text := func(i int) string { return soakTexts[i%len(soakTexts)] }
	rc := func(i int) string { return a.causes[i%len(a.causes)] }
	comp := func(i int) string { return a.comps[(i/len(a.causes))%len(a.comps)] }
	esc := url.PathEscape
	json := func(class, name string, path func(i int) string) soakOp {
		return soakOp{door: "json", class: class, name: name, do: func(_ context.Context, s *soakClient, i int) error { return s.get(path(i)) }}
	}
	ops = append(ops,
		json("lookup", "case", func(i int) string { return "/cases/" + esc(a.id(i)) }),
		json("lookup", "judgments", func(i int) string { return "/cases/" + esc(a.id(i+1)) + "/judgments" }),
		json("list", "cases_filtered", func(i int) string {
			return "/cases?" + url.Values{"root_cause": {rc(i)}, "component": {comp(i)}, "limit": {"20"}}.Encode()
		}),
		json("list", "cases_newest_50", func(i int) string { return "/cases?" + url.Values{"to": {day(i)}, "limit": {"50"}}.Encode() }),
		json("list", "same_root_cause", func(i int) string { return "/cases/" + esc(a.id(i+2)) + "/same-root-cause" }),
		json("similarity", "similar", func(i int) string { return "/cases/" + esc(a.id(i+3)) + "/similar?k=10" }),
		json("similarity", "suggest", func(i int) string { return "/suggest?" + url.Values{"q": {text(i)}}.Encode() }),
		json("aggregate", "topic", func(i int) string { k, id := term(i); return "/topics/" + esc(k) + "/" + esc(id) + "?limit=20" }),
	)
	tool := func(class, name string, args func(i int) map[string]any) soakOp {
		return soakOp{door: "mcp", class: class, name: name, do: func(ctx context.Context, s *soakClient, i int) error { return s.tool(ctx, name, args(i)) }}
	}
	ops = append(ops,
		tool("lookup", "get_incident", func(i int) map[string]any { return map[string]any{"id": a.id(i + 4)} }),
		tool("list", "list_incidents", func(i int) map[string]any {
			return map[string]any{"root_cause": []string{rc(i)}, "components": []string{comp(i)}, "limit": 20}
		}),
		tool("list", "search_incidents", func(i int) map[string]any { return map[string]any{"query": strings.Fields(text(i))[1], "limit": 20} }),
		tool("list", "same_root_cause", func(i int) map[string]any { return map[string]any{"id": a.id(i + 5)} }),
		tool("similarity", "similar_incidents", func(i int) map[string]any { return map[string]any{"id": a.id(i + 6), "k": 10} }),
		tool("similarity", "suggest_terms", func(i int) map[string]any { return map[string]any{"text": text(i + 1)} }),
		tool("similarity", "match_incident", func(i int) map[string]any { return map[string]any{"text": text(i + 2), "root_cause": rc(i)} }),
		tool("aggregate", "get_topic", func(i int) map[string]any { k, id := term(i + 1); return map[string]any{"kind": k, "id": id} }),
	)
	return ops
}

// soakGraphQL asks q's GraphQL request i through the soak client, as the
// sweep does, and classifies the answer.
func (q query) soakGraphQL(s *soakClient, i int) error {
	err := q.graphql(s.http, s.base, i)
	if err == nil {
		return nil
	}
	var he *httpError
	if !errors.As(err, &he) {
		return err // a transport error
	}
	return classifyHTTP(he.status, he.body, true)
}

// soakWriter changes cases through the JSON API's write path, one change
// every soakWriteEvery, as an editor: create a case (a copy of a corpus
// case under a new id), replace it, judge one of a corpus case's similar
// matches, withdraw the judgment, delete the case; then again.
type soakWriter struct {
	a      *args
	run    int64
	n      int
	id     string // the soak's case of this round
	etag   string
	doc    map[string]any
	judged [2]string // case, match
}

func (w *soakWriter) step(s *soakClient, k, i int) (string, error) {
	switch k {
	case 0:
		// A generated corpus case may break a tagging rule that a load
		// only warns about and a write refuses (INVALID): such a case is
		// the soak's poor choice of source, not the server's error, and
		// the next one is tried.
		for try := 0; ; try++ {
			src := w.a.id(i + try*7919)
			status, _, body, err := s.send(http.MethodGet, "/cases/"+url.PathEscape(src), nil, nil)
			if err != nil {
				return "create", err
			}
			if err := classifyHTTP(status, body, false); err != nil {
				return "create", err
			}
			w.doc = map[string]any{}
			if err := json.Unmarshal(body, &w.doc); err != nil {
				return "create", fmt.Errorf("GET /cases/%s: %w", src, err)
			}
			w.n++
			w.id = fmt.Sprintf("SOAK-%09d", (w.run%100000)*10000+int64(w.n%10000))
			w.doc["id"] = w.id
			delete(w.doc, "related")
			delete(w.doc, "recurrence_of")
			setTitle(w.doc, fmt.Sprintf("Soak case %d, a copy of %s", w.n, src))
			b, _ := json.Marshal(w.doc)
			status, hdr, body, err := s.send(http.MethodPost, "/cases", b, nil)
			if err != nil {
				return "create", err
			}
			if status == http.StatusBadRequest && bytes.Contains(body, []byte(`"code":"INVALID"`)) && try < 20 {
				continue
			}
			w.etag = hdr.Get("ETag")
			return "create", classifyHTTP(status, body, false)
		}
	case 1:
		if w.etag == "" {
			return "", nil // the create failed: nothing to replace
		}
		setTitle(w.doc, fmt.Sprintf("Soak case %d, replaced", w.n))
		b, _ := json.Marshal(w.doc)
		status, hdr, body, err := s.send(http.MethodPut, "/cases/"+url.PathEscape(w.id), b, map[string]string{"If-Match": w.etag})
		if err != nil {
			return "update", err
		}
		if e := hdr.Get("ETag"); e != "" {
			w.etag = e
		}
		return "update", classifyHTTP(status, body, false)
	case 2:
		c := w.a.id(i * 3)
		status, _, body, err := s.send(http.MethodGet, "/cases/"+url.PathEscape(c)+"/similar?k=3", nil, nil)
		if err != nil {
			return "judge", err
		}
		if err := classifyHTTP(status, body, false); err != nil {
			return "judge", err
		}
		var sim struct {
			Matches []struct {
				Case struct {
					ID string `json:"id"`
				} `json:"case"`
			} `json:"matches"`
		}
		if err := json.Unmarshal(body, &sim); err != nil || len(sim.Matches) == 0 {
			return "judge", fmt.Errorf("similar of %s: no match to judge (%v): %.200s", c, err, body)
		}
		w.judged = [2]string{c, sim.Matches[0].Case.ID}
		b, _ := json.Marshal(map[string]any{"grade": "relevant", "reason": "soak: a judgment written and withdrawn"})
		status, _, body, err = s.send(http.MethodPut, "/cases/"+url.PathEscape(c)+"/similar/"+url.PathEscape(w.judged[1])+"/judgment", b, nil)
		if err != nil {
			return "judge", err
		}
		return "judge", classifyHTTP(status, body, false)
	case 3:
		if w.judged[0] == "" {
			return "", nil // the judgment failed: nothing to withdraw
		}
		status, _, body, err := s.send(http.MethodDelete, "/cases/"+url.PathEscape(w.judged[0])+"/similar/"+url.PathEscape(w.judged[1])+"/judgment", nil, nil)
		w.judged = [2]string{}
		if err != nil {
			return "withdraw", err
		}
		return "withdraw", classifyHTTP(status, body, false)
	default:
		if w.etag == "" {
			return "", nil
		}
		status, _, body, err := s.send(http.MethodDelete, "/cases/"+url.PathEscape(w.id), nil, map[string]string{"If-Match": w.etag})
		w.etag = ""
		if err != nil {
			return "delete", err
		}
		return "delete", classifyHTTP(status, body, false)
	}
}

// soakWriteSteps are the soakWriter steps of the kinds of writes named
// (--soak-writes): cases (create, update, delete) and judgments (judge,
// withdraw).
func soakWriteSteps(kinds string) ([]int, error) {
	var cases, judgments bool
	for _, k := range strings.Split(kinds, ",") {
		switch strings.TrimSpace(k) {
		case "cases":
			cases = true
		case "judgments":
			judgments = true
		case "":
		default:
			return nil, fmt.Errorf("--soak-writes: %q is not cases or judgments", k)
		}
	}
	switch {
	case cases && judgments:
		return []int{0, 1, 2, 3, 4}, nil
	case cases:
		return []int{0, 1, 4}, nil
	case judgments:
		return []int{2, 3}, nil
	}
	return nil, fmt.Errorf("--soak-writes: name cases, judgments or both")
}

func setTitle(doc map[string]any, en string) {
	t, _ := doc["title"].(map[string]any)
	if t == nil {
		t = map[string]any{}
	}
	t["en"] = en
	doc["title"] = t
}

// errLog keeps the first 20 errors of a run.
type errLog struct {
	mu   sync.Mutex
	errs []string
}

func (l *errLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) < 20 {
		l.errs = append(l.errs, e)
	}
	if len(l.errs) <= 3 {
		fmt.Fprintln(os.Stderr, "  error:", e)
	}
}

func (l *errLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

// soakTally collects one window's outcomes.
type soakTally struct {
	mu        sync.Mutex
	all       []float64
	refused   int
	errs      int
	door      map[string]*tallyStat
	doorClass map[string]*tallyStat
}

type tallyStat struct {
	answered                []float64
	requests, refused, errs int
}

func newTally() *soakTally {
	return &soakTally{door: map[string]*tallyStat{}, doorClass: map[string]*tallyStat{}}
}

func (t *soakTally) add(door, class, name string, ms float64, err error, log *errLog) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.all = append(t.all, ms)
	for _, st := range []*tallyStat{t.stat(t.door, door), t.stat(t.doorClass, door+"/"+class)} {
		st.requests++
		switch {
		case err == nil:
			st.answered = append(st.answered, ms)
		case isRefusal(err):
			st.refused++
		default:
			st.errs++
		}
	}
	switch {
	case err == nil:
	case isRefusal(err):
		t.refused++
	default:
		t.errs++
		log.add(fmt.Sprintf("%s %s %s: %v", time.Now().UTC().Format(time.RFC3339), door, name, err))
	}
}

func (t *soakTally) stat(m map[string]*tallyStat, k string) *tallyStat {
	st := m[k]
	if st == nil {
		st = &tallyStat{}
		m[k] = st
	}
	return st
}

func (st *tallyStat) summary() SoakStat {
	return SoakStat{Requests: st.requests, Refused: st.refused, Errors: st.errs, P50Ms: pct(st.answered, 0.5), P99Ms: pct(st.answered, 0.99)}
}

// serverMetrics reads the gauges of the server's /metrics the soak
// records.
func serverMetrics(c *http.Client, base string) (map[string]float64, error) {
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("/metrics: HTTP %d", resp.StatusCode)
	}
	return parseMetrics(resp.Body, "go_goroutines", "process_resident_memory_bytes", "process_open_fds", "go_memstats_heap_inuse_bytes")
}

// parseMetrics reads the unlabelled samples of names from the Prometheus
// text format.
func parseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || !contains(names, name) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("/metrics: %s: %v", name, err)
		}
		out[name] = v
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return out, fmt.Errorf("/metrics has no %s", n)
		}
	}
	return out, sc.Err()
}

// editorToken makes the soak's own editor token with `ilgraph token
// create` (against the same Neo4j), valid for a day.
func editorToken(bin string) (string, error) {
	name := "ilgraph-bench-soak-" + time.Now().UTC().Format("20060102T150405Z")
	out, err := exec.Command(bin, "token", "create", "--name", name, "--role", "editor", "--expires", "1d", "--json").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("ilgraph token create: %v: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("ilgraph token create: %w", err)
	}
	var t struct{ Token string }
	if err := json.Unmarshal(out, &t); err != nil || t.Token == "" {
		return "", fmt.Errorf("ilgraph token create --json: no token in %.100q", out)
	}
	fmt.Fprintf(os.Stderr, "soak: created the editor token %s\n", name)
	return t.Token, nil
}

// soak runs `ilgraph serve` with its default limits under the mixed load
// of soakOps from soakClients clients (each pausing soakPause between
// requests) and soakWriter's changes, for soakFor; it records a window
// every soakWindow and fails on the verdict's reasons.
func soak(ctx context.Context, db *graph.DB, n int, bin, outDir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	if _, err := soakWriteSteps(soakWrites); err != nil {
		return err
	}
	token := soakToken
	if token == "" && soakWriteEvery > 0 {
		if token, err = editorToken(bin); err != nil {
			return err
		}
	}
	srv := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port))
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("ilgraph-bench-soak-%d.log", port))
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "soak: ilgraph serve at %s, pid %d, log %s\n", base, srv.Process.Pid, logPath)
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	if err := waitReadyFor(base, 15*time.Minute); err != nil {
		return err
	}
	a, err := sampleArgs(ctx, graph.NewBench(db), n)
	if err != nil {
		return err
	}
	ops := soakOps(a)
	transport := &http.Transport{MaxIdleConnsPerHost: 4 * soakClients}
	newClient := func() *soakClient {
		return &soakClient{http: &http.Client{Transport: transport, Timeout: 120 * time.Second}, base: base, token: token}
	}
	res := &Soak{When: time.Now().UTC().Format(time.RFC3339), Machine: machine(), Cases: n, Clients: soakClients,
		PauseMs: int(soakPause.Milliseconds()), WriteS: int(soakWriteEvery.Seconds()), Writes: soakWrites, Duration: soakFor.String(), WindowS: int(soakWindow.Seconds())}
	for _, op := range ops {
		if op.class == "" {
			return fmt.Errorf("soak: operation %s/%s has no cost class", op.door, op.name)
		}
		res.Ops = append(res.Ops, op.door+"/"+op.class+"/"+op.name)
	}
	// Warm up: ask every operation once, again while it is refused or
	// times out (the similarity index builds on the first similarity
	// request; at 100,000 cases on a busy machine that takes a while).
	warm := time.Now()
	wc := newClient()
	for _, op := range ops {
		for {
			err := op.do(ctx, wc, 0)
			if err == nil {
				break
			}
			if time.Since(warm) > 10*time.Minute || !(isRefusal(err) || strings.Contains(err.Error(), "TIMEOUT")) {
				return fmt.Errorf("soak: warm-up: %s %s: %w", op.door, op.name, err)
			}
			fmt.Fprintf(os.Stderr, "warming up: %s %s: %.120v; asking again\n", op.door, op.name, err)
			time.Sleep(2 * time.Second)
		}
	}
	if wc.mcp != nil {
		wc.mcp.Close()
	}
	res.WarmupS = time.Since(warm).Seconds()
	fmt.Fprintf(os.Stderr, "soak: warm-up (every operation answered once) took %.1fs\n", res.WarmupS)

	var tmu sync.Mutex
	tally := newTally()
	cur := func() *soakTally { tmu.Lock(); defer tmu.Unlock(); return tally }
	firstErrs := &errLog{}
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < soakClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newClient()
			defer func() {
				if s.mcp != nil {
					s.mcp.Close()
				}
			}()
			for i := c; ; i += soakClients {
				select {
				case <-stop:
					return
				case <-time.After(soakPause):
				}
				op := ops[i%len(ops)]
				t := time.Now()
				err := op.do(ctx, s, i/len(ops)*soakClients+c)
				ms := float64(time.Since(t).Microseconds()) / 1000
				cur().add(op.door, op.class, op.name, ms, err, firstErrs)
			}
		}()
	}
	if soakWriteEvery > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &soakWriter{a: a, run: time.Now().Unix()}
			steps, _ := soakWriteSteps(soakWrites)
			s := newClient()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(soakWriteEvery):
				}
				t := time.Now()
				name, err := w.step(s, steps[i%len(steps)], i)
				ms := float64(time.Since(t).Microseconds()) / 1000
				if name == "" {
					continue // a step skipped: the one before it failed
				}
				cur().add("json", "write", name, ms, err, firstErrs)
			}
		}()
	}
	fmt.Fprintf(os.Stderr, "soak: %d clients (pause %v) over %d operations, a write (%s) every %v, for %v; a line every %v\n",
		soakClients, soakPause, len(ops), soakWrites, soakWriteEvery, soakFor, soakWindow)
	// The server's figures, every soakSample: a window records their
	// medians and highest values.
	var smu sync.Mutex
	var samples []map[string]float64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		mc := &http.Client{Timeout: 30 * time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(soakSample):
			}
			m, err := serverMetrics(mc, base)
			if err != nil {
				firstErrs.add("metrics: " + err.Error())
				continue
			}
			smu.Lock()
			samples = append(samples, m)
			smu.Unlock()
		}
	}()
	for time.Since(start) < soakFor-time.Second {
		time.Sleep(min(soakWindow, soakFor-time.Since(start)))
		tmu.Lock()
		t := tally
		tally = newTally()
		tmu.Unlock()
		t.mu.Lock()
		w := SoakWindow{EndS: time.Since(start).Seconds(), Requests: len(t.all), Refused: t.refused, Errors: t.errs,
			P50Ms: pct(t.all, 0.5), P99Ms: pct(t.all, 0.99), ByDoor: map[string]SoakStat{}, ByDoorClass: map[string]SoakStat{}}
		for k, st := range t.door {
			w.ByDoor[k] = st.summary()
		}
		for k, st := range t.doorClass {
			w.ByDoorClass[k] = st.summary()
		}
		t.mu.Unlock()
		smu.Lock()
		ss := samples
		samples = nil
		smu.Unlock()
		if len(ss) == 0 {
			w.Errors++
			firstErrs.add("metrics: no sample of /metrics answered in the window")
			w.RSSMB = rssMB(srv.Process.Pid)
		} else {
			summarizeSamples(&w, ss)
		}
		res.Windows = append(res.Windows, w)
		var doors []string
		for _, d := range soakDoors {
			st := w.ByDoor[d]
			doors = append(doors, fmt.Sprintf("%s %d/%dr/%de p50 %.0f p99 %.0f", d, st.Requests, st.Refused, st.Errors, st.P50Ms, st.P99Ms))
		}
		fmt.Fprintf(os.Stderr, "  %5.0fs %6d req %5d refused %3d errors p50 %7.1f p99 %7.1f ms RSS %4.0f (max %4.0f) MB heap %4.0f MB %4d (max %4d) goroutines %4d fds [%s]\n",
			w.EndS, w.Requests, w.Refused, w.Errors, w.P50Ms, w.P99Ms, w.RSSMB, w.RSSMaxMB, w.HeapMB, w.Goroutines, w.GoroutinesMax, w.OpenFDs, strings.Join(doors, "; "))
		if err := writeSoak(res, outDir, n, false); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
		}
	}
	close(stop)
	wg.Wait()
	<-sampled
	res.FirstErrors = firstErrs.list()
	res.Verdict = soakVerdict(res.Windows, soakWindow)
	if err := writeSoak(res, outDir, n, true); err != nil {
		return err
	}
	if len(res.Verdict) > 0 {
		return fmt.Errorf("soak failed: %s", strings.Join(res.Verdict, "; "))
	}
	fmt.Fprintln(os.Stderr, "soak passed: no errors outside refusals; memory, goroutines and open files flat")
	return nil
}

var soakStamp = time.Now().UTC().Format("20060102T150405Z")

// writeSoak writes the run's JSON, CSV and SVG plot into outDir (again
// after every window, so that a run cut short keeps what it measured).
func writeSoak(res *Soak, outDir string, n int, final bool) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	stem := filepath.Join(outDir, fmt.Sprintf("%s-%dcases-soak", soakStamp, n))
	data, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(stem+".json", append(data, '\n'), 0o644); err != nil {
		return err
	}
	var csv bytes.Buffer
	writeSoakCSV(&csv, res.Windows)
	if err := os.WriteFile(stem+".csv", csv.Bytes(), 0o644); err != nil {
		return err
	}
	var svg bytes.Buffer
	writeSoakSVG(&svg, res)
	if err := os.WriteFile(stem+".svg", svg.Bytes(), 0o644); err != nil {
		return err
	}
	if final {
		fmt.Fprintf(os.Stderr, "wrote %s.{json,csv,svg}\n", stem)
	}
	return nil
}

// writeSoakCSV writes a row per window: the totals, the server's figures,
// then per door and per door and class the requests, refusals, errors,
// p50 and p99.
func writeSoakCSV(w io.Writer, ws []SoakWindow) {
	cols := []string{"minute", "end_s", "requests", "refused", "errors", "p50_ms", "p99_ms", "rss_mb", "heap_inuse_mb", "goroutines", "open_fds", "rss_max_mb", "goroutines_max", "open_fds_max"}
	var keys []string
	keys = append(keys, soakDoors...)
	for _, d := range soakDoors {
		for _, c := range soakClasses {
			keys = append(keys, d+"/"+c)
		}
	}
	for _, k := range keys {
		for _, f := range []string{"requests", "refused", "errors", "p50_ms", "p99_ms"} {
			cols = append(cols, k+"_"+f)
		}
	}
	fmt.Fprintln(w, strings.Join(cols, ","))
	for i, win := range ws {
		row := []string{strconv.Itoa(i + 1), f1(win.EndS), strconv.Itoa(win.Requests), strconv.Itoa(win.Refused), strconv.Itoa(win.Errors),
			f1(win.P50Ms), f1(win.P99Ms), f1(win.RSSMB), f1(win.HeapMB), strconv.Itoa(win.Goroutines), strconv.Itoa(win.OpenFDs),
			f1(win.RSSMaxMB), strconv.Itoa(win.GoroutinesMax), strconv.Itoa(win.OpenFDsMax)}
		for _, k := range keys {
			st, ok := win.ByDoor[k]
			if !ok {
				st = win.ByDoorClass[k]
			}
			row = append(row, strconv.Itoa(st.Requests), strconv.Itoa(st.Refused), strconv.Itoa(st.Errors), f1(st.P50Ms), f1(st.P99Ms))
		}
		fmt.Fprintln(w, strings.Join(row, ","))
	}
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// soakGrowth bounds the server's figures: the last five minutes' median
// may be at most this many times the median of minutes 5 to 10 (plus the
// slack of soakSlack), or the run failed.
const soakGrowth = 1.5

// soakSlack is the absolute growth allowed beside soakGrowth: in-flight
// requests move goroutines and open files by a few tens, and a small
// server's RSS by a few tens of MB, without leaking.
var soakSlack = map[string]float64{"RSS (MB)": 50, "goroutines": 50, "open files": 50}

// soakVerdict is why a soak run failed, empty when it passed: any error
// outside refusals; a window where nothing was answered (a stall); or the
// server's RSS, goroutines or open files growing — the median of the last
// five minutes over soakGrowth times (plus soakSlack) the median of
// minutes 5 to 10. A run shorter than 15 minutes compares its last third
// with its second third.
func soakVerdict(ws []SoakWindow, window time.Duration) []string {
	var why []string
	if len(ws) == 0 {
		return []string{"no window was recorded"}
	}
	errs := 0
	for i, w := range ws {
		errs += w.Errors
		answered := w.Requests - w.Refused - w.Errors
		if answered <= 0 {
			why = append(why, fmt.Sprintf("minute %d (%.0fs): no request answered", i+1, w.EndS))
		}
	}
	if errs > 0 {
		why = append(why, fmt.Sprintf("%d requests failed other than refusals", errs))
	}
	base, tail := soakSpans(ws, window)
	if len(base) == 0 || len(tail) == 0 {
		return why
	}
	series := []struct {
		name string
		v    func(SoakWindow) float64
	}{
		{"RSS (MB)", func(w SoakWindow) float64 { return w.RSSMB }},
		{"goroutines", func(w SoakWindow) float64 { return float64(w.Goroutines) }},
		{"open files", func(w SoakWindow) float64 { return float64(w.OpenFDs) }},
	}
	for _, s := range series {
		b, t := median(base, s.v), median(tail, s.v)
		if t > b*soakGrowth+soakSlack[s.name] {
			why = append(why, fmt.Sprintf("%s grew: median %.0f at the end against %.0f earlier (over %.1f× + %.0f)", s.name, t, b, soakGrowth, soakSlack[s.name]))
		}
	}
	return why
}

// soakSpans are the windows to compare: minutes 5–10 and the last five
// minutes, or, in a run shorter than 15 minutes, its second and last
// thirds.
func soakSpans(ws []SoakWindow, window time.Duration) (base, tail []SoakWindow) {
	end := ws[len(ws)-1].EndS
	if end >= (15 * time.Minute).Seconds() {
		for _, w := range ws {
			switch {
			case w.EndS > (5*time.Minute).Seconds() && w.EndS <= (10*time.Minute).Seconds()+window.Seconds()/2:
				base = append(base, w)
			case w.EndS > end-(5*time.Minute).Seconds():
				tail = append(tail, w)
			}
		}
		return base, tail
	}
	third := len(ws) / 3
	if third == 0 {
		return nil, nil
	}
	return ws[third : 2*third], ws[len(ws)-third:]
}

func median(ws []SoakWindow, v func(SoakWindow) float64) float64 {
	xs := make([]float64, len(ws))
	for i, w := range ws {
		xs[i] = v(w)
	}
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// waitReadyFor waits until the server's /readyz answers 200 (at 100,000
// cases it reads the corpus first).
func waitReadyFor(base string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("the server at %s was not ready within %v", base, limit)
}

// rssMB reads a live process's resident memory now, in MB.
func rssMB(pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(rest)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
