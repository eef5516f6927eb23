package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// TestUnknownValuesAreNull checks that every optional string of a case that
// the source leaves empty comes back as null, never as "", and every known
// one as it is in the seed JSON.
func TestUnknownValuesAreNull(t *testing.T) {
	a := mustAPI(t)
	var got struct {
		Cases struct {
			Nodes []map[string]json.RawMessage
		}
	}
	a.must(`{ cases(first: 100, sort: ID_ASC) { nodes { id dateKind severity updatedAt url
		timeline { detectedAfter resolvedAfter detectedAfterMinutes resolvedAfterMinutes }
		impact { scope users region } review { writtenBy reviewedAt reviewedBy } sources { url kind archived } } } }`, nil, &got)
	if len(got.Cases.Nodes) != len(a.cases) {
		t.Fatalf("got %d cases, want %d", len(got.Cases.Nodes), len(a.cases))
	}
	nulls, values := 0, 0
	check := func(id, field string, raw json.RawMessage, want string) {
		t.Helper()
		wantJSON := "null"
		if want != "" {
			b, _ := json.Marshal(want)
			wantJSON = string(b)
			values++
		} else {
			nulls++
		}
		if string(raw) != wantJSON {
			t.Errorf("%s %s: got %s, want %s", id, field, raw, wantJSON)
		}
	}
	sub := func(raw json.RawMessage) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, n := range got.Cases.Nodes {
		var id string
		json.Unmarshal(n["id"], &id)
		c := a.byID[id]
		check(id, "dateKind", n["dateKind"], c.DateKind)
		check(id, "severity", n["severity"], c.Severity)
		check(id, "updatedAt", n["updatedAt"], c.UpdatedAt)
		check(id, "url", n["url"], c.URL)
		tl := sub(n["timeline"])
		check(id, "timeline.detectedAfter", tl["detectedAfter"], c.Timeline.DetectedAfter)
		check(id, "timeline.resolvedAfter", tl["resolvedAfter"], c.Timeline.ResolvedAfter)
		for field, d := range map[string]string{"detectedAfterMinutes": c.Timeline.DetectedAfter, "resolvedAfterMinutes": c.Timeline.ResolvedAfter} {
			want := "null"
			if m, err := ilgraph.ParseDuration(d); err == nil {
				want = fmt.Sprint(m)
			}
			if string(tl[field]) != want {
				t.Errorf("%s timeline.%s: got %s, want %s", id, field, tl[field], want)
			}
		}
		im := sub(n["impact"])
		check(id, "impact.scope", im["scope"], c.Impact.Scope)
		check(id, "impact.users", im["users"], c.Impact.Users)
		check(id, "impact.region", im["region"], c.Impact.Region)
		rv := sub(n["review"])
		check(id, "review.writtenBy", rv["writtenBy"], c.Review.WrittenBy)
		check(id, "review.reviewedAt", rv["reviewedAt"], c.Review.ReviewedAt)
		check(id, "review.reviewedBy", rv["reviewedBy"], c.Review.ReviewedBy)
		var srcs []map[string]json.RawMessage
		json.Unmarshal(n["sources"], &srcs)
		for i, s := range srcs {
			check(id, fmt.Sprintf("sources[%d].kind", i), s["kind"], c.Sources[i].Kind)
			check(id, fmt.Sprintf("sources[%d].archived", i), s["archived"], c.Sources[i].Archived)
		}
	}
	if nulls == 0 || values == 0 {
		t.Errorf("the seeds exercise %d nulls and %d values; the test needs both", nulls, values)
	}
}
