package resolvers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

type warning struct {
	Field, Value, Message, Resolved string
	Suggestions                     []string
}

// doWarnings posts a query, decodes data into out and returns
// extensions.warnings; it fails on errors.
func (a *api) doWarnings(query string, vars map[string]any, out any) []warning {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	resp, err := a.client.Post(a.url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct {
		Data       json.RawMessage
		Errors     []gqlError
		Extensions struct{ Warnings []warning }
	}
	if err := json.Unmarshal(raw, &env); err != nil || len(env.Errors) > 0 {
		a.t.Fatalf("%s: %v %s", query, err, raw)
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			a.t.Fatal(err)
		}
	}
	return env.Extensions.Warnings
}

func TestTermWarnings(t *testing.T) {
	a := mustAPI(t)
	list := func(filter map[string]any) ([]string, []warning) {
		var got struct {
			Cases struct{ Nodes []struct{ ID string } }
		}
		ws := a.doWarnings(`query($f: CaseFilter) { cases(filter: $f, sort: ID_ASC, first: 100) { nodes { id } } }`, map[string]any{"f": filter}, &got)
		var out []string
		for _, n := range got.Cases.Nodes {
			out = append(out, n.ID)
		}
		return out, ws
	}
	exact, ws := list(map[string]any{"rootCauses": []string{"capacity"}})
	if len(exact) == 0 || len(ws) != 0 {
		t.Fatalf("capacity: %d cases, warnings %+v", len(exact), ws)
	}
	tests := []struct {
		name      string
		filter    map[string]any
		want      []string // the cases; nil: none
		field     string
		message   string
		suggested string
	}{
		{"another letter case", map[string]any{"rootCauses": []string{"Capacity"}}, exact, "filter.rootCauses", `"Capacity"`, ""},
		{"a typo", map[string]any{"rootCauses": []string{"capacty"}}, nil, "filter.rootCauses", "did you mean capacity", "capacity"},
		{"a Korean label in components", map[string]any{"components": map[string]any{"anyOf": []string{"메시지 브로커/스트리밍"}}},
			ids(a.where(func(c *ilgraph.Case) bool { return has(c.Components, "message-broker") })), "filter.components.anyOf", "Korean label", ""},
		{"an organization's name", map[string]any{"orgs": []string{"Amazon Web Services"}},
			ids(a.where(func(c *ilgraph.Case) bool { return c.OrgSlug == "amazon-web-services" })), "filter.orgs", "amazon-web-services", ""},
		{"an organization's name to exclude", map[string]any{"excludeOrgs": []string{"Amazon Web Services"}},
			ids(a.where(func(c *ilgraph.Case) bool { return c.OrgSlug != "amazon-web-services" })), "filter.excludeOrgs", "amazon-web-services", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			got, ws := list(tt.filter)
			want := tt.want[:min(len(tt.want), 100)] // the first page, by id
			if !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if len(ws) != 1 || ws[0].Field != tt.field || !strings.Contains(ws[0].Message, tt.message) ||
				(tt.suggested != "" && !slices.Contains(ws[0].Suggestions, tt.suggested)) {
				t.Errorf("warnings %+v, want one for %s saying %q", ws, tt.field, tt.message)
			}
		})
	}
	t.Run("profiles", func(t *testing.T) {
		a.t = t
		q := `query($p: ProfileInput!) { similarToProfile(profile: $p, k: 5) { matches { case { id } score } } }`
		var byID, byLabel any
		ws := a.doWarnings(q, map[string]any{"p": map[string]any{"components": []string{"message-broker"}, "symptoms": []string{"high-latency"}}}, &byID)
		if len(ws) != 0 {
			t.Errorf("warnings for valid ids: %+v", ws)
		}
		ws = a.doWarnings(q, map[string]any{"p": map[string]any{"components": []string{"Message-Broker"}, "symptoms": []string{"high latency", "hihg-latency"}}}, &byLabel)
		var fields []string
		for _, w := range ws {
			fields = append(fields, w.Field+":"+w.Value+"→"+w.Resolved)
		}
		want := []string{"profile.components:Message-Broker→message-broker", "profile.symptoms:high latency→high-latency", "profile.symptoms:hihg-latency→"}
		if !slices.Equal(fields, want) {
			t.Errorf("warnings %v, want %v", fields, want)
		}
	})
}
