// Package mcpserver is the MCP server: the incident library's tools
// (search_incidents, get_incident, list_incidents, get_topic, vocab) with
// their names and meanings, and ours (similar_incidents, match_incident,
// same_root_cause, graph_neighbourhood), over Streamable HTTP (NewHandler,
// mounted at /mcp by ilgraph serve) and stdio (ilgraph mcp).
//
// Like the JSON API it translates to the application core, and it answers
// with the same shapes (internal/view), so a tool's structured content is
// the JSON API's answer to the same question. Every tool is read-only, has
// input and output schemas (inferred from the Go types below, with the API's
// limits added), returns structured content with a short text rendering,
// and runs under the API's per-request timeout.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// Options are the MCP server's settings.
type Options struct {
	Logger *slog.Logger // default slog.Default()
	// Timeout bounds each tool call (default 15 s, the API's request timeout).
	Timeout time.Duration
	// MaxBodyBytes bounds an HTTP request body (default 1 MiB): 413 beyond.
	MaxBodyBytes int64
	// Version is reported to clients (default "dev").
	Version string
	// AllowAnyHost turns off the SDK's DNS-rebinding protection, which
	// refuses (403) a request that reaches a loopback listener with a Host
	// that is not loopback. Needed behind a reverse proxy on the same host
	// that forwards the public Host to a server listening on 127.0.0.1.
	AllowAnyHost bool
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// Instructions tell a client's model what the server is for.
const Instructions = `Incident post-mortems (public outage write-ups) tagged with a controlled vocabulary:
root cause, components, symptoms, contributing factors, domains, organization.
Use vocab to learn the term ids; search_incidents for free text; list_incidents to filter;
get_incident for one case; get_topic for a term; similar_incidents and same_root_cause for
related cases; match_incident to describe an incident in progress and get similar cases,
causes to check and what resolved them; graph_neighbourhood for the graph around a case or term.`

// NewServer returns the MCP server with every tool, over the core.
func NewServer(core *explore.Service, opt Options) *mcp.Server {
	opt.defaults()
	s := mcp.NewServer(&mcp.Implementation{Name: "ilgraph", Title: "ilgraph incident library", Version: opt.Version},
		&mcp.ServerOptions{Instructions: Instructions, Logger: opt.Logger})
	t := &tools{core: core, opt: opt}
	t.register(s)
	return s
}

// NewHandler serves the MCP server over Streamable HTTP, statelessly: each
// request stands alone (no sessions to keep), so any instance behind a load
// balancer can answer it, as with the rest of the API.
func NewHandler(core *explore.Service, opt Options) http.Handler {
	opt.defaults()
	s := NewServer(core, opt)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opt.Logger, DisableLocalhostProtection: opt.AllowAnyHost})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > opt.MaxBodyBytes {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			fmt.Fprintf(w, `{"error":{"code":"LIMIT","message":"request body is larger than %d bytes"}}`+"\n", opt.MaxBodyBytes)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, opt.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// toolError is what a tool call fails with: the core's code and message,
// e.g. "NOT_FOUND: no case with id "IL-9999"".
type toolError struct {
	code, msg string
}

func (e *toolError) Error() string { return e.code + ": " + e.msg }

func errorf(code, format string, args ...any) error {
	return &toolError{code: strings.ToUpper(code), msg: fmt.Sprintf(format, args...)}
}

// asToolError turns the core's errors into messages a model can act on,
// hiding internal ones.
func (t *tools) asToolError(ctx context.Context, name string, err error) error {
	var ie *ilgraph.Error
	if !errors.As(err, &ie) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return errorf(ilgraph.ETIMEOUT, "the call took longer than its time limit (%s)", t.opt.Timeout)
	}
	code := ilgraph.ErrorCode(err)
	if code == ilgraph.EINTERNAL {
		t.opt.Logger.ErrorContext(ctx, "internal error in MCP tool", "tool", name, "err", err)
		return errorf(code, "internal error")
	}
	return errorf(code, "%s", ilgraph.ErrorMessage(err))
}

// readOnly are the annotations of every tool: nothing is ever written, and
// the answers come from our own closed corpus.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}
}

// addTool registers a typed tool whose input schema is inferred from In and
// then given the API's limits, and whose handler runs under the timeout and
// renders its output as short text.
func addTool[In, Out any](t *tools, s *mcp.Server, name, title, desc string, run func(context.Context, In) (Out, string, error)) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", name, err))
	}
	limit(in)
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %s: %v", name, err))
	}
	tool := &mcp.Tool{Name: name, Title: title, Description: desc, Annotations: readOnly(title), InputSchema: in, OutputSchema: out}
	mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		ctx, cancel := context.WithTimeout(ctx, t.opt.Timeout)
		defer cancel()
		v, text, err := run(ctx, args)
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) {
				err = t.asToolError(ctx, name, err)
			}
			var zero Out
			return nil, zero, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, v, nil
	})
}
