// Package mcpserver is the MCP server: the incident library's tools
// (search_incidents, get_incident, list_incidents, get_topic, vocab) with
// their names and meanings, and ours (similar_incidents, match_incident,
// same_root_cause, graph_neighbourhood, and the judgments of similar
// matches: judge_similar, withdraw_judgment, hide_similar,
// unhide_similar), over Streamable HTTP (NewHandler, mounted at /mcp by
// ilgraph serve) and stdio (ilgraph mcp).
//
// Like the JSON API it translates to the application core, and it answers
// with the same shapes (internal/view), so a tool's structured content is
// the JSON API's answer to the same question. The reading tools are
// read-only; the judgments' tools write, as the request's principal, and
// the core checks its role. Every tool has input and output schemas
// (inferred from the Go types below, with the API's limits added), returns
// structured content with a short text rendering, and runs under the API's
// per-request timeout.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/admission"
)

// Options are the MCP server's settings.
type Options struct {
	Logger *slog.Logger // default slog.Default()
	// Timeout bounds each tool call (default 15 s, the API's request timeout).
	Timeout time.Duration
	// RequestTimeout is the HTTP shell's per-request timeout
	// (httpapi.Options.RequestTimeout): over Streamable HTTP a tool call
	// ends before it, with time to answer (a tenth of it, at most 1 s), since the
	// SDK does not give the call the request's deadline and an answer
	// written after it reaches the client as an empty 200. 0: none.
	RequestTimeout time.Duration
	// Version is reported to clients (default "dev").
	Version string
	// AllowAnyHost turns off the SDK's DNS-rebinding protection, which
	// refuses (403) a request that reaches a loopback listener with a Host
	// that is not loopback. Needed behind a reverse proxy on the same host
	// that forwards the public Host to a server listening on 127.0.0.1.
	AllowAnyHost bool
	// Admitter bounds the tool calls running at once per cost class, shared
	// with the other front doors; each tool's class is in admission.Classes.
	// Over Streamable HTTP a call refused for overload answers HTTP 503 with
	// Retry-After and a JSON-RPC error (NewHandler). nil: no bound (stdio:
	// one client per process).
	Admitter *admission.Controller
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// Instructions tell a client's model what the server is for. The kinds of
// term are listed from the kind table (ilgraph.AllKinds), so that a new kind
// is never left out.
var Instructions = `Incident post-mortems (public outage write-ups), tagged with terms of these kinds (as the tools name them):
` + kindList(ilgraph.AllKinds, "and") + `.
Use vocab to learn the term ids; search_incidents for free text; list_incidents to filter;
get_incident for one case; get_topic for a term; similar_incidents and same_root_cause for
related cases; match_incident to describe an incident in progress and get similar cases,
causes to check and what resolved them; suggest_terms to turn a description into term ids;
graph_neighbourhood for the graph around a case or term.
With a reviewer's token, judge_similar records how relevant a similar incident is to its case
(withdraw_judgment takes it back); with an editor's, hide_similar hides a match judged not relevant
and unhide_similar shows it again.`

// kindList names kinds as the tools take them, each with its label where
// that differs: "root_cause (root cause), component, …, and org
// (organization)"; conj joins the last one ("and", "or").
func kindList(kinds []ilgraph.Kind, conj string) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
		if l := k.Label(); l != string(k) {
			names[i] += " (" + l + ")"
		}
	}
	return joinList(names, conj)
}

// kindNames are the kinds' names alone: "root_cause, component, … or org".
func kindNames(kinds []ilgraph.Kind, conj string) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return joinList(names, conj)
}

