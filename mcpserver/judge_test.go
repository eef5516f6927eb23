package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/resolvers"
)

// judging is one core over the seeds, and for each principal the doors
// as ilgraph serve mounts them (the JSON API and MCP over HTTP, the
// principal given by the shell as a token would give it) and an MCP
// session over a pipe acting as the principal, as ilgraph mcp acts as
// ILGRAPH_TOKEN's.
type judging struct {
	t    *testing.T
	db   *graph.DB
	core *explore.Service
}

// as is one principal's way in.
type as struct {
	j    *judging
	url  string // the HTTP server: /mcp and the JSON API
	http *mcp.ClientSession
	pipe *mcp.ClientSession
}

func mustJudging(t *testing.T) *judging {
	t.Helper()
	db := neo4jtest.MustOpenSeeds(t)
	return &judging{t: t, db: db, core: apitest.Core(db)}
}

// as connects as p (the zero principal: anonymous).
func (j *judging) as(p ilgraph.Principal) *as {
	t := j.t
	t.Helper()
	opt := mcpserver.Options{Logger: quiet(), Timeout: 10 * time.Second}
	var creds []httpapi.Credential
	if !p.Anonymous() {
		creds = []httpapi.Credential{apitest.AsPrincipal(p)}
	}
	api := jsonapi.NewHandler(j.core, jsonapi.Options{Logger: quiet()})
	routes := apitest.JSONAPI(map[string]httpapi.Door{"/mcp": apitest.MCP(mcpserver.NewHandler(j.core, opt))}, api)
	srv := httptest.NewServer(apitest.New(j.core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()},
		Shell: httpapi.Options{Routes: routes, Credentials: creds}}))
	t.Cleanup(srv.Close)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-judge-test", Version: "1"}, nil)
	hs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	s := mcpserver.NewServer(j.core, opt)
	if !p.Anonymous() {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				return next(ilgraph.NewContextWithPrincipal(ctx, p), method, req)
			}
		})
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	ps, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	return &as{j: j, url: srv.URL, http: hs, pipe: ps}
}

