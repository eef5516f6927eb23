package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/jsonapi"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/resolvers"
	"github.com/ilgraph/ilgraph/suggest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fixture is one server over the seed corpus with the JSON API, GraphQL and
// MCP over HTTP mounted as ilgraph serve mounts them, and an MCP client
// session over each transport: Streamable HTTP and an in-memory pipe (the
// stdio transport's newline-delimited JSON over a pipe).
type fixture struct {
	t        *testing.T
	url      string
	sessions map[string]*mcp.ClientSession
}

func mustFixture(t *testing.T) *fixture {
	t.Helper()
	db := neo4jtest.MustOpen(t)
	if _, err := loader.Load(context.Background(), db, []string{corpus.Seeds(t)}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	core := apitest.Core(db)
	opt := mcpserver.Options{Logger: quiet(), Timeout: 10 * time.Second}
	api := jsonapi.NewHandler(core, jsonapi.Options{Logger: quiet()})
	routes := apitest.JSONAPI(map[string]httpapi.Door{"/mcp": apitest.MCP(mcpserver.NewHandler(core, opt))}, api)
	srv := httptest.NewServer(apitest.New(core, apitest.Options{GraphQL: resolvers.Options{Logger: quiet()}, Shell: httpapi.Options{Routes: routes}}))
	t.Cleanup(srv.Close)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "ilgraph-test", Version: "1"}, nil)
	httpSession, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connecting over Streamable HTTP: %v", err)
	}
	t.Cleanup(func() { httpSession.Close() })

	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewServer(core, opt).Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	pipeSession, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatalf("connecting over a pipe: %v", err)
	}
	t.Cleanup(func() { pipeSession.Close() })
	return &fixture{t: t, url: srv.URL, sessions: map[string]*mcp.ClientSession{"http": httpSession, "pipe": pipeSession}}
}

// call calls a tool on every transport, checks that they answer alike, and
// returns the result.
func (f *fixture) call(name string, args map[string]any) *mcp.CallToolResult {
	f.t.Helper()
	var first *mcp.CallToolResult
	var firstJSON []byte
	for _, transport := range []string{"http", "pipe"} {
		res, err := f.sessions[transport].CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			f.t.Fatalf("%s %s(%v): %v", transport, name, args, err)
		}
		b, _ := json.Marshal(res)
		if first == nil {
			first, firstJSON = res, b
		} else if !bytes.Equal(canonical(f.t, b), canonical(f.t, firstJSON)) {
			f.t.Fatalf("%s(%v) answers differently over %s:\n%s\n%s", name, args, transport, b, firstJSON)
		}
	}
	return first
}

