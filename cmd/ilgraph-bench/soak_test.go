package main

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"math/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// series builds a run of minutes windows whose RSS, goroutines and open
// files are given by the functions of the minute (1-based), with noise.
func series(minutes int, rss, gor, fds func(m int) float64) []SoakWindow {
	r := rand.New(rand.NewSource(1))
	var ws []SoakWindow
	for m := 1; m <= minutes; m++ {
		noise := 1 + (r.Float64()-0.5)*0.1 // ±5 %
		ws = append(ws, SoakWindow{EndS: float64(m * 60), Requests: 1000, Refused: 100,
			RSSMB: rss(m) * noise, Goroutines: int(gor(m) * noise), OpenFDs: int(fds(m) * noise)})
	}
	return ws
}

func flat(v float64) func(int) float64 { return func(int) float64 { return v } }

func TestSoakVerdict(t *testing.T) {
	leak := func(base, perMinute float64) func(int) float64 {
		return func(m int) float64 { return base + perMinute*float64(m) }
	}
	cases := []struct {
		name string
		ws   []SoakWindow
		want []string // substrings of the reasons, in order; none: passes
	}{
		{"flat 30 minutes with refusals", series(30, flat(420), flat(40), flat(20)), nil},
		// The first minutes build the read model and the index: RSS may
		// jump before minute 5 without failing the run.
		{"RSS that settles after a start-up jump", series(30, func(m int) float64 {
			if m < 4 {
				return 150
			}
			return 430
		}, flat(40), flat(20)), nil},
		{"RSS doubling over the run", series(30, leak(300, 20), flat(40), flat(20)), []string{"RSS (MB) grew"}},
		{"RSS growing slowly: +30 % is within bounds", series(30, leak(400, 5), flat(40), flat(20)), nil},
		{"goroutines leaking", series(30, flat(420), leak(40, 10), flat(20)), []string{"goroutines grew"}},
		{"open files leaking", series(40, flat(420), flat(40), leak(20, 8)), []string{"open files grew"}},
		{"small absolute growth of goroutines is slack, not a leak", series(30, flat(420), func(m int) float64 {
			if m > 25 {
				return 60
			}
			return 20
		}, flat(20)), nil},
		{"a short run compares its thirds", series(9, func(m int) float64 { return 50 * math.Pow(2, float64(m)/2) }, flat(40), flat(20)), []string{"RSS (MB) grew"}},
		{"a short flat run passes", series(9, flat(100), flat(40), flat(20)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := soakVerdict(c.ws, time.Minute)
			if len(got) != len(c.want) {
				t.Fatalf("verdict %q, want %d reasons like %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("reason %d: %q, want it to name %q", i, got[i], w)
				}
			}
		})
	}

	// Errors outside refusals fail the run however flat it is; a window
	// where nothing was answered (every request refused or failed) too.
	ws := series(30, flat(420), flat(40), flat(20))
	ws[17].Errors = 2
	ws[20].Requests, ws[20].Refused, ws[20].Errors = 50, 50, 0
	got := soakVerdict(ws, time.Minute)
	if len(got) != 2 || !strings.Contains(got[0], "minute 21") || !strings.Contains(got[1], "2 requests failed") {
		t.Errorf("verdict %q, want the stalled minute 21 and 2 failed requests", got)
	}
	if got := soakVerdict(nil, time.Minute); len(got) != 1 {
		t.Errorf("an empty run: verdict %q, want it to fail", got)
	}
}

func TestSoakSpans(t *testing.T) {
	ws := series(32, flat(1), flat(1), flat(1))
	base, tail := soakSpans(ws, time.Minute)
	if len(base) != 5 || base[0].EndS != 360 || base[4].EndS != 600 {
		t.Errorf("base: %d windows from %v to %v, want minutes 6–10 (EndS 360–600)", len(base), base[0].EndS, base[len(base)-1].EndS)
	}
	if len(tail) != 5 || tail[0].EndS != 28*60 || tail[4].EndS != 32*60 {
		t.Errorf("tail: %d windows from %v, want minutes 28–32", len(tail), tail[0].EndS)
	}
}

func TestClassifyHTTP(t *testing.T) {
	cases := []struct {
		status  int
		body    string
		graphql bool
		want    string // "ok", "refused", "error"
	}{
		{200, `{"id":"IL-0001"}`, false, "ok"},
		{201, `{}`, false, "ok"},
		{503, `{"error":{"code":"OVERLOADED","message":"the server is busy"}}`, false, "refused"},
		{429, `{"error":{"code":"RATE_LIMITED"}}`, false, "refused"},
		{503, `{"error":{"code":"UNAVAILABLE","message":"Neo4j is down"}}`, false, "error"},
		{500, `{"error":{"code":"INTERNAL"}}`, false, "error"},
		{409, `{"error":{"code":"CONFLICT"}}`, false, "error"},
		{200, `{"data":{"case":{"id":"X"}}}`, true, "ok"},
		{503, `{"errors":[{"message":"busy","extensions":{"code":"OVERLOADED"}}]}`, true, "refused"},
		{200, `{"data":null,"errors":[{"message":"busy","extensions":{"code":"OVERLOADED"}}]}`, true, "refused"},
		{200, `{"data":null,"errors":[{"message":"busy","extensions":{"code":"OVERLOADED"}},{"message":"x","extensions":{"code":"TIMEOUT"}}]}`, true, "error"},
		{200, `{"data":null,"errors":[{"message":"slow","extensions":{"code":"TIMEOUT"}}]}`, true, "error"},
		{200, `not json`, true, "error"},
	}
	for _, c := range cases {
		err := classifyHTTP(c.status, []byte(c.body), c.graphql)
		got := "ok"
		if err != nil {
			got = "error"
			if isRefusal(err) {
				got = "refused"
			}
		}
		if got != c.want {
			t.Errorf("HTTP %d %s (graphql %v): %s (%v), want %s", c.status, c.body, c.graphql, got, err, c.want)
		}
	}
}

