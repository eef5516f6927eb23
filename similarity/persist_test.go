package similarity_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/internal/snapfile"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// consumerBuild builds the index over cases as a memstore.Source has the
// service's consumer build it: the organizations the cases give first,
// then each case to the snapshot's builder and to the consumer, then the
// consumer's Finish with the snapshot.
func consumerBuild(t testing.TB, cases []*ilgraph.Case) (memstore.Persister, *memstore.Snapshot, *similarity.Index) {
	t.Helper()
	ctx := context.Background()
	rows := rowsOf(cases)
	var orgs []string
	for _, r := range rows {
		if !slices.Contains(orgs, r.Org) {
			orgs = append(orgs, r.Org)
		}
	}
	k := similarity.NewConsumer()
	b, err := k.Start(ctx, orgs)
	if err != nil {
		t.Fatal(err)
	}
	sb := memstore.NewBuilder(7, nil)
	for i, c := range cases {
		sb.Add(&rows[i])
		b.Add(c)
	}
	s := sb.Finish()
	v, err := b.Finish(s)
	if err != nil {
		t.Fatal(err)
	}
	return k, s, v.(*similarity.Index)
}

// saveIndex is the file Save writes of ix, alone in it.
func saveIndex(t testing.TB, k memstore.Persister, ix *similarity.Index) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := snapfile.NewWriter(&buf)
	if err := k.Save(w, ix); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadIndex reads a file saveIndex wrote over s: Load's error, else the
