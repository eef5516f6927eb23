// Package corpus reads case files with nothing but encoding/json, so that
// tests can compute expected answers independently of the loader, the
// graph store and the API they check. Brute-force ranking takes the text
// channel's vectors from their definition (similarity.TextVectors), not
// from the index.
package corpus

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/similarity"
)

// Root returns the repository root (where go.mod is), from a test's
// working directory.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// Seeds returns the path of the repository's seeds/ folder.
func Seeds(tb testing.TB) string { return filepath.Join(Root(tb), "seeds") }

// SeedFile returns the bytes of the seed case file of the case id.
func SeedFile(tb testing.TB, id string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(Seeds(tb), "cases", id+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// SeedJSON returns the seed case file of the case id as generic JSON, for
// a test to change and send as a write.
func SeedJSON(tb testing.TB, id string) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(SeedFile(tb, id), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// Cases reads every *.json case file below dir (one case per file), sorted by id.
func Cases(tb testing.TB, dir string) []*ilgraph.Case {
	tb.Helper()
	var cases []*ilgraph.Case
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") || d.Name() == "vocab.json" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var c ilgraph.Case
		if err := json.Unmarshal(data, &c); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		cases = append(cases, &c)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
	return cases
}

// Vocab reads a vocabulary file.
func Vocab(tb testing.TB, path string) *ilgraph.Vocabulary {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var v ilgraph.Vocabulary
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return &v
}

// Expected node and relationship counts of a graph holding exactly these
// cases and this vocabulary, by label and by relationship type.
func Counts(cases []*ilgraph.Case, v *ilgraph.Vocabulary) (nodes, rels map[string]int64) {
	labels := map[ilgraph.Kind]string{
		ilgraph.KindRootCause: "Cause", ilgraph.KindComponent: "Component", ilgraph.KindSymptom: "Symptom",
		ilgraph.KindContributing: "Factor", ilgraph.KindDomain: "Domain", ilgraph.KindMechanism: "Mechanism",
	}
	types := map[ilgraph.Kind]string{
		ilgraph.KindRootCause: "HAS_ROOT_CAUSE", ilgraph.KindComponent: "HAS_COMPONENT", ilgraph.KindSymptom: "HAS_SYMPTOM",
		ilgraph.KindContributing: "HAS_FACTOR", ilgraph.KindDomain: "IN_DOMAIN", ilgraph.KindMechanism: "HAS_MECHANISM", ilgraph.KindOrg: "AT_ORG",
	}
	nodes, rels = map[string]int64{}, map[string]int64{}
	for k, l := range labels {
		nodes[l] = int64(len(v.Kinds[k]))
	}
	orgs := map[string]bool{}
	for _, c := range cases {
		nodes["Case"]++
		orgs[c.OrgSlug] = true
		for _, k := range ilgraph.AllKinds {
			rels[types[k]] += int64(len(c.Tags(k)))
		}
		rels["RELATED_TO"] += int64(len(c.Related))
		if c.RecurrenceOf != "" {
			rels["RECURRENCE_OF"]++
		}
	}
	nodes["Organization"] = int64(len(orgs))
	if len(cases) > 0 {
		nodes["IlgraphMeta"] = 1 // the corpus version
	}
	for k, n := range rels {
		if n == 0 {
			delete(rels, k)
		}
	}
	return nodes, rels
}

// Normalize makes absent lists empty, so that cases read from files and
// from the graph compare equal when they hold the same data.
func Normalize(c *ilgraph.Case) {
	for _, l := range []*[]string{&c.Components, &c.Symptoms, &c.Contributing, &c.Domain, &c.Related} {
		if *l == nil {
			*l = []string{}
		}
	}
	if c.Remediation == nil {
		c.Remediation = []ilgraph.Item{}
	}
	if c.ActionItems == nil {
		c.ActionItems = []ilgraph.Item{}
	}
	if c.Sources == nil {
		c.Sources = []ilgraph.Source{}
	}
	if c.Docs == nil {
		c.Docs = []json.RawMessage{}
	}
}

// Brute ranks cases by similarity by brute force, straight from the
// definition (ilgraph.Score): every case scored, positive scores kept,
// score descending then id.
type Brute struct {
	cases []*ilgraph.Case
	df    map[ilgraph.Feature]int
	// Text gives each case's text vector by id: with a text weight, the
	// queried case's vector is the query's text (ilgraph.ScoreText); a
	// profile has none.
	Text map[string]ilgraph.TextVector
}

// NewBrute prepares brute-force ranking over cases, with the text
// channel's vectors computed by their definition (similarity.TextVectors).
func NewBrute(cases []*ilgraph.Case) *Brute {
	b := &Brute{cases: cases, df: map[ilgraph.Feature]int{}, Text: map[string]ilgraph.TextVector{}}
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i, c := range cases {
		rows[i] = ilgraph.SimilarityRow(c)
	}
	for i, v := range similarity.TextVectors(rows) {
		b.Text[cases[i].ID] = v
	}
	for _, x := range cases {
		seen := map[ilgraph.Feature]bool{}
		for _, f := range x.Features() {
			if !seen[f] {
				b.df[f]++
				seen[f] = true
			}
		}
	}
	return b
}

// Similar returns the k cases most like c (c left out) that keep accepts.
func (b *Brute) Similar(c *ilgraph.Case, k int, w ilgraph.Weights, rarity bool, keep func(*ilgraph.Case) bool) []ilgraph.Match {
	return b.ToFeatures(c.Features(), c.ID, k, w, rarity, keep)
}

// ToFeatures ranks against an ad-hoc feature set.
func (b *Brute) ToFeatures(query []ilgraph.Feature, exclude string, k int, w ilgraph.Weights, rarity bool, keep func(*ilgraph.Case) bool) []ilgraph.Match {
	weight := func(f ilgraph.Feature) float64 {
		v := w[f.Kind]
		if rarity {
			v *= ilgraph.Rarity(len(b.cases), b.df[f])
		}
		return v
	}
	var ms []ilgraph.Match
	for _, x := range b.cases {
		if x.ID == exclude || (keep != nil && !keep(x)) {
			continue
		}
		m := ilgraph.ScoreText(query, x.Features(), weight, w[ilgraph.WeightText], b.Text[exclude], b.Text[x.ID])
		if m.Score > 0 {
			m.ID = x.ID
			ms = append(ms, m)
		}
	}
	ilgraph.RankMatches(ms)
	if len(ms) > k {
		ms = ms[:k]
	}
	return ms
}
