package similarity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/gen"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

func rowsOf(cases []*ilgraph.Case) []ilgraph.CaseFeatures {
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i, c := range cases {
		rows[i] = ilgraph.SimilarityRow(c)
	}
	return rows
}

// generated returns n generated cases, decoded from the generator's output.
func generated(t testing.TB, n int, seed uint64) []*ilgraph.Case {
	seeds := corpus.Seeds(t)
	var buf bytes.Buffer
	err := gen.Write(&buf, gen.Options{Cases: n, Seed: seed, Vocab: corpus.Vocab(t, filepath.Join(seeds, "vocab.json")), Prior: corpus.Cases(t, filepath.Join(seeds, "cases"))})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&buf)
	var out []*ilgraph.Case
	for dec.More() {
		var c ilgraph.Case
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, &c)
	}
	return out
}

var weightSettings = []ilgraph.Weights{
	ilgraph.DefaultWeights(),
	{ilgraph.KindRootCause: 3, ilgraph.KindComponent: 1.5, ilgraph.KindSymptom: 1, ilgraph.KindContributing: 2, ilgraph.KindDomain: 0.5, ilgraph.KindOrg: 0.5},
	{ilgraph.KindRootCause: 1, ilgraph.KindComponent: 1, ilgraph.KindSymptom: 1, ilgraph.KindContributing: 1, ilgraph.KindDomain: 1, ilgraph.KindOrg: 1},
	{ilgraph.KindRootCause: 0, ilgraph.KindComponent: 5, ilgraph.KindSymptom: 0, ilgraph.KindContributing: 0.25, ilgraph.KindDomain: 0, ilgraph.KindOrg: 0},
	{ilgraph.KindRootCause: 10, ilgraph.KindComponent: 0, ilgraph.KindSymptom: 0, ilgraph.KindContributing: 0, ilgraph.KindDomain: 0, ilgraph.KindOrg: 2},
	// the text channel beside the tags, and alone
	{ilgraph.KindRootCause: 3, ilgraph.KindComponent: 1.5, ilgraph.KindSymptom: 1, ilgraph.KindContributing: 2, ilgraph.KindDomain: 0.5, ilgraph.KindOrg: 0.5, ilgraph.WeightText: 4},
	{ilgraph.KindRootCause: 0, ilgraph.KindComponent: 0, ilgraph.KindSymptom: 0, ilgraph.KindContributing: 0, ilgraph.KindDomain: 0, ilgraph.KindOrg: 0, ilgraph.WeightText: 1},
	{ilgraph.KindRootCause: 1, ilgraph.KindComponent: 0, ilgraph.KindSymptom: 0.5, ilgraph.KindContributing: 0, ilgraph.KindDomain: 0, ilgraph.KindOrg: 0, ilgraph.WeightText: 0.75},
}

// sameMatches compares index results with brute-force ones exactly: ids in
// order, scores, and every shared feature's contribution.
func sameMatches(t *testing.T, label string, got, want []ilgraph.Match) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d matches, want %d", label, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		// Scores are rounded to 1e-9; a sum that lands on a rounding
		// boundary may round either way, so allow one unit.
		if g.ID != w.ID || math.Abs(g.Score-w.Score) > 1.5e-9 {
			t.Fatalf("%s: #%d got %s %.12f, want %s %.12f", label, i, g.ID, g.Score, w.ID, w.Score)
		}
		if len(g.Shared) != len(w.Shared) || len(g.Different) != len(w.Different) {
			t.Fatalf("%s: #%d explanation sizes differ", label, i)
		}
		sum := 0.0
		for j := range g.Shared {
			if g.Shared[j].Feature != w.Shared[j].Feature || math.Abs(g.Shared[j].Contribution-w.Shared[j].Contribution) > 1e-12 {
				t.Fatalf("%s: #%d shared %d: got %+v, want %+v", label, i, j, g.Shared[j], w.Shared[j])
			}
			sum += g.Shared[j].Contribution
		}
		if (g.Text == nil) != (w.Text == nil) {
			t.Fatalf("%s: #%d text part: got %+v, want %+v", label, i, g.Text, w.Text)
		}
		if g.Text != nil {
			if math.Abs(g.Text.Contribution-w.Text.Contribution) > 1e-12 || !slices.Equal(g.Text.Words, w.Text.Words) {
				t.Fatalf("%s: #%d text part: got %+v, want %+v", label, i, g.Text, w.Text)
			}
			sum += g.Text.Contribution
		}
		if math.Abs(sum-g.Score) > 1e-9 {
			t.Errorf("%s: #%d contributions add to %.12f, score is %.12f", label, i, sum, g.Score)
		}
	}
}