func joinList(names []string, conj string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

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
// balancer can answer it, as with the rest of the API. It is mounted in the
// HTTP shell (httpapi), which bounds the request body; a body over the
// bound answers 413 (Fail). A request whose tool calls the core all
// refused for its credentials answers 401 or 403 (refusal.go).
func NewHandler(core *explore.Service, opt Options) http.Handler {
	opt.defaults()
	if opt.RequestTimeout > 0 {
		opt.Timeout = min(opt.Timeout, opt.RequestTimeout-min(opt.RequestTimeout/10, time.Second))
	}
	s := NewServer(core, opt)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opt.Logger, DisableLocalhostProtection: opt.AllowAnyHost})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				Fail(w, r, http.StatusRequestEntityTooLarge, ilgraph.Errorf(ilgraph.ELIMIT, "request body is larger than %d bytes", tooBig.Limit))
				return
			}
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		msgs := messages(body)
		class, id := classify(msgs)
		if err := check(msgs); err != nil {
			rpcError(w, http.StatusBadRequest, id, -32600, "LIMIT: "+err.Error(), map[string]any{"code": "LIMIT"})
			return
		}
		release, refused := opt.Admitter.Admit(r.Context(), class)
		if refused != nil {
			overloaded(w, id, refused)
			return
		}
		defer release()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if calls := toolCalls(msgs); calls > 0 {
			rs := &refusals{}
			r = r.WithContext(context.WithValue(r.Context(), refusalsKey{}, rs))
			w = &refusing{ResponseWriter: w, r: r, rs: rs, calls: calls}
		}
		h.ServeHTTP(w, r)
	})
}

// Fail answers an HTTP request that reaches no JSON-RPC message with err
// and status, in the JSON API's error body (httpapi.Door.Fail: a body over
// the shell's limit answers 413, LIMIT).
func Fail(w http.ResponseWriter, _ *http.Request, status int, err *ilgraph.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": strings.ToUpper(err.Code), "message": err.Message}})
	w.Write(append(body, '\n'))
}

// Limits of a POSTed JSON-RPC body, checked before the SDK reads it: the
// SDK's error messages quote what they refuse (an unknown tool's name, a
// value over a schema limit, an unknown method), and answers a batch with
// one answer per message, so without them a 1 MiB body of nonsense is
// answered by 1 MiB of errors, and a batch of thousands of calls runs under
// one slot.
const (
	maxBatch     = 10       // messages in a batch (MCP 2025-03-26; later versions have none)
	maxMethod    = 100      // bytes of a method or tool name
	maxRequestID = 200      // bytes of a request id
	maxParamText = 16 << 10 // characters of any string in params: above the longest any tool takes (suggest.MaxTextChars), so that a tool still names its own limit
)

