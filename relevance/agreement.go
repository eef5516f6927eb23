package relevance

import (
	"fmt"
	"math"
	"sort"
)

// Agreement is how far two judges agree on the pairs both graded.
type Agreement struct {
	Set   string `json:"set"`
	Pairs int    `json:"pairs"` // pairs both judges graded
	// OnlyA and OnlyB count the pairs only one judge graded (left out).
	OnlyA int `json:"onlyA"`
	OnlyB int `json:"onlyB"`
	// Confusion[i][j] is the number of pairs judge A graded i and judge B
	// graded j.
	Confusion [3][3]int `json:"confusion"`
	Exact     float64   `json:"exact"` // share of pairs with the same grade
	// Cohen's kappa: unweighted, and weighted with linear (|i-j|) and
	// quadratic ((i-j)^2) disagreement weights.
	Kappa          float64 `json:"kappa"`
	KappaLinear    float64 `json:"kappaLinear"`
	KappaQuadratic float64 `json:"kappaQuadratic"`
	// Cohen's kappa of the two decisions the measures make: relevant
	// (grade >= 1, what P@5 counts) and strong (grade 2, what strong@5
	// counts).
	KappaRelevant float64 `json:"kappaRelevant"`
	KappaStrong   float64 `json:"kappaStrong"`
	// Mean grade each judge gave.
	MeanA float64 `json:"meanA"`
	MeanB float64 `json:"meanB"`
}

// Agree measures the agreement of two single-judge sets (grades 0, 1 or 2)
// over the pairs both graded.
func Agree(a, b *Set) (Agreement, error) {
	ag := Agreement{Set: a.Name}
	grade := func(s *Set, g float64) (int, error) {
		if g != math.Trunc(g) || g < 0 || g > 2 {
			return 0, fmt.Errorf("set %s (judge %s): grade %v is not 0, 1 or 2", s.Name, s.Judge, g)
		}
		return int(g), nil
	}
	keys := make([][2]string, 0, len(a.grades))
	for k := range a.grades {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	var sumA, sumB int
	for _, k := range keys {
		gb, ok := b.grades[k]
		if !ok {
			ag.OnlyA++
			continue
		}
		i, err := grade(a, a.grades[k])
		if err != nil {
			return ag, err
		}
		j, err := grade(b, gb)
		if err != nil {
			return ag, err
		}
		ag.Confusion[i][j]++
		ag.Pairs++
		sumA += i
		sumB += j
	}
	for k := range b.grades {
		if _, ok := a.grades[k]; !ok {
			ag.OnlyB++
		}
	}
	if ag.Pairs == 0 {
		return ag, fmt.Errorf("set %s: no pair graded by both judges", a.Name)
	}
	n := float64(ag.Pairs)
	for i := 0; i < 3; i++ {
		ag.Exact += float64(ag.Confusion[i][i])
	}
	ag.Exact /= n
	ag.MeanA, ag.MeanB = float64(sumA)/n, float64(sumB)/n
	ag.Kappa = Kappa(ag.Confusion[:], func(i, j int) float64 {
		if i == j {
			return 0
		}
		return 1
	})
	ag.KappaLinear = Kappa(ag.Confusion[:], func(i, j int) float64 { return math.Abs(float64(i - j)) })
	ag.KappaQuadratic = Kappa(ag.Confusion[:], func(i, j int) float64 { return float64((i - j) * (i - j)) })
	ag.KappaRelevant = binaryKappa(ag.Confusion, 1)
	ag.KappaStrong = binaryKappa(ag.Confusion, 2)
	return ag, nil
}

// Kappa is Cohen's weighted kappa of a square confusion matrix m (m[i][j]:
// items rater A put in category i and rater B in j) with disagreement
// weights w (w(i, i) = 0):
//
//	kappa = 1 - sum w(i,j) m[i][j] / sum w(i,j) row(i) col(j) / N
//
// With w = 1 off the diagonal it is the unweighted kappa. It is NaN when
// the expected disagreement is 0 (both raters used one category only).
func Kappa(m [][3]int, w func(i, j int) float64) float64 {
	k := len(m)
	row, col := make([]float64, k), make([]float64, k)
	var n float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			row[i] += float64(m[i][j])
			col[j] += float64(m[i][j])
			n += float64(m[i][j])
		}
	}
	var observed, expected float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			observed += w(i, j) * float64(m[i][j])
			expected += w(i, j) * row[i] * col[j] / n
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// binaryKappa is the unweighted kappa of the decision grade >= cut.
func binaryKappa(m [3][3]int, cut int) float64 {
	var b [3][3]int
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			bi, bj := 0, 0
			if i >= cut {
				bi = 1
			}
			if j >= cut {
				bj = 1
			}
			b[bi][bj] += m[i][j]
		}
	}
	return Kappa(b[:2], func(i, j int) float64 {
		if i == j {
			return 0
		}
		return 1
	})
}

// Swap is what one ranker's top 5 changes against another's on a set: the
// results only a has (brought in) and only b has (pushed out), with how
// many are judged and their mean grade.
type Swap struct {
	Set, A, B      string
	In, InJudged   int
	InMean         float64
	Out, OutJudged int
	OutMean        float64
}

// Compare is the Swap of rankers a and b over the queries of s.
func Compare(s *Set, a, b Ranker) Swap {
	sw := Swap{Set: s.Name, A: a.Name, B: b.Name}
	var inSum, outSum float64
	for _, q := range s.Queries {
		ta, tb := a.Rank(q, Depth), b.Rank(q, Depth)
		side := func(top, other []string, n, judged *int, sum *float64) {
			in := map[string]bool{}
			for _, id := range other {
				in[id] = true
			}
			for _, id := range top {
				if in[id] {
					continue
				}
				*n++
				if g, ok := s.Grade(q, id); ok {
					*judged++
					*sum += g
				}
			}
		}
		side(ta, tb, &sw.In, &sw.InJudged, &inSum)
		side(tb, ta, &sw.Out, &sw.OutJudged, &outSum)
	}
	if sw.InJudged > 0 {
		sw.InMean = inSum / float64(sw.InJudged)
	}
	if sw.OutJudged > 0 {
		sw.OutMean = outSum / float64(sw.OutJudged)
	}
	return sw
}