// call calls a tool over one transport ("http" or "pipe").
func (a *as) call(transport, name string, args map[string]any) *mcp.CallToolResult {
	a.j.t.Helper()
	s := map[string]*mcp.ClientSession{"http": a.http, "pipe": a.pipe}[transport]
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.j.t.Fatalf("%s %s(%v): %v", transport, name, args, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured content.
func ok[T any](a *as, transport, name string, args map[string]any) T {
	a.j.t.Helper()
	res := a.call(transport, name, args)
	if res.IsError || res.StructuredContent == nil || text(res) == "" {
		a.j.t.Fatalf("%s %s(%v): %s", transport, name, args, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		a.j.t.Fatal(err)
	}
	return v
}

// fails calls a tool over both transports; each must fail with a tool
// error that starts with prefix and mentions every one of want, and
// change nothing in the graph.
func (a *as) fails(name string, args map[string]any, prefix string, want ...string) {
	t := a.j.t
	t.Helper()
	before := a.j.checksum()
	for _, transport := range []string{"http", "pipe"} {
		res := a.call(transport, name, args)
		msg := text(res)
		if !res.IsError || !strings.HasPrefix(msg, prefix) {
			t.Errorf("%s %s(%v): isError %v, %q; want an error starting %q", transport, name, args, res.IsError, msg, prefix)
			continue
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %s(%v): %q does not mention %q", transport, name, args, msg, w)
			}
		}
	}
	if a.j.checksum() != before {
		t.Errorf("%s(%v) was refused, but the graph changed", name, args)
	}
}

func (j *judging) checksum() string {
	j.t.Helper()
	sum, err := graph.NewBench(j.db).Checksum(context.Background())
	if err != nil {
		j.t.Fatal(err)
	}
	return sum
}

// feedback is what the core says of IL-0384's similar matches, read as a
// reader would.
func (j *judging) feedback(query string) *explore.Feedback {
	j.t.Helper()
	fb, err := j.core.Judgments(context.Background(), query)
	if err != nil {
		j.t.Fatal(err)
	}
	return fb
}

type judgmentAnswer struct {
	CaseID     string `json:"case_id"`
	Match      string
	Judge      string
	Grade      string
	GradeValue int `json:"grade_value"`
	Reason     string
	At         string
	Note       string
}

// TestJudgeSimilar: a reviewer judges a similar match over either
// transport, judging again replaces the judgment, and withdrawing takes it
// away; each is read back through the core and shows on the match's row
// of similar_incidents. Bad arguments fail naming the tool's argument, and
// change nothing.
func TestJudgeSimilar(t *testing.T) {
	j := mustJudging(t)
	const query = "IL-0384"
	scs, err := j.core.Similar(context.Background(), query, explore.SimilarityQuery{K: 5})
	if err != nil || len(scs) < 2 {
		t.Fatalf("similar cases of %s: %v %v", query, scs, err)
	}
	target := scs[1].Case.ID
	rita := j.as(ilgraph.Principal{Name: "rita", Role: ilgraph.RoleReviewer})
	stored := func(want ...ilgraph.Judgment) {
		t.Helper()
		var got []ilgraph.Judgment
		for _, x := range j.feedback(query).Judgments {
			x.At = time.Time{}
			got = append(got, x)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("stored judgments of %s: %+v, want %+v", query, got, want)
		}
	}

	v := ok[judgmentAnswer](rita, "http", "judge_similar", map[string]any{"id": query, "match": target, "grade": "relevant", "reason": "the same broker ran out of disk"})
	if v.CaseID != query || v.Match != target || v.Judge != "rita" || v.Grade != "relevant" || v.GradeValue != 1 ||
		v.Reason != "the same broker ran out of disk" || v.Note != "marked relevant by rita: the same broker ran out of disk" || v.At == "" {
		t.Fatalf("judge_similar answered %+v", v)
	}
	stored(ilgraph.Judgment{Query: query, Match: target, Judge: "rita", Grade: ilgraph.GradeRelevant, Reason: "the same broker ran out of disk"})

	// Judging again, over the other transport, replaces it.
	v = ok[judgmentAnswer](rita, "pipe", "judge_similar", map[string]any{"id": query, "match": target, "grade": "strongly_relevant"})
	if v.Judge != "rita" || v.Grade != "strongly_relevant" || v.GradeValue != 2 || v.Reason != "" {
		t.Fatalf("judge_similar again answered %+v", v)
	}
	stored(ilgraph.Judgment{Query: query, Match: target, Judge: "rita", Grade: ilgraph.GradeStronglyRelevant})

	// The judgment shows on the match's row, as in the JSON API.
	list := ok[struct {
		Matches []struct {
			Case      struct{ ID string }
			Judgments []judgmentAnswer
			Notes     []string
		}
	}](rita, "http", "similar_incidents", map[string]any{"id": query, "k": 5})
	row := slices.IndexFunc(list.Matches, func(m struct {
		Case      struct{ ID string }
		Judgments []judgmentAnswer
		Notes     []string
	}) bool {
		return m.Case.ID == target
	})
	if row < 0 || len(list.Matches[row].Judgments) != 1 || list.Matches[row].Judgments[0].Judge != "rita" ||
		!slices.Equal(list.Matches[row].Notes, []string{"marked strongly relevant by rita"}) {
		t.Fatalf("similar_incidents of %s after the judgment: %+v", query, list.Matches)
	}

	// Bad calls name the argument and change nothing.
	rita.fails("judge_similar", map[string]any{"id": query, "match": query, "grade": "relevant"}, "INVALID: match ", "another case")
	rita.fails("judge_similar", map[string]any{"id": "IL-9999", "match": target, "grade": "relevant"}, "NOT_FOUND: ", "IL-9999")
	rita.fails("judge_similar", map[string]any{"id": query, "match": "IL-9999", "grade": "relevant"}, "NOT_FOUND: ", "IL-9999")
	rita.fails("judge_similar", map[string]any{"id": query, "match": target, "grade": "very"}, "", "grade")
	rita.fails("judge_similar", map[string]any{"id": query, "match": target, "grade": "2"}, "", "grade")
	rita.fails("judge_similar", map[string]any{"id": query, "match": target}, "", "grade")
	rita.fails("judge_similar", map[string]any{"id": query, "grade": "relevant"}, "", "match")
	rita.fails("judge_similar", map[string]any{"id": query, "match": target, "grade": "relevant", "reason": "one\nand two"}, "INVALID: reason ", "one line")
	rita.fails("judge_similar", map[string]any{"id": query, "match": target, "grade": "relevant", "reason": strings.Repeat("a", ilgraph.MaxJudgmentReason+1)}, "", "reason", "500")
	rita.fails("withdraw_judgment", map[string]any{"id": query, "match": query}, "INVALID: match ", "another case")
	for _, h := range []string{"\x00", "'; MATCH (n) DETACH DELETE n //", "💥", `"}{`} {
		rita.fails("judge_similar", map[string]any{"id": h, "match": target, "grade": "relevant", "reason": "x"}, "")
	}
	stored(ilgraph.Judgment{Query: query, Match: target, Judge: "rita", Grade: ilgraph.GradeStronglyRelevant})

	// Withdrawing: the first time takes the judgment away, the second finds none.
	if w := ok[struct{ Withdrawn bool }](rita, "pipe", "withdraw_judgment", map[string]any{"id": query, "match": target}); !w.Withdrawn {
		t.Fatal("withdraw_judgment withdrew nothing")
	}
	stored()
	if w := ok[struct{ Withdrawn bool }](rita, "http", "withdraw_judgment", map[string]any{"id": query, "match": target}); w.Withdrawn {
		t.Fatal("withdraw_judgment withdrew a judgment twice")
	}
}

// TestHideSimilar: an editor hides a match a reviewer marked not relevant
// (not one nobody did: CONFLICT); it leaves similar_incidents' default list,
// comes back with include_hidden marked hidden, and is shown again.
func TestHideSimilar(t *testing.T) {
	j := mustJudging(t)
	const query = "IL-0384"
	scs, err := j.core.Similar(context.Background(), query, explore.SimilarityQuery{K: 5})
	if err != nil || len(scs) < 2 {
		t.Fatalf("similar cases of %s: %v %v", query, scs, err)
	}
	target := scs[1].Case.ID
	rita := j.as(ilgraph.Principal{Name: "rita", Role: ilgraph.RoleReviewer})
	ed := j.as(ilgraph.Principal{Name: "ed", Role: ilgraph.RoleEditor})
	pair := map[string]any{"id": query, "match": target}

	ed.fails("hide_similar", pair, "CONFLICT: ", "not relevant")
	ok[judgmentAnswer](rita, "pipe", "judge_similar", map[string]any{"id": query, "match": target, "grade": "not_relevant", "reason": "a different failure"})
	h := ok[struct {
		CaseID    string `json:"case_id"`
		Match, By string
		At        string
	}](ed, "http", "hide_similar", pair)
	if h.CaseID != query || h.Match != target || h.By != "ed" || h.At == "" {
		t.Fatalf("hide_similar answered %+v", h)
	}
	if fb := j.feedback(query); len(fb.Hidden) != 1 || fb.Hidden[0].Match != target || fb.Hidden[0].By != "ed" {
		t.Fatalf("stored hidings of %s: %+v", query, fb.Hidden)
	}
	type row struct {
		Case   struct{ ID string }
		Hidden bool
		Hiding *struct{ By string }
	}
	ids := func(include bool) map[string]row {
		out := map[string]row{}
		for _, m := range ok[struct{ Matches []row }](ed, "pipe", "similar_incidents", map[string]any{"id": query, "k": 5, "include_hidden": include}).Matches {
			out[m.Case.ID] = m
		}
		return out
	}
	if m, listed := ids(false)[target]; listed {
		t.Errorf("similar_incidents lists the hidden %s: %+v", target, m)
	}
	if m := ids(true)[target]; !m.Hidden || m.Hiding == nil || m.Hiding.By != "ed" {
		t.Errorf("similar_incidents with include_hidden: %s is %+v, want it hidden by ed", target, m)
	}
	// (A reviewer may not hide or show again: TestJudgmentsRefusedForCredentials.)
	ed.fails("unhide_similar", map[string]any{"id": query, "match": query}, "INVALID: match ")

	if u := ok[struct{ Unhidden bool }](ed, "pipe", "unhide_similar", pair); !u.Unhidden {
		t.Fatal("unhide_similar showed nothing again")
	}
	if fb := j.feedback(query); len(fb.Hidden) != 0 {
		t.Fatalf("stored hidings after unhide_similar: %+v", fb.Hidden)
	}
	if u := ok[struct{ Unhidden bool }](ed, "http", "unhide_similar", pair); u.Unhidden {
		t.Fatal("unhide_similar showed a match again twice")
	}
	if _, listed := ids(false)[target]; !listed {
		t.Errorf("similar_incidents does not list %s shown again", target)
	}
}

// TestJudgmentsRefusedForCredentials: without a token, or with one whose
// role is too low, every judgment tool is refused as the JSON API refuses
// the same write — over HTTP the same status (401 with the bearer
// challenge, 403), error code and message; over stdio a tool error with
// that code and message — and nothing changes.
func TestJudgmentsRefusedForCredentials(t *testing.T) {
	j := mustJudging(t)
	const query, match = "IL-0384", "IL-0282"
	anon := j.as(ilgraph.Principal{})
	vic := j.as(ilgraph.Principal{Name: "vic", Role: ilgraph.RoleViewer})
	rita := j.as(ilgraph.Principal{Name: "rita", Role: ilgraph.RoleReviewer})
	path := "/cases/" + query + "/similar/" + match
	for _, tc := range []struct {
		who    *as
		whom   string
		tool   string
		args   map[string]any
		method string // the JSON API's same write
		route  string
		body   string
		status int
		code   string
		says   string
	}{
		{anon, "anonymous", "judge_similar", map[string]any{"id": query, "match": match, "grade": "relevant"}, "PUT", path + "/judgment", `{"grade": "relevant"}`, 401, "UNAUTHORIZED", "reviewer role"},
		{anon, "anonymous", "withdraw_judgment", map[string]any{"id": query, "match": match}, "DELETE", path + "/judgment", "", 401, "UNAUTHORIZED", "reviewer role"},
		{anon, "anonymous", "hide_similar", map[string]any{"id": query, "match": match}, "PUT", path + "/hidden", "", 401, "UNAUTHORIZED", "editor role"},
		{anon, "anonymous", "unhide_similar", map[string]any{"id": query, "match": match}, "DELETE", path + "/hidden", "", 401, "UNAUTHORIZED", "editor role"},
		{vic, "a viewer", "judge_similar", map[string]any{"id": query, "match": match, "grade": "relevant"}, "PUT", path + "/judgment", `{"grade": "relevant"}`, 403, "FORBIDDEN", "reviewer role"},
		{vic, "a viewer", "withdraw_judgment", map[string]any{"id": query, "match": match}, "DELETE", path + "/judgment", "", 403, "FORBIDDEN", "reviewer role"},
		{rita, "a reviewer", "hide_similar", map[string]any{"id": query, "match": match}, "PUT", path + "/hidden", "", 403, "FORBIDDEN", "editor role"},
		{rita, "a reviewer", "unhide_similar", map[string]any{"id": query, "match": match}, "DELETE", path + "/hidden", "", 403, "FORBIDDEN", "editor role"},
	} {
		what := tc.tool + " by " + tc.whom
		before := j.checksum()
		api := rawRequest(t, tc.method, tc.who.url+tc.route, tc.body)
		var want struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal([]byte(api.body), &want); err != nil || api.status != tc.status || want.Error.Code != tc.code || !strings.Contains(want.Error.Message, tc.says) {
			t.Fatalf("%s: the JSON API answers %d %s; want %d %s naming the %s", what, api.status, api.body, tc.status, tc.code, tc.says)
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{"name": tc.tool, "arguments": tc.args}})
		got := rawRequest(t, "POST", tc.who.url+"/mcp", string(b))
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal([]byte(got.body), &e)
		if got.status != api.status || got.challenge != api.challenge || e.Error != want.Error {
			t.Errorf("%s over HTTP: %d %q %s; want the JSON API's %d %q %s", what, got.status, got.challenge, got.body, api.status, api.challenge, api.body)
		}
		if tc.status == 401 && got.challenge != `Bearer realm="ilgraph"` {
			t.Errorf("%s over HTTP: challenge %q", what, got.challenge)
		}
		res := tc.who.call("pipe", tc.tool, tc.args)
		if msg := text(res); !res.IsError || msg != tc.code+": "+want.Error.Message {
			t.Errorf("%s over a pipe: isError %v, %q; want %q", what, res.IsError, msg, tc.code+": "+want.Error.Message)
		}
		if j.checksum() != before {
			t.Errorf("%s was refused, but the graph changed", what)
		}
	}
	// A read needs no role: the same POST machinery answers it 200.
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": map[string]any{"name": "get_incident", "arguments": map[string]any{"id": "IL-9999"}}})
	if got := rawRequest(t, "POST", anon.url+"/mcp", string(b)); got.status != 200 || !strings.Contains(got.body, `"isError":true`) {
		t.Errorf("get_incident IL-9999 without a token: %d %s; want 200 and a tool error", got.status, got.body)
	}
}

type rawAnswer struct {
	status    int
	challenge string
	body      string
}

func rawRequest(t *testing.T, method, url, body string) rawAnswer {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawAnswer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}
}