func TestIndexMatchesBruteForceOnSeeds(t *testing.T) {
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	ix := similarity.Build(rowsOf(cases), 1)
	brute := corpus.NewBrute(cases)
	for wi, w := range weightSettings {
		for _, rarity := range []bool{false, true} {
			for _, c := range cases {
				opt := ilgraph.SimilarityOptions{K: 10, Weights: w, Rarity: rarity}
				label := fmt.Sprintf("weights #%d rarity %v case %s", wi, rarity, c.ID)
				sameMatches(t, label, ix.Similar(c.Features(), c.ID, opt), brute.Similar(c, 10, w, rarity, nil))
			}
		}
	}
}

func TestIndexMatchesBruteForceOnGenerated(t *testing.T) {
	cases := generated(t, 1500, 42)
	ix := similarity.Build(rowsOf(cases), 1)
	brute := corpus.NewBrute(cases)
	filters := []struct {
		name string
		f    ilgraph.CaseFilter
		keep func(c *ilgraph.Case) bool
	}{
		{"none", ilgraph.CaseFilter{}, nil},
		{"date range", ilgraph.CaseFilter{DateFrom: "2018-01-01", DateTo: "2021-06-30"}, func(c *ilgraph.Case) bool { return c.Date >= "2018-01-01" && c.Date <= "2021-06-30" }},
		{"other orgs", ilgraph.CaseFilter{ExcludeOrgs: []string{"generated-org-0001", "generated-org-0002"}}, func(c *ilgraph.Case) bool {
			return c.OrgSlug != "generated-org-0001" && c.OrgSlug != "generated-org-0002"
		}},
		{"component any-of and severity", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindComponent: {AnyOf: []string{"application-database", "cache"}}}, Severities: []string{"sev1", "sev2"}},
			func(c *ilgraph.Case) bool {
				return (slices.Contains(c.Components, "application-database") || slices.Contains(c.Components, "cache")) && (c.Severity == "sev1" || c.Severity == "sev2")
			}},
		{"factor all-of", ilgraph.CaseFilter{Tags: map[ilgraph.Kind]ilgraph.TermMatch{ilgraph.KindContributing: {AllOf: []string{"limit-unknown", "retry-storm"}}}},
			func(c *ilgraph.Case) bool {
				return slices.Contains(c.Contributing, "limit-unknown") && slices.Contains(c.Contributing, "retry-storm")
			}},
	}
	for _, flt := range filters {
		for wi, w := range weightSettings {
			for _, rarity := range []bool{false, true} {
				for i := 0; i < len(cases); i += 149 {
					c := cases[i]
					opt := ilgraph.SimilarityOptions{K: 10, Weights: w, Rarity: rarity, Filter: flt.f}
					label := fmt.Sprintf("%s weights #%d rarity %v case %s", flt.name, wi, rarity, c.ID)
					sameMatches(t, label, ix.Similar(c.Features(), c.ID, opt), brute.Similar(c, 10, w, rarity, flt.keep))
				}
			}
		}
	}
	t.Run("min score", func(t *testing.T) {
		c := cases[5]
		opt := ilgraph.SimilarityOptions{K: 1000, Weights: ilgraph.DefaultWeights(), MinScore: 0.4}
		var want []ilgraph.Match
		for _, m := range brute.Similar(c, 1000, opt.Weights, false, nil) {
			if m.Score >= 0.4 {
				want = append(want, m)
			}
		}
		sameMatches(t, "min score", ix.Similar(c.Features(), c.ID, opt), want)
	})
	t.Run("profile", func(t *testing.T) {
		profile := []ilgraph.Feature{
			{Kind: ilgraph.KindSymptom, ID: "high-latency"}, {Kind: ilgraph.KindSymptom, ID: "high-error-rate"},
			{Kind: ilgraph.KindComponent, ID: "message-broker"}, {Kind: ilgraph.KindContributing, ID: "limit-unknown"},
			{Kind: ilgraph.KindComponent, ID: "no-such-component"}, // unknown terms count in the union only
		}
		for _, rarity := range []bool{false, true} {
			opt := ilgraph.SimilarityOptions{K: 20, Weights: ilgraph.DefaultWeights(), Rarity: rarity}
			sameMatches(t, "profile", ix.Similar(profile, "", opt), brute.ToFeatures(profile, "", 20, opt.Weights, rarity, nil))
		}
	})
}