// reader's at Close (the checksum's).
func loadIndex(k memstore.Persister, data []byte, s *memstore.Snapshot) (*similarity.Index, error) {
	r := snapfile.NewReader(bytes.NewReader(data), "test.snap")
	v, err := k.Load(context.Background(), r, s)
	if err != nil {
		return nil, err
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return v.(*similarity.Index), nil
}

// samePersisted fails unless got, loaded from a file, is want, the index
// built: every field (IndexFields) deeply equal, the loaded text vectors
// and postings each capped at its length, and the same matches for the
// cases queried (every step-th) and the profiles, under several option
// sets.
func samePersisted(t *testing.T, got, want *similarity.Index, cases []*ilgraph.Case, step int) {
	t.Helper()
	gf, wf := similarity.IndexFields(got), similarity.IndexFields(want)
	for _, name := range []string{"snap", "features", "postings", "caseFeat", "rarity", "count", "rare", "terms", "termID", "textVec", "textPost", "rarityN", "textStats", "Version"} {
		if _, ok := wf[name]; !ok {
			t.Errorf("IndexFields has no field %s", name)
		}
	}
	names := make([]string, 0, len(wf))
	for name := range wf {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !reflect.DeepEqual(gf[name], wf[name]) {
			t.Errorf("field %s differs:\n got %.300v\nwant %.300v", name, gf[name], wf[name])
		}
	}
	// A loaded vector or posting list is a piece of a larger allocation:
	// an append to it must copy rather than overwrite the next.
	capped := func(name string, i int, l reflect.Value) {
		if l.Cap() != l.Len() {
			t.Fatalf("field %s[%d]: capacity %d, length %d", name, i, l.Cap(), l.Len())
		}
	}
	vecs := reflect.ValueOf(gf["textVec"])
	for i := 0; i < vecs.Len(); i++ {
		capped("textVec", i, vecs.Index(i))
	}
	posts := reflect.ValueOf(gf["textPost"])
	for i := 0; i < posts.Len(); i++ {
		for f := 0; f < posts.Index(i).NumField(); f++ {
			if l := posts.Index(i).Field(f); l.Kind() == reflect.Slice {
				capped("textPost", i, l)
			}
		}
	}
	opts := []ilgraph.SimilarityOptions{
		ilgraph.DefaultOptions(10),
		{K: 10, Weights: weightSettings[5], Rarity: true},
		{K: 25, Weights: weightSettings[6], Rarity: true, MinScore: 0.05},
		{K: 10, Weights: ilgraph.DefaultWeights().TagsOnly()},
		{K: 10, Weights: ilgraph.DefaultWeights(), Rarity: true, Filter: ilgraph.CaseFilter{DateFrom: "2018-01-01"}},
	}
	for oi, opt := range opts {
		for i := 0; i < len(cases); i += step {
			id := cases[i].ID
			if g, w := got.SimilarTo(id, opt), want.SimilarTo(id, opt); !reflect.DeepEqual(g, w) {
				t.Errorf("options #%d, similar to %s:\n got %s\nwant %s", oi, id, brief(g), brief(w))
			}
		}
	}
	half := func(ilgraph.Feature) float64 { return 0.5 }
	for i := 0; i < len(cases); i += max(len(cases)/6, 1) {
		fs := cases[i].Features()
		profile := append(slices.Clone(fs[:min(4, len(fs))]), ilgraph.Feature{Kind: ilgraph.KindComponent, ID: "no-such-component"})
		for oi, opt := range opts[:2] {
			for _, member := range []func(ilgraph.Feature) float64{nil, half} {
				if g, w := got.SimilarToProfile(profile, member, opt), want.SimilarToProfile(profile, member, opt); !reflect.DeepEqual(g, w) {
					t.Errorf("options #%d, profile %v (confidence %v):\n got %s\nwant %s", oi, profile, member != nil, brief(g), brief(w))
				}
			}
		}
	}
}

// longTexts are the seeds with two cases sharing sixty more words than
// their vectors keep (MaxTextTerms): the rarest of their terms by far, and
// tied, so that the words last in byte order are in the text statistics
// but in no case's vector, and the section writes them by name.
func longTexts(t *testing.T) []*ilgraph.Case {
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	var words []string
	for i := 0; i < 60; i++ {
		words = append(words, "zorb"+string(rune('a'+i/26))+string(rune('a'+i%26))+"ulon")
	}
	for _, i := range []int{3, 40} {
		c := *cases[i]
		c.Trigger.En += " " + strings.Join(words, " ")
		cases[i] = &c
	}
	return cases
}

// TestPersistRoundTrip saves the index the service's consumer builds over
// the seeds, over a generated corpus and over texts whose statistics hold
// terms no vector keeps, loads it back over the same snapshot, and holds
// the loaded index to the built one: every field, and the same rankings.
// Saving the loaded index gives the same bytes.
func TestPersistRoundTrip(t *testing.T) {
	corpora := []struct {
		name  string
		cases []*ilgraph.Case
		step  int
	}{
		{"seeds", corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases")), 1},
		{"generated", generated(t, 2000, 11), 13},
		{"long texts", longTexts(t), 3},
	}
	for _, cp := range corpora {
		t.Run(cp.name, func(t *testing.T) {
			k, s, built := consumerBuild(t, cp.cases)
			if f := similarity.IndexFields(built); cp.name == "long texts" && len(f["textStats"].(similarity.TextStats).DF) <= len(f["terms"].([]string)) {
				t.Fatalf("%d terms in the statistics, %d in vectors: want terms no vector keeps", len(f["textStats"].(similarity.TextStats).DF), len(f["terms"].([]string)))
			}
			if k.PersistName() == "" {
				t.Fatal("no section name")
			}
			data := saveIndex(t, k, built)
			loaded, err := loadIndex(k, data, s)
			if err != nil {
				t.Fatal(err)
			}
			if loaded.Len() != len(cp.cases) || loaded.Version != s.Version || loaded.Built != s.Built {
				t.Fatalf("loaded %d cases at version %d built %v, want %d at %d built %v", loaded.Len(), loaded.Version, loaded.Built, len(cp.cases), s.Version, s.Built)
			}
			withText := 0
			for _, c := range cp.cases {
				if len(loaded.TextVector(c.ID)) > 0 {
					withText++
				}
			}
			if withText < len(cp.cases)/2 {
				t.Fatalf("only %d of %d cases have a text vector: the test says little", withText, len(cp.cases))
			}
			samePersisted(t, loaded, built, cp.cases, cp.step)
			if again := saveIndex(t, k, loaded); !bytes.Equal(again, data) {
				t.Errorf("saving the loaded index gives %d bytes unlike the %d saved first", len(again), len(data))
			}
		})
	}
}

// TestPersistRefusesDamage: a file cut short anywhere, or with a byte
// changed anywhere, is refused — by Load or by the checksum at Close —
// and never panics; a file of another corpus (another number of cases)
// is refused by Load itself.
func TestPersistRefusesDamage(t *testing.T) {
	cases := corpus.Cases(t, filepath.Join(corpus.Seeds(t), "cases"))
	k, s, built := consumerBuild(t, cases)
	data := saveIndex(t, k, built)
	load := func(label string, b []byte) (err error) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s: Load panics: %v", label, p)
			}
		}()
		ix, err := loadIndex(k, b, s)
		if err == nil && ix == nil {
			t.Fatalf("%s: no index and no error", label)
		}
		return err
	}
	// Every cut in the first KiB (the parameters and the statistics), and
	// some four hundred through the rest, a step of about 1% apart.
	var cuts []int
	for n := 0; n < len(data); n += max(1, (n-1024)/100) {
		cuts = append(cuts, n)
	}
	for _, n := range append(cuts, len(data)-4, len(data)-1) {
		if err := load(fmt.Sprintf("cut at %d of %d", n, len(data)), data[:n]); err == nil {
			t.Errorf("a file cut at %d of %d bytes loads", n, len(data))
		}
	}
	// A changed bit at the same positions, the low bit of a byte: a length
	// in a varint then changes by a little, a term id or a weight by a bit,
	// and a huge length (which is the reader's to bound) is never made.
	for _, n := range cuts {
		b := slices.Clone(data)
		b[n] ^= 1
		if err := load(fmt.Sprintf("bit flipped at %d", n), b); err == nil {
			t.Errorf("a file with the byte at %d of %d changed loads", n, len(data))
		}
	}
	// The same section over a snapshot of one case less.
	rows := rowsOf(cases[:len(cases)-1])
	other := memstore.Build(rows, s.Version)
	_, err := k.Load(context.Background(), snapfile.NewReader(bytes.NewReader(data), "test.snap"), other)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("text vectors of %d cases, the snapshot has %d", len(cases), len(cases)-1)) {
		t.Errorf("a section of %d cases over a snapshot of %d: got %v, want refused", len(cases), len(cases)-1, err)
	}
}