// rpcMessage is what the handler reads of a JSON-RPC message.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// messages parses a POSTed body: one message or a batch. A body that does
// not parse gives none (the SDK answers it).
func messages(body []byte) []rpcMessage {
	var msgs []rpcMessage
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		json.Unmarshal(body, &msgs) //nolint:errcheck // the SDK answers a bad body
	} else {
		var m rpcMessage
		if json.Unmarshal(body, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// check refuses a body over the limits above, with a short message.
func check(msgs []rpcMessage) error {
	if len(msgs) > maxBatch {
		return fmt.Errorf("a batch of %d messages; at most %d", len(msgs), maxBatch)
	}
	for _, m := range msgs {
		if len(m.ID) > maxRequestID {
			return fmt.Errorf("id: longer than %d bytes", maxRequestID)
		}
		if len(m.Method) > maxMethod {
			return fmt.Errorf("method: longer than %d bytes", maxMethod)
		}
		if len(m.Params) == 0 {
			continue
		}
		var params any
		if json.Unmarshal(m.Params, &params) != nil {
			continue // the SDK answers it
		}
		if p, ok := params.(map[string]any); ok {
			if name, ok := p["name"].(string); ok && len(name) > maxMethod {
				return fmt.Errorf("params.name: longer than %d bytes", maxMethod)
			}
		}
		if long := longString(params); long != "" {
			return fmt.Errorf("params: %s longer than %d characters", long, maxParamText)
		}
	}
	return nil
}

// longString names the first string (a value or a key) in v longer than
// maxParamText characters, or returns "".
func longString(v any) string {
	switch v := v.(type) {
	case string:
		if utf8.RuneCountInString(v) > maxParamText {
			return "a string"
		}
	case []any:
		for _, x := range v {
			if s := longString(x); s != "" {
				return s
			}
		}
	case map[string]any:
		for k, x := range v {
			if utf8.RuneCountInString(k) > maxParamText {
				return "a key"
			}
			if s := longString(x); s != "" {
				return s
			}
		}
	}
	return ""
}

// classify is the cost class of the messages of a POST: a tools/call takes
// its tool's class from admission.Classes; anything else (initialize,
// tools/list, a notification, an unknown tool, a body the SDK will refuse)
// is a lookup. id is the first request's id, for a refusal.
func classify(msgs []rpcMessage) (admission.Class, json.RawMessage) {
	class := admission.Lookup
	var id json.RawMessage
	for _, m := range msgs {
		if id == nil && len(m.ID) > 0 {
			id = m.ID
		}
		if m.Method != "tools/call" {
			continue
		}
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Params, &p) //nolint:errcheck // the SDK answers a bad one
		if c, ok := admission.Classes["mcp "+p.Name]; ok && c > class {
			class = c
		}
	}
	return class, id
}

// rpcError answers a POST with an HTTP error status and, as its body, a
// JSON-RPC error response (the way the Streamable HTTP transport lets a
// server refuse a POST).
func rpcError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	if len(id) == 0 || len(id) > maxRequestID {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// overloaded answers a refused call: HTTP 503 with Retry-After, and a
// JSON-RPC error -32000 (a server error) with the API's code in data.
func overloaded(w http.ResponseWriter, id json.RawMessage, o *admission.Overloaded) {
	w.Header().Set("Retry-After", strconv.Itoa(o.RetryAfter))
	rpcError(w, http.StatusServiceUnavailable, id, -32000, "OVERLOADED: "+o.Message(),
		map[string]any{"code": "OVERLOADED", "retryAfter": o.RetryAfter})
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
	return errorf(code, "%s", ilgraph.ErrorMessageIn(err, fieldNames))
}

// fieldNames are the tools' names of the core's field keys (ilgraph.Field…):
// an error about an argument names it as the call did.
var fieldNames = withKindArgs(map[string]string{
	ilgraph.FieldPageSize:           "limit",
	ilgraph.FieldPageCursor:         "cursor",
	ilgraph.FieldSort:               "sort",
	ilgraph.FieldText:               "query",
	ilgraph.FieldKind:               "kind",
	ilgraph.FieldSimilarK:           "k",
	ilgraph.FieldSimilarMinScore:    "min_score",
	ilgraph.FieldProfile:            "the incident's terms",
	ilgraph.FieldSuggestText:        "text",
	ilgraph.FieldLang:               "lang",
	ilgraph.FieldCooccurringSize:    "cooccurring",
	ilgraph.FieldNeighbourhoodDepth: "depth",
	ilgraph.FieldNeighbourhoodNodes: "nodes",
	ilgraph.FieldFilterDateFrom:     "from",
	ilgraph.FieldFilterDateTo:       "to",
	ilgraph.FieldJudgmentMatch:      "match",
	ilgraph.FieldJudgmentGrade:      "grade",
	ilgraph.FieldJudgmentReason:     "reason",
})

// withKindArgs adds the names of every kind's terms: in a filter, the
// argument of Filters that terms reads for the kind; in a profile (of
// match_incident), the kind table's ProfileField in snake_case.
func withKindArgs(names map[string]string) map[string]string {
	var f Filters
	v := reflect.ValueOf(&f).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() == reflect.Slice {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			v.Field(i).Set(reflect.ValueOf([]string{name}))
		}
	}
	for k, arg := range f.terms() {
		if len(arg) != 1 {
			continue
		}
		for _, m := range []string{"", ilgraph.MatchAnyOf, ilgraph.MatchAllOf} {
			names[ilgraph.FieldFilterTerms(k, m)] = arg[0]
		}
	}
	for _, info := range ilgraph.Kinds {
		var b strings.Builder
		for _, r := range info.ProfileField {
			if unicode.IsUpper(r) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		}
		names[ilgraph.FieldProfileTerms(info.Kind)] = b.String()
	}
	return names
}

// readOnly are the annotations of the reading tools: nothing is written,
// and the answers come from our own closed corpus.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}
}

