package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// The matrix's changes to cases and to judgments of similar cases. Each success changes the graph, and each
// runs for every column allowed to write (editor, admin) in both modes, so
// each request is made when it is sent, from the graph as it is then: a
// create names a new id, an update and a restore the current version of
// their case, a delete the first case of a pool set up for it that still
// exists. Making a request reads and never writes, so refused columns
// change nothing.
const (
	matrixUpdated  = "IL-9398" // updated again and again
	matrixRestored = "IL-9399" // version 1 restored again and again
	matrixPool     = 10        // IL-9380 …: deleted one by one
	// IL-9340 …: machine-tagged copies of the seed, reviewed one by one
	// (reviewer, editor, admin × public, private × GraphQL, JSON API).
	matrixReviewPool = 16
)

// matrixWrites makes the write operations' requests over db.
type matrixWrites struct {
	t       *testing.T
	db      *graph.DB
	seed    map[string]any // a seed case naming no other, as JSON
	created int
}

// setUp writes the cases the operations change, before the graph's
// checksum is taken.
func (m *matrixWrites) setUp(core *explore.Service) {
	m.t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Seeds(m.t), "cases", "IL-0206.json"))
	if err != nil {
		m.t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m.seed); err != nil {
		m.t.Fatal(err)
	}
	ctx := ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "matrix", Role: ilgraph.RoleEditor})
	ids := []string{matrixUpdated, matrixRestored}
	for i := range matrixPool {
		ids = append(ids, fmt.Sprintf("IL-%04d", 9380+i))
	}
	for _, id := range ids {
		if _, err := core.CreateCase(ctx, m.caseJSON(id)); err != nil {
			m.t.Fatal(err)
		}
	}
	// The judgment a hiding rests on: made by a principal no column acts
	// as, so no column's withdrawal takes it away.
	if _, err := core.JudgeSimilar(ctx, matrixQuery, matrixMatch, ilgraph.GradeNotRelevant, "set up by the matrix"); err != nil {
		m.t.Fatal(err)
	}
	for i := range matrixReviewPool {
		if _, err := core.CreateCase(ctx, m.machineTaggedJSON(fmt.Sprintf("IL-%04d", 9340+i))); err != nil {
			m.t.Fatal(err)
		}
	}
}

// machineTaggedJSON is the seed as id, machine-tagged: written by import,
// not reviewed, every tag with a confidence.
func (m *matrixWrites) machineTaggedJSON(id string) []byte {
	c := map[string]any{}
	for k, v := range m.seed {
		c[k] = v
	}
	c["id"] = id
	c["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
	tc := map[string]any{"root_cause": map[string]float64{m.seed["root_cause"].(string): 0.5}}
	for _, f := range []string{"components", "symptoms", "contributing", "domain"} {
		conf := map[string]float64{}
		for _, x := range m.seed[f].([]any) {
			conf[x.(string)] = 0.5
		}
		if len(conf) > 0 {
			tc[f] = conf
		}
	}
	c["tag_confidence"] = tc
	b, _ := json.Marshal(c)
	return b
}

// reviewCase is the first case of the review pool still machine-tagged,
// with its version.
func (m *matrixWrites) reviewCase() (string, int64) {
	m.t.Helper()
	for i := range matrixReviewPool {
		id := fmt.Sprintf("IL-%04d", 9340+i)
		raw, v, err := m.db.CaseJSON(context.Background(), id)
		if err != nil {
			m.t.Fatal(err)
		}
		var c ilgraph.Case
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			m.t.Fatal(err)
		}
		if c.MachineTagged() {
			return id, v
		}
	}
	m.t.Fatal("the matrix reviewed every case of its review pool")
	return "", 0
}

