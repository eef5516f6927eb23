package explore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

var reviewer = ilgraph.Principal{Name: "rita", Role: ilgraph.RoleReviewer}

func reviewerCtx() context.Context {
	return ilgraph.NewContextWithPrincipal(context.Background(), reviewer)
}

// reviewingCore is the core as cmd/ilgraph wires it — the read model, the
// suggestion engine, writes — over the seeds in Neo4j, with the engine
// apart for the tests' own questions.
func reviewingCore(t *testing.T) (*explore.Service, *graph.DB, *suggest.Service) {
	t.Helper()
	db := neo4jtest.MustOpenSeeds(t)
	src := memstore.NewSource(db)
	sg := suggest.NewService(db, src, suggest.Options{})
	core := explore.New(db, similarity.NewService(db, src), explore.WithReadModel(memstore.NewStore(src)),
		explore.WithSuggester(sg), explore.WithWrites(db, loader.Validator{DB: db}))
	return core, db, sg
}

// machineCopy is a machine-tagged copy of a seed case, written through the
// core: its JSON as given and the confidences it carries.
type machineCopy struct {
	id   string
	date string
	body map[string]any
	seed *ilgraph.Case
	conf map[ilgraph.Kind]map[string]float64
}

// confidence is the made-up confidence of the i-th tag of kind number k.
func confidence(k, i int) float64 { return math.Round((0.3+0.1*float64(i)+0.05*float64(k))*100) / 100 }