// TestPersistRefusesBadValues writes sections by hand, as persist.go lays
// them out, whose checksum is right but whose values no Save writes: a
// term id out of range, a term twice in one vector, vector lengths not
// adding up. Load refuses each; the same section with sound values loads.
func TestPersistRefusesBadValues(t *testing.T) {
	s := memstore.Build([]ilgraph.CaseFeatures{
		{ID: "A-1", Org: "Acme", Features: []ilgraph.Feature{{Kind: ilgraph.KindSymptom, ID: "high-latency"}}},
		{ID: "A-2", Org: "Acme", Features: []ilgraph.Feature{{Kind: ilgraph.KindSymptom, ID: "high-latency"}}},
	}, 3)
	section := func(lens []int32, total int, ids []int32, ws []float32) []byte {
		var buf bytes.Buffer
		w := snapfile.NewWriter(&buf)
		w.Int(similarity.MaxTextTerms)
		w.Int(similarity.TextMinDF)
		w.Float64(similarity.TextMaxDFShare)
		w.Int(2)                             // rarityN
		w.Int(2)                             // textStats.N
		w.Strings([]string{"Acme"})          // textStats.Extra
		w.Strings([]string{"queue", "disk"}) // terms
		w.Int32s([]int32{2, 2})              // their DF
		w.Strings(nil)                       // other terms
		w.Int32s(nil)
		w.Int32s(lens)
		w.Uvarint(uint64(total))
		w.Int32s(ids)
		w.Float32s(ws)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	k := similarity.NewConsumer()
	ix, err := loadIndex(k, section([]int32{2, 2}, 4, []int32{0, 1, 0, 1}, []float32{0.6, 0.8, 0.6, 0.8}), s)
	if err != nil {
		t.Fatalf("a sound section: %v", err)
	}
	if v := ix.TextVector("A-2"); !reflect.DeepEqual(v, ilgraph.TextVector{"queue": float64(float32(0.6)), "disk": float64(float32(0.8))}) {
		t.Errorf("A-2's text vector %v", v)
	}
	for _, bad := range []struct {
		name  string
		data  []byte
		error string
	}{
		{"term id out of range", section([]int32{2, 2}, 4, []int32{0, 1, 0, 2}, []float32{0.6, 0.8, 0.6, 0.8}), "term id 2 of 2 terms"},
		{"negative term id", section([]int32{2, 2}, 4, []int32{0, -1, 0, 1}, []float32{0.6, 0.8, 0.6, 0.8}), "term id -1 of 2 terms"},
		{"a term twice", section([]int32{2, 2}, 4, []int32{0, 1, 1, 1}, []float32{0.6, 0.8, 0.6, 0.8}), `case 1 has term "disk" twice`},
		{"lengths not adding up", section([]int32{2, 1}, 4, []int32{0, 1, 0, 1}, []float32{0.6, 0.8, 0.6, 0.8}), "add up to 3, not 4"},
		{"a vector too long", section([]int32{2, similarity.MaxTextTerms + 1}, 4, []int32{0, 1, 0, 1}, []float32{0.6, 0.8, 0.6, 0.8}), "a text vector of length"},
		{"fewer weights than terms", section([]int32{2, 2}, 4, []int32{0, 1, 0, 1}, []float32{0.6, 0.8, 0.6}), "a piece of 4 terms and 3 weights"},
		{"three cases", section([]int32{2, 2, -1}, 4, []int32{0, 1, 0, 1}, []float32{0.6, 0.8, 0.6, 0.8}), "text vectors of 3 cases, the snapshot has 2"},
	} {
		r := snapfile.NewReader(bytes.NewReader(bad.data), "test.snap")
		if v, err := k.Load(context.Background(), r, s); err == nil || v != nil || !strings.Contains(err.Error(), bad.error) {
			t.Errorf("%s: got %v, %v; want an error saying %q", bad.name, v, err, bad.error)
		}
	}
}

// BenchmarkPersistLoad times Load of the index over a generated corpus
// of BENCH_CASES cases (the file read from memory), and reports the size
// of the file and the time of the build it replaces (build-ns, measured
// once, the texts' analysis included).
func BenchmarkPersistLoad(b *testing.B) {
	cases := generated(b, benchCases(b), 1)
	start := time.Now()
	k, s, built := consumerBuild(b, cases)
	build := time.Since(start)
	data := saveIndex(b, k, built)
	b.ResetTimer()
	for b.Loop() {
		if _, err := loadIndex(k, data, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "bytes")
	b.ReportMetric(float64(build.Nanoseconds()), "build-ns")
}
