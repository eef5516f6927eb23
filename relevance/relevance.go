// Package relevance measures similar-case rankings against judged sets:
// query cases whose candidate similar cases an engineer graded 0, 1 or 2
// from the reports' text (see testdata/relevance/README.md). It is what
// `ilgraph eval similar` runs; it needs no database.
package relevance

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// Depth is the rank cut-off of every measure: the first five results.
const Depth = 5

// Judgment is one graded pair.
type Judgment struct {
	Query, Case string
	// Grade: 0 not similar, 1 related (the same family of failure, or the
	// same mechanism in a different setting), 2 strongly similar (the same
	// mechanism and failure pattern: a fix or lesson of one applies to the
	// other).
	Grade  int
	Reason string
}

// Set is a judged set: its name (the file name without .tsv), its query
// cases in file order, and its judgments.
type Set struct {
	Name    string
	Queries []string
	// Judge says whose grades these are: "1" (the set's own file), "2" (the
	// second judge's file, NAME.judge2.tsv) or "both" (their mean, see
	// Combine).
	Judge string
	// grades are the gains of the judged pairs: a judge's grade 0, 1 or 2,
	// or for "both" the mean of the two judges' grades (0, 0.5, ..., 2).
	grades map[[2]string]float64
}

// Grade returns the grade of a pair (for a combined set, the mean of both
// judges' grades) and whether it is judged.
func (s *Set) Grade(query, id string) (float64, bool) {
	g, ok := s.grades[[2]string{query, id}]
	return g, ok
}

// Pairs is the number of judged pairs.
func (s *Set) Pairs() int { return len(s.grades) }

// Relevant and Strong are the thresholds every measure applies to a pair's
// grade: P@5 counts grades of at least Relevant, strong@5 grades of at least
// Strong. For one judge they are grades 1-2 and grade 2. For the mean of two
// judges they are: relevant when the mean is at least 1 (both gave 1, or one
// gave 2), strong when it is at least 1.5 (one gave 2 and the other at least
// 1). A pair the judges agree on counts exactly as for either judge alone.
const (
	Relevant = 1.0
	Strong   = 1.5
)

// ReadSet reads a judged set: lines of query, case, grade and reason
// separated by tabs; '#' starts a comment line. Every query of the set has
// judgments.
func ReadSet(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Set{Name: strings.TrimSuffix(filepath.Base(path), ".tsv"), Judge: "1", grades: map[[2]string]float64{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 4)
		if len(parts) < 3 {
			return nil, fmt.Errorf("%s:%d: want query, case, grade and reason separated by tabs", path, n)
		}
		g, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil || g < 0 || g > 2 {
			return nil, fmt.Errorf("%s:%d: grade %q is not 0, 1 or 2", path, n, parts[2])
		}
		q, c := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		if q == c {
			return nil, fmt.Errorf("%s:%d: %s judged against itself", path, n, q)
		}
		key := [2]string{q, c}
		if _, dup := s.grades[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s–%s judged twice", path, n, q, c)
		}
		s.grades[key] = float64(g)
		if !seen[q] {
			seen[q] = true
			s.Queries = append(s.Queries, q)
		}
	}
	return s, sc.Err()
}

