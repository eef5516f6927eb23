package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/mcpserver"
)

// listed is tools/list as a client receives it, decoded as plain JSON (not
// into the SDK's types, which would hide what is on the wire), with the
// server's instructions. Listing tools never reaches the core, so the
// server has none.
func listed(t *testing.T) (tools []map[string]any, instructions string) {
	t.Helper()
	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := mcpserver.NewServer(nil, mcpserver.Options{Logger: quiet()}).Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "schema-test", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct{ Tools []map[string]any }
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	if len(wire.Tools) == 0 {
		t.Fatal("tools/list listed no tools")
	}
	return wire.Tools, cs.InitializeResult().Instructions
}

// TestToolSchemasFollowTheSpec checks every tool's schemas against what the
// MCP specification asks of them and what the TypeScript SDK's client
// enforces when it parses tools/list (it refuses the whole list when one
// tool breaks a rule): inputSchema and outputSchema are JSON objects whose
// type is the string "object" (not a type array such as ["null",
// "object"]), properties an object of schemas, required a list of
// properties. Input schemas also take no null and have one type per value,
// which clients that map tool schemas onto a single-type dialect need.
func TestToolSchemasFollowTheSpec(t *testing.T) {
	tools, _ := listed(t)
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		for _, field := range []string{"inputSchema", "outputSchema"} {
			s, ok := tool[field].(map[string]any)
			if !ok {
				t.Errorf("%s: %s is %T, want a JSON object", name, field, tool[field])
				continue
			}
			if typ, ok := s["type"].(string); !ok || typ != "object" {
				t.Errorf("%s: %s.type is %v, want \"object\"", name, field, s["type"])
			}
			props, _ := s["properties"].(map[string]any)
			if p, ok := s["properties"]; ok && props == nil {
				t.Errorf("%s: %s.properties is %T, want an object", name, field, p)
			}
			for k, p := range props {
				if _, ok := p.(map[string]any); !ok {
					t.Errorf("%s: %s.properties.%s is %T, want a schema object", name, field, k, p)
				}
			}
			if r, ok := s["required"]; ok {
				req, ok := r.([]any)
				if !ok {
					t.Errorf("%s: %s.required is %T, want an array", name, field, r)
				}
				for _, x := range req {
					if k, ok := x.(string); !ok || props[k] == nil {
						t.Errorf("%s: %s.required names %v, which is not one of its properties", name, field, x)
					}
				}
			}
		}
		if s, ok := tool["inputSchema"].(map[string]any); ok {
			walkSchemas(s, name+".inputSchema", func(path string, s map[string]any) {
				if typ, ok := s["type"]; ok {
					if _, single := typ.(string); !single || typ == "null" {
						t.Errorf("%s.type is %v, want one type that is not null", path, typ)
					}
				}
			})
		}
	}
}

// walkSchemas calls f on s and on every schema below it.
func walkSchemas(s map[string]any, path string, f func(string, map[string]any)) {
	f(path, s)
	for _, key := range []string{"properties", "patternProperties", "$defs"} {
		m, _ := s[key].(map[string]any)
		for k, sub := range m {
			if sub, ok := sub.(map[string]any); ok {
				walkSchemas(sub, path+"."+key+"."+k, f)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "propertyNames", "not"} {
		if sub, ok := s[key].(map[string]any); ok {
			walkSchemas(sub, path+"."+key, f)
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		l, _ := s[key].([]any)
		for i, sub := range l {
			if sub, ok := sub.(map[string]any); ok {
				walkSchemas(sub, fmt.Sprintf("%s.%s[%d]", path, key, i), f)
			}
		}
	}
}

// TestKindsComeFromTheKindTable checks that the server's instructions, the
// kinds argument and the weights argument name every kind of the kind table
// (ilgraph.AllKinds), so that a new kind cannot be left out of them.
func TestKindsComeFromTheKindTable(t *testing.T) {
	tools, instructions := listed(t)
	for _, k := range ilgraph.AllKinds {
		if !strings.Contains(instructions, string(k)) || !strings.Contains(instructions, k.Label()) {
			t.Errorf("the instructions do not name the kind %s (%s):\n%s", k, k.Label(), instructions)
		}
	}
	prop := func(tool, arg string) map[string]any {
		t.Helper()
		for _, x := range tools {
			if x["name"] == tool {
				p, _ := x["inputSchema"].(map[string]any)["properties"].(map[string]any)[arg].(map[string]any)
				if p == nil {
					t.Fatalf("%s has no argument %s", tool, arg)
				}
				return p
			}
		}
		t.Fatalf("no tool %s", tool)
		return nil
	}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	var want []string
	for _, k := range ilgraph.AllKinds {
		want = append(want, string(k))
	}
	if got := strs(prop("vocab", "kinds")["items"].(map[string]any)["enum"]); !slices.Equal(got, want) {
		t.Errorf("vocab's kinds take %v, want %v", got, want)
	}
	want = append(want, string(ilgraph.WeightText))
	for _, tool := range []string{"similar_incidents", "match_incident"} {
		if got := strs(prop(tool, "weights")["propertyNames"].(map[string]any)["enum"]); !slices.Equal(got, want) {
			t.Errorf("%s's weights take %v, want %v", tool, got, want)
		}
	}
	for _, tool := range []string{"get_topic", "graph_neighbourhood"} {
		desc, _ := prop(tool, "kind")["description"].(string)
		for _, k := range ilgraph.AllKinds {
			if !strings.Contains(desc, string(k)) {
				t.Errorf("%s's kind does not name %s: %q", tool, k, desc)
			}
		}
	}
}

// TestGradesComeFromTheGradeTable: judge_similar's grade takes the keys of
// the grade table (ilgraph.Grades), lowest first, and its description and
// the tool's name them all, so that a new grade cannot be left out; its
// match and reason carry the core's bounds.
func TestGradesComeFromTheGradeTable(t *testing.T) {
	tools, _ := listed(t)
	var judge map[string]any
	for _, x := range tools {
		if x["name"] == "judge_similar" {
			judge = x
		}
	}
	if judge == nil {
		t.Fatal("no tool judge_similar")
	}
	in := judge["inputSchema"].(map[string]any)
	props := in["properties"].(map[string]any)
	grade := props["grade"].(map[string]any)
	var got, want []string
	for _, x := range grade["enum"].([]any) {
		got = append(got, x.(string))
	}
	for _, g := range ilgraph.Grades {
		want = append(want, g.Key())
		if !strings.Contains(grade["description"].(string), g.Key()) || !strings.Contains(judge["description"].(string), g.Key()) {
			t.Errorf("judge_similar or its grade does not name %s: %q, %q", g.Key(), judge["description"], grade["description"])
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("judge_similar's grade takes %v, want %v", got, want)
	}
	if req := fmt.Sprint(in["required"]); !strings.Contains(req, "grade") || !strings.Contains(req, "match") || !strings.Contains(req, "id") || strings.Contains(req, "reason") {
		t.Errorf("judge_similar requires %s; want id, match and grade, not reason", req)
	}
	if n, _ := props["reason"].(map[string]any)["maxLength"].(float64); int(n) != ilgraph.MaxJudgmentReason {
		t.Errorf("judge_similar's reason: maxLength %v, want %d", props["reason"].(map[string]any)["maxLength"], ilgraph.MaxJudgmentReason)
	}
	if _, ok := props["match"].(map[string]any)["maxLength"]; !ok {
		t.Error("judge_similar's match has no maxLength")
	}
}
