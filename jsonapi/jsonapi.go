// Package jsonapi is the JSON API "for tools and scripts", in the incident
// library's shape: the case as loaded at /cases/{id}, the most similar cases
// at /cases/{id}/similar, case lists, topic pages and the vocabulary. It is a
// translation between HTTP and the application core (explore.Service): the
// answers are the GraphQL answers to the same questions, with the same
// limits and the same error codes. The contract is openapi.json, served at
// /openapi.json.
package jsonapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/admission"
	"github.com/ilgraph/ilgraph/internal/view"
)

// OpenAPI is the API's OpenAPI 3.1 document, written by hand: it is the
// contract the tests check every answer against, so it must not be derived
// from the types it checks.
//
//go:embed openapi.json
var OpenAPI []byte

// Options are the JSON API's settings.
type Options struct {
	Logger *slog.Logger // default slog.Default()
	// Admitter bounds the requests running at once per cost class, shared
	// with the other front doors; each route's class is in
	// admission.Classes. nil: no bound.
	Admitter *admission.Controller
}

// Patterns are the paths the handler answers, to mount it in the HTTP
// shell (httpapi.Options.Routes): pattern → the same handler, with Fail.
var Patterns = []string{"/cases", "/cases/", "/topics/", "/vocab", "/suggest", "/openapi.json", "/review-queue"}

type api struct {
	core *explore.Service
	opt  Options
}

// NewHandler returns the JSON API over the core.
func NewHandler(core *explore.Service, opt Options) http.Handler {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	a := &api{core: core, opt: opt}
	mux := http.NewServeMux()
	for pattern, h := range a.routes() {
		if strings.HasPrefix(pattern, http.MethodGet+" ") {
			h = a.pinned(h)
		}
		mux.Handle(pattern, a.admitted(admission.ClassOf(pattern), h))
	}
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		a.writeTagged(w, r, OpenAPI)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		a.fail(w, r, ilgraph.Errorf(ilgraph.ENOTFOUND, "no such path: %s (see /openapi.json)", ilgraph.Clip(r.URL.Path, 80)))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(r.URL.Path); !slices.Contains(strings.Split(allow, ", "), r.Method) {
			w.Header().Set("Allow", allow)
			a.writeError(w, http.StatusMethodNotAllowed, "INVALID", fmt.Sprintf("method %s: %s answers %s", ilgraph.Clip(r.Method, 20), ilgraph.Clip(r.URL.Path, 80), allow))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// allowed lists the methods a path answers: every path reads (GET, HEAD);
// the cases also change (docs/api.md#changing-cases); a similar match's
// judgment and hiding are only set and removed.
func allowed(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/cases":
		return "GET, HEAD, POST"
	case len(parts) == 2 && parts[0] == "cases":
		return "GET, HEAD, PUT, DELETE"
	case len(parts) == 3 && parts[0] == "cases" && (parts[2] == "restore" || parts[2] == "review"):
		return "POST"
	case len(parts) == 5 && parts[0] == "cases" && parts[2] == "similar" && (parts[4] == "judgment" || parts[4] == "hidden"):
		return "PUT, DELETE"
	}
	return "GET, HEAD"
}

// fieldNames are the JSON API's names of the core's field keys
// (ilgraph.Field…): an error about an input names the query parameter the
// client sent.
var fieldNames = withKindParams(map[string]string{
	ilgraph.FieldPageSize:        "limit",
	ilgraph.FieldPageCursor:      "cursor",
	ilgraph.FieldSort:            "sort",
	ilgraph.FieldText:            "q",
	ilgraph.FieldKind:            "kind",
	ilgraph.FieldSimilarK:        "k",
	ilgraph.FieldSimilarMinScore: "min_score",
	ilgraph.FieldSuggestText:     "q",
	ilgraph.FieldLang:            "lang",
	ilgraph.FieldCooccurringSize: "cooccurring",
	ilgraph.FieldFilterDateFrom:  "from",
	ilgraph.FieldFilterDateTo:    "to",
	ilgraph.FieldVersion:         "If-Match",
	ilgraph.FieldRestoreFrom:     "from",
	ilgraph.FieldJudgmentMatch:   "match",
	ilgraph.FieldJudgmentGrade:   "grade",
	ilgraph.FieldJudgmentReason:  "reason",
	ilgraph.FieldReviewDecisions: "decisions",
	ilgraph.FieldReviewAdd:       "add",
})

// withKindParams adds the names of every kind's terms in a filter: the
// parameter is the kind (root_cause, component, …), one list per kind.
func withKindParams(names map[string]string) map[string]string {
	for _, info := range ilgraph.Kinds {
		for _, m := range []string{"", ilgraph.MatchAnyOf, ilgraph.MatchAllOf} {
			names[ilgraph.FieldFilterTerms(info.Kind, m)] = string(info.Kind)
		}
	}
	return names
}

// routes are the endpoints that ask the core, each run in a slot of its
// cost class (admission.Classes, by pattern).
func (a *api) routes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"GET /cases/{id}":                             a.caseJSON,
		"GET /cases/{id}/similar":                     a.similar,
		"GET /cases/{id}/same-root-cause":             a.sameRootCause,
		"GET /cases":                                  a.cases,
		"GET /topics/{kind}/{id}":                     a.topic,
		"GET /vocab":                                  a.vocab,
		"GET /suggest":                                a.suggest,
		"GET /cases/{id}/history":                     a.caseHistory,
		"POST /cases":                                 a.createCase,
		"PUT /cases/{id}":                             a.updateCase,
		"DELETE /cases/{id}":                          a.deleteCase,
		"POST /cases/{id}/restore":                    a.restoreCase,
		"GET /cases/{id}/judgments":                   a.judgments,
		"PUT /cases/{id}/similar/{match}/judgment":    a.judgeSimilar,
		"DELETE /cases/{id}/similar/{match}/judgment": a.withdrawJudgment,
		"PUT /cases/{id}/similar/{match}/hidden":      a.hideSimilar,
		"DELETE /cases/{id}/similar/{match}/hidden":   a.unhideSimilar,
		// The review of machine-tagged cases (review.go).
		"GET /review-queue":       a.reviewQueue,
		"POST /cases/{id}/review": a.reviewCase,
	}
}

