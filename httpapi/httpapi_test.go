package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
)

// failJSON is a door's error writer: code and message in a JSON body.
func failJSON(w http.ResponseWriter, _ *http.Request, status int, err *ilgraph.Error) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"code": err.Code, "message": err.Message})
}

// echo answers with the length of the body it read, or the error reading
// it gave.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		fmt.Fprintf(w, "too big: %d", tooBig.Limit)
		return
	}
	fmt.Fprintf(w, "read %d", len(b))
})

func TestBodyLimit(t *testing.T) {
	h := httpapi.New(httpapi.Options{MaxBodyBytes: 10, Logger: slog.New(slog.DiscardHandler), Routes: map[string]httpapi.Door{
		"/door":   {Handler: echo, Fail: failJSON},
		"/static": {Handler: echo},
	}})
	for _, tt := range []struct {
		path    string
		body    string
		chunked bool
		status  int
		want    string
	}{
		{"/door", "0123456789", false, 200, "read 10"},
		{"/door", "0123456789x", false, 413, `{"code":"limit","message":"request body is larger than 10 bytes"}`},
		// Without a declared length the door reads up to the limit, and
		// maps the reader's error itself.
		{"/door", "0123456789x", true, 200, "too big: 10"},
		// A door without an error writer is only bounded.
		{"/static", "0123456789x", false, 200, "too big: 10"},
	} {
		var body io.Reader = strings.NewReader(tt.body)
		if tt.chunked {
			body = io.MultiReader(body) // no length known: chunked
		}
		r := httptest.NewRequest("POST", tt.path, body)
		if tt.chunked {
			r.ContentLength = -1
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.want {
			t.Errorf("%s %q (chunked %v): %d %q, want %d %q", tt.path, tt.body, tt.chunked, w.Code, w.Body, tt.status, tt.want)
		}
	}
}

func TestTimeoutAndCoded(t *testing.T) {
	var got *ilgraph.Error
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		got = httpapi.Coded(fmt.Errorf("running: %w", r.Context().Err()))
	})
	h := httpapi.New(httpapi.Options{RequestTimeout: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
		Routes: map[string]httpapi.Door{"/slow": {Handler: slow}}})
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/slow", nil))
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the request ran %s past its 20 ms timeout", took)
	}
	if got == nil || got.Code != ilgraph.ETIMEOUT || got.Message != "the request took longer than its time limit" {
		t.Errorf("a deadline passed: Coded gives %v, want code timeout", got)
	}
	coded := ilgraph.Errorf(ilgraph.ENOTFOUND, "no case")
	if c := httpapi.Coded(fmt.Errorf("wrapped: %w", coded)); c != coded {
		t.Errorf("a coded error: Coded gives %v, want it unchanged", c)
	}
	if c := httpapi.Coded(errors.New("boom")); c != nil {
		t.Errorf("an uncoded error: Coded gives %v, want nil (internal)", c)
	}
}

func TestRequestIDsLogAndCORS(t *testing.T) {
	var logs bytes.Buffer
	adm := admission.New(admission.Config{})
	door := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.SetOperation(r.Context(), "CasePage")
		release, refused := adm.Admit(r.Context(), admission.Similarity)
		if refused != nil {
			t.Errorf("admission refused: %s", refused.Message())
			return
		}
		defer release()
		fmt.Fprint(w, httpapi.RequestID(r.Context()))
	})
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), CORSOrigins: []string{"https://dash.example"},
		Admitter: adm, Routes: map[string]httpapi.Door{"/door": {Handler: door, Name: "a-door"}}})

	r := httptest.NewRequest("GET", "/door", nil)
	r.Header.Set("X-Request-Id", "abc-123")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Header().Get("X-Request-Id") != "abc-123" || w.Body.String() != "abc-123" {
		t.Errorf("a sane client id: header %q, door saw %q", w.Header().Get("X-Request-Id"), w.Body)
	}
	var line map[string]any
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("log line %q: %v", logs.String(), err)
	}
	for k, want := range map[string]any{"msg": "request", "request_id": "abc-123", "method": "GET", "path": "/door",
		"operation": "CasePage", "class": "similarity", "door": "a-door", "status": float64(200)} {
		if line[k] != want {
			t.Errorf("log %s = %v, want %v (%s)", k, line[k], want, logs.String())
		}
	}
	r = httptest.NewRequest("GET", "/door", nil)
	r.Header.Set("X-Request-Id", "has space")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if id := w.Header().Get("X-Request-Id"); id == "has space" || len(id) != 16 {
		t.Errorf("an insane client id: replaced by %q, want 16 hex digits", id)
	}

	for origin, allowed := range map[string]bool{"https://dash.example": true, "https://evil.example": false} {
		r := httptest.NewRequest("OPTIONS", "/door", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Header().Get("Access-Control-Allow-Origin"); (got == origin) != allowed || allowed && w.Code != http.StatusNoContent {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", origin, w.Code, got)
		}
	}
}

// TestProbesAndMetrics: the probes, and /metrics with the store's timings
// and the admission refusals by class, door and reason: every door's
// counted under its name from zero, one without a name as "other".
func TestProbesAndMetrics(t *testing.T) {
	ready := errors.New("down")
	var cfg admission.Config
	cfg.Limits[admission.Aggregate] = admission.Limit{InFlight: 1, Queue: -1}
	adm := admission.New(cfg)
	aggregate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, refused := adm.Admit(r.Context(), admission.Aggregate)
		if refused != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		release()
	})
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.DiscardHandler), Admitter: adm,
		Ready: func(context.Context) error {
			return ilgraph.WrapError(ilgraph.EUNAVAILABLE, ready, "Neo4j does not answer")
		},
		Routes: map[string]httpapi.Door{"/a": {Handler: aggregate, Name: "jsonapi"}, "/b": {Handler: aggregate, Name: "mcp"},
			"/c": {Handler: aggregate}}})
	hold, err := adm.Acquire(context.Background(), admission.Aggregate)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/a", "/a", "/b", "/c"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s with the aggregate class full: %d", path, w.Code)
		}
	}
	hold()
	h.ObserveQuery("cases", time.Millisecond)
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Code, w.Body.String()
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get("/readyz"); code != 503 || body != "not ready: Neo4j does not answer\n" {
		t.Errorf("/readyz with the store down: %d %q", code, body)
	}
	code, body := get("/metrics")
	for _, want := range []string{`ilgraph_neo4j_duration_seconds_count{query="cases"} 1`,
		`ilgraph_admission_refused_total{class="aggregate",door="jsonapi",reason="queue_full"} 2`,
		`ilgraph_admission_refused_total{class="aggregate",door="mcp",reason="queue_full"} 1`,
		`ilgraph_admission_refused_total{class="aggregate",door="other",reason="queue_full"} 1`,
		`ilgraph_admission_refused_total{class="lookup",door="mcp",reason="wait"} 0`,
		`ilgraph_admission_running{class="lookup"} 0`, "go_goroutines"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, no %s", code, want)
		}
	}
}
