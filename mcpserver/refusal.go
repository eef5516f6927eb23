package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/ilgraph/ilgraph"
)

// Over HTTP, a POST whose every tool call the core refused for the caller's
// credentials — no token where a role is needed (UNAUTHORIZED), or a token
// whose role is too low (FORBIDDEN) — is answered as every door answers a
// write refused for its credentials: 401 (with the shell's bearer
// challenge) or 403, the error in the body a private server's refusal of
// /mcp has (Fail), which is what the MCP specification's authorization
// asks of a server. The core refused before changing anything. Over stdio,
// where there is no HTTP, the same refusal is a tool error with the same
// code and message.

// refusals collects the credential refusals of the tool calls of one
// HTTP request.
type refusals struct {
	mu   sync.Mutex
	errs []*ilgraph.Error
}

type refusalsKey struct{}

// refused notes err, when the core refused a call for its credentials, in
// the request's refusals (none over stdio).
func refused(ctx context.Context, err error) {
	rs, _ := ctx.Value(refusalsKey{}).(*refusals)
	var ie *ilgraph.Error
	if rs == nil || !errors.As(err, &ie) || ie.Code != ilgraph.EUNAUTHORIZED && ie.Code != ilgraph.EFORBIDDEN {
		return
	}
	rs.mu.Lock()
	rs.errs = append(rs.errs, ie)
	rs.mu.Unlock()
}

// status is the HTTP status and the error a request of calls tool calls
// answers with when the core refused every one of them for the same
// reason: 401 for UNAUTHORIZED, 403 for FORBIDDEN; 0 otherwise.
func (rs *refusals) status(calls int) (int, *ilgraph.Error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if calls == 0 || len(rs.errs) != calls {
		return 0, nil
	}
	for _, e := range rs.errs[1:] {
		if e.Code != rs.errs[0].Code {
			return 0, nil
		}
	}
	if rs.errs[0].Code == ilgraph.EUNAUTHORIZED {
		return http.StatusUnauthorized, rs.errs[0]
	}
	return http.StatusForbidden, rs.errs[0]
}

// refusing answers for the SDK's writer: it decides, when the SDK first
// writes (after every call of the request has run: the server answers in
// JSON, not in an event stream), whether the answer is a refusal, and then
// writes the refusal instead of the SDK's answer.
type refusing struct {
	http.ResponseWriter
	r       *http.Request
	rs      *refusals
	calls   int
	decided bool
	refused bool
}

func (w *refusing) decide() {
	if w.decided {
		return
	}
	w.decided = true
	if status, err := w.rs.status(w.calls); status != 0 {
		w.refused = true
		Fail(w.ResponseWriter, w.r, status, err)
	}
}

func (w *refusing) WriteHeader(code int) {
	if w.decide(); !w.refused {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *refusing) Write(b []byte) (int, error) {
	if w.decide(); w.refused {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes what the SDK wrote, once decided.
func (w *refusing) Flush() {
	if w.decide(); !w.refused {
		http.NewResponseController(w.ResponseWriter).Flush() //nolint:errcheck // as http.Flusher, nothing to report to
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *refusing) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// toolCalls counts the tools/call messages of a POST.
func toolCalls(msgs []rpcMessage) int {
	n := 0
	for _, m := range msgs {
		if m.Method == "tools/call" {
			n++
		}
	}
	return n
}