// TestServiceFollowsLoads shows a load made while the service runs in its
// results without a restart, and the Cypher baseline giving the index's
// answers on the seed corpus.
func TestServiceFollowsLoads(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	if _, err := loader.Load(ctx, db, []string{seeds}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	brute := corpus.NewBrute(cases)
	svc := similarity.NewService(db, memstore.NewSource(db))
	opt := ilgraph.DefaultOptions(10)
	// The Cypher baseline knows only tags and no rarity weighting.
	tagsOnly := ilgraph.SimilarityOptions{K: 10, Weights: opt.Weights.TagsOnly()}
	for _, c := range cases {
		got, err := svc.Similar(ctx, c.ID, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameMatches(t, c.ID, got, brute.Similar(c, 10, opt.Weights, opt.Rarity, nil))
		got, err = svc.Similar(ctx, c.ID, tagsOnly)
		if err != nil {
			t.Fatal(err)
		}
		byCypher, err := graph.NewBench(db).SimilarByCypher(ctx, c.ID, tagsOnly.Weights, 10)
		if err != nil {
			t.Fatal(err)
		}
		for i := range byCypher {
			if i >= len(got) || byCypher[i].ID != got[i].ID || math.Abs(byCypher[i].Score-got[i].Score) > 1e-9 {
				t.Fatalf("%s: Cypher baseline differs at #%d: %+v vs %+v", c.ID, i, byCypher[i], got)
			}
		}
		if len(byCypher) != len(got) {
			t.Fatalf("%s: Cypher baseline has %d matches, index %d", c.ID, len(byCypher), len(got))
		}
	}
	// A twin of IL-0384 (same features) must now rank first for it.
	twin := *cases[0]
	for _, c := range cases {
		if c.ID == "IL-0384" {
			twin = *c
		}
	}
	twin.ID, twin.Related, twin.RecurrenceOf = "ILG-9500", []string{}, ""
	data, _ := json.Marshal(twin)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "twin.json"), data, 0o644)
	if _, err := loader.Load(ctx, db, []string{dir}, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Similar(ctx, "IL-0384", opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ID != "ILG-9500" || got[0].Score < 0.999 {
		t.Errorf("after loading a twin of IL-0384, top match is %+v; want ILG-9500 scoring 1", got[0])
	}
	if _, err := svc.Similar(ctx, "IL-9999", opt); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
		t.Errorf("unknown case: got %v, want not found", err)
	}
}

func TestWriteBack(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	seeds := corpus.Seeds(t)
	rep, err := loadAndWriteBack(ctx, db, seeds, 3)
	if err != nil {
		t.Fatal(err)
	}
	cases := corpus.Cases(t, filepath.Join(seeds, "cases"))
	want := 0
	brute := corpus.NewBrute(cases)
	for _, c := range cases {
		want += len(brute.Similar(c, 3, ilgraph.DefaultWeights(), ilgraph.DefaultRarity, nil))
	}
	counts, err := graph.NewBench(db).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Relationships["SIMILAR_TO"] != int64(want) || rep.Links != want {
		t.Errorf("SIMILAR_TO: %d in the graph, %d reported, want %d", counts.Relationships["SIMILAR_TO"], rep.Links, want)
	}
	before, _ := graph.NewBench(db).Checksum(ctx)
	rep, err = loadAndWriteBack(ctx, db, seeds, 3)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := graph.NewBench(db).Checksum(ctx)
	if before != after || rep.Links != 0 {
		t.Errorf("an unchanged load rewrote similarity links (%d)", rep.Links)
	}
}

// loadAndWriteBack loads path and then writes back k similar cases per case,
// as ilgraph load --similar-k k does.
func loadAndWriteBack(ctx context.Context, db *graph.DB, path string, k int) (similarity.WriteBackResult, error) {
	rep, err := loader.Load(ctx, db, []string{path}, loader.Options{})
	if err != nil {
		return similarity.WriteBackResult{}, err
	}
	return similarity.WriteBack(ctx, db, k, rep.CasesChanged(), 0)
}

// TestTextVectors checks the text channel's vectors against the formula
// of text.go worked by hand on a small corpus.
func TestTextVectors(t *testing.T) {
	rows := []ilgraph.CaseFeatures{
		{ID: "A-0001", Org: "Acme Corp", Text: "Acme's queue overflowed; the queue was full on Monday. Retries."},
		{ID: "A-0002", Org: "Bolt", Text: "The queue overflowed at Bolt in 2019."},
		{ID: "A-0003", Org: "Cobalt", Text: "Retries hammered the AWS database."},
		{ID: "A-0004", Org: "Dyn", Text: "A database failover."},
		{ID: "A-0005", Org: "Eon", Text: "Disk."},
		{ID: "A-0006", Org: "Fox", Text: "Power."},
		{ID: "A-0007", Org: "Gnu", Text: "Cooling."},
	}
	vs := similarity.TextVectors(rows)
	// N = 7. df: queue 2, overflow 2, retri 2, databas 2; every other term
	// is on one case only (full, hammer, failov, disk, …) or dropped (acme,
	// bolt, aws: names; monday: calendar; 2019: a number).
	idf := math.Log(7.0 / 2)
	a := map[string]float64{"queue": (1 + math.Log(2)) * idf, "overflow": idf, "retri": idf}
	norm := math.Sqrt(a["queue"]*a["queue"] + a["overflow"]*a["overflow"] + a["retri"]*a["retri"])
	// Weights are kept at single precision.
	f32 := func(x float64) float64 { return float64(float32(x)) }
	want := []ilgraph.TextVector{
		{"queue": f32(a["queue"] / norm), "overflow": f32(a["overflow"] / norm), "retri": f32(a["retri"] / norm)},
		{"queue": f32(1 / math.Sqrt(2)), "overflow": f32(1 / math.Sqrt(2))},
		{"retri": f32(1 / math.Sqrt(2)), "databas": f32(1 / math.Sqrt(2))},
		{"databas": 1},
		{}, {}, {},
	}
	for i := range want {
		if len(vs[i]) != len(want[i]) {
			t.Fatalf("%s: got %v, want %v", rows[i].ID, vs[i], want[i])
		}
		for term, w := range want[i] {
			if math.Abs(vs[i][term]-w) > 1e-12 {
				t.Fatalf("%s: got %v, want %v", rows[i].ID, vs[i], want[i])
			}
		}
	}
	m := ilgraph.ScoreText(nil, nil, func(ilgraph.Feature) float64 { return 1 }, 2, vs[0], vs[1])
	if cos := want[0]["queue"]*want[1]["queue"] + want[0]["overflow"]*want[1]["overflow"]; m.Text == nil || math.Abs(m.Score-ilgraph.RoundScore(cos)) > 1e-9 || !slices.Equal(m.Text.Words, []string{"queue", "overflow"}) {
		t.Errorf("A-0001 to A-0002: got %+v, want score %.9f sharing queue, overflow", m, cos)
	}
}
