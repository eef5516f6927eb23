package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/relevance"
	"github.com/ilgraph/ilgraph/similarity"
	"github.com/ilgraph/ilgraph/suggest"
)

// TestScoreWithCosIsTheDefinition checks the trick the blended rankers
// rest on: given the text channel's own cosine, scoreWithCos is the
// definition's score for every pair of a few query cases, and the blend
// built on it ranks every judged query as the index's default ranker does.
func TestScoreWithCosIsTheDefinition(t *testing.T) {
	_, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	rows := relevance.Rows(cases)
	ix := similarity.Build(rows, 0)
	opt := ilgraph.DefaultOptions(0)
	weight, wText := ix.Weight(opt), opt.Weights[ilgraph.WeightText]
	for _, q := range []string{rows[0].ID, rows[len(rows)/2].ID, rows[len(rows)-1].ID} {
		for _, r := range rows {
			c := ilgraph.Cosine(ix.TextVector(q), ix.TextVector(r.ID))
			got := scoreWithCos(ix.Features(q), r.Features, weight, wText, c)
			want := ilgraph.ScoreText(ix.Features(q), r.Features, weight, wText, ix.TextVector(q), ix.TextVector(r.ID)).Score
			if got != want {
				t.Fatalf("%s ~ %s: scoreWithCos = %v, ScoreText = %v", q, r.ID, got, want)
			}
		}
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	def := relevance.IndexRanker("default", ix, opt)
	sets, err := relevance.ReadDir(filepath.Join(corpus.Root(t), "testdata", "relevance"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		for _, q := range s.Queries {
			got := rankByCos(ids, q, 10, func(id string) float64 {
				return scoreWithCos(ix.Features(q), ix.Features(id), weight, wText, ilgraph.Cosine(ix.TextVector(q), ix.TextVector(id)))
			})
			if want := def.Rank(q, 10); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: the blend with the text cosine ranks %v, the default ranker %v", q, got, want)
			}
		}
	}
}

// unitVector is a deterministic pseudo-random unit vector for a seed.
func unitVector(seed string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(h.Sum64(), 29))
	v := make([]float32, dim)
	var n float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// writeVectors writes a vectors file for the texts: each key's vector from
// vec(key).
func writeVectors(t *testing.T, texts []semanticText, dim int, vec func(key string) []float32) string {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"model": "test", "package": "none", "licence": "none", "dim": %d}`+"\n", dim)
	for _, x := range texts {
		line, _ := json.Marshal(map[string]any{"key": x.Key, "vector": vec(x.Key)})
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "vectors.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalSemanticCrossLingual checks the Korean-to-English figures against
// ranks counted by brute force, with vectors made for the test: each
// case's English vector random, its Korean summary's vector the English
// one plus noise of a size that puts some cases' own case first and not
// others.
func TestEvalSemanticCrossLingual(t *testing.T) {
	v, cases, err := readCorpus(corpus.Seeds(t))
	if err != nil {
		t.Fatal(err)
	}
	descs, err := readTyped(typedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	const dim = 16
	texts := semanticTexts(cases, descs)
	vec := func(key string) []float32 {
		kind, id, _ := strings.Cut(key, "/")
		if kind == "ko" || kind == "kohangul" {
			en, noise := unitVector("en/"+id, dim), unitVector(key, dim)
			out := make([]float32, dim)
			for i := range out {
				out[i] = en[i] + 0.9*noise[i]
			}
			return out
		}
		return unitVector(key, dim)
	}
	path := writeVectors(t, texts, dim, vec)
	sv, err := readVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := suggest.New(v, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := relevance.ReadJudge(filepath.Join(corpus.Root(t), "testdata", "relevance"), "1")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := evalSemantic(cases, descs, sets, sv, eng)
	if err != nil {
		t.Fatal(err)
	}
	// Brute force: the own case's rank is 1 + the cases whose English
	// vector is closer to the Korean one (float64 over the scaled vectors,
	// as the file holds them), ties by id.
	unit := func(x []float32) []float64 {
		var n float64
		for _, a := range x {
			n += float64(a) * float64(a)
		}
		out := make([]float64, len(x))
		for i, a := range x {
			out[i] = float64(float32(float64(a) / math.Sqrt(n)))
		}
		return out
	}
	dot := func(a, b []float64) float64 {
		var s float64
		for i := range a {
			s += a[i] * b[i]
		}
		return ilgraph.RoundScore(s)
	}
	var n, top1 int
	var mrr float64
	for i := range cases {
		c := &cases[i]
		if strings.TrimSpace(c.Summary.Ko) == "" {
			continue
		}
		n++
		q := unit(vec("ko/" + c.ID))
		own := dot(q, unit(vec("en/"+c.ID)))
		rank := 1
		for j := range cases {
			s := dot(q, unit(vec("en/"+cases[j].ID)))
			if s > own || (s == own && cases[j].ID < c.ID) {
				rank++
			}
		}
		if own <= 0 || rank > typedDepth {
			continue
		}
		if rank == 1 {
			top1++
		}
		mrr += 1 / float64(rank)
	}
	var got *typedFigures
	for i, f := range rep.CrossLingual {
		if f.Ranker == "embed" {
			got = &rep.CrossLingual[i]
		}
	}
	if got == nil {
		t.Fatalf("no embed figures in %+v", rep.CrossLingual)
	}
	if top1 == 0 || top1 == n {
		t.Fatalf("the test's vectors put the own case first for %d of %d: make the noise tell", top1, n)
	}
	if got.N != n || got.Top1 != round3(float64(top1)/float64(n)) || got.MRR != round3(mrr/float64(n)) {
		t.Errorf("embed: got n=%d top1=%.3f MRR=%.3f, want n=%d top1=%.3f MRR=%.3f", got.N, got.Top1, got.MRR, n, round3(float64(top1)/float64(n)), round3(mrr/float64(n)))
	}
	for _, f := range rep.CrossLingual {
		if f.Ranker == "bm25-en (Hangul only)" && f.Top5 > 0.1 {
			t.Errorf("BM25 over English text finds the own case from Hangul words alone for %.3f: the Hangul-only queries keep Latin words", f.Top5)
		}
	}
	for _, name := range []string{"default", "embed", "default+embed", "default+text+embed"} {
		found := false
		for _, f := range rep.Judged["heldout"] {
			found = found || f.Ranker == name
		}
		if !found {
			t.Errorf("the held-out set has no figures of %s", name)
		}
	}
}

func TestHangulOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Kinesis 프런트엔드 서버가 OS 스레드 한도에 걸렸다", "프런트엔드 서버가 스레드 한도에 걸렸다"},
		{"us-east-1 리전의 S3가 4시간 멈췄다", "리전의 멈췄다"},
		{"AWS S3 us-east-1", ""},
		{"카프카 브로커 디스크", "카프카 브로커 디스크"},
	} {
		if got := hangulOnly(tc.in); got != tc.want {
			t.Errorf("hangulOnly(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReadVectorsErrors(t *testing.T) {
	header := `{"model": "m", "package": "p", "licence": "l", "dim": 2}`
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "empty"},
		{"no model", `{"dim": 2}`, ":1: want a header"},
		{"bad json", header + "\n{\"key\": ", ":2:"},
		{"no key", header + "\n" + `{"vector": [1, 0]}`, ":2: field key is empty"},
		{"wrong dim", header + "\n" + `{"key": "en/A", "vector": [1, 0, 0]}`, ":2: field vector has 3 numbers, the header says dim 2"},
		{"twice", header + "\n" + `{"key": "en/A", "vector": [1, 0]}` + "\n" + `{"key": "en/A", "vector": [0, 1]}`, `:3: key "en/A" is there twice`},
		{"zeros", header + "\n" + `{"key": "en/A", "vector": [0, 0]}`, `:2: the vector of "en/A" is all zeros`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.jsonl")
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readVectors(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("readVectors: got %v, want an error naming %s and saying %q", err, path, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "v.jsonl")
	if err := os.WriteFile(path, []byte(header+"\n"+`{"key": "a", "vector": [3, 4]}`+"\n"+`{"key": "b", "vector": [0, 2]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sv, err := readVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := sv.cos("a", "b"); !ok || math.Abs(c-0.8) > 1e-6 {
		t.Errorf("cos(a, b) = %v, %v; want 0.8 (the vectors scaled to length 1)", c, ok)
	}
	if _, ok := sv.cos("a", "missing"); ok {
		t.Error("cos with a key the file lacks is ok")
	}
}