func TestClassifyMCP(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	if err := classifyMCP(&mcp.CallToolResult{}, nil, ""); err != nil {
		t.Errorf("a result: %v", err)
	}
	if err := classifyMCP(nil, errors.New(`rejected: sending "tools/call": Service Unavailable`), `HTTP 503: {"error":{"data":{"code":"OVERLOADED"}}}`); !isRefusal(err) {
		t.Errorf("an overload: %v, want a refusal", err)
	}
	if err := classifyMCP(nil, errors.New(`rejected: sending "tools/call": Service Unavailable`), ""); err == nil || isRefusal(err) {
		t.Errorf("a 503 the transport saw no refusal in: %v, want an error", err)
	}
	if err := classifyMCP(nil, errors.New("connection reset by peer"), ""); err == nil || isRefusal(err) {
		t.Errorf("a transport error: %v, want an error", err)
	}
	if err := classifyMCP(text("TIMEOUT: the request took longer than its time limit"), nil, ""); err == nil || isRefusal(err) {
		t.Errorf("a tool error: %v, want an error", err)
	}
	if err := classifyMCP(text("OVERLOADED: the server is busy"), nil, ""); !isRefusal(err) {
		t.Errorf("a tool error naming OVERLOADED: %v, want a refusal", err)
	}
}

// The MCP client's transport notes a 503 OVERLOADED (and gives its body
// on), and not a 503 of another code, nor a 200.
func TestMCPStatus(t *testing.T) {
	answers := map[string]struct {
		status int
		body   string
	}{
		"/busy":  {503, `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"busy","data":{"code":"OVERLOADED","retry_after":2}}}`},
		"/down":  {503, `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"down","data":{"code":"UNAVAILABLE"}}}`},
		"/ok":    {200, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		"/limit": {429, `{"error":{"code":"RATE_LIMITED"}}`},
	}
	rt := &mcpStatus{next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		a := answers[r.URL.Path]
		return &http.Response{StatusCode: a.status, Body: io.NopCloser(strings.NewReader(a.body)), Header: http.Header{}}, nil
	})}
	for path, want := range map[string]bool{"/busy": true, "/down": false, "/ok": false, "/limit": true} {
		req, _ := http.NewRequest("POST", "http://x"+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != answers[path].body {
			t.Errorf("%s: the body passed on is %q", path, body)
		}
		if got := rt.take() != ""; got != want {
			t.Errorf("%s: refusal noted %v, want %v", path, got, want)
		}
		if rt.take() != "" {
			t.Errorf("%s: take did not forget the refusal", path)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 42
go_memstats_heap_inuse_bytes 1.048576e+08
process_open_fds 17
process_resident_memory_bytes 4.194304e+08
ilgraph_requests_total{door="graphql"} 5
`
	m, err := parseMetrics(strings.NewReader(text), "go_goroutines", "process_resident_memory_bytes", "process_open_fds", "go_memstats_heap_inuse_bytes")
	if err != nil {
		t.Fatal(err)
	}
	if m["go_goroutines"] != 42 || m["process_open_fds"] != 17 || m["process_resident_memory_bytes"] != 400<<20 || m["go_memstats_heap_inuse_bytes"] != 100<<20 {
		t.Errorf("parsed %v", m)
	}
	if _, err := parseMetrics(strings.NewReader("go_goroutines 1\n"), "go_goroutines", "process_open_fds"); err == nil || !strings.Contains(err.Error(), "process_open_fds") {
		t.Errorf("a missing gauge: %v, want an error naming it", err)
	}
}

// The CSV has a row per window with as many fields as its header, and the
// SVG is well-formed XML with a line per series of each panel.
func TestSoakOutputs(t *testing.T) {
	ws := series(12, flat(420), flat(40), flat(20))
	for i := range ws {
		ws[i].ByDoor = map[string]SoakStat{"graphql": {Requests: 10, P50Ms: 12, P99Ms: 80}, "json": {Requests: 5, P50Ms: 3, P99Ms: 20}}
		ws[i].ByDoorClass = map[string]SoakStat{"mcp/similarity": {Requests: 4, Refused: 1, P50Ms: 30, P99Ms: 90}}
	}
	var b bytes.Buffer
	writeSoakCSV(&b, ws)
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 13 {
		t.Fatalf("%d CSV rows, want a header and 12", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if rows[3][col["minute"]] != "3" || rows[3][col["graphql_p99_ms"]] != "80.0" || rows[3][col["mcp/similarity_refused"]] != "1" || rows[3][col["json/write_requests"]] != "0" {
		t.Errorf("row 3: %v", rows[3])
	}

	b.Reset()
	writeSoakSVG(&b, &Soak{Cases: 100000, Clients: 8, Duration: "12m0s", WindowS: 60, Windows: ws})
	dec := xml.NewDecoder(&b)
	lines := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
			for _, a := range se.Attr {
				if a.Name.Local == "points" && len(strings.Fields(a.Value)) != 12 {
					t.Errorf("a line of %d points, want 12", len(strings.Fields(a.Value)))
				}
			}
		}
	}
	want := 0
	for _, p := range soakPanels(ws) {
		want += len(p.series)
	}
	if lines != want {
		t.Errorf("%d lines, want %d", lines, want)
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range [][2]float64{{0, 1}, {0.3, 0.5}, {1, 1}, {1.1, 2}, {420, 500}, {2100, 2500}, {99, 100}} {
		if got := niceCeil(c[0]); got != c[1] {
			t.Errorf("niceCeil(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}