// pinned runs a read (GET, HEAD) over one in-memory corpus while the
// graph's version is read once beside it (explore.Service.Pin), as the
// GraphQL door runs a query: a read that asks several questions (a case's
// similar cases and their tags, a topic page) pays one version read
// instead of one per question. Its response is held until the read says
// the corpus was current; if it was not, the response is dropped and the
// read runs again unpinned, each question reading the version.
func (a *api) pinned(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		held, _ := explore.Consistently(r.Context(), a.core, func(ctx context.Context) (*heldResponse, error) {
			held := &heldResponse{header: http.Header{}}
			h(held, r.WithContext(ctx))
			return held, nil
		})
		held.send(w)
	}
}

// heldResponse is a response kept in memory until it is sent (pinned).
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldResponse) Write(b []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.body.Write(b)
}

// send writes the held response to w.
func (h *heldResponse) send(w http.ResponseWriter) {
	for k, v := range h.header {
		w.Header()[k] = v
	}
	if h.status == 0 {
		h.status = http.StatusOK
	}
	w.WriteHeader(h.status)
	_, _ = w.Write(h.body.Bytes())
}

// admitted runs h in a slot of its cost class; a request refused for
// overload answers 503 with Retry-After and the API's error body, code
// OVERLOADED, before anything runs.
func (a *api) admitted(class admission.Class, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, refused := a.opt.Admitter.Admit(r.Context(), class)
		if refused != nil {
			w.Header().Set("Retry-After", strconv.Itoa(refused.RetryAfter))
			a.writeError(w, http.StatusServiceUnavailable, "OVERLOADED", refused.Message())
			return
		}
		defer release()
		h(w, r)
	})
}

// caseJSON answers the case exactly as loaded (or last written), byte for
// byte, with its version as the ETag: what an update or delete sends back
// in If-Match.
func (a *api) caseJSON(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	raw, v, err := a.core.CaseJSON(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTaggedAs(w, r, []byte(raw), versionTag(v))
}

func (a *api) similar(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "k", "weights", "rarity", "min_score", "include_hidden")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	q := explore.SimilarityQuery{
		K:        intOr(p.optInt("k"), explore.DefaultSimilarK),
		Weights:  p.weights("weights"),
		Rarity:   p.optBoolean("rarity"),
		MinScore: p.float("min_score", 0),
	}
	if hidden := p.optBoolean("include_hidden"); hidden != nil {
		q.IncludeHidden = *hidden
	}
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	id := r.PathValue("id")
	scs, err := a.core.Similar(r.Context(), id, q)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := view.Similar(r.Context(), a.core, id, scs)
	a.answer(w, r, out, err)
}

func (a *api) sameRootCause(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "limit", "cursor")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page := p.page()
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	c, err := a.core.Case(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	l, err := a.core.SameRootCause(r.Context(), c.ID, page)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := view.SameRootCause(r.Context(), a.core, c, l)
	a.answer(w, r, out, err)
}

// filterParams are the parameters that select cases: one per kind, named as
// the kind, then the rest.
var filterParams = append(kindParams(), "severity", "q", "from", "to")

func kindParams() []string {
	var ps []string
	for _, k := range ilgraph.AllKinds {
		ps = append(ps, string(k))
	}
	return ps
}

func (a *api) cases(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, append([]string{"sort", "limit", "cursor"}, filterParams...)...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	f := p.filter()
	q := explore.CaseQuery{Filter: f.CaseFilter(), Sort: p.sort("sort"), Page: p.page()}
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	ctx, warnings := explore.WithWarnings(r.Context())
	l, err := a.core.Cases(ctx, q)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page := view.Page(l)
	page.Warnings = view.Warnings(warnings.List())
	forms, err := a.core.WordForms(ctx, l.Filter)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page.WordForms = view.WordFormsOf(forms)
	a.answer(w, r, page, nil)
}

