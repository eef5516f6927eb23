package resolvers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/ilgraph/ilgraph/internal/admission"
)

// graphQLHTTP is the /graphql transport. It follows the GraphQL over HTTP
// specification (graphql.github.io/graphql-over-http), checked by the
// graphql-http audit suite in conformance_test.go, where gqlgen's stock
// GET and POST transports differ from it:
//
//   - The response media type comes from Accept: application/json when it
//     is missing or a wildcard, application/graphql-response+json when the
//     client prefers it, 406 when the client accepts neither.
//   - Malformed requests are HTTP errors, 4xx: a POST that is not
//     application/json (415), an empty body or one that is not a JSON object,
//     a missing or non-string query, an operationName that is not a string,
//     variables or extensions that are not objects (400), any other method
//     (405). Only then is the request a GraphQL request.
//   - A request error (the document does not parse or validate, variables
//     do not coerce, a limit refuses it, so nothing runs) has no "data"
//     entry, and answers 200 with application/json (what older clients
//     expect) and 400 with application/graphql-response+json.
//   - GET may only run queries (405 otherwise, with Allow: POST).
//
// Everything else — the query cache, APQ, the limits, the error presenter —
// is gqlgen's executor, unchanged.
//
// Between validation and execution the transport takes a slot for the
// operation's cost class (admission.go): an operation that finds its class
// full and its queue full, or waits too long, answers 503 with Retry-After
// and code OVERLOADED, without a data entry, whatever the media type.
type graphQLHTTP struct {
	admission *admission.Controller // nil: no bound
	metrics   *metrics
	maxErrors int // request errors shown, then one "too many errors"
}

var _ graphql.Transport = graphQLHTTP{}

const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// Supports takes every request but OPTIONS and HEAD (transport.Options
// answers those) and WebSocket upgrades (which we do not serve), so that
// wrong methods get a 405 from us rather than gqlgen's generic 400.
func (graphQLHTTP) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && r.Method != http.MethodOptions && r.Method != http.MethodHead
}

func (t graphQLHTTP) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	media, ok := responseMediaType(r.Header.Values("Accept"))
	out := responder{w: w, media: media}
	if !ok {
		out.fail(http.StatusNotAcceptable, "the server answers application/json or application/graphql-response+json; Accept allows neither")
		return
	}
	var params *graphql.RawParams
	var status int
	var msg string
	switch r.Method {
	case http.MethodGet:
		params, status, msg = paramsFromURL(r.URL.RawQuery)
	case http.MethodPost:
		params, status, msg = paramsFromBody(r)
	default:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		out.fail(http.StatusMethodNotAllowed, "GraphQL requests are GET or POST")
		return
	}
	if params == nil {
		out.fail(status, msg)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	ctx := r.Context()
	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		errs = capErrors(errs, t.maxErrors)
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
		status := http.StatusOK
		if media == mediaGraphQLResponse {
			status = http.StatusBadRequest
		}
		out.requestError(status, resp)
		return
	}
	if r.Method == http.MethodGet && oc.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "POST")
		out.fail(http.StatusMethodNotAllowed, "GET requests may only run queries; send a "+string(oc.Operation.Operation)+" with POST")
		return
	}
	release, ok := t.admit(ctx, w, out, classify(oc.Operation, oc.Doc.Fragments))
	if !ok {
		return
	}
	defer release()
	responses, ctx := exec.DispatchOperation(ctx, oc)
	resp := responses(ctx)
	out.write(refusedStatus(oc.Operation.Operation, resp), resp)
}

// refusedStatus is the HTTP status of an operation's answer: 200, except
// for a mutation every error of which is UNAUTHORIZED (401) or FORBIDDEN
// (403), which the core refused as a whole before changing anything, as
// every door answers a write refused for its credentials.
func refusedStatus(op ast.Operation, resp *graphql.Response) int {
	if op != ast.Mutation || resp == nil || len(resp.Errors) == 0 {
		return http.StatusOK
	}
	for _, status := range []struct {
		code string
		http int
	}{{"UNAUTHORIZED", http.StatusUnauthorized}, {"FORBIDDEN", http.StatusForbidden}} {
		all := true
		for _, e := range resp.Errors {
			if e.Extensions["code"] != status.code {
				all = false
				break
			}
		}
		if all {
			return status.http
		}
	}
	return http.StatusOK
}

// responseMediaType picks the media type to answer in from the Accept
// header values: the acceptable one with the highest q, the first listed on
// a tie. It reports false when Accept lists media types but none we serve.
func responseMediaType(accept []string) (string, bool) {
	best, bestQ, listed := "", 0.0, false
	for _, v := range accept {
		for part := range strings.SplitSeq(v, ",") {
			mt, p, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			listed = true
			q := 1.0
			if s, ok := p["q"]; ok {
				if q, err = strconv.ParseFloat(s, 64); err != nil {
					q = 0
				}
			}
			var cand string
			switch mt {
			case mediaGraphQLResponse:
				cand = mediaGraphQLResponse
			case mediaJSON, "application/*", "*/*":
				cand = mediaJSON
			}
			if cand != "" && q > bestQ {
				best, bestQ = cand, q
			}
		}
	}
	if best == "" {
		return mediaJSON, !listed
	}
	return best, true
}