// machineCopies writes n machine-tagged copies of unlinked seed cases with
// at least two components, each with its own date; every tag carries a
// confidence but the last domain of the first copy.
func machineCopies(t *testing.T, core *explore.Service, n int) []machineCopy {
	t.Helper()
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	named := map[string]bool{}
	for _, c := range cases {
		for _, r := range c.Related {
			named[r] = true
		}
		named[c.RecurrenceOf] = true
	}
	var out []machineCopy
	for _, c := range cases {
		if len(out) == n {
			break
		}
		if named[c.ID] || len(c.Related) > 0 || c.RecurrenceOf != "" || len(c.Components) < 2 || len(c.Symptoms) == 0 || len(c.Domain) == 0 {
			continue
		}
		m := machineCopy{id: fmt.Sprintf("PM-%09d", 900+len(out)), date: fmt.Sprintf("2024-0%d-15", 1+(len(out)*2)%9), seed: c, conf: map[ilgraph.Kind]map[string]float64{}}
		m.body = corpus.SeedJSON(t, c.ID)
		m.body["id"] = m.id
		m.body["date"] = m.date
		m.body["review"] = map[string]any{"written_by": "import", "reviewed_at": "", "reviewed_by": ""}
		fields := map[ilgraph.Kind]string{ilgraph.KindRootCause: "root_cause", ilgraph.KindComponent: "components",
			ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domain"}
		tc := map[string]any{}
		for ki, k := range ilgraph.MachineKinds {
			conf := map[string]float64{}
			for i, id := range c.Tags(k) {
				if len(out) == 0 && k == ilgraph.KindDomain && i == len(c.Domain)-1 {
					continue
				}
				conf[id] = confidence(ki, i)
			}
			if len(conf) > 0 {
				m.conf[k] = conf
				tc[fields[k]] = conf
			}
		}
		m.body["tag_confidence"] = tc
		if _, err := core.CreateCase(editorCtx(), marshal(t, m.body)); err != nil {
			t.Fatalf("writing %s, a machine-tagged copy of %s: %v", m.id, c.ID, err)
		}
		out = append(out, m)
	}
	if len(out) < n {
		t.Fatalf("only %d seed cases fit a machine-tagged copy, want %d", len(out), n)
	}
	return out
}

// queueIDs are the ids of every case in the queue, from pages of size.
func queueIDs(t *testing.T, core *explore.Service, size int) (ids []string, total int) {
	t.Helper()
	page := explore.Page{First: &size}
	for {
		q, err := core.ReviewQueue(context.Background(), page)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range q.Items {
			ids = append(ids, it.Case.ID)
		}
		total = q.TotalCount
		if !q.PageInfo.HasNextPage {
			return ids, total
		}
		page.After = q.PageInfo.EndCursor
	}
}

func TestReviewQueue(t *testing.T) {
	core, _, sg := reviewingCore(t)
	copies := machineCopies(t, core, 3)
	// Newest first, then by id: computed from the copies' own dates.
	want := slices.Clone(copies)
	sort.Slice(want, func(i, j int) bool {
		return want[i].date > want[j].date || want[i].date == want[j].date && want[i].id < want[j].id
	})
	var wantIDs []string
	for _, m := range want {
		wantIDs = append(wantIDs, m.id)
	}

	t.Run("the machine-tagged cases, newest first, in pages", func(t *testing.T) {
		for _, size := range []int{1, 2, 100} {
			ids, total := queueIDs(t, core, size)
			if !slices.Equal(ids, wantIDs) || total != len(copies) {
				t.Errorf("pages of %d: got %v (total %d), want %v (total %d)", size, ids, total, wantIDs, len(copies))
			}
		}
	})
	t.Run("a cursor past the end is INVALID", func(t *testing.T) {
		_, err := core.ReviewQueue(context.Background(), explore.Page{After: explore.EncodeCursor(len(copies) + 3)})
		wantCode(t, err, ilgraph.EINVALID)
	})
	t.Run("a page over the limit is LIMIT", func(t *testing.T) {
		n := explore.MaxPageSize + 1
		_, err := core.ReviewQueue(context.Background(), explore.Page{First: &n})
		wantCode(t, err, ilgraph.ELIMIT)
	})

	q, err := core.ReviewQueue(context.Background(), explore.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range q.Items {
		m := want[i]
		t.Run(m.id+": every tag of a machine kind, with its confidence", func(t *testing.T) {
			var got, exp []string
			for _, s := range it.Suggested {
				c := "none"
				if s.Confidence != nil {
					c = fmt.Sprint(*s.Confidence)
				}
				got = append(got, fmt.Sprintf("%s:%s=%s", s.Kind, s.ID, c))
			}
			for _, k := range ilgraph.MachineKinds {
				for _, id := range m.seed.Tags(k) {
					c := "none"
					if x, ok := m.conf[k][id]; ok {
						c = fmt.Sprint(x)
					}
					exp = append(exp, fmt.Sprintf("%s:%s=%s", k, id, c))
				}
			}
			if !slices.Equal(got, exp) {
				t.Errorf("got %v\nwant %v", got, exp)
			}
		})
		t.Run(m.id+": the engine's evidence, the case itself left out", func(t *testing.T) {
			text := strings.TrimSpace(m.seed.Title.En + "\n\n" + m.seed.Summary.En)
			if it.EvidenceText != text {
				t.Fatalf("evidence text %q, want the title, a blank line and the summary %q", it.EvidenceText, text)
			}
			with, err := sg.Suggest(context.Background(), text, "en")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(with.Neighbours, func(n suggest.Neighbour) bool { return n.CaseID == m.id }) {
				t.Fatalf("the engine asked without leaving %s out does not find it: the check below proves nothing", m.id)
			}
			without, err := sg.SuggestExcluding(context.Background(), text, "en", m.id)
			if err != nil {
				t.Fatal(err)
			}
			withEvidence := 0
			for _, s := range it.Suggested {
				var exp []suggest.Evidence
				for _, x := range without.ByKind[s.Kind] {
					if x.ID == s.ID {
						exp = x.Evidence
					}
				}
				if exp == nil {
					exp = []suggest.Evidence{}
				}
				if !slices.Equal(s.Evidence, exp) {
					t.Errorf("%s %s: evidence %+v, want %+v", s.Kind, s.ID, s.Evidence, exp)
				}
				for _, e := range s.Evidence {
					if e.CaseID == m.id {
						t.Errorf("%s %s: the case votes for its own tag: %+v", s.Kind, s.ID, e)
					}
					if e.Phrase != "" && text[e.Start:e.End] != e.Text {
						t.Errorf("%s %s: evidence %q at %d–%d of the text, which holds %q there", s.Kind, s.ID, e.Text, e.Start, e.End, text[e.Start:e.End])
					}
				}
				if len(s.Evidence) > 0 {
					withEvidence++
				}
			}
			if withEvidence == 0 {
				t.Errorf("no suggested tag has evidence: the engine points to none of %d", len(it.Suggested))
			}
		})
	}
}

// reviewCheck is one review refused, with the code and the problem fields
// it must name.
type reviewCheck struct {
	name    string
	ctx     context.Context
	version int64
	in      explore.ReviewInput
	code    string
	fields  []string // the problems' fields, in order
}

func TestReviewCase(t *testing.T) {
	core, db, _ := reviewingCore(t)
	copies := machineCopies(t, core, 2)
	m := copies[0]
	c := m.seed
	ctx := reviewerCtx()
	other := "software-bug"
	if c.RootCause == other {
		other = "capacity"
	}
	accept := func(k ilgraph.Kind, id string) explore.TagDecision {
		return explore.TagDecision{Kind: k, Term: id, Decision: ilgraph.DecisionAccept}
	}
	acceptAll := func() []explore.TagDecision {
		var ds []explore.TagDecision
		for _, k := range ilgraph.MachineKinds {
			for _, id := range c.Tags(k) {
				ds = append(ds, accept(k, id))
			}
		}
		return ds
	}
	unusedComponent := func() string {
		vocab, err := db.Vocabulary(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range vocab.Kinds[ilgraph.KindComponent] {
			if !slices.Contains(c.Components, term.ID) {
				return term.ID
			}
		}
		t.Fatal("the case has every component")
		return ""
	}()
	withDecision := func(i int, d explore.TagDecision) []explore.TagDecision {
		ds := acceptAll()
		ds[i] = d
		return ds
	}

	for _, tc := range []reviewCheck{
		{name: "anonymous: UNAUTHORIZED", ctx: context.Background(), version: 1, in: explore.ReviewInput{Decisions: acceptAll()}, code: ilgraph.EUNAUTHORIZED},
		{name: "a viewer: FORBIDDEN", ctx: ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "v", Role: ilgraph.RoleViewer}), version: 1, in: explore.ReviewInput{Decisions: acceptAll()}, code: ilgraph.EFORBIDDEN},
		{name: "a stale version: CONFLICT", ctx: ctx, version: 2, in: explore.ReviewInput{Decisions: acceptAll()}, code: ilgraph.ECONFLICT},
		{name: "no version: INVALID", ctx: ctx, version: 0, in: explore.ReviewInput{Decisions: acceptAll()}, code: ilgraph.EINVALID},
		{name: "a tag that was not suggested", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: append(acceptAll(), accept(ilgraph.KindComponent, unusedComponent))},
			code: ilgraph.EINVALID, fields: []string{fmt.Sprintf("decisions[%d].term", len(acceptAll()))}},
		{name: "a kind a review does not decide on", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: append(acceptAll(), explore.TagDecision{Kind: ilgraph.KindOrg, Term: c.OrgSlug, Decision: ilgraph.DecisionAccept})},
			code: ilgraph.EINVALID, fields: []string{fmt.Sprintf("decisions[%d].kind", len(acceptAll()))}},
		{name: "a suggested tag without a decision", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: acceptAll()[1:]},
			code: ilgraph.EINVALID, fields: []string{"decisions"}},
		{name: "two decisions on one tag", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: append(acceptAll(), explore.TagDecision{Kind: ilgraph.KindComponent, Term: c.Components[0], Decision: ilgraph.DecisionReject})},
			code: ilgraph.EINVALID, fields: []string{fmt.Sprintf("decisions[%d].term", len(acceptAll()))}},
		{name: "rejecting the root cause", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: withDecision(0, explore.TagDecision{Kind: ilgraph.KindRootCause, Term: c.RootCause, Decision: ilgraph.DecisionReject})},
			code: ilgraph.EINVALID, fields: []string{"decisions[0].decision"}},
		{name: "a replacement not in the vocabulary", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: withDecision(1, explore.TagDecision{Kind: ilgraph.KindComponent, Term: c.Components[0], Decision: ilgraph.DecisionReplace, With: "no-such-component"})},
			code: ilgraph.EINVALID, fields: []string{"decisions[1].with"}},
		{name: "a replacement that is a tag already", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: withDecision(1, explore.TagDecision{Kind: ilgraph.KindComponent, Term: c.Components[0], Decision: ilgraph.DecisionReplace, With: c.Components[1]})},
			code: ilgraph.EINVALID, fields: []string{"decisions[1].with"}},
		{name: "an unknown decision", ctx: ctx, version: 1,
			in:   explore.ReviewInput{Decisions: withDecision(1, explore.TagDecision{Kind: ilgraph.KindComponent, Term: c.Components[0], Decision: "maybe"})},
			code: ilgraph.EINVALID, fields: []string{"decisions[1].decision"}},
		{name: "adding a root cause, a tag the case has, an unknown term", ctx: ctx, version: 1,
			in: explore.ReviewInput{Decisions: acceptAll(), Add: []ilgraph.Feature{{Kind: ilgraph.KindRootCause, ID: other},
				{Kind: ilgraph.KindComponent, ID: c.Components[0]}, {Kind: ilgraph.KindSymptom, ID: "no-such-symptom"}}},
			code: ilgraph.EINVALID, fields: []string{"add[0].kind", "add[1].term", "add[2].term"}},
		{name: "a review that breaks a tagging rule: every symptom rejected", ctx: ctx, version: 1,
			in: explore.ReviewInput{Decisions: func() []explore.TagDecision {
				ds := acceptAll()
				for i := range ds {
					if ds[i].Kind == ilgraph.KindSymptom {
						ds[i].Decision = ilgraph.DecisionReject
					}
				}
				return ds
			}()},
			code: ilgraph.EINVALID, fields: []string{"symptoms"}},
	} {
		t.Run(tc.name+" changes nothing", func(t *testing.T) {
			before, err := graph.NewBench(db).Checksum(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			_, err = core.ReviewCase(tc.ctx, m.id, tc.version, tc.in)
			wantCode(t, err, tc.code)
			if tc.fields != nil {
				var e *ilgraph.Error
				if !errors.As(err, &e) {
					t.Fatalf("%v is not an *ilgraph.Error", err)
				}
				var got []string
				for _, p := range e.Problems {
					got = append(got, p.Field)
				}
				if !slices.Equal(got, tc.fields) {
					t.Errorf("problems %+v: fields %q, want %q", e.Problems, got, tc.fields)
				}
			}
			if after, _ := graph.NewBench(db).Checksum(context.Background()); after != before {
				t.Error("a refused review changed the graph")
			}
		})
	}

	// The review: the root cause replaced, the first component accepted,
	// the second rejected, every other tag accepted, and a component added.
	decisions := acceptAll()
	decisions[0] = explore.TagDecision{Kind: ilgraph.KindRootCause, Term: c.RootCause, Decision: ilgraph.DecisionReplace, With: other}
	decisions[2] = explore.TagDecision{Kind: ilgraph.KindComponent, Term: c.Components[1], Decision: ilgraph.DecisionReject}
	in := explore.ReviewInput{Decisions: decisions, Add: []ilgraph.Feature{{Kind: ilgraph.KindComponent, ID: unusedComponent}}}
	raw1, _, err := db.CaseJSON(context.Background(), m.id)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Truncate(time.Second)
	rev, err := core.ReviewCase(ctx, m.id, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().UTC()

	t.Run("the revision: a review by the reviewer, the JSON before kept", func(t *testing.T) {
		if rev.Action != ilgraph.ActionReview || rev.Version != 2 || rev.By != reviewer.Name || rev.Previous != raw1 {
			t.Errorf("revision %+v, want action review, version 2, by %s, previous the JSON of version 1", rev, reviewer.Name)
		}
		revs, err := core.CaseHistory(ctx, m.id)
		if err != nil || len(revs) != 2 || revs[0].Action != ilgraph.ActionReview || revs[0].JSON != rev.JSON {
			t.Errorf("history %+v, %v: want the review first", revs, err)
		}
	})

	var got map[string]any
	if err := json.Unmarshal([]byte(rev.JSON), &got); err != nil {
		t.Fatal(err)
	}
	var before map[string]any
	if err := json.Unmarshal([]byte(raw1), &before); err != nil {
		t.Fatal(err)
	}
	t.Run("the tags decided", func(t *testing.T) {
		wantComponents := append([]any{c.Components[0]}, anys(c.Components[2:])...)
		wantComponents = append(wantComponents, unusedComponent)
		if got["root_cause"] != other || !slices.Equal(got["components"].([]any), wantComponents) {
			t.Errorf("root cause %v, components %v; want %s, %v", got["root_cause"], got["components"], other, wantComponents)
		}
		for _, f := range []string{"symptoms", "contributing", "domain", "mechanisms"} {
			if fmt.Sprint(got[f]) != fmt.Sprint(before[f]) {
				t.Errorf("%s: %v, want %v as before (every one accepted)", f, got[f], before[f])
			}
		}
	})
	t.Run("tag_confidence keeps the accepted tags' only", func(t *testing.T) {
		want := map[string]any{}
		for k, f := range map[ilgraph.Kind]string{ilgraph.KindComponent: "components", ilgraph.KindSymptom: "symptoms", ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domain"} {
			kept := map[string]any{}
			for id, x := range m.conf[k] {
				if k == ilgraph.KindComponent && id == c.Components[1] {
					continue
				}
				kept[id] = x
			}
			if len(kept) > 0 {
				want[f] = kept
			}
		}
		if fmt.Sprint(got["tag_confidence"]) != fmt.Sprint(want) {
			t.Errorf("tag_confidence %v, want %v", got["tag_confidence"], want)
		}
	})
	t.Run("review: who, when, and the record of every suggestion and decision", func(t *testing.T) {
		r := got["review"].(map[string]any)
		at, err := time.Parse(time.RFC3339, fmt.Sprint(r["reviewed_at"]))
		if err != nil || at.Before(start) || at.After(end) || r["reviewed_by"] != reviewer.Name || r["written_by"] != "import" {
			t.Errorf("review %v: want written_by import, reviewed_by %s, reviewed_at between %s and %s", r, reviewer.Name, start, end)
		}
		var want []string
		for _, k := range ilgraph.MachineKinds {
			for _, id := range c.Tags(k) {
				entry := fmt.Sprintf("%s %s accept", k, id)
				switch {
				case k == ilgraph.KindRootCause:
					entry = fmt.Sprintf("%s %s replace %s", k, id, other)
				case k == ilgraph.KindComponent && id == c.Components[1]:
					entry = fmt.Sprintf("%s %s reject", k, id)
				}
				if x, ok := m.conf[k][id]; ok {
					entry += fmt.Sprintf(" @%v", x)
				}
				want = append(want, entry)
			}
		}
		want = append(want, "component "+unusedComponent+" add")
		var recorded []string
		for _, d := range r["decisions"].([]any) {
			d := d.(map[string]any)
			entry := fmt.Sprintf("%s %s %s", d["kind"], d["term"], d["decision"])
			if d["with"] != nil {
				entry += " " + d["with"].(string)
			}
			if d["confidence"] != nil {
				entry += fmt.Sprintf(" @%v", d["confidence"])
			}
			recorded = append(recorded, entry)
		}
		if !slices.Equal(recorded, want) {
			t.Errorf("decisions\n%q\nwant\n%q", recorded, want)
		}
	})
	t.Run("every other field as it was, in its place", func(t *testing.T) {
		changed := []string{"root_cause", "components", "symptoms", "contributing", "domain", "tag_confidence", "review"}
		for k, v := range before {
			if !slices.Contains(changed, k) && fmt.Sprint(got[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %v, want %v", k, got[k], v)
			}
		}
		if gk, bk := topKeys(t, rev.JSON), topKeys(t, raw1); !slices.Equal(gk, bk) {
			t.Errorf("members in the order %v, want %v", gk, bk)
		}
	})
	t.Run("no longer machine-tagged: out of the queue, in reviewedOnly", func(t *testing.T) {
		rc, err := core.Case(ctx, m.id)
		if err != nil || rc.MachineTagged() || !rc.Reviewed() || rc.Version != 2 || len(rc.Review.Decisions) != len(in.Decisions)+len(in.Add) {
			t.Errorf("case %+v, %v", rc, err)
		}
		ids, total := queueIDs(t, core, 10)
		if slices.Contains(ids, m.id) || total != len(copies)-1 {
			t.Errorf("queue %v (total %d), want it without %s", ids, total, m.id)
		}
		l, err := core.Cases(ctx, explore.CaseQuery{Filter: ilgraph.CaseFilter{ReviewedOnly: true, IDs: []string{m.id, copies[1].id}}})
		if err != nil || len(l.Cases) != 1 || l.Cases[0].ID != m.id {
			t.Errorf("reviewedOnly over %s and %s: %+v, %v; want %s alone", m.id, copies[1].id, l, err, m.id)
		}
	})
	t.Run("a second review: INVALID, nothing to review", func(t *testing.T) {
		_, err := core.ReviewCase(ctx, m.id, 2, in)
		wantCode(t, err, ilgraph.EINVALID)
	})
	t.Run("a hand-tagged case: INVALID", func(t *testing.T) {
		_, err := core.ReviewCase(ctx, c.ID, 1, in)
		wantCode(t, err, ilgraph.EINVALID)
	})
	t.Run("an unknown case: NOT_FOUND", func(t *testing.T) {
		_, err := core.ReviewCase(ctx, "PM-000000001", 1, in)
		wantCode(t, err, ilgraph.ENOTFOUND)
	})
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// topKeys are a JSON object's member names in order.
func topKeys(t *testing.T, js string) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(js)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
