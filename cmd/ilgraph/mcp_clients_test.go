package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/internal/nodetest"
	"github.com/ilgraph/ilgraph/internal/view"
)

// mcpClientsDir holds the MCP clients other than ours, with the package
// versions pinned by its package-lock.json: the official TypeScript SDK
// (client.mjs drives it) and the MCP Inspector's CLI.
const mcpClientsDir = "testdata/mcp-clients"

// TestMCPWithTheTypeScriptSDKAndTheInspector runs clients other than ours
// against the real binary over the real Neo4j with the seeds: the official
// TypeScript SDK's client (the reference client many hosts build on) over
// Streamable HTTP (ilgraph serve's /mcp) and over stdio (it spawns ilgraph
// mcp, as a desktop assistant does), then the MCP Inspector's CLI over both. The SDK refuses a whole tools/list when one
// tool's schema breaks the specification, and checks every answer's
// structured content against its tool's output schema; client.mjs checks
// each again with ajv. Every tool is called with good arguments, whose
// answers are compared with the seed files and the Go core, and with bad
// ones, which must fail as tool errors that say what is wrong. It needs
// Node.js and npm and installs the pinned packages (npm ci) when
// node_modules is missing; under CI=true a missing node or npm fails it.
func TestMCPWithTheTypeScriptSDKAndTheInspector(t *testing.T) {
	node := nodetest.Node(t, "the MCP client tests", mcpClientsDir, "@modelcontextprotocol/sdk", "@modelcontextprotocol/inspector", "ajv")

	neo4jtest.MustOpen(t)
	ctx := context.Background()
	var errb bytes.Buffer
	if code := run(ctx, []string{"load", "--quiet", corpus.Seeds(t)}, &bytes.Buffer{}, &errb); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	core, closeDB, err := openCore(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	// The clients act as an editor's token (judging needs a reviewer's,
	// hiding an editor's): sent as a bearer token over HTTP, and as
	// ILGRAPH_TOKEN to ilgraph mcp over stdio, as a host is configured.
	var tokOut bytes.Buffer
	if code := run(ctx, []string{"token", "create", "--name", tsClientJudge, "--role", "editor", "--expires", "1d"}, &tokOut, &errb); code != exitOK {
		t.Fatalf("token create: exit %d: %s", code, errb.String())
	}
	tok := strings.TrimSpace(tokOut.String())

	bin := buildBinary(t)
	env := neo4jEnv()
	base := serveBinary(t, bin, env)
	want := goToolNames(t, base+"/mcp")

	seeds := newSeedFacts(t)
	calls := mcpCalls(t, seeds, core)
	for _, name := range want {
		var good, bad bool
		for _, c := range calls {
			good = good || c.Tool == name && c.Check != nil
			bad = bad || c.Tool == name && c.Check == nil
		}
		if !good || !bad {
			t.Errorf("the plan calls %s with good arguments: %v, with bad ones: %v; it must do both", name, good, bad)
		}
	}

	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	envMap["ILGRAPH_TOKEN"] = tok
	reports := map[string]*tsReport{
		"http":  runTSClient(t, node, map[string]any{"transport": "http", "url": base + "/mcp", "token": tok, "calls": calls}),
		"stdio": runTSClient(t, node, map[string]any{"transport": "stdio", "command": bin, "args": []string{"mcp"}, "env": envMap, "calls": calls}),
	}
	for _, transport := range []string{"http", "stdio"} {
		t.Run("TypeScript SDK over "+transport, func(t *testing.T) {
			checkTSReport(t, reports[transport], want, calls)
		})
	}
	t.Run("same answers over both transports", func(t *testing.T) {
		h, s := reports["http"].Calls, reports["stdio"].Calls
		if len(h) != len(calls) || len(s) != len(calls) {
			t.Fatalf("%d calls over HTTP, %d over stdio, %d planned", len(h), len(s), len(calls))
		}
		for i, c := range calls {
			if c.Check != nil && !bytes.Equal(unstamped(t, c, h[i].StructuredContent), unstamped(t, c, s[i].StructuredContent)) {
				t.Errorf("%s(%v) answers differently over HTTP and stdio:\n%s\n%s", c.Tool, c.Args, clipped(h[i].StructuredContent), clipped(s[i].StructuredContent))
			}
		}
	})
	t.Run("MCP Inspector CLI", func(t *testing.T) {
		checkInspector(t, node, base+"/mcp", bin, env, want, seeds.c.ID)
	})
}

// buildBinary builds ilgraph, as a user runs it.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ilgraph")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// neo4jEnv is the Neo4j settings of this test process (neo4jtest points
// them at the test server), for the processes it starts.
func neo4jEnv() []string {
	var env []string
	for _, k := range []string{"NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// serveBinary runs ilgraph serve on a free loopback port (with args) until
// the test ends and returns its base address.
func serveBinary(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		r.WriteTo(&bytes.Buffer{}) // keep reading until the server exits
		exited <- cmd.Wait()
	}()
	select {
	case line := <-lines:
		base := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`).FindString(line)
		if base == "" {
			t.Fatalf("ilgraph serve printed %q, no address (stderr: %s)", line, stderr.String())
		}
		return base
	case <-time.After(time.Minute):
		t.Fatalf("ilgraph serve did not start in a minute: %s", stderr.String())
	}
	return ""
}

// goToolNames lists the tools with the Go SDK's client: what the TypeScript
// client must list too.
func goToolNames(t *testing.T, endpoint string) []string {
	t.Helper()
	ctx := context.Background()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if len(names) < 10 {
		t.Fatalf("the Go SDK lists %d tools: %v", len(names), names)
	}
	return names
}

// seedFacts are what the seed files say, read with encoding/json alone.
type seedFacts struct {
	cases []*ilgraph.Case
	byID  map[string]*ilgraph.Case
	vocab *ilgraph.Vocabulary
	c     *ilgraph.Case // the case most calls ask about
	word  string        // a word of c's title that few cases' texts have
}

func newSeedFacts(t *testing.T) *seedFacts {
	t.Helper()
	f := &seedFacts{
		cases: corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")),
		vocab: corpus.Vocab(t, filepath.Join(corpus.Seeds(t), "vocab.json")),
		byID:  map[string]*ilgraph.Case{},
	}
	for _, c := range f.cases {
		f.byID[c.ID] = c
	}
	// The first case with components and mechanisms whose root cause
	// another case shares.
	for _, c := range f.cases {
		if len(c.Components) > 0 && len(c.Mechanisms) > 0 && f.count(func(x *ilgraph.Case) bool { return x.RootCause == c.RootCause }) > 1 {
			f.c = c
			break
		}
	}
	if f.c == nil {
		t.Fatal("no seed case has components, mechanisms and a root cause another case shares")
	}
	best := len(f.cases) + 1
	for _, w := range strings.FieldsFunc(f.c.Title.En, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 6 {
			continue
		}
		n := f.count(func(x *ilgraph.Case) bool {
			return strings.Contains(strings.ToLower(x.Title.En+" "+x.Summary.En), strings.ToLower(w))
		})
		if n < best {
			f.word, best = w, n
		}
	}
	if f.word == "" {
		t.Fatalf("%s's title has no word of 6 letters or more: %q", f.c.ID, f.c.Title.En)
	}
	return f
}

func (f *seedFacts) count(keep func(*ilgraph.Case) bool) int {
	n := 0
	for _, c := range f.cases {
		if keep(c) {
			n++
		}
	}
	return n
}

// mcpCall is one call of the plan: good arguments with a check of the
// answer, or bad ones (Check nil) whose error must mention every one of
// Mentions. RPC: the call must fail as a JSON-RPC error, not a tool error.
// Stamped: the answer is a write's, whose time ("at") differs between the
// runs over HTTP and stdio.
type mcpCall struct {
	Tool     string                             `json:"tool"`
	Args     map[string]any                     `json:"args"`
	Mentions []string                           `json:"-"`
	RPC      bool                               `json:"-"`
	Stamped  bool                               `json:"-"`
	Check    func(t *testing.T, content []byte) `json:"-"`
}

// unstamped is a call's answer as JSON to compare across transports:
// without its time when Stamped.
func unstamped(t *testing.T, c mcpCall, content []byte) []byte {
	t.Helper()
	if !c.Stamped {
		return canonicalJSON(t, content)
	}
	var v map[string]any
	mustUnmarshal(t, content, &v)
	delete(v, "at")
	out, _ := json.Marshal(v)
	return out
}

// tsClientJudge is the name of the token the TypeScript SDK's client acts
// as: the judge of its judgments.
const tsClientJudge = "ts-sdk-client"

// mcpCalls is the plan: every tool with good arguments taken from the seed
// files, their answers checked against the files and the Go core, and with
// bad arguments.
func mcpCalls(t *testing.T, f *seedFacts, core *explore.Service) []mcpCall {
	ctx := context.Background()
	c, m := f.c, f.c.Mechanisms[0]
	idsOf := func(t *testing.T, content []byte) []string {
		t.Helper()
		var v struct {
			Cases []struct {
				ID   string
				Case struct{ ID string } // same_root_cause's
			}
			Matches []struct{ Case struct{ ID string } }
		}
		mustUnmarshal(t, content, &v)
		var ids []string
		for _, x := range v.Cases {
			ids = append(ids, x.ID+x.Case.ID)
		}
		for _, x := range v.Matches {
			ids = append(ids, x.Case.ID)
		}
		return ids
	}
	sameAsCore := func(t *testing.T, what string, content []byte, want any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("the Go core: %v", err)
		}
		b, _ := json.Marshal(want)
		if !bytes.Equal(canonicalJSON(t, content), canonicalJSON(t, b)) {
			t.Errorf("%s differs from the Go core's answer:\nMCP:     %s\nGo core: %s", what, clipped(content), clipped(b))
		}
	}
	withRoot := f.count(func(x *ilgraph.Case) bool { return x.RootCause == c.RootCause })
	withMechanism := func(id string) []string {
		var ids []string
		for _, x := range f.cases {
			if slices.Contains(x.Mechanisms, id) {
				ids = append(ids, x.ID)
			}
		}
		return ids
	}
	orgs := map[string]bool{}
	for _, x := range f.cases {
		orgs[x.OrgSlug] = true
	}
	suggestText := c.Title.En + ". " + c.Summary.En
	// The pair the plan judges: not c, whose similar cases the plan lists
	// (a judgment shows on its match's row, and both runs must list the
	// same), but another case and its most similar one.
	var judged *ilgraph.Case
	for _, x := range f.cases {
		if x.ID != c.ID {
			judged = x
			break
		}
	}
	top, err := core.Similar(ctx, judged.ID, explore.SimilarityQuery{K: 1})
	if err != nil || len(top) == 0 {
		t.Fatalf("the most similar case of %s: %v %v", judged.ID, top, err)
	}
	query, match := judged.ID, top[0].Case.ID
	pair := map[string]any{"id": query, "match": match}
	judgedAs := func(grade, reason string) func(t *testing.T, b []byte) {
		return func(t *testing.T, b []byte) {
			var v struct {
				CaseID     string `json:"case_id"`
				Match      string
				Judge      string
				Grade      string
				GradeValue *int `json:"grade_value"`
				Reason     string
				At         string
			}
			mustUnmarshal(t, b, &v)
			if v.CaseID != query || v.Match != match || v.Judge != tsClientJudge || v.Grade != grade || v.GradeValue == nil || v.Reason != reason || v.At == "" {
				t.Errorf("judge_similar %s %s %s: %s; want the judgment of %s", query, match, grade, b, tsClientJudge)
			}
		}
	}

	return []mcpCall{
		{Tool: "search_incidents", Args: map[string]any{"query": f.word, "limit": 100}, Check: func(t *testing.T, b []byte) {
			var v struct{ Total int }
			mustUnmarshal(t, b, &v)
			ids := idsOf(t, b)
			if !slices.Contains(ids, c.ID) || v.Total != len(ids) {
				t.Errorf("search %q: %d of %d cases %v; want %s, whose title has the word, among them", f.word, len(ids), v.Total, ids, c.ID)
			}
			n := 100
			l, err := core.Cases(ctx, explore.CaseQuery{Filter: view.Filter{Text: f.word}.CaseFilter(), Sort: ilgraph.SortRelevance, Page: explore.Page{First: &n}})
			if err != nil {
				t.Fatal(err)
			}
			if l.TotalCount != v.Total {
				t.Errorf("search %q: total %d, the Go core %d", f.word, v.Total, l.TotalCount)
			}
		}},
		{Tool: "get_incident", Args: map[string]any{"id": c.ID}, Check: func(t *testing.T, b []byte) {
			var v struct {
				Case struct {
					ID    string
					Title ilgraph.Text
				}
				URL string
			}
			mustUnmarshal(t, b, &v)
			if v.Case.ID != c.ID || v.Case.Title.En != c.Title.En || v.URL != "/cases/"+c.ID {
				t.Errorf("get_incident %s: id %q, title %q, url %q; the seed file's title is %q", c.ID, v.Case.ID, v.Case.Title.En, v.URL, c.Title.En)
			}
		}},
		{Tool: "list_incidents", Args: map[string]any{"root_cause": []string{c.RootCause}, "sort": "id_asc", "limit": 100}, Check: func(t *testing.T, b []byte) {
			var want []string
			for _, x := range f.cases {
				if x.RootCause == c.RootCause {
					want = append(want, x.ID)
				}
			}
			if got := idsOf(t, b); !slices.Equal(got, want) {
				t.Errorf("list_incidents root_cause %s: %v; the seed files have %v", c.RootCause, got, want)
			}
		}},
		{Tool: "get_topic", Args: map[string]any{"kind": "mechanism", "id": m, "limit": 3}, Check: func(t *testing.T, b []byte) {
			var v struct {
				Term struct {
					Kind, ID string
					Cases    int
				}
			}
			mustUnmarshal(t, b, &v)
			if n := len(withMechanism(m)); v.Term.Kind != "mechanism" || v.Term.ID != m || v.Term.Cases != n {
				t.Errorf("get_topic mechanism %s: %+v; %d seed cases have it", m, v.Term, n)
			}
			tp, err := view.TopicOf(ctx, core, ilgraph.TermKey{Kind: ilgraph.KindMechanism, ID: m}, 3, explore.DefaultCooccurring)
			sameAsCore(t, "get_topic", b, tp, err)
		}},
		{Tool: "vocab", Args: map[string]any{"kinds": []string{"mechanism", "org"}}, Check: func(t *testing.T, b []byte) {
			var v struct {
				Kinds map[string][]struct{ ID string }
			}
			mustUnmarshal(t, b, &v)
			if len(v.Kinds) != 2 || len(v.Kinds["mechanism"]) != len(f.vocab.Kinds[ilgraph.KindMechanism]) || len(v.Kinds["org"]) != len(orgs) {
				t.Errorf("vocab mechanism, org: %d kinds, %d mechanisms, %d organizations; the seed files have %d and %d",
					len(v.Kinds), len(v.Kinds["mechanism"]), len(v.Kinds["org"]), len(f.vocab.Kinds[ilgraph.KindMechanism]), len(orgs))
			}
			voc, err := view.Vocab(ctx, core, ilgraph.KindMechanism, ilgraph.KindOrg)
			sameAsCore(t, "vocab", b, voc, err)
		}},
		{Tool: "similar_incidents", Args: map[string]any{"id": c.ID, "k": 5, "weights": map[string]any{"mechanism": 4, "text": 0}}, Check: func(t *testing.T, b []byte) {
			if ids := idsOf(t, b); len(ids) == 0 || len(ids) > 5 || slices.Contains(ids, c.ID) {
				t.Errorf("similar_incidents %s: %v", c.ID, ids)
			}
			scs, err := core.Similar(ctx, c.ID, explore.SimilarityQuery{K: 5, Weights: ilgraph.Weights{ilgraph.KindMechanism: 4, ilgraph.WeightText: 0}})
			if err != nil {
				t.Fatal(err)
			}
			l, err := view.Similar(ctx, core, c.ID, scs)
			sameAsCore(t, "similar_incidents", b, l, err)
		}},
		{Tool: "match_incident", Args: map[string]any{"components": c.Components, "mechanisms": c.Mechanisms, "k": 5}, Check: func(t *testing.T, b []byte) {
			ids := idsOf(t, b)
			if len(ids) == 0 {
				t.Fatalf("match_incident with %s's components and mechanisms matched nothing", c.ID)
			}
			for _, id := range ids {
				x := f.byID[id]
				if x == nil || !slices.ContainsFunc(c.Components, func(s string) bool { return slices.Contains(x.Components, s) }) &&
					!slices.ContainsFunc(c.Mechanisms, func(s string) bool { return slices.Contains(x.Mechanisms, s) }) {
					t.Errorf("match_incident matched %s, which shares none of %v %v", id, c.Components, c.Mechanisms)
				}
			}
			pm, err := core.SimilarToProfile(ctx, explore.Profile{Components: c.Components, Mechanisms: c.Mechanisms}, explore.SimilarityQuery{K: 5, Weights: ilgraph.Weights{}})
			if err != nil {
				t.Fatal(err)
			}
			v, err := view.Profile(ctx, core, pm)
			sameAsCore(t, "match_incident", b, v, err)
		}},
		{Tool: "suggest_terms", Args: map[string]any{"text": suggestText, "per_kind": 3}, Check: func(t *testing.T, b []byte) {
			var v struct {
				Terms map[string][]struct{ ID string }
			}
			mustUnmarshal(t, b, &v)
			if len(v.Terms) == 0 {
				t.Errorf("suggest_terms of %s's title and summary suggested nothing", c.ID)
			}
			s, err := view.Suggest(ctx, core, suggestText, "", 3, 0)
			sameAsCore(t, "suggest_terms", b, s, err)
		}},
		{Tool: "same_root_cause", Args: map[string]any{"id": c.ID, "limit": 100}, Check: func(t *testing.T, b []byte) {
			var v struct{ Total int }
			mustUnmarshal(t, b, &v)
			ids := idsOf(t, b)
			if v.Total != withRoot-1 || len(ids) != withRoot-1 {
				t.Errorf("same_root_cause %s: total %d, %d cases; %d other seed cases have %s", c.ID, v.Total, len(ids), withRoot-1, c.RootCause)
			}
			for _, id := range ids {
				if x := f.byID[id]; id == c.ID || x == nil || x.RootCause != c.RootCause {
					t.Errorf("same_root_cause %s gave %s", c.ID, id)
				}
			}
		}},
		{Tool: "graph_neighbourhood", Args: map[string]any{"kind": "case", "id": c.ID}, Check: func(t *testing.T, b []byte) {
			var v struct{ Nodes []struct{ Kind, ID string } }
			mustUnmarshal(t, b, &v)
			has := func(kind, id string) bool {
				return slices.ContainsFunc(v.Nodes, func(n struct{ Kind, ID string }) bool { return n.Kind == kind && n.ID == id })
			}
			if !has("case", c.ID) || !has("root_cause", c.RootCause) {
				t.Errorf("graph_neighbourhood of %s lacks it or its root cause %s: %+v", c.ID, c.RootCause, v.Nodes)
			}
			for _, x := range c.Mechanisms {
				if !has("mechanism", x) {
					t.Errorf("graph_neighbourhood of %s lacks its mechanism %s: %+v", c.ID, x, v.Nodes)
				}
			}
		}},
		{Tool: "graph_neighbourhood", Args: map[string]any{"kind": "mechanism", "id": m, "nodes": 500}, Check: func(t *testing.T, b []byte) {
			var v struct{ Nodes []struct{ Kind, ID string } }
			mustUnmarshal(t, b, &v)
			var got []string
			for _, n := range v.Nodes {
				if n.Kind == "case" {
					got = append(got, n.ID)
				}
			}
			sort.Strings(got)
			if want := withMechanism(m); !slices.Equal(got, want) {
				t.Errorf("graph_neighbourhood of mechanism %s: cases %v; the seed files have %v", m, got, want)
			}
		}},

		{Tool: "search_incidents", Args: map[string]any{}, Mentions: []string{"query"}},
		{Tool: "search_incidents", Args: map[string]any{"query": "dns", "limit": nil}, Mentions: []string{"limit", "null"}},
		{Tool: "get_incident", Args: map[string]any{"id": 282}, Mentions: []string{"id", "string"}},
		{Tool: "get_incident", Args: map[string]any{"id": "IL-9999"}, Mentions: []string{"NOT_FOUND", "IL-9999"}},
		{Tool: "list_incidents", Args: map[string]any{"limit": 101}, Mentions: []string{"limit", "100"}},
		{Tool: "list_incidents", Args: map[string]any{"components": []string{"zzqx-widget"}}, Mentions: []string{"NOT_FOUND", "zzqx-widget"}},
		{Tool: "get_topic", Args: map[string]any{"kind": "planet", "id": "earth"}, Mentions: []string{"INVALID", "planet", "mechanism"}},
		{Tool: "get_topic", Args: map[string]any{"kind": "mechanism", "id": "zzqx"}, Mentions: []string{"NOT_FOUND", "zzqx"}},
		{Tool: "vocab", Args: map[string]any{"kinds": []string{"planet"}}, Mentions: []string{"kinds"}},
		{Tool: "similar_incidents", Args: map[string]any{"id": c.ID, "weights": map[string]any{"planet": 1}}, Mentions: []string{"planet"}},
		{Tool: "similar_incidents", Args: map[string]any{"id": "IL-9999"}, Mentions: []string{"NOT_FOUND", "IL-9999"}},
		{Tool: "match_incident", Args: map[string]any{}, Mentions: []string{"INVALID", "at least one"}},
		{Tool: "match_incident", Args: map[string]any{"symptoms": []string{"zzqx-slow"}}, Mentions: []string{"NOT_FOUND", "symptom", "zzqx-slow"}},
		{Tool: "suggest_terms", Args: map[string]any{"text": " "}, Mentions: []string{"INVALID", "text"}},
		{Tool: "suggest_terms", Args: map[string]any{"text": "latency", "lang": "fr"}, Mentions: []string{"lang"}},
		{Tool: "same_root_cause", Args: map[string]any{"id": "IL-9999"}, Mentions: []string{"NOT_FOUND", "IL-9999"}},
		{Tool: "graph_neighbourhood", Args: map[string]any{"kind": "case", "id": c.ID, "depth": 9}, Mentions: []string{"depth"}},
		{Tool: "graph_neighbourhood", Args: map[string]any{"kind": "planet", "id": "earth"}, Mentions: []string{"INVALID", "kind"}},
		{Tool: "drop_database", Args: map[string]any{}, Mentions: []string{"drop_database"}, RPC: true},

		// Judgments, in order: judged not relevant, hidden, shown again,
		// withdrawn (and then not hidden: nothing marks it not relevant),
		// judged again. Each run ends where the plan's last judgment leaves
		// it, which the core reads back.
		{Tool: "judge_similar", Args: map[string]any{"id": query, "match": match, "grade": "not_relevant", "reason": "a different failure"}, Stamped: true,
			Check: judgedAs("not_relevant", "a different failure")},
		{Tool: "hide_similar", Args: pair, Stamped: true, Check: func(t *testing.T, b []byte) {
			var v struct {
				CaseID    string `json:"case_id"`
				Match, By string
			}
			mustUnmarshal(t, b, &v)
			if v.CaseID != query || v.Match != match || v.By != tsClientJudge {
				t.Errorf("hide_similar %s %s: %s; want it hidden by %s", query, match, b, tsClientJudge)
			}
		}},
		{Tool: "unhide_similar", Args: pair, Check: func(t *testing.T, b []byte) {
			if string(canonicalJSON(t, b)) != `{"unhidden":true}` {
				t.Errorf("unhide_similar %s %s: %s", query, match, b)
			}
		}},
		{Tool: "withdraw_judgment", Args: pair, Check: func(t *testing.T, b []byte) {
			if string(canonicalJSON(t, b)) != `{"withdrawn":true}` {
				t.Errorf("withdraw_judgment %s %s: %s", query, match, b)
			}
		}},
		{Tool: "hide_similar", Args: pair, Mentions: []string{"CONFLICT", "not relevant"}},
		{Tool: "judge_similar", Args: map[string]any{"id": query, "match": match, "grade": "strongly_relevant", "reason": "the same cascade"}, Stamped: true,
			Check: func(t *testing.T, b []byte) {
				judgedAs("strongly_relevant", "the same cascade")(t, b)
				fb, err := core.Judgments(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				if len(fb.Judgments) != 1 || fb.Judgments[0].Judge != tsClientJudge || fb.Judgments[0].Match != match ||
					fb.Judgments[0].Grade != ilgraph.GradeStronglyRelevant || fb.Judgments[0].Reason != "the same cascade" || len(fb.Hidden) != 0 {
					t.Errorf("the Go core reads back %+v; want one judgment of %s, strongly relevant, by %s, and nothing hidden", fb, match, tsClientJudge)
				}
			}},
		{Tool: "judge_similar", Args: map[string]any{"id": query, "match": query, "grade": "relevant"}, Mentions: []string{"INVALID", "match", "another case"}},
		{Tool: "judge_similar", Args: map[string]any{"id": "IL-9999", "match": match, "grade": "relevant"}, Mentions: []string{"NOT_FOUND", "IL-9999"}},
		{Tool: "judge_similar", Args: map[string]any{"id": query, "match": match, "grade": "very"}, Mentions: []string{"grade"}},
		{Tool: "withdraw_judgment", Args: map[string]any{"id": query, "match": query}, Mentions: []string{"INVALID", "match"}},
		{Tool: "unhide_similar", Args: map[string]any{"id": query, "match": query}, Mentions: []string{"INVALID", "match"}},
	}
}

// tsReport is client.mjs's report.
type tsReport struct {
	SDKVersion         string `json:"sdkVersion"`
	SDKValidatesOutput struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
	} `json:"sdkValidatesOutput"`
	ConnectError *tsError `json:"connectError"`
	ListError    *tsError `json:"listError"`
	Server       struct {
		Name         string `json:"name"`
		Instructions string `json:"instructions"`
	} `json:"server"`
	Tools []struct {
		Name               string   `json:"name"`
		InputSchemaErrors  []string `json:"inputSchemaErrors"`
		OutputSchemaErrors []string `json:"outputSchemaErrors"`
	} `json:"tools"`
	Calls []struct {
		Tool              string          `json:"tool"`
		Threw             *tsError        `json:"threw"`
		IsError           *bool           `json:"isError"`
		Text              string          `json:"text"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		AjvErrors         []string        `json:"ajvErrors"`
		Tampered          *struct {
			Property string `json:"property"`
			Refused  bool   `json:"refused"`
		} `json:"tampered"`
	} `json:"calls"`
	ServerStderr string `json:"serverStderr"`
}

type tsError struct {
	Name    string `json:"name"`
	Code    any    `json:"code"`
	Message string `json:"message"`
}

func (e *tsError) String() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s %v: %s", e.Name, e.Code, e.Message)
}

// runTSClient runs client.mjs with a plan and returns its report.
func runTSClient(t *testing.T, node string, plan map[string]any) *tsReport {
	t.Helper()
	in, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = mcpClientsDir
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs (%s): %v\n%s", plan["transport"], err, stderr.Bytes())
	}
	var r tsReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("client.mjs (%s) printed no JSON report: %v\n%s\n%s", plan["transport"], err, clipped(stdout.Bytes()), stderr.Bytes())
	}
	return &r
}

