package relevance

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/corpus"
)

// setOf builds a single-judge set from lines of query, case and grade.
func setOf(name, judge string, lines ...string) *Set {
	s := &Set{Name: name, Judge: judge, grades: map[[2]string]float64{}}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		s.grades[[2]string{f[0], f[1]}] = float64(f[2][0] - '0')
		if !seen[f[0]] {
			seen[f[0]] = true
			s.Queries = append(s.Queries, f[0])
		}
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestAgreeHandComputed checks the agreement figures on ten pairs worked
// out by hand. Judge A / judge B: (0,0)×4, (1,1)×2, (2,2)×1, (0,1), (1,2),
// (2,0); rows (A) 5, 3, 2 and columns (B) 5, 3, 2 pairs.
//
//	unweighted: p_o = 0.7, p_e = (25+9+4)/100 = 0.38, kappa = 0.32/0.62 = 16/31
//	linear: observed 1+1+2 = 4 of 10; expected sum |i-j| r_i c_j / N =
//	  (15+20+15+6+20+6)/10 = 8.2; kappa = 1 - 4/8.2 = 21/41
//	quadratic: observed 1+1+4 = 6; expected (15+40+15+6+40+6)/10 = 12.2;
//	  kappa = 1 - 6/12.2 = 31/61
//	relevant (>= 1): 2×2 table 4 1 / 1 4, p_o 0.8, p_e 0.5, kappa 0.6
//	strong (2): 2×2 table 7 1 / 1 1, p_o 0.8, p_e 0.68, kappa 0.375
func TestAgreeHandComputed(t *testing.T) {
	a := setOf("x", "1", "Q A 0", "Q B 0", "Q C 0", "Q D 0", "Q E 1", "Q F 1", "Q G 2", "Q H 0", "Q I 1", "Q J 2", "Q K 1")
	b := setOf("x", "2", "Q A 0", "Q B 0", "Q C 0", "Q D 0", "Q E 1", "Q F 1", "Q G 2", "Q H 1", "Q I 2", "Q J 0", "Q L 2")
	ag, err := Agree(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if ag.Pairs != 10 || ag.OnlyA != 1 || ag.OnlyB != 1 {
		t.Errorf("pairs %d, only A %d, only B %d; want 10, 1, 1", ag.Pairs, ag.OnlyA, ag.OnlyB)
	}
	if want := [3][3]int{{4, 1, 0}, {0, 2, 1}, {1, 0, 1}}; ag.Confusion != want {
		t.Errorf("confusion %v, want %v", ag.Confusion, want)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"exact", ag.Exact, 0.7},
		{"kappa", ag.Kappa, 16.0 / 31},
		{"linear kappa", ag.KappaLinear, 21.0 / 41},
		{"quadratic kappa", ag.KappaQuadratic, 31.0 / 61},
		{"relevant kappa", ag.KappaRelevant, 0.6},
		{"strong kappa", ag.KappaStrong, 0.375},
		{"mean A", ag.MeanA, 0.7},
		{"mean B", ag.MeanB, 0.7},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Perfect agreement is kappa 1 under every weighting.
	ag, err = Agree(a, a)
	if err != nil {
		t.Fatal(err)
	}
	if ag.Exact != 1 || ag.Kappa != 1 || ag.KappaLinear != 1 || ag.KappaQuadratic != 1 {
		t.Errorf("a set against itself: %+v", ag)
	}
	// A combined set has mean grades, which Agree refuses.
	if _, err := Agree(Combine(a, b), a); err == nil || !strings.Contains(err.Error(), "not 0, 1 or 2") {
		t.Errorf("Agree of a combined set: err %v", err)
	}
}

// TestCombineAndThresholds checks the mean of two judges and how the
// measures count it: relevant from a mean of 1, strong from 1.5.
func TestCombineAndThresholds(t *testing.T) {
	a := setOf("x", "1", "Q A 2", "Q B 2", "Q C 1", "Q D 1", "Q E 2", "Q X 1")
	b := setOf("x", "2", "Q A 2", "Q B 1", "Q C 1", "Q D 0", "Q E 0", "Q Y 2")
	c := Combine(a, b)
	want := map[string]float64{"A": 2, "B": 1.5, "C": 1, "D": 0.5, "E": 1}
	if c.Pairs() != len(want) || c.Judge != "both" {
		t.Fatalf("combined: %d pairs, judge %q; want %d, both", c.Pairs(), c.Judge, len(want))
	}
	for id, g := range want {
		if got, ok := c.Grade("Q", id); !ok || got != g {
			t.Errorf("Q-%s: %v %v, want %v", id, got, ok, g)
		}
	}
	if _, ok := c.Grade("Q", "X"); ok {
		t.Error("Q-X, graded by judge 1 only, is judged in the combined set")
	}
	// Top 5 A (2), B (1.5), C (1), D (0.5), X (unjudged): relevant A B C,
	// strong A B.
	r := Ranker{Name: "r", Rank: func(string, int) []string { return []string{"A", "B", "C", "D", "X"} }}
	f := Measure(c, r, nil)
	if f.P5 != 0.6 || f.Strong5 != 0.4 || f.Unjudged != 1 {
		t.Errorf("combined figures %+v: want P@5 0.6, strong@5 0.4, 1 unjudged", f)
	}
	// DCG 2 + 1.5/log2 3 + 1/2 + 0.5/log2 5; ideal 2, 1.5, 1, 1, 0.5.
	dcg := 2 + 1.5/math.Log2(3) + 1/2.0 + 0.5/math.Log2(5)
	idcg := 2 + 1.5/math.Log2(3) + 1/2.0 + 1/math.Log2(5) + 0.5/math.Log2(6)
	if want := round3(dcg / idcg); f.NDCG5 != want {
		t.Errorf("nDCG@5 = %v, want %v", f.NDCG5, want)
	}
}

func TestReadJudge(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("x.tsv", "# judge 1\nQ1\tA\t2\tr\nQ1\tB\t0\tr\nQ2\tA\t1\tr\n")
	write("x.judge2.tsv", "# judge 2, another order\nQ2\tA\t1\tr\nQ1\tB\t1\tr\nQ1\tA\t2\tr\nQ1\tC\t0\tr\n")
	sets, err := ReadDir(dir)
	if err != nil || len(sets) != 1 || sets[0].Name != "x" || sets[0].Judge != "1" {
		t.Fatalf("ReadDir: %v, %v (the judge2 file must not be a set of its own)", sets, err)
	}
	two, err := ReadJudge(dir, "2")
	if err != nil {
		t.Fatal(err)
	}
	s := two[0]
	if s.Name != "x" || s.Judge != "2" || s.Pairs() != 4 || strings.Join(s.Queries, ",") != "Q1,Q2" {
		t.Errorf("judge 2: name %q judge %q, %d pairs, queries %v", s.Name, s.Judge, s.Pairs(), s.Queries)
	}
	if g, ok := s.Grade("Q1", "B"); !ok || g != 1 {
		t.Errorf("judge 2 Q1-B: %v %v", g, ok)
	}
	both, err := ReadJudge(dir, "both")
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := both[0].Grade("Q1", "B"); both[0].Pairs() != 3 || g != 0.5 {
		t.Errorf("both: %d pairs, Q1-B %v; want 3, 0.5", both[0].Pairs(), g)
	}
	if _, err := ReadJudge(dir, "3"); err == nil {
		t.Error("judge 3 accepted")
	}
	write("y.tsv", "Q3\tA\t1\tr\n")
	if _, err := ReadJudge(dir, "2"); err == nil || !strings.Contains(err.Error(), "set y") {
		t.Errorf("a set without a second judge's file: err %v", err)
	}
	write("y.judge2.tsv", "Q3\tA\t3\tr\n")
	if _, err := ReadJudge(dir, "both"); err == nil || !strings.Contains(err.Error(), "y.judge2.tsv:1") {
		t.Errorf("a bad grade in a second judge's file: err %v", err)
	}
}

// TestSecondJudgeCoversFirst reads the committed second judge's files:
// every pair judge 1 graded has a grade from judge 2, so --judge 2 and
// --judge both measure the same pairs as judge 1.
func TestSecondJudgeCoversFirst(t *testing.T) {
	dir := filepath.Join(corpus.Root(t), "testdata", "relevance")
	first, err := ReadJudge(dir, "1")
	if err != nil {
		t.Fatal(err)
	}
	second, err := ReadJudge(dir, "2")
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		ag, err := Agree(first[i], second[i])
		if err != nil {
			t.Fatal(err)
		}
		if ag.OnlyA != 0 || ag.Pairs != first[i].Pairs() {
			t.Errorf("set %s: judge 2 graded %d of judge 1's %d pairs", first[i].Name, ag.Pairs, first[i].Pairs())
		}
		if strings.Join(second[i].Queries, ",") != strings.Join(first[i].Queries, ",") {
			t.Errorf("set %s: judge 2's queries %v, judge 1's %v", first[i].Name, second[i].Queries, first[i].Queries)
		}
	}
}

func TestCompare(t *testing.T) {
	s := setOf("x", "1", "Q A 2", "Q B 1", "Q C 1", "Q E 0", "R A 0", "R F 2")
	a := Ranker{Name: "a", Rank: func(q string, _ int) []string {
		if q == "Q" {
			return []string{"A", "B", "C"}
		}
		return []string{"F"}
	}}
	b := Ranker{Name: "b", Rank: func(q string, _ int) []string {
		if q == "Q" {
			return []string{"B", "D", "E"}
		}
		return []string{"A", "F"}
	}}
	// Brought in: Q-A 2, Q-C 1. Pushed out: Q-D unjudged, Q-E 0, R-A 0.
	sw := Compare(s, a, b)
	want := Swap{Set: "x", A: "a", B: "b", In: 2, InJudged: 2, InMean: 1.5, Out: 3, OutJudged: 2, OutMean: 0}
	if sw != want {
		t.Errorf("Compare = %+v, want %+v", sw, want)
	}
}
