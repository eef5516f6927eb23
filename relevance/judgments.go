package relevance

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// JudgedInUse is the Judge of a set made from the judgments stored in use
// (FromJudgments).
const JudgedInUse = "in use"

// FromJudgments makes a set from judgments made in use (the judgments of
// similar cases stored in Neo4j): a pair several judges graded counts with
// the mean of their grades, under the thresholds of Relevant and Strong,
// as the two judges' combined sets do. Queries are in first-seen order.
func FromJudgments(name string, js []ilgraph.Judgment) *Set {
	s := &Set{Name: name, Judge: JudgedInUse, grades: map[[2]string]float64{}}
	sum, n := map[[2]string]float64{}, map[[2]string]int{}
	for _, j := range js {
		k := [2]string{j.Query, j.Match}
		if n[k] == 0 && !slices.Contains(s.Queries, j.Query) {
			s.Queries = append(s.Queries, j.Query)
		}
		sum[k] += float64(j.Grade)
		n[k]++
	}
	for k, total := range sum {
		s.grades[k] = total / float64(n[k])
	}
	return s
}

// WriteTSV writes judgments made in use as a judged set in
// testdata/relevance's format — query, case, grade 0-2 and reason,
// separated by tabs — one line per pair, in the order given (by query then
// match). A pair several judges graded gets the lower median of their
// grades (a pair counts as strongly relevant only when at least half of its
// judges say so), and its reasons, each after its judge's name. It returns
// the number of pairs written.
func WriteTSV(w io.Writer, js []ilgraph.Judgment) (int, error) {
	type pair struct {
		query, match string
		grades       []int
		reasons      []string
	}
	var pairs []*pair
	for _, j := range js {
		if len(pairs) == 0 || pairs[len(pairs)-1].query != j.Query || pairs[len(pairs)-1].match != j.Match {
			pairs = append(pairs, &pair{query: j.Query, match: j.Match})
		}
		p := pairs[len(pairs)-1]
		p.grades = append(p.grades, int(j.Grade))
		if j.Reason != "" {
			p.reasons = append(p.reasons, j.Judge+": "+clean(j.Reason))
		}
	}
	if _, err := fmt.Fprintf(w, "# judgments made in use (ilgraph export judgments): %d pairs from %d judgments; grade 0 not relevant, 1 relevant, 2 strongly relevant\n", len(pairs), len(js)); err != nil {
		return 0, err
	}
	for _, p := range pairs {
		slices.Sort(p.grades)
		g := p.grades[(len(p.grades)-1)/2]
		if _, err := fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", p.query, p.match, g, strings.Join(p.reasons, "; ")); err != nil {
			return 0, err
		}
	}
	return len(pairs), nil
}

// clean keeps a reason on one TSV field (the core already refuses tabs and
// line breaks; a stored one from elsewhere is mended, not trusted).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