// checkTSReport checks what the TypeScript SDK's client saw.
func checkTSReport(t *testing.T, r *tsReport, want []string, calls []mcpCall) {
	if r.SDKVersion != "1.32.2" {
		t.Errorf("@modelcontextprotocol/sdk %s ran, not the pinned 1.32.2", r.SDKVersion)
	}
	if !r.SDKValidatesOutput.OK {
		t.Errorf("this SDK's callTool does not check structured content against the output schema, which this test relies on: %s", r.SDKValidatesOutput.Message)
	}
	if r.ConnectError != nil {
		t.Fatalf("connecting: %s\nserver stderr: %s", r.ConnectError, r.ServerStderr)
	}
	if r.ListError != nil {
		t.Fatalf("tools/list refused by the TypeScript SDK: %s", clipped([]byte(r.ListError.Message)))
	}
	if r.Server.Name != "ilgraph" {
		t.Errorf("server name %q", r.Server.Name)
	}
	for _, k := range ilgraph.AllKinds {
		if !strings.Contains(r.Server.Instructions, string(k)) {
			t.Errorf("the instructions the client got do not name the kind %s: %q", k, r.Server.Instructions)
		}
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
		if len(tool.InputSchemaErrors)+len(tool.OutputSchemaErrors) > 0 {
			t.Errorf("%s: its schemas are not JSON Schema 2020-12 as ajv reads them: input %v, output %v", tool.Name, tool.InputSchemaErrors, tool.OutputSchemaErrors)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("the TypeScript SDK lists %v; the Go SDK %v", names, want)
	}
	if len(r.Calls) != len(calls) {
		t.Fatalf("%d calls reported, %d planned", len(r.Calls), len(calls))
	}
	for i, c := range calls {
		got := r.Calls[i]
		what := fmt.Sprintf("%s(%s)", c.Tool, clipped(mustJSON(c.Args)))
		switch {
		case c.Check != nil:
			if got.Threw != nil {
				t.Errorf("%s threw: %s", what, got.Threw)
				continue
			}
			if got.IsError == nil || *got.IsError {
				t.Errorf("%s failed: %s", what, got.Text)
				continue
			}
			if len(got.StructuredContent) == 0 || string(got.StructuredContent) == "null" || got.Text == "" {
				t.Errorf("%s: want structured content and a text rendering, got %s and %q", what, got.StructuredContent, got.Text)
				continue
			}
			if got.AjvErrors == nil || len(got.AjvErrors) > 0 {
				t.Errorf("%s: ajv finds its structured content does not match the output schema: %v", what, got.AjvErrors)
			}
			if got.Tampered == nil || !got.Tampered.Refused {
				t.Errorf("%s: the output schema takes its content with a required property of another type: %+v", what, got.Tampered)
			}
			c.Check(t, got.StructuredContent)
		case c.RPC:
			if got.Threw == nil {
				t.Errorf("%s: want a JSON-RPC error, got isError %v %q", what, got.IsError, got.Text)
				continue
			}
			for _, w := range c.Mentions {
				if !strings.Contains(got.Threw.Message, w) {
					t.Errorf("%s: error %q does not mention %q", what, got.Threw.Message, w)
				}
			}
		default:
			if got.Threw != nil || got.IsError == nil || !*got.IsError {
				t.Errorf("%s: want a tool error (isError) mentioning %q, got %s, isError %v, %q", what, c.Mentions, got.Threw, got.IsError, got.Text)
				continue
			}
			for _, w := range c.Mentions {
				if !strings.Contains(got.Text, w) {
					t.Errorf("%s: error %q does not mention %q", what, got.Text, w)
				}
			}
		}
	}
}

// checkInspector runs the MCP Inspector's CLI: tools/list with its schema
// portability report over HTTP and stdio, tools/call of a good and a bad
// call over HTTP.
func checkInspector(t *testing.T, node, endpoint, bin string, env, want []string, id string) {
	launcher := filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	home := t.TempDir() // it keeps a catalog and state under $HOME
	inspect := func(args ...string) (stdout, stderr []byte, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{launcher, "--cli"}, args...)...)
		cmd.Dir = mcpClientsDir
		cmd.Env = append(os.Environ(), "HOME="+home)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("the Inspector did not finish in time: %v\n%s", args, e.Bytes())
		}
		if err != nil && cmd.ProcessState == nil {
			t.Fatalf("running the Inspector: %v", err)
		}
		return o.Bytes(), e.Bytes(), cmd.ProcessState.ExitCode()
	}
	listed := func(what string, stdout, stderr []byte, code int) {
		t.Helper()
		var v struct{ Tools []struct{ Name string } }
		if code != 0 || json.Unmarshal(stdout, &v) != nil {
			t.Fatalf("inspector tools/list %s: exit %d\n%s\n%s", what, code, clipped(stdout), clipped(stderr))
		}
		var names []string
		for _, x := range v.Tools {
			names = append(names, x.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Errorf("inspector tools/list %s: %v, want %v\n%s", what, names, want, clipped(stderr))
		}
	}

	stdout, stderr, code := inspect(endpoint, "--transport", "http", "--method", "tools/list", "--strict")
	listed("over HTTP", stdout, stderr, code)
	// --strict exits 6 on a portability error; warnings are reported only.
	// Input schemas, which hosts map onto their models' function calling,
	// must draw none.
	if regexp.MustCompile(`Path: inputSchema`).Match(stderr) {
		t.Errorf("the Inspector finds input schemas less portable:\n%s", clipped(stderr))
	}

	var envArgs []string
	for _, kv := range env {
		envArgs = append(envArgs, "-e", kv)
	}
	stdout, stderr, code = inspect(append(append([]string{"--transport", "stdio"}, envArgs...), bin, "mcp", "--method", "tools/list")...)
	listed("over stdio", stdout, stderr, code)

	stdout, stderr, code = inspect(endpoint, "--transport", "http", "--method", "tools/call", "--tool-name", "get_incident", "--tool-arg", "id="+id)
	var res struct {
		IsError           bool
		StructuredContent struct{ Case struct{ ID string } }
	}
	if code != 0 || json.Unmarshal(stdout, &res) != nil || res.IsError || res.StructuredContent.Case.ID != id {
		t.Errorf("inspector tools/call get_incident %s: exit %d\n%s\n%s", id, code, clipped(stdout), clipped(stderr))
	}
	stdout, stderr, code = inspect(endpoint, "--transport", "http", "--method", "tools/call", "--tool-name", "get_incident", "--tool-arg", "id=IL-9999")
	if code == 0 || !bytes.Contains(stdout, []byte(`"isError": true`)) || !bytes.Contains(stdout, []byte("NOT_FOUND")) {
		t.Errorf("inspector tools/call get_incident IL-9999: want a tool error and a non-zero exit, got exit %d\n%s\n%s", code, clipped(stdout), clipped(stderr))
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, clipped(b))
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func canonicalJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, clipped(b))
	}
	out, _ := json.Marshal(v)
	return out
}

func clipped(b []byte) string {
	if len(b) > 1500 {
		return string(b[:1500]) + "…"
	}
	return string(b)
}
