package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/apitest"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// machineTagged writes a machine-tagged copy of the seed case as id, each
// tag with confidence 0.5 but the root cause's, 0.25.
func (a *api) machineTagged(t *testing.T, seed *ilgraph.Case, id string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus.Seeds(t), "cases", seed.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	body["id"] = id
	body["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
	tc := map[string]any{"root_cause": map[string]float64{seed.RootCause: 0.25}}
	for field, ids := range map[string][]string{"components": seed.Components, "symptoms": seed.Symptoms, "contributing": seed.Contributing, "domain": seed.Domain} {
		conf := map[string]float64{}
		for _, x := range ids {
			conf[x] = 0.5
		}
		if len(conf) > 0 {
			tc[field] = conf
		}
	}
	body["tag_confidence"] = tc
	js, _ := json.Marshal(body)
	ed := a.as("erin", ilgraph.RoleEditor)
	ed.must(`mutation($json: String!) { createCase(json: $json) { revision { version } } }`, map[string]any{"json": string(js)}, nil)
}

type queueAnswer struct {
	ReviewQueue struct {
		TotalCount int
		PageInfo   struct{ HasNextPage bool }
		Edges      []struct {
			Cursor string
			Node   struct {
				Case struct {
					ID            string
					MachineTagged bool
				}
				EvidenceText string
				Suggested    []struct {
					Kind       string
					Term       struct{ ID string }
					Confidence *float64
					Evidence   []struct {
						Source string
						Text   *string
						Start  *int
						End    *int
						Case   *struct{ ID string }
						Weight float64
					}
				}
			}
		}
	}
}

const queueQuery = `query($first: Int, $after: String) { reviewQueue(first: $first, after: $after) {
  totalCount pageInfo { hasNextPage }
  edges { cursor node { case { id machineTagged } evidenceText
    suggested { kind term { id } confidence evidence { source text start end case { id } weight } } } } } }`

// TestReviewQueueQuery: reviewQueue answers the core's queue, case by case
// and tag by tag, with the confidences the cases were written with.
func TestReviewQueueQuery(t *testing.T) {
	a := mustAPI(t)
	seeds := a.where(func(c *ilgraph.Case) bool {
		return len(c.Related) == 0 && c.RecurrenceOf == "" && len(c.Symptoms) > 0 && len(c.Domain) > 0
	})[:2]
	a.machineTagged(t, seeds[0], "PM-000000801")
	a.machineTagged(t, seeds[1], "PM-000000802")

	var got queueAnswer
	a.must(queueQuery, map[string]any{"first": 1}, &got)
	q := got.ReviewQueue
	if q.TotalCount != 2 || !q.PageInfo.HasNextPage || len(q.Edges) != 1 {
		t.Fatalf("first page of 1: %+v, want 1 of 2 cases and a next page", q)
	}
	var second queueAnswer
	a.must(queueQuery, map[string]any{"first": 10, "after": q.Edges[0].Cursor}, &second)
	edges := append(q.Edges, second.ReviewQueue.Edges...)

	want, err := apitest.Core(a.db).ReviewQueue(context.Background(), explore.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != len(want.Items) {
		t.Fatalf("%d cases over two pages, the core's queue has %d", len(edges), len(want.Items))
	}
	bySeed := map[string]*ilgraph.Case{"PM-000000801": seeds[0], "PM-000000802": seeds[1]}
	for i, e := range edges {
		n, w := e.Node, want.Items[i]
		t.Run(n.Case.ID, func(t *testing.T) {
			seed := bySeed[n.Case.ID]
			if n.Case.ID != w.Case.ID || !n.Case.MachineTagged || n.EvidenceText != w.EvidenceText || seed == nil {
				t.Fatalf("case %s (machine-tagged %v), want %s", n.Case.ID, n.Case.MachineTagged, w.Case.ID)
			}
			var gotTags, wantTags []string
			for _, s := range n.Suggested {
				gotTags = append(gotTags, fmt.Sprintf("%s %s %v %d", s.Kind, s.Term.ID, *s.Confidence, len(s.Evidence)))
			}
			for _, k := range ilgraph.MachineKinds {
				for _, id := range seed.Tags(k) {
					conf := 0.5
					if k == ilgraph.KindRootCause {
						conf = 0.25
					}
					var nEvidence int
					for _, s := range w.Suggested {
						if s.Kind == k && s.ID == id {
							nEvidence = len(s.Evidence)
						}
					}
					wantTags = append(wantTags, fmt.Sprintf("%s %s %v %d", strings.ToUpper(string(k)), id, conf, nEvidence))
				}
			}
			if !slices.Equal(gotTags, wantTags) {
				t.Errorf("suggested\n%q\nwant\n%q", gotTags, wantTags)
			}
		})
	}
}

// TestReviewCaseMutation: reviewCase needs a reviewer, names the input at
// fault, and writes the review as a REVIEW revision that leaves the case
// reviewed with its record.
func TestReviewCaseMutation(t *testing.T) {
	a := mustAPI(t)
	seed := a.where(func(c *ilgraph.Case) bool {
		return len(c.Related) == 0 && c.RecurrenceOf == "" && len(c.Components) >= 2 && len(c.Symptoms) > 0 && len(c.Domain) > 0
	})[0]
	const id = "PM-000000803"
	a.machineTagged(t, seed, id)
	var decisions []map[string]any
	for _, k := range ilgraph.MachineKinds {
		for _, x := range seed.Tags(k) {
			decisions = append(decisions, map[string]any{"kind": strings.ToUpper(string(k)), "term": x, "decision": "ACCEPT"})
		}
	}
	decisions[2]["decision"] = "REJECT" // the second component
	review := `mutation($id: ID!, $version: Int!, $decisions: [TagDecisionInput!]!, $add: [TagInput!]) {
  reviewCase(id: $id, version: $version, decisions: $decisions, add: $add) {
    revision { version action by previous }
    case { id version machineTagged components { id } tagConfidence { kind term { id } confidence }
      review { writtenBy reviewedBy reviewedAt decisions { kind term confidence decision with } } } } }`
	vars := func(version int, ds []map[string]any) map[string]any {
		return map[string]any{"id": id, "version": version, "decisions": ds}
	}
	rev := a.as("rita", ilgraph.RoleReviewer)

	for _, tc := range []struct {
		name string
		api  *api
		vars map[string]any
		code string
		msg  string // the message's start
	}{
		{"anonymous", a, vars(1, decisions), "UNAUTHORIZED", ""},
		{"a viewer", a.as("vic", ilgraph.RoleViewer), vars(1, decisions), "FORBIDDEN", ""},
		{"a stale version", rev, vars(7, decisions), "CONFLICT", ""},
		{"a tag that was not suggested", rev, vars(1, append(slices.Clone(decisions), map[string]any{"kind": "COMPONENT", "term": "no-such-component", "decision": "ACCEPT"})), "INVALID", "decisions "},
	} {
		t.Run(tc.name+": refused, nothing written", func(t *testing.T) {
			errs := tc.api.do(review, tc.vars, nil)
			if len(errs) != 1 || errs[0].Extensions["code"] != tc.code || !strings.HasPrefix(errs[0].Message, tc.msg) {
				t.Fatalf("errors %+v, want one %s starting %q", errs, tc.code, tc.msg)
			}
			var out struct{ Case struct{ Version int } }
			a.must(`query($id: ID!) { case(id: $id) { version } }`, map[string]any{"id": id}, &out)
			if out.Case.Version != 1 {
				t.Errorf("version %d after a refused review, want 1", out.Case.Version)
			}
		})
	}
	t.Run("the problems name the decision", func(t *testing.T) {
		ds := append(slices.Clone(decisions), map[string]any{"kind": "COMPONENT", "term": "no-such-component", "decision": "ACCEPT"})
		errs := rev.do(review, vars(1, ds), nil)
		probs, _ := errs[0].Extensions["problems"].([]any)
		want := fmt.Sprintf("decisions[%d].term", len(decisions))
		if len(probs) != 1 || probs[0].(map[string]any)["field"] != want {
			t.Errorf("problems %+v, want one naming %s", probs, want)
		}
	})

	var out struct {
		ReviewCase struct {
			Revision struct {
				Version  int
				Action   string
				By       string
				Previous *string
			}
			Case struct {
				Version       int
				MachineTagged bool
				Components    []struct{ ID string }
				TagConfidence []struct {
					Kind       string
					Term       struct{ ID string }
					Confidence float64
				}
				Review struct {
					WrittenBy, ReviewedBy, ReviewedAt *string
					Decisions                         []struct {
						Kind, Term, Decision string
						Confidence           *float64
						With                 *string
					}
				}
			}
		}
	}
	added := ""
	for _, term := range a.vocab.Kinds[ilgraph.KindDomain] {
		if !slices.Contains(seed.Domain, term.ID) && term.ID != "saas" && term.ID != "aws" && term.ID != "gcp" && term.ID != "azure" && term.ID != "cloudflare" && term.ID != "messaging" {
			added = term.ID
			break
		}
	}
	v := vars(1, decisions)
	v["add"] = []map[string]any{{"kind": "DOMAIN", "term": added}}
	rev.must(review, v, &out)
	r, c := out.ReviewCase.Revision, out.ReviewCase.Case
	if r.Version != 2 || r.Action != "REVIEW" || r.By != "rita" || r.Previous == nil {
		t.Errorf("revision %+v, want version 2, REVIEW by rita with the JSON before", r)
	}
	wantComponents := append([]string{seed.Components[0]}, seed.Components[2:]...)
	var gotComponents []string
	for _, x := range c.Components {
		gotComponents = append(gotComponents, x.ID)
	}
	if c.MachineTagged || c.Version != 2 || !slices.Equal(gotComponents, wantComponents) {
		t.Errorf("case: machine-tagged %v, version %d, components %v; want reviewed, 2, %v", c.MachineTagged, c.Version, gotComponents, wantComponents)
	}
	for _, tcf := range c.TagConfidence {
		if tcf.Term.ID == seed.Components[1] || tcf.Term.ID == added {
			t.Errorf("tagConfidence keeps %s, which was rejected or added", tcf.Term.ID)
		}
	}
	if n := len(c.TagConfidence); n != len(decisions)-1 {
		t.Errorf("tagConfidence has %d tags, want the %d accepted", n, len(decisions)-1)
	}
	rv := c.Review
	if rv.ReviewedBy == nil || *rv.ReviewedBy != "rita" || rv.ReviewedAt == nil || rv.WrittenBy == nil || *rv.WrittenBy != "import" {
		t.Errorf("review %+v", rv)
	}
	if len(rv.Decisions) != len(decisions)+1 {
		t.Fatalf("%d decisions recorded, want %d", len(rv.Decisions), len(decisions)+1)
	}
	for i, d := range decisions {
		got := rv.Decisions[i]
		if got.Kind != d["kind"] || got.Term != d["term"] || got.Decision != d["decision"] || got.Confidence == nil || got.With != nil {
			t.Errorf("decision %d: %+v, want %v with its confidence", i, got, d)
		}
	}
	if last := rv.Decisions[len(decisions)]; last.Kind != "DOMAIN" || last.Term != added || last.Decision != "ADD" || last.Confidence != nil {
		t.Errorf("the addition recorded as %+v", last)
	}
	var queue queueAnswer
	a.must(queueQuery, nil, &queue)
	if queue.ReviewQueue.TotalCount != 0 {
		t.Errorf("the queue still holds %d case(s)", queue.ReviewQueue.TotalCount)
	}
}