func (a *api) topic(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "limit", "cooccurring")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cases := intOr(p.optInt("limit"), explore.DefaultTopicCases)
	co := intOr(p.optInt("cooccurring"), explore.DefaultCooccurring)
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	kind, ok := view.ParseKind(r.PathValue("kind"))
	if !ok {
		a.fail(w, r, ilgraph.Errorf(ilgraph.ENOTFOUND, "no kind %q: topics are root_cause, component, symptom, contributing, domain or org", ilgraph.Clip(r.PathValue("kind"), 40)))
		return
	}
	out, err := view.TopicOf(r.Context(), a.core, ilgraph.TermKey{Kind: kind, ID: r.PathValue("id")}, cases, co)
	a.answer(w, r, out, err)
}

func (a *api) vocab(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "kind")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var kinds []ilgraph.Kind
	for _, s := range p.list("kind") {
		k, ok := view.ParseKind(s)
		if !ok {
			p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "kind: %q is not one of root_cause, component, symptom, contributing, domain, org", ilgraph.Clip(s, 40)))
			break
		}
		kinds = append(kinds, k)
	}
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	v, err := view.Vocab(r.Context(), a.core, kinds...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	body, err := encode(v)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTagged(w, r, body)
}

func (a *api) suggest(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "q", "lang", "limit", "min_confidence")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	text := p.str("q")
	lang := p.str("lang")
	// The terms listed per kind are the JSON API's and MCP's choice (the
	// core suggests them all), so their bounds are checked here.
	limit := p.intIn("limit", explore.DefaultSuggestPerKind, 1, explore.MaxSuggestPerKind)
	min := p.floatIn("min_confidence", 0, 0, 1)
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	out, err := view.Suggest(r.Context(), a.core, text, lang, limit, min)
	a.answer(w, r, out, err)
}

// answer writes v as JSON, or err.
func (a *api) answer(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		a.fail(w, r, err)
		return
	}
	body, err := encode(v)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINTERNAL, err, "encoding the answer")
	}
	return buf.Bytes(), nil
}

// writeTagged writes a JSON body with its ETag, or 304 when the client
// holds it already.
func (a *api) writeTagged(w http.ResponseWriter, r *http.Request, body []byte) {
	sum := sha256.Sum256(body)
	a.writeTaggedAs(w, r, body, `"`+hex.EncodeToString(sum[:12])+`"`)
}

// writeTaggedAs is writeTagged with the ETag given.
func (a *api) writeTaggedAs(w http.ResponseWriter, r *http.Request, body []byte, etag string) {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache") // may store, must revalidate: loads change cases
	if matchesETag(r.Header.Values("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	w.Write(body)
}

// matchesETag reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match) or is "*".
func matchesETag(values []string, etag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// fail writes err as a JSON error with the status its code calls for.
func (a *api) fail(w http.ResponseWriter, r *http.Request, err error) {
	ie := httpapi.Coded(err)
	code, msg := ilgraph.ErrorCode(err), ilgraph.ErrorMessage(err)
	if ie != nil {
		code, msg = ie.Code, ie.MessageIn(fieldNames)
	}
	if code == ilgraph.EINTERNAL {
		a.opt.Logger.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path)
		msg = "internal error"
	}
	if ie != nil && len(ie.Problems) > 0 {
		writeBody(w, Status(code), errorBody{Code: strings.ToUpper(code), Message: msg, Problems: problemsOf(ie.Problems)})
		return
	}
	a.writeError(w, Status(code), strings.ToUpper(code), msg)
}

// errorBody is the API's error: a code, a message and, for an invalid case
// given to a write, every problem with its field.
type errorBody struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Problems []problem `json:"problems,omitempty"`
}

type problem struct {
	Field   string `json:"field,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

func problemsOf(ps []ilgraph.InputProblem) []problem {
	out := make([]problem, len(ps))
	for i, p := range ps {
		out[i] = problem{Field: p.Field, Rule: p.Rule, Message: p.Message}
	}
	return out
}

// Status is the HTTP status of an error code.
func Status(code string) int {
	switch code {
	case ilgraph.EINVALID, ilgraph.ELIMIT:
		return http.StatusBadRequest
	case ilgraph.ENOTFOUND:
		return http.StatusNotFound
	case ilgraph.ECONFLICT:
		return http.StatusConflict
	case ilgraph.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case ilgraph.EFORBIDDEN:
		return http.StatusForbidden
	case ilgraph.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case ilgraph.ETIMEOUT:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// Fail writes err with status as the API's error body, for the HTTP shell
// (httpapi.Door.Fail: a body over the shell's limit answers 413, LIMIT).
func Fail(w http.ResponseWriter, _ *http.Request, status int, err *ilgraph.Error) {
	writeError(w, status, strings.ToUpper(err.Code), err.Message)
}

func (a *api) writeError(w http.ResponseWriter, status int, code, msg string) {
	writeError(w, status, code, msg)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeBody(w, status, errorBody{Code: code, Message: msg})
}

func writeBody(w http.ResponseWriter, status int, e errorBody) {
	body, _ := encode(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
