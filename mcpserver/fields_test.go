package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/explore"
)

// TestErrorsNameTheArgument: a bad page size, cursor, k or minimum score
// fails the call with a message that names the tool's argument — limit,
// cursor, k, min_score — never GraphQL's name for it (first, after,
// minScore). Bounds the input schema states are refused by the SDK before
// the tool runs; the rest by the core, whose message the server spells.
func TestErrorsNameTheArgument(t *testing.T) {
	f := mustFixture(t)
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		says   string // how the message starts (the core's errors), or what it holds (the SDK's)
		core   bool
		others []string
	}{
		{"list_incidents", map[string]any{"limit": 101}, "limit", false, []string{"first"}},
		{"same_root_cause", map[string]any{"id": "IL-0282", "limit": -1}, "limit", false, []string{"first"}},
		{"list_incidents", map[string]any{"cursor": "bogus"}, "INVALID: cursor ", true, []string{"after"}},
		{"same_root_cause", map[string]any{"id": "IL-0282", "cursor": "bm9wZQ"}, "INVALID: cursor ", true, []string{"after"}},
		{"similar_incidents", map[string]any{"id": "IL-0282", "k": 0}, "k", false, nil},
		{"match_incident", map[string]any{"components": []string{"message-broker"}, "k": 1000}, "k", false, nil},
		{"similar_incidents", map[string]any{"id": "IL-0282", "min_score": 3}, "min_score", false, []string{"minScore"}},
		{"search_incidents", map[string]any{"query": "   "}, "INVALID: query ", true, []string{"filter.text", " q "}},
		{"suggest_terms", map[string]any{"text": " "}, "INVALID: text ", true, []string{" q "}},
	} {
		res := f.call(tc.tool, tc.args)
		msg := text(res)
		what := fmt.Sprintf("%s(%v)", tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s succeeded; want an error about %s", what, tc.says)
			continue
		}
		if tc.core && !strings.HasPrefix(msg, tc.says) || !tc.core && !strings.Contains(msg, tc.says) {
			t.Errorf("%s: message %q, want it to name %q", what, msg, tc.says)
		}
		for _, o := range tc.others {
			if strings.Contains(msg, o) {
				t.Errorf("%s: message %q names %q, another door's name", what, msg, o)
			}
		}
	}
}

// TestDefaultsAreTheCores: a call that names no limit or k gets the core's
// default page of same-root-cause cases and number of similar cases, and
// the input schemas state the core's defaults.
func TestDefaultsAreTheCores(t *testing.T) {
	f := mustFixture(t)
	var refs struct {
		Total int
		Cases []struct{ ID string }
	}
	// IL-0282's root cause has more cases than a default page (as the JSON
	// API and GraphQL tests check from the corpus).
	json.Unmarshal(f.ok("same_root_cause", map[string]any{"id": "IL-0282"}), &refs)
	if refs.Total <= explore.DefaultSameRootCause {
		t.Fatalf("IL-0282: %d same-root-cause cases, want more than %d: the check proves nothing", refs.Total, explore.DefaultSameRootCause)
	}
	if len(refs.Cases) != explore.DefaultSameRootCause {
		t.Errorf("same_root_cause without limit: %d cases, want the core's default %d", len(refs.Cases), explore.DefaultSameRootCause)
	}
	type similar struct{ Matches []struct{ Score float64 } }
	var all, got similar
	json.Unmarshal(f.ok("similar_incidents", map[string]any{"id": "IL-0282", "k": 100}), &all)
	if len(all.Matches) <= explore.DefaultSimilarK {
		t.Fatalf("IL-0282: %d similar cases at most, want more than %d", len(all.Matches), explore.DefaultSimilarK)
	}
	json.Unmarshal(f.ok("similar_incidents", map[string]any{"id": "IL-0282"}), &got)
	if len(got.Matches) != explore.DefaultSimilarK {
		t.Errorf("similar_incidents without k: %d cases, want the core's default %d", len(got.Matches), explore.DefaultSimilarK)
	}

	tools, _ := listed(t)
	for _, tc := range []struct {
		tool, arg string
		def       int
	}{
		{"list_incidents", "limit", explore.DefaultPageSize},
		{"same_root_cause", "limit", explore.DefaultSameRootCause},
		{"similar_incidents", "k", explore.DefaultSimilarK},
		{"match_incident", "k", explore.DefaultSimilarK},
		{"get_topic", "limit", explore.DefaultTopicCases},
		{"get_topic", "cooccurring", explore.DefaultCooccurring},
		{"suggest_terms", "per_kind", explore.DefaultSuggestPerKind},
		{"graph_neighbourhood", "depth", explore.DefaultNeighbourhoodDepth},
		{"graph_neighbourhood", "nodes", explore.DefaultNeighbourhoodLimit},
	} {
		var p map[string]any
		for _, x := range tools {
			if x["name"] == tc.tool {
				p, _ = x["inputSchema"].(map[string]any)["properties"].(map[string]any)[tc.arg].(map[string]any)
			}
		}
		if p == nil {
			t.Errorf("%s has no argument %s", tc.tool, tc.arg)
			continue
		}
		desc, _ := p["description"].(string)
		if d, ok := p["default"].(float64); !ok || int(d) != tc.def || !strings.Contains(desc, fmt.Sprintf("default %d", tc.def)) {
			t.Errorf("%s.%s: default %v, description %q; want the core's default %d", tc.tool, tc.arg, p["default"], desc, tc.def)
		}
	}
}