func canonical(t *testing.T, b []byte) []byte {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

// ok calls a tool that must succeed and returns its structured content as
// JSON.
func (f *fixture) ok(name string, args map[string]any) []byte {
	f.t.Helper()
	res := f.call(name, args)
	if res.IsError {
		f.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	if res.StructuredContent == nil || text(res) == "" || strings.HasPrefix(text(res), "{") {
		f.t.Fatalf("%s(%v): want structured content and a text rendering, got %s", name, args, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	return b
}

// fails calls a tool that must fail with a tool error mentioning want.
func (f *fixture) fails(name string, args map[string]any, want ...string) {
	f.t.Helper()
	res := f.call(name, args)
	if testing.Verbose() {
		f.t.Logf("%s %v → %s", name, args, text(res))
	}
	if !res.IsError {
		f.t.Errorf("%s(%v) succeeded; want an error mentioning %q", name, args, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			f.t.Errorf("%s(%v): error %q does not mention %q", name, args, text(res), w)
		}
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// get fetches a JSON API answer.
func (f *fixture) get(path string) []byte {
	f.t.Helper()
	resp, err := http.Get(f.url + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		f.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("%s differ:\nMCP:      %s\nJSON API: %s", what, clip(a), clip(b))
	}
}

func clip(b []byte) string {
	if len(b) > 800 {
		return string(b[:800]) + "…"
	}
	return string(b)
}

// writeTools are the tools that write: the judgments of similar matches;
// removingTools are those of them that remove what was stored (a judgment,
// a hiding), destructive in the MCP sense.
var (
	writeTools    = []string{"hide_similar", "judge_similar", "unhide_similar", "withdraw_judgment"}
	removingTools = []string{"unhide_similar", "withdraw_judgment"}
)

// TestToolsAreListedWithSchemasAndReadOnly: every tool is listed with its
// schemas and description; the reading tools are annotated read-only, the
// judgments' tools as writing, idempotently (calling again changes nothing
// more), destructive only those that remove a record, none open-world.
func TestToolsAreListedWithSchemasAndReadOnly(t *testing.T) {
	f := mustFixture(t)
	for transport, s := range f.sessions {
		res, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
				t.Errorf("%s: %s lacks a schema or a description", transport, tool.Name)
			}
			a := tool.Annotations
			removes := slices.Contains(removingTools, tool.Name)
			if a == nil || a.DestructiveHint == nil || *a.DestructiveHint != removes || a.OpenWorldHint == nil || *a.OpenWorldHint || !a.IdempotentHint || a.Title == "" {
				t.Errorf("%s: %s is annotated %+v; want it idempotent, destructive %v, not open-world, with a title", transport, tool.Name, a, removes)
			} else if writes := slices.Contains(writeTools, tool.Name); a.ReadOnlyHint == writes {
				t.Errorf("%s: %s is annotated read-only %v; it writes: %v", transport, tool.Name, a.ReadOnlyHint, writes)
			}
		}
		slices.Sort(names)
		want := []string{"get_incident", "get_topic", "graph_neighbourhood", "hide_similar", "judge_similar", "list_incidents", "match_incident",
			"same_root_cause", "search_incidents", "similar_incidents", "suggest_terms", "unhide_similar", "vocab", "withdraw_judgment"}
		if !slices.Equal(names, want) {
			t.Fatalf("%s: tools %v, want %v", transport, names, want)
		}
	}
}

func TestToolsAnswerAsTheJSONAPI(t *testing.T) {
	f := mustFixture(t)

	// get_incident: the case exactly as loaded.
	var inc struct {
		Case map[string]any
		URL  string
	}
	json.Unmarshal(f.ok("get_incident", map[string]any{"id": "IL-0282"}), &inc)
	caseJSON, _ := json.Marshal(inc.Case)
	sameJSON(t, "get_incident and GET /cases/IL-0282", caseJSON, f.get("/cases/IL-0282"))
	if inc.URL != "/cases/IL-0282" {
		t.Fatalf("url %q", inc.URL)
	}
	// Its text names every tag, mechanisms too.
	mechs, _ := inc.Case["mechanisms"].([]any)
	rendered := text(f.call("get_incident", map[string]any{"id": "IL-0282"}))
	if len(mechs) == 0 {
		t.Fatalf("IL-0282 has no mechanisms: %v", inc.Case)
	}
	for _, m := range mechs {
		if !strings.Contains(rendered, "Mechanisms: ") || !strings.Contains(rendered, m.(string)) {
			t.Errorf("get_incident's text does not name the mechanism %v:\n%s", m, rendered)
		}
	}

	sameJSON(t, "list_incidents and GET /cases",
		f.ok("list_incidents", map[string]any{"root_cause": []string{"capacity"}, "domains": []string{"database"}, "limit": 5}),
		f.get("/cases?root_cause=capacity&domain=database&limit=5"))
	sameJSON(t, "list_incidents page 2 and GET /cases",
		f.ok("list_incidents", map[string]any{"sort": "id_asc", "limit": 10, "cursor": "bzo5"}),
		f.get("/cases?sort=id_asc&limit=10&cursor=bzo5"))
	sameJSON(t, "search_incidents and GET /cases?q",
		f.ok("search_incidents", map[string]any{"query": "DynamoDB", "from": "2010-01-01"}),
		f.get("/cases?q=DynamoDB&sort=relevance&limit=10&from=2010-01-01"))
	sameJSON(t, "get_topic and GET /topics",
		f.ok("get_topic", map[string]any{"kind": "component", "id": "message-broker", "limit": 3}),
		f.get("/topics/component/message-broker?limit=3"))
	sameJSON(t, "vocab and GET /vocab", f.ok("vocab", nil), f.get("/vocab"))
	sameJSON(t, "vocab of two kinds and GET /vocab", f.ok("vocab", map[string]any{"kinds": []string{"symptom", "org"}}), f.get("/vocab?kind=symptom,org"))
	sameJSON(t, "similar_incidents and GET /similar",
		f.ok("similar_incidents", map[string]any{"id": "IL-0384", "k": 7, "weights": map[string]any{"root_cause": 3, "component": 1.5}, "rarity": true}),
		f.get("/cases/IL-0384/similar?k=7&weights=root_cause=3,component=1.5&rarity=true"))
	// A label or alias instead of an id is resolved, with a warning, as in
	// the JSON API.
	kafka := f.ok("list_incidents", map[string]any{"components": []string{"Kafka"}, "limit": 3})
	sameJSON(t, "list_incidents with an alias and GET /cases", kafka, f.get("/cases?component=Kafka&limit=3"))
	var withWarning struct {
		Total    int
		Warnings []struct{ Value, Resolved string }
	}
	json.Unmarshal(kafka, &withWarning)
	if withWarning.Total == 0 || len(withWarning.Warnings) != 1 || withWarning.Warnings[0].Resolved != "message-broker" {
		t.Fatalf("Kafka: %s", kafka)
	}
	sameJSON(t, "suggest_terms and GET /suggest",
		f.ok("suggest_terms", map[string]any{"text": "Kinesis front-end servers hit the OS thread limit; latency and errors up", "per_kind": 3}),
		f.get("/suggest?limit=3&q="+url.QueryEscape("Kinesis front-end servers hit the OS thread limit; latency and errors up")))
	sameJSON(t, "same_root_cause and GET /same-root-cause",
		f.ok("same_root_cause", map[string]any{"id": "IL-0282", "limit": 4}),
		f.get("/cases/IL-0282/same-root-cause?limit=4"))
}

func TestMatchIncidentIsTheGraphQLAnswer(t *testing.T) {
	f := mustFixture(t)
	// similar_incidents lists every part of each score — every shared
	// feature, mechanisms among them, and the text channel's part — and the
	// parts add up to the score.
	kinds := map[string]bool{}
	for _, id := range []string{"IL-0282", "IL-0384", "IL-0211"} {
		var sim struct {
			Matches []struct {
				Case   struct{ ID string }
				Score  float64
				Shared []struct {
					Kind         string
					Contribution float64
				}
			}
		}
		json.Unmarshal(f.ok("similar_incidents", map[string]any{"id": id, "k": 10}), &sim)
		if len(sim.Matches) == 0 {
			t.Fatalf("similar_incidents of %s: none", id)
		}
		for _, m := range sim.Matches {
			var sum float64
			for _, sh := range m.Shared {
				sum += sh.Contribution
				kinds[sh.Kind] = true
			}
			if math.Abs(sum-m.Score) > float64(len(m.Shared)+1)*0.5e-9+1e-12 {
				t.Errorf("similar_incidents of %s: %s's shares add up to %.12f, score %.9f", id, m.Case.ID, sum, m.Score)
			}
		}
	}
	if !kinds[string(ilgraph.KindMechanism)] || !kinds[string(ilgraph.WeightText)] {
		t.Errorf("similar_incidents shares of kinds %v: want mechanism and text among them", kinds)
	}
	var got struct {
		Matches []struct {
			Case  struct{ ID string }
			Score float64
		}
		RootCauses   []struct{ ID string } `json:"root_causes"`
		Contributing []struct{ ID string } `json:"contributing"`
		Remedies     []struct {
			CaseID string `json:"case_id"`
		} `json:"remedies"`
	}
	json.Unmarshal(f.ok("match_incident", map[string]any{"components": []string{"message-broker"},
		"symptoms": []string{"high-latency", "high-error-rate"}, "contributing": []string{"limit-unknown"}, "k": 5}), &got)
	body, _ := json.Marshal(map[string]any{"query": `{ similarToProfile(k: 5, profile: {components: ["message-broker"], symptoms: ["high-latency", "high-error-rate"], contributing: ["limit-unknown"]}) {
		matches { case { id } score } rootCauses { term { id } } contributing { term { id } } remedies { case { id } } } }`})
	resp, err := http.Post(f.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var want struct {
		Data struct {
			SimilarToProfile struct {
				Matches []struct {
					Case  struct{ ID string }
					Score float64
				}
				RootCauses   []struct{ Term struct{ ID string } }
				Contributing []struct{ Term struct{ ID string } }
				Remedies     []struct{ Case struct{ ID string } }
			}
		}
	}
	json.NewDecoder(resp.Body).Decode(&want)
	w := want.Data.SimilarToProfile
	if len(got.Matches) == 0 || len(got.Matches) != len(w.Matches) || len(got.RootCauses) != len(w.RootCauses) ||
		len(got.Contributing) != len(w.Contributing) || len(got.Remedies) != len(w.Remedies) {
		t.Fatalf("MCP %+v\nGraphQL %+v", got, w)
	}
	for i, m := range got.Matches {
		if m.Case.ID != w.Matches[i].Case.ID || m.Score != w.Matches[i].Score {
			t.Fatalf("match %d: %+v, GraphQL %+v", i, m, w.Matches[i])
		}
	}
	for i, r := range got.RootCauses {
		if r.ID != w.RootCauses[i].Term.ID {
			t.Fatalf("root cause %d: %s, GraphQL %s", i, r.ID, w.RootCauses[i].Term.ID)
		}
	}
	for i, r := range got.Remedies {
		if r.CaseID != w.Remedies[i].Case.ID {
			t.Fatalf("remedy %d: %s, GraphQL %s", i, r.CaseID, w.Remedies[i].Case.ID)
		}
	}

	// Free text: the terms read from it join the profile, each counting
	// with its confidence: every share of a term read from the text carries
	// the confidence match_incident reports for it, and the shares add up to
	// the score.
	const desc = "Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed"
	var fromText struct {
		Matches []struct {
			Case   struct{ ID string }
			Score  float64
			Shared []struct {
				Kind         string
				ID           string
				Contribution float64
				Confidence   *float64
			}
		}
		Suggested map[string][]struct {
			ID         string
			Confidence float64
			Score      float64
			Sure       bool
		}
	}
	json.Unmarshal(f.ok("match_incident", map[string]any{"text": desc, "k": 5}), &fromText)
	if len(fromText.Suggested) == 0 {
		t.Fatal("match_incident with text suggested nothing")
	}
	// The text names the sure terms (within suggest.ShowCutoffs: at most
	// Max of the kind, by confidence, of at least Min) and only those; it
	// counts the others.
	rendered := text(f.call("match_incident", map[string]any{"text": desc, "k": 5}))
	sure, less := 0, 0
	for kind, ts := range fromText.Suggested {
		show := suggest.ShowCutoffs[ilgraph.Kind(kind)]
		for i, x := range ts {
			want := i < show.Max && x.Confidence >= show.Min
			if x.Sure != want {
				t.Errorf("%s:%s (%.2f, #%d): sure %v, want %v under %+v", kind, x.ID, x.Confidence, i+1, x.Sure, want, show)
			}
			named := strings.Contains(rendered, fmt.Sprintf("%s:%s (", kind, x.ID))
			if named != want {
				t.Errorf("%s:%s (sure %v) named in the text: %v\n%s", kind, x.ID, want, named, rendered)
			}
			// A sure term is named with its (calibrated) confidence.
			if with := fmt.Sprintf("%s:%s (%.2f)", kind, x.ID, x.Confidence); want && !strings.Contains(rendered, with) {
				t.Errorf("the text does not name %q:\n%s", with, rendered)
			}
			if want {
				sure++
			} else {
				less++
			}
		}
	}
	if sure == 0 || less == 0 {
		t.Errorf("%d sure and %d less sure terms read from %q: the check above proves little", sure, less, desc)
	}
	if want := fmt.Sprintf("%d less sure", less); !strings.Contains(rendered, want) {
		t.Errorf("the text does not say %q:\n%s", want, rendered)
	}
	if want := "how often such a suggestion was right when tested"; !strings.Contains(rendered, want) {
		t.Errorf("the text does not say what a confidence means (%q):\n%s", want, rendered)
	}
	if len(fromText.Suggested["mechanism"]) == 0 {
		t.Errorf("match_incident read no mechanism from %q: %+v", desc, fromText.Suggested)
	}
	read := map[string]float64{}
	for kind, ts := range fromText.Suggested {
		for _, x := range ts {
			read[kind+":"+x.ID] = x.Score // what a profile term counts with
		}
	}
	weighted := 0
	for _, m := range fromText.Matches {
		var sum float64
		for _, sh := range m.Shared {
			sum += sh.Contribution
			if sh.Kind == "text" { // the description's own words (explore.Service.MatchText)
				continue
			}
			c, ok := read[sh.Kind+":"+sh.ID]
			switch {
			case !ok:
				t.Errorf("%s shares %s:%s, which the text did not suggest", m.Case.ID, sh.Kind, sh.ID)
			case c < 1 && (sh.Confidence == nil || *sh.Confidence != c):
				t.Errorf("%s: share %s:%s counts with %v, suggested with score %v", m.Case.ID, sh.Kind, sh.ID, sh.Confidence, c)
			case c < 1:
				weighted++
			}
		}
		if math.Abs(sum-m.Score) > float64(len(m.Shared)+1)*0.5e-9+1e-12 {
			t.Errorf("%s: shares add up to %.12f, score %.9f", m.Case.ID, sum, m.Score)
		}
	}
	if len(fromText.Matches) == 0 || weighted == 0 {
		t.Errorf("match_incident from text: %d matches, %d shares weighted by confidence", len(fromText.Matches), weighted)
	}
	// The same terms given by id count in full: the scores differ.
	args := map[string]any{"k": 5}
	for kind, ts := range fromText.Suggested {
		var ids []string
		for _, x := range ts {
			ids = append(ids, x.ID)
		}
		switch kind {
		case "root_cause":
			args["root_cause"] = ids[0]
		case "domain":
			args["domains"] = ids
		case "component":
			args["components"] = ids
		case "symptom":
			args["symptoms"] = ids
		case "mechanism":
			args["mechanisms"] = ids
		default:
			args[kind] = ids
		}
	}
	var fromTerms struct {
		Matches []struct {
			Case  struct{ ID string }
			Score float64
		}
	}
	json.Unmarshal(f.ok("match_incident", args), &fromTerms)
	differ := len(fromTerms.Matches) != len(fromText.Matches)
	for i := 0; !differ && i < len(fromTerms.Matches); i++ {
		differ = fromTerms.Matches[i].Score != fromText.Matches[i].Score
	}
	if len(fromTerms.Matches) == 0 || !differ {
		t.Errorf("the terms given in full score as when read from the text: %+v", fromTerms.Matches)
	}
	// …and the answer GraphQL's similarToText gives.
	viaText := fromText.Matches
	body, _ = json.Marshal(map[string]any{"query": `query($t: String!) { similarToText(text: $t, k: 5) { match { matches { case { id } score } } } }`, "variables": map[string]any{"t": desc}})
	resp, err = http.Post(f.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var gq struct {
		Data struct {
			SimilarToText struct {
				Match struct {
					Matches []struct {
						Case  struct{ ID string }
						Score float64
					}
				}
			}
		}
		Errors []any
	}
	json.NewDecoder(resp.Body).Decode(&gq)
	resp.Body.Close()
	gm := gq.Data.SimilarToText.Match.Matches
	if len(gq.Errors) > 0 || len(gm) != len(viaText) || len(gm) == 0 {
		t.Fatalf("similarToText: %+v; MCP %d matches", gq, len(viaText))
	}
	for i := range gm {
		if gm[i].Case.ID != viaText[i].Case.ID || gm[i].Score != viaText[i].Score {
			t.Fatalf("match %d: MCP %+v, GraphQL similarToText %+v", i, viaText[i], gm[i])
		}
	}

	var d struct {
		Nodes []struct{ Key, Kind string }
		Edges []struct{ Source, Target, Type string }
	}
	json.Unmarshal(f.ok("graph_neighbourhood", map[string]any{"kind": "case", "id": "IL-0384"}), &d)
	if len(d.Nodes) < 2 || len(d.Edges) == 0 || !slices.ContainsFunc(d.Nodes, func(n struct{ Key, Kind string }) bool { return n.Key == "case:IL-0384" }) {
		t.Fatalf("neighbourhood %+v", d)
	}
	json.Unmarshal(f.ok("graph_neighbourhood", map[string]any{"kind": "contributing", "id": "circular-dependency", "depth": 2, "nodes": 30}), &d)
	if len(d.Nodes) == 0 || len(d.Nodes) > 30 {
		t.Fatalf("neighbourhood of a term: %d nodes", len(d.Nodes))
	}
}

func TestToolErrors(t *testing.T) {
	f := mustFixture(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		// Unknown ids and terms.
		{"get_incident", map[string]any{"id": "IL-9999"}, []string{"NOT_FOUND", "IL-9999"}},
		{"similar_incidents", map[string]any{"id": "IL-9999"}, []string{"NOT_FOUND", "IL-9999"}},
		{"same_root_cause", map[string]any{"id": "IL-9999"}, []string{"NOT_FOUND", "IL-9999"}},
		{"graph_neighbourhood", map[string]any{"kind": "case", "id": "IL-9999"}, []string{"NOT_FOUND", "IL-9999"}},
		{"get_topic", map[string]any{"kind": "component", "id": "kafka"}, []string{"NOT_FOUND", "kafka", "vocab"}},
		{"list_incidents", map[string]any{"components": []string{"zzqx-widget"}}, []string{"NOT_FOUND", "component", "zzqx-widget"}},
		{"search_incidents", map[string]any{"query": "dns", "orgs": []string{"zzqx-corp"}}, []string{"NOT_FOUND", "organization", "zzqx-corp"}},
		{"match_incident", map[string]any{"symptoms": []string{"zzqx-slow"}}, []string{"NOT_FOUND", "symptom", "zzqx-slow"}},
		// Missing arguments.
		{"get_incident", map[string]any{}, []string{"id"}},
		{"get_topic", map[string]any{"kind": "component"}, []string{"id"}},
		{"search_incidents", map[string]any{}, []string{"query"}},
		{"search_incidents", map[string]any{"query": "   "}, []string{"INVALID", "query"}},
		{"match_incident", map[string]any{}, []string{"INVALID", "at least one"}},
		// Mistyped arguments.
		{"get_incident", map[string]any{"id": 282}, []string{"id"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "k": "ten"}, []string{"k"}},
		{"list_incidents", map[string]any{"components": "message-broker"}, []string{"components"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "weights": map[string]any{"root_cause": "heavy"}}, []string{"weights"}},
		{"list_incidents", map[string]any{"limit": 2.5}, []string{"limit"}},
		{"get_incident", map[string]any{"id": "IL-0282", "format": "xml"}, []string{"format"}},
		// Bad values and limits.
		{"similar_incidents", map[string]any{"id": "IL-0282", "k": 1000}, []string{"k", "100"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "k": 0}, []string{"k"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "weights": map[string]any{"planet": 1}}, []string{"planet"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "min_score": 3}, []string{"min_score"}},
		{"list_incidents", map[string]any{"limit": 101}, []string{"limit", "100"}},
		{"list_incidents", map[string]any{"sort": "sideways"}, []string{"sort"}},
		{"list_incidents", map[string]any{"cursor": "bogus"}, []string{"INVALID", "cursor"}},
		{"list_incidents", map[string]any{"from": "yesterday"}, []string{"from"}},
		{"list_incidents", map[string]any{"from": "2021-01-01", "to": "2020-01-01"}, []string{"INVALID", "from 2021-01-01 is later than the end of the range (2020-01-01)"}},
		{"search_incidents", map[string]any{"query": strings.Repeat("a", 501)}, []string{"query", "500"}},
		{"list_incidents", map[string]any{"symptoms": slices.Repeat([]string{"high-latency"}, 101)}, []string{"symptoms", "100"}},
		{"get_topic", map[string]any{"kind": "planet", "id": "earth"}, []string{"INVALID", "kind"}},
		{"vocab", map[string]any{"kinds": []string{"planet"}}, []string{"kinds"}},
		{"graph_neighbourhood", map[string]any{"kind": "case", "id": "IL-0282", "depth": 9}, []string{"depth"}},
		{"graph_neighbourhood", map[string]any{"kind": "planet", "id": "IL-0282"}, []string{"INVALID", "kind"}},
		{"suggest_terms", map[string]any{}, []string{"text"}},
		{"suggest_terms", map[string]any{"text": " "}, []string{"INVALID", "text"}},
		{"suggest_terms", map[string]any{"text": strings.Repeat("a", 10001)}, []string{"text", "10000"}},
		{"suggest_terms", map[string]any{"text": "latency", "lang": "fr"}, []string{"lang"}},
		{"suggest_terms", map[string]any{"text": "latency", "per_kind": 100}, []string{"per_kind"}},
		{"match_incident", map[string]any{"text": "zzzz qqqq"}, []string{"INVALID", "no vocabulary term"}},
	} {
		f.fails(tc.tool, tc.args, tc.want...)
	}
	// Hostile strings in every string argument: an answer or a tool error,
	// never a protocol error or a crash.
	for _, h := range []string{"\x00", "'; MATCH (n) DETACH DELETE n //", "💥", strings.Repeat("\u202e", 50), "../../etc/passwd", `"}{`, strings.Repeat("x", 199)} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"get_incident", map[string]any{"id": h}},
			{"search_incidents", map[string]any{"query": h}},
			{"list_incidents", map[string]any{"components": []string{h}, "cursor": h}},
			{"get_topic", map[string]any{"kind": h, "id": h}},
			{"get_topic", map[string]any{"kind": "domain", "id": h}},
			{"similar_incidents", map[string]any{"id": h}},
			{"match_incident", map[string]any{"root_cause": h, "org": h}},
			{"same_root_cause", map[string]any{"id": h, "cursor": h}},
			{"graph_neighbourhood", map[string]any{"kind": "case", "id": h}},
			{"suggest_terms", map[string]any{"text": h}},
			{"match_incident", map[string]any{"text": h}},
		} {
			f.call(c.tool, c.args) // fails the test on a protocol error
		}
	}
	// An unknown tool is a protocol error, not a crash.
	for transport, s := range f.sessions {
		if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_database"}); err == nil {
			t.Errorf("%s: an unknown tool answered", transport)
		}
	}
	// Bodies over the limit are refused before they are read.
	resp, err := http.Post(f.url+"/mcp", "application/json", bytes.NewReader(make([]byte, 2<<20)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("large body: %d", resp.StatusCode)
	}
}