// ReadDir reads every NAME.tsv of dir as a set, by name, with the first
// judge's grades. Files named NAME.JUDGE.tsv (another judge's grades of set
// NAME, such as NAME.judge2.tsv) are not sets of their own: ReadJudge reads
// them.
func ReadDir(dir string) ([]*Set, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tsv"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Set
	for _, p := range paths {
		if strings.Contains(strings.TrimSuffix(filepath.Base(p), ".tsv"), ".") {
			continue
		}
		s, err := ReadSet(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no judged sets (*.tsv) in %s", dir)
	}
	return out, nil
}

// Judges are the values ReadJudge accepts.
var Judges = []string{"1", "2", "both"}

// ReadJudge reads the sets of dir with the grades of judge: "1" the first
// judge's (NAME.tsv, as ReadDir), "2" the second judge's (NAME.judge2.tsv,
// which every set must have), "both" the mean of the two (Combine). Sets keep
// the name and query order of NAME.tsv.
func ReadJudge(dir, judge string) ([]*Set, error) {
	first, err := ReadDir(dir)
	if err != nil || judge == "1" {
		return first, err
	}
	if judge != "2" && judge != "both" {
		return nil, fmt.Errorf("judge %q: want one of %s", judge, strings.Join(Judges, ", "))
	}
	var out []*Set
	for _, s := range first {
		second, err := ReadSet(filepath.Join(dir, s.Name+".judge2.tsv"))
		if err != nil {
			return nil, fmt.Errorf("set %s has no second judge's grades: %w", s.Name, err)
		}
		second.Name, second.Judge = s.Name, "2"
		second.Queries = orderLike(second.Queries, s.Queries)
		if judge == "both" {
			second = Combine(s, second)
		}
		out = append(out, second)
	}
	return out, nil
}

// orderLike returns qs in the order of ref, then those ref lacks in their
// own order.
func orderLike(qs, ref []string) []string {
	have := map[string]bool{}
	for _, q := range qs {
		have[q] = true
	}
	var out []string
	done := map[string]bool{}
	for _, q := range ref {
		if have[q] {
			out = append(out, q)
			done[q] = true
		}
	}
	for _, q := range qs {
		if !done[q] {
			out = append(out, q)
		}
	}
	return out
}

// Combine returns the set both judges graded: the pairs a and b both graded,
// each with the mean of the two grades, and the queries of a that keep at
// least one such pair. A pair only one judge graded is unjudged in the
// result (and counts as not relevant, like every unjudged result).
func Combine(a, b *Set) *Set {
	c := &Set{Name: a.Name, Judge: "both", grades: map[[2]string]float64{}}
	keep := map[string]bool{}
	for k, ga := range a.grades {
		if gb, ok := b.grades[k]; ok {
			c.grades[k] = (ga + gb) / 2
			keep[k[0]] = true
		}
	}
	for _, q := range a.Queries {
		if keep[q] {
			c.Queries = append(c.Queries, q)
		}
	}
	return c
}

// Figures are one ranker's measures on one set, averaged over its queries.
type Figures struct {
	Ranker  string  `json:"ranker"`
	Queries int     `json:"queries"`
	P5      float64 `json:"p5"`      // share of the top 5 graded at least Relevant (1)
	Strong5 float64 `json:"strong5"` // share of the top 5 graded at least Strong (2, or a mean of 1.5)
	NDCG5   float64 `json:"ndcg5"`   // gain = grade; ideal order from every judged pair of the query
	// Related links (the query's own `related` list) found in the top 5,
	// of all of them.
	RelatedFound int `json:"relatedFound"`
	RelatedTotal int `json:"relatedTotal"`
	// Unjudged results in the top 5, over all queries: counted as not
	// relevant.
	Unjudged int `json:"unjudged"`
}

// Measure computes a ranker's figures on a set. related gives each case's
// curated related cases.
func Measure(s *Set, r Ranker, related map[string][]string) Figures {
	fig := Figures{Ranker: r.Name, Queries: len(s.Queries)}
	for _, q := range s.Queries {
		top := r.Rank(q, Depth)
		var rel, strong int
		var dcg float64
		for i, id := range top {
			g, ok := s.Grade(q, id)
			if !ok {
				fig.Unjudged++
			}
			if g >= Relevant {
				rel++
			}
			if g >= Strong {
				strong++
			}
			dcg += g / math.Log2(float64(i+2))
		}
		var ideal []float64
		for k, g := range s.grades {
			if k[0] == q {
				ideal = append(ideal, g)
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(ideal)))
		var idcg float64
		for i := 0; i < len(ideal) && i < Depth; i++ {
			idcg += ideal[i] / math.Log2(float64(i+2))
		}
		if idcg > 0 {
			fig.NDCG5 += dcg / idcg
		}
		fig.P5 += float64(rel) / Depth
		fig.Strong5 += float64(strong) / Depth
		for _, want := range related[q] {
			fig.RelatedTotal++
			for _, id := range top {
				if id == want {
					fig.RelatedFound++
				}
			}
		}
	}
	if n := float64(len(s.Queries)); n > 0 {
		fig.P5, fig.Strong5, fig.NDCG5 = round3(fig.P5/n), round3(fig.Strong5/n), round3(fig.NDCG5/n)
	}
	return fig
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Report is every ranker's figures on every set.
type Report struct {
	Cases int `json:"cases"`
	// Judge is whose grades were used ("1", "2" or "both"; empty in runs
	// recorded before there was a second judge, which used judge 1's).
	Judge string               `json:"judge,omitempty"`
	Sets  map[string][]Figures `json:"sets"`
}

// Evaluate measures every ranker on every set.
func Evaluate(cases []ilgraph.Case, sets []*Set, rankers []Ranker) *Report {
	related := map[string][]string{}
	for _, c := range cases {
		related[c.ID] = c.Related
	}
	rep := &Report{Cases: len(cases), Sets: map[string][]Figures{}}
	for _, s := range sets {
		rep.Judge = s.Judge
		for _, r := range rankers {
			rep.Sets[s.Name] = append(rep.Sets[s.Name], Measure(s, r, related))
		}
		rep.Sets[s.Name] = append(rep.Sets[s.Name], Measure(s, s.Ideal(), related))
	}
	return rep
}

// IdealRanker is the name of a set's Ideal ranker.
const IdealRanker = "ideal"

// Ideal is the best any ranker could do with what is judged: for each
// query, its judged cases by grade, best first (then by id). Its figures
// are the ceiling of the judged set — what a goal can ask of a ranker
// whose top 5 holds only judged cases.
func (s *Set) Ideal() Ranker {
	byQuery := map[string][]string{}
	for k := range s.grades {
		byQuery[k[0]] = append(byQuery[k[0]], k[1])
	}
	return Ranker{Name: IdealRanker, Rank: func(q string, k int) []string {
		ids := slices.Clone(byQuery[q])
		slices.SortFunc(ids, func(a, b string) int {
			ga, gb := s.grades[[2]string{q, a}], s.grades[[2]string{q, b}]
			if ga != gb {
				if ga > gb {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		return ids[:min(k, len(ids))]
	}}
}

// Pool returns the pairs still to judge for queries: each ranker's top
// depth and the query's related cases, less the pairs judged, shuffled with
// a fixed seed so that the judge cannot tell which ranker proposed a pair
// nor at which rank.
func Pool(queries []string, rankers []Ranker, depth int, cases []ilgraph.Case, judged func(q, id string) bool) [][2]string {
	related := map[string][]string{}
	for _, c := range cases {
		related[c.ID] = c.Related
	}
	seen := map[[2]string]bool{}
	var out [][2]string
	add := func(q, id string) {
		k := [2]string{q, id}
		if q != id && !seen[k] && !judged(q, id) {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, q := range queries {
		for _, r := range rankers {
			for _, id := range r.Rank(q, depth) {
				add(q, id)
			}
		}
		for _, id := range related[q] {
			add(q, id)
		}
	}
	rng := rand.New(rand.NewPCG(16, 2026))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