// paramsFromBody reads a POST: an application/json body holding a JSON
// object. On failure it returns nil, the HTTP status and a message.
func paramsFromBody(r *http.Request) (*graphql.RawParams, int, string) {
	ct := r.Header.Get("Content-Type")
	mt, p, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != mediaJSON {
		return nil, http.StatusUnsupportedMediaType, "a POST to /graphql must have Content-Type: application/json"
	}
	if cs, ok := p["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return nil, http.StatusUnsupportedMediaType, "the request body must be UTF-8"
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)
		}
		return nil, http.StatusBadRequest, "could not read the request body"
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, http.StatusBadRequest, "the request body is empty; send a JSON object with a query"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return nil, http.StatusBadRequest, "the request body is not a JSON object"
	}
	return paramsFrom(fields["query"], fields["operationName"], fields["variables"], fields["extensions"])
}

// paramsFromURL reads a GET: query and operationName as they are,
// variables and extensions as JSON text.
func paramsFromURL(rawQuery string) (*graphql.RawParams, int, string) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, http.StatusBadRequest, "the URL's query string is malformed"
	}
	str := func(name string) json.RawMessage {
		if !q.Has(name) {
			return nil
		}
		b, _ := json.Marshal(q.Get(name))
		return b
	}
	jsonText := func(name string) json.RawMessage {
		if q.Get(name) == "" {
			return nil
		}
		return json.RawMessage(q.Get(name))
	}
	return paramsFrom(str("query"), str("operationName"), jsonText("variables"), jsonText("extensions"))
}

// paramsFrom checks the four request parameters, each absent (nil) or JSON.
func paramsFrom(query, operationName, variables, extensions json.RawMessage) (*graphql.RawParams, int, string) {
	params := &graphql.RawParams{}
	var err error
	if params.Extensions, err = jsonObject(extensions); err != nil {
		return nil, http.StatusBadRequest, "extensions must be a JSON object"
	}
	if params.Variables, err = jsonObject(variables); err != nil {
		return nil, http.StatusBadRequest, "variables must be a JSON object"
	}
	if isNull(operationName) {
		// absent or null: the document's only operation
	} else if json.Unmarshal(operationName, &params.OperationName) != nil {
		return nil, http.StatusBadRequest, "operationName must be a string"
	}
	if isNull(query) {
		// An automatic persisted query may leave the query out; the APQ
		// extension fills it in or answers PERSISTED_QUERY_NOT_FOUND.
		if params.Extensions["persistedQuery"] == nil {
			return nil, http.StatusBadRequest, "the query parameter is required"
		}
	} else if json.Unmarshal(query, &params.Query) != nil {
		return nil, http.StatusBadRequest, "query must be a string"
	}
	return params, 0, ""
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || string(bytes.TrimSpace(raw)) == "null"
}

var errNotObject = errors.New("not a JSON object")

// jsonObject decodes an absent or null value to nil and an object to a map
// (numbers as json.Number, as gqlgen's own transports do).
func jsonObject(raw json.RawMessage) (map[string]any, error) {
	if isNull(raw) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errNotObject
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return m, nil
}

// responder writes responses in the negotiated media type, always UTF-8.
type responder struct {
	w     http.ResponseWriter
	media string
}

// write sends an executed operation's response; its data entry stays, null
// or not.
func (o responder) write(status int, resp *graphql.Response) {
	if resp == nil {
		resp = &graphql.Response{Errors: gqlerror.List{{Message: "no response"}}}
	}
	if len(resp.Data) > 0 && len(resp.Errors) == 0 && len(resp.Extensions) == 0 && resp.Label == "" && resp.Path == nil && resp.HasNext == nil {
		// Only data, which the executor wrote as JSON: sent as it is.
		// json.Marshal would compact and re-escape it byte by byte, a tenth
		// of the server's time for a large answer such as a co-occurrence
		// graph.
		o.w.Header().Set("Content-Type", o.media+"; charset=utf-8")
		o.w.WriteHeader(status)
		o.w.Write(dataOnlyPrefix)
		o.w.Write(resp.Data)
		o.w.Write(dataOnlySuffix)
		return
	}
	o.send(status, resp)
}

var dataOnlyPrefix, dataOnlySuffix = []byte(`{"data":`), []byte(`}`)

// requestError sends errors from before execution: no data entry at all.
func (o responder) requestError(status int, resp *graphql.Response) {
	o.send(status, struct {
		Errors     gqlerror.List  `json:"errors"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions})
}

// fail sends a request the server could not take as a GraphQL request.
func (o responder) fail(status int, msg string) {
	code := "BAD_REQUEST"
	if status == http.StatusRequestEntityTooLarge {
		code = "LIMIT"
	}
	o.send(status, map[string]any{"errors": []map[string]any{{"message": msg, "extensions": map[string]any{"code": code}}}})
}

func (o responder) send(status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"errors":[{"message":"internal error","extensions":{"code":"INTERNAL"}}]}`)
	}
	o.w.Header().Set("Content-Type", o.media+"; charset=utf-8")
	o.w.WriteHeader(status)
	o.w.Write(b)
}