// writing are the annotations of the judgments' tools: they write, but
// calling one again with the same arguments changes nothing more (a
// judge's judgment of a pair is replaced, a hidden match keeps its first
// hiding, withdrawing or showing again twice finds nothing the second
// time). A tool that removes what was stored (a judgment and its reason,
// a hiding) is destructive in the MCP sense, which calls a tool
// non-destructive only when its updates are additive.
func writing(title string, destructive bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: false, IdempotentHint: true, DestructiveHint: &destructive, OpenWorldHint: &f}
}

// addWriteTool registers a tool that writes (annotated so; destructive
// when it removes stored data); the core checks the role of the request's
// principal.
func addWriteTool[In, Out any](t *tools, s *mcp.Server, name, title, desc string, destructive bool, run func(context.Context, In) (*Out, string, error)) {
	add(t, s, name, writing(title, destructive), desc, run, nil)
}

// addTool registers a read-only tool (add). It runs pinned to one
// in-memory corpus (explore.Consistently): a tool that asks several
// questions reads the corpus version once.
func addTool[In, Out any](t *tools, s *mcp.Server, name, title, desc string, run func(context.Context, In) (*Out, string, error), defs defaults) {
	type answer struct {
		v    *Out
		text string
	}
	pinned := func(ctx context.Context, args In) (*Out, string, error) {
		a, err := explore.Consistently(ctx, t.core, func(ctx context.Context) (answer, error) {
			v, text, err := run(ctx, args)
			return answer{v, text}, err
		})
		return a.v, a.text, err
	}
	add(t, s, name, readOnly(title), desc, pinned, defs)
}

// add registers a typed tool with its annotations. Its input schema is inferred from In, made
// to take no nulls (an argument left out is omitted, not null) and given the
// API's limits; its output schema is inferred from Out, the answer's value
// type, so that its top-level type is "object" as the MCP specification
// requires (a pointer type would infer ["null", "object"], which the
// TypeScript SDK, and the clients built on it, refuse: every tool, for the
// whole tools/list). The handler runs under the timeout and renders its
// output as short text; a refusal for the caller's credentials is noted
// for NewHandler (refused).
func add[In, Out any](t *tools, s *mcp.Server, name string, ann *mcp.ToolAnnotations, desc string, run func(context.Context, In) (*Out, string, error), defs defaults) {
	admission.ClassOf("mcp " + name) // every tool has a cost class
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", name, err))
	}
	noNulls(in)
	limit(in, defs)
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %s: %v", name, err))
	}
	if in.Type != "object" || out.Type != "object" {
		panic(fmt.Sprintf("mcpserver: %s: input and output schemas must have type \"object\", not %q and %q", name, in.Type, out.Type))
	}
	tool := &mcp.Tool{Name: name, Title: ann.Title, Description: desc, Annotations: ann, InputSchema: in, OutputSchema: out}
	mcp.AddTool(s, tool, func(ctx context.Context, _ *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		ctx, cancel := context.WithTimeout(ctx, t.opt.Timeout)
		defer cancel()
		var zero Out
		v, text, err := run(ctx, args)
		if err == nil && v == nil {
			err = ilgraph.Errorf(ilgraph.EINTERNAL, "%s answered nothing", name)
		}
		if err != nil {
			refused(ctx, err)
			var te *toolError
			if !errors.As(err, &te) {
				err = t.asToolError(ctx, name, err)
			}
			return nil, zero, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, *v, nil
	})
}

// noNulls makes every type of an inferred input schema a single one: Go's
// pointers and slices infer ["null", T], but an optional argument is left
// out rather than sent as null, and a type array is what clients that map
// tool schemas onto a single-type dialect (the OpenAPI subset of some model
// providers' function declarations) cannot take.
func noNulls(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" }); len(s.Types) > 0 && len(types) == 1 {
		s.Type, s.Types = types[0], nil
	}
	for _, p := range s.Properties {
		noNulls(p)
	}
	noNulls(s.Items)
	noNulls(s.AdditionalProperties)
}