// acceptAll is a review's decisions accepting every tag of the seed, in
// the door's spelling of a kind (kind maps ilgraph's).
func (m *matrixWrites) acceptAll(kind func(ilgraph.Kind) string) []map[string]any {
	fields := map[ilgraph.Kind]string{ilgraph.KindComponent: "components", ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domain"}
	out := []map[string]any{{"kind": kind(ilgraph.KindRootCause), "term": m.seed["root_cause"], "decision": "accept"}}
	for _, k := range ilgraph.MachineKinds[1:] {
		for _, x := range m.seed[fields[k]].([]any) {
			out = append(out, map[string]any{"kind": kind(k), "term": x, "decision": "accept"})
		}
	}
	return out
}

// gqlDecisions writes decisions as a GraphQL list literal.
func gqlDecisions(ds []map[string]any) string {
	var b strings.Builder
	b.WriteString("[")
	for _, d := range ds {
		fmt.Fprintf(&b, `{kind: %s, term: %q, decision: %s} `, d["kind"], d["term"], strings.ToUpper(d["decision"].(string)))
	}
	b.WriteString("]")
	return b.String()
}

// The pair the matrix judges, withdraws, hides and shows again.
const (
	matrixQuery = "IL-0384"
	matrixMatch = "IL-0282"
)

func (m *matrixWrites) caseJSON(id string) []byte {
	c := map[string]any{}
	for k, v := range m.seed {
		c[k] = v
	}
	c["id"] = id
	b, _ := json.Marshal(c)
	return b
}

// version is the current version of id (0 when it does not exist).
func (m *matrixWrites) version(id string) int64 {
	m.t.Helper()
	_, v, err := m.db.CaseJSON(context.Background(), id)
	if err != nil {
		m.t.Fatal(err)
	}
	return v
}

func (m *matrixWrites) nextCreated() string {
	m.created++
	return fmt.Sprintf("IL-%04d", 9300+m.created)
}

// poolCase is the first pool case that still exists.
func (m *matrixWrites) poolCase() string {
	for i := range matrixPool {
		if id := fmt.Sprintf("IL-%04d", 9380+i); m.version(id) > 0 {
			return id
		}
	}
	m.t.Fatal("the matrix deleted every case of its pool")
	return ""
}

func ifMatch(v int64) http.Header { return http.Header{"If-Match": {fmt.Sprintf("%q", fmt.Sprint(v))}} }

func jsonString(b []byte) string {
	s, _ := json.Marshal(string(b))
	return string(s)
}

// operations are the write operations, keyed as admission.Classes keys
// them.
func (m *matrixWrites) operations() map[string]operation {
	gql := func(f func() string) func() (string, string, http.Header) {
		return func() (string, string, http.Header) { return "/graphql", gqlBody(f()), nil }
	}
	ops := map[string]operation{
		"Mutation.createCase": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, make: gql(func() string {
			return fmt.Sprintf(`mutation { createCase(json: %s) { revision { version } } }`, jsonString(m.caseJSON(m.nextCreated())))
		})},
		"Mutation.updateCase": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, make: gql(func() string {
			return fmt.Sprintf(`mutation { updateCase(id: %q, version: %d, json: %s) { revision { version } } }`,
				matrixUpdated, m.version(matrixUpdated), jsonString(m.caseJSON(matrixUpdated)))
		})},
		"Mutation.deleteCase": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, make: gql(func() string {
			id := m.poolCase()
			return fmt.Sprintf(`mutation { deleteCase(id: %q, version: %d) { revision { version } } }`, id, m.version(id))
		})},
		"Mutation.restoreCase": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, make: gql(func() string {
			return fmt.Sprintf(`mutation { restoreCase(id: %q, version: %d, from: 1) { revision { version } } }`, matrixRestored, m.version(matrixRestored))
		})},
		"Mutation.reviewCase": {door: "graphql", method: "POST", need: ilgraph.RoleReviewer, make: gql(func() string {
			id, v := m.reviewCase()
			ds := m.acceptAll(func(k ilgraph.Kind) string { return strings.ToUpper(string(k)) })
			return fmt.Sprintf(`mutation { reviewCase(id: %q, version: %d, decisions: %s) { revision { version action } } }`, id, v, gqlDecisions(ds))
		})},
		"POST /cases/{id}/review": {door: "json", method: "POST", need: ilgraph.RoleReviewer, make: func() (string, string, http.Header) {
			id, v := m.reviewCase()
			b, _ := json.Marshal(map[string]any{"decisions": m.acceptAll(func(k ilgraph.Kind) string { return string(k) })})
			return "/cases/" + id + "/review", string(b), ifMatch(v)
		}},
		"POST /cases": {door: "json", method: "POST", need: ilgraph.RoleEditor, make: func() (string, string, http.Header) {
			return "/cases", string(m.caseJSON(m.nextCreated())), nil
		}},
		"PUT /cases/{id}": {door: "json", method: "PUT", need: ilgraph.RoleEditor, make: func() (string, string, http.Header) {
			return "/cases/" + matrixUpdated, string(m.caseJSON(matrixUpdated)), ifMatch(m.version(matrixUpdated))
		}},
		"DELETE /cases/{id}": {door: "json", method: "DELETE", need: ilgraph.RoleEditor, make: func() (string, string, http.Header) {
			id := m.poolCase()
			return "/cases/" + id, "", ifMatch(m.version(id))
		}},
		"POST /cases/{id}/restore": {door: "json", method: "POST", need: ilgraph.RoleEditor, make: func() (string, string, http.Header) {
			return "/cases/" + matrixRestored + "/restore", `{"from": 1}`, ifMatch(m.version(matrixRestored))
		}},
		// Judgments of similar cases: a reviewer judges and withdraws, an
		// editor hides and shows again.
		"Mutation.judgeSimilar": {door: "graphql", method: "POST", need: ilgraph.RoleReviewer, path: "/graphql",
			body: gqlBody(fmt.Sprintf(`mutation { judgeSimilar(caseId: %q, match: %q, grade: RELEVANT, reason: "matrix") { judge } }`, matrixQuery, matrixMatch))},
		"Mutation.withdrawJudgment": {door: "graphql", method: "POST", need: ilgraph.RoleReviewer, path: "/graphql",
			body: gqlBody(fmt.Sprintf(`mutation { withdrawJudgment(caseId: %q, match: %q) }`, matrixQuery, matrixMatch))},
		"Mutation.hideSimilar": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, path: "/graphql",
			body: gqlBody(fmt.Sprintf(`mutation { hideSimilar(caseId: %q, match: %q) { by } }`, matrixQuery, matrixMatch))},
		"Mutation.unhideSimilar": {door: "graphql", method: "POST", need: ilgraph.RoleEditor, path: "/graphql",
			body: gqlBody(fmt.Sprintf(`mutation { unhideSimilar(caseId: %q, match: %q) }`, matrixQuery, matrixMatch))},
		"PUT /cases/{id}/similar/{match}/judgment": {door: "json", method: "PUT", need: ilgraph.RoleReviewer,
			path: "/cases/" + matrixQuery + "/similar/" + matrixMatch + "/judgment", body: `{"grade": "relevant", "reason": "matrix"}`},
		"DELETE /cases/{id}/similar/{match}/judgment": {door: "json", method: "DELETE", need: ilgraph.RoleReviewer,
			path: "/cases/" + matrixQuery + "/similar/" + matrixMatch + "/judgment"},
		"PUT /cases/{id}/similar/{match}/hidden": {door: "json", method: "PUT", need: ilgraph.RoleEditor,
			path: "/cases/" + matrixQuery + "/similar/" + matrixMatch + "/hidden"},
		"DELETE /cases/{id}/similar/{match}/hidden": {door: "json", method: "DELETE", need: ilgraph.RoleEditor,
			path: "/cases/" + matrixQuery + "/similar/" + matrixMatch + "/hidden"},
		// …and through MCP's tools, which answer a call refused for its
		// credentials with 401 or 403 as the other doors do.
		"mcp judge_similar": {door: "mcp", method: "POST", need: ilgraph.RoleReviewer, path: "/mcp",
			body: toolBody("judge_similar", map[string]any{"id": matrixQuery, "match": matrixMatch, "grade": "relevant", "reason": "matrix"})},
		"mcp withdraw_judgment": {door: "mcp", method: "POST", need: ilgraph.RoleReviewer, path: "/mcp",
			body: toolBody("withdraw_judgment", map[string]any{"id": matrixQuery, "match": matrixMatch})},
		"mcp hide_similar": {door: "mcp", method: "POST", need: ilgraph.RoleEditor, path: "/mcp",
			body: toolBody("hide_similar", map[string]any{"id": matrixQuery, "match": matrixMatch})},
		"mcp unhide_similar": {door: "mcp", method: "POST", need: ilgraph.RoleEditor, path: "/mcp",
			body: toolBody("unhide_similar", map[string]any{"id": matrixQuery, "match": matrixMatch})},
	}
	return ops
}
