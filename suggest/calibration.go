package suggest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/ilgraph/ilgraph"
)

// A suggestion's confidence is calibrated: the two signals give a score (a
// noisy-or of phrase reliabilities and neighbours' votes) that orders the
// terms of a kind but does not say how often such a term is right — in
// leave-one-out over the seed corpus a contributing factor scored 0.8–0.9
// was a tag of its case 44% of the time, a component scored 0.2–0.4 12%.
// The confidence served is that score mapped, per language and kind, onto
// the precision measured at it, so that a confidence of 0.6 means "right
// about 60% of the time" on cases like the corpus's.
//
// The map is Platt's: a logistic curve in the score's log-odds,
// σ(A·logit(score) + B), fit by maximum likelihood to whether each
// leave-one-out suggestion was a tag of its case; for the root cause and
// the mechanisms it also weighs the suggestion's lead over the other terms
// of its kind (Curve). Two or three parameters, so a few hundred
// suggestions per kind fit them without chasing noise, and the curve rises
// with the score, so the order of the terms holds. (Isotonic regression
// was tried first: with a few hundred suggestions its top block pooled
// every root cause scored above 0.6 into one confidence, 0.59, and no root
// cause could be told apart as sure.)

// Curve maps a kind's score in one language onto the precision measured at
// it: σ(A·logit(score) + C·lead + B), the score clamped to [scoreFloor, 1 −
// scoreFloor]. The lead is the suggestion's score less the best score of
// the other terms of its kind in the same answer (below zero for all but
// the first); C is 0 but for the root cause, of which a case has one, so
// that a best root cause far ahead of the runner-up is surer than one
// level with it, and the mechanisms (withLead). N is how many suggestions
// it was fit on.
type Curve struct {
	Lang string       `json:"lang"`
	Kind ilgraph.Kind `json:"kind"`
	A    float64      `json:"a"`
	B    float64      `json:"b"`
	C    float64      `json:"c,omitempty"`
	N    int          `json:"n"`
}

// scoreFloor keeps a score's log-odds finite.
const scoreFloor = 0.005

func logit(x float64) float64 {
	x = min(max(x, scoreFloor), 1-scoreFloor)
	return math.Log(x / (1 - x))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// At is the curve's value at score x with the given lead over the other
// terms of the kind.
func (c *Curve) At(x, lead float64) float64 { return sigmoid(c.A*logit(x) + c.C*lead + c.B) }

// leads returns each suggestion's score less the best score of the others
// (ss by score, highest first): the first's lead over the second, the
// others' distance below the first.
func leads(ss []Suggestion) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		switch {
		case i > 0:
			out[i] = s.Score - ss[0].Score
		case len(ss) > 1:
			out[i] = s.Score - ss[1].Score
		default:
			out[i] = s.Score
		}
	}
	return out
}

// Calibration is a curve per language and kind.
type Calibration struct {
	Curves []Curve `json:"curves"`
}

// curve returns the curve of lang and kind, nil when there is none.
func (cal *Calibration) curve(lang string, k ilgraph.Kind) *Curve {
	if cal == nil {
		return nil
	}
	for i := range cal.Curves {
		if cal.Curves[i].Lang == lang && cal.Curves[i].Kind == k {
			return &cal.Curves[i]
		}
	}
	return nil
}

// Apply returns res with every suggestion's confidence the calibrated one,
// in the same order (the curves rise, so the order by confidence still
// holds).
// A kind without a curve keeps its scores. res is not changed.
func (cal *Calibration) Apply(res *Result) *Result {
	if cal == nil || res == nil {
		return res
	}
	out := *res
	out.ByKind = make(map[ilgraph.Kind][]Suggestion, len(res.ByKind))
	for k, ss := range res.ByKind {
		c := cal.curve(res.Lang, k)
		if c == nil {
			out.ByKind[k] = ss
			continue
		}
		cs := make([]Suggestion, len(ss))
		lead := leads(ss)
		for i, s := range ss {
			s.Confidence = round(c.At(s.Score, lead[i]))
			cs[i] = s
		}
		out.ByKind[k] = cs
	}
	return &out
}

// calibrationDepth is how many of each answer's best suggestions of a kind
// a curve is fit on: for the root cause the three a reader is offered
// (top-3; their leads tell the best from the others), for the other kinds
// as many as any cut-off may let into a profile (calibrateMaxTerms).
func calibrationDepth(k ilgraph.Kind) int {
	if k == ilgraph.KindRootCause {
		return 3
	}
	return calibrateMaxTerms
}

// withLead says which kinds' curves weigh the lead over the other terms:
// the root cause, the one kind a case has exactly one of, and the
// mechanisms, where it lifted the sure ones over 0.8 in leave-one-out
// (docs/suggest.md).
func withLead(k ilgraph.Kind) bool { return k == ilgraph.KindRootCause || k == ilgraph.KindMechanism }

// fit calibrates uncalibrated answers: for every language and kind, the
// curve of right (1) or wrong (0) on the score (and the lead, withLead),
// over each answer's calibrationDepth best suggestions.
func fit(answers []answer) *Calibration {
	cal := &Calibration{}
	for _, lang := range []string{"en", "ko"} {
		for _, k := range ilgraph.VocabKinds {
			var pts []point
			for _, a := range answers {
				if a.lang != lang {
					continue
				}
				tags := map[string]bool{}
				for _, id := range a.c.Tags(k) {
					tags[id] = true
				}
				ss := a.res.ByKind[k]
				lead := leads(ss)
				for i, s := range a.res.Top(k, calibrationDepth(k), 0) {
					pts = append(pts, point{s.Score, lead[i], tags[s.ID]})
				}
			}
			if len(pts) == 0 {
				continue
			}
			c := Curve{Lang: lang, Kind: k, N: len(pts)}
			if withLead(k) {
				w := logistic(pts, true)
				c.A, c.C, c.B = round(w[0]), round(w[1]), round(w[2])
			} else {
				c.A, c.B = platt(pts)
				c.A, c.B = round(c.A), round(c.B)
			}
			cal.Curves = append(cal.Curves, c)
		}
	}
	return cal
}

// plattTargets are the targets a right point (hi) and a wrong one (lo) are
// fit to: (n₊+1)/(n₊+2) and 1/(n₋+2).
func plattTargets(pts []point) (hi, lo float64) {
	var pos, neg float64
	for _, p := range pts {
		if p.right {
			pos++
		} else {
			neg++
		}
	}
	return (pos + 1) / (pos + 2), 1 / (neg + 2)
}

type point struct {
	score, lead float64
	right       bool
}

// platt fits σ(a·logit(score) + b) to the points (logistic without the
// lead).
func platt(pts []point) (a, b float64) {
	w := logistic(pts, false)
	return w[0], w[1]
}

// logistic fits σ(a·logit(score) [+ c·lead] + b) to the points by Newton's
// method on the log-likelihood, with Platt's targets ((n₊+1)/(n₊+2) for a
// right point, 1/(n₋+2) for a wrong one) so that a kind every suggestion of
// which was right, or wrong, still gets a finite curve. It returns (a, b),
// or with the lead (a, c, b).
func logistic(pts []point, lead bool) []float64 {
	hi, lo := plattTargets(pts)
	feats := func(p point) []float64 {
		if lead {
			return []float64{logit(p.score), p.lead, 1}
		}
		return []float64{logit(p.score), 1}
	}
	n := 2
	if lead {
		n = 3
	}
	w := make([]float64, n)
	w[0] = 1
	for iter := 0; iter < 100; iter++ {
		// The gradient and Hessian of the negative log-likelihood, as one
		// augmented matrix [H | g] for the Newton step H·d = g.
		m := make([][]float64, n)
		for i := range m {
			m[i] = make([]float64, n+1)
		}
		for _, p := range pts {
			x := feats(p)
			var z float64
			for i := range x {
				z += w[i] * x[i]
			}
			q := sigmoid(z)
			t := lo
			if p.right {
				t = hi
			}
			h := max(q*(1-q), 1e-12)
			for i := range x {
				m[i][n] += (q - t) * x[i]
				for j := range x {
					m[i][j] += h * x[i] * x[j]
				}
			}
		}
		d, ok := solve(m)
		if !ok {
			break
		}
		var step float64
		for i := range w {
			w[i] -= d[i]
			step = max(step, math.Abs(d[i]))
		}
		if step < 1e-10 {
			break
		}
	}
	return w
}

// solve solves the augmented system m = [A | y] by Gaussian elimination
// with partial pivoting; false when A is singular.
func solve(m [][]float64) ([]float64, bool) {
	n := len(m)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-12 {
			return nil, false
		}
		m[c], m[p] = m[p], m[c]
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = m[i][n] / m[i][i]
	}
	return out, true
}

//go:embed calibration.json
var calibrationJSON []byte

// DefaultCalibration is the calibration the server uses: fit on the
// leave-one-out answers over the seed corpus (ilgraph eval suggest
// --write-calibration writes suggest/calibration.json; a test checks it is
// still the fit).
var DefaultCalibration = mustParseCalibration(calibrationJSON)

// ParseCalibration reads a calibration written as JSON and checks every
// curve: a kind of the vocabulary, a language ("en" or "ko"), and a curve
// that rises (A > 0), so that the order of the terms stays the score's.
func ParseCalibration(b []byte) (*Calibration, error) {
	var cal Calibration
	if err := json.Unmarshal(b, &cal); err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	for _, c := range cal.Curves {
		if c.Lang != "en" && c.Lang != "ko" {
			return nil, fmt.Errorf("calibration: curve %s/%s: language %q, want en or ko", c.Lang, c.Kind, c.Lang)
		}
		if !slices.Contains(ilgraph.VocabKinds, c.Kind) {
			return nil, fmt.Errorf("calibration: curve %s/%s: unknown kind %q", c.Lang, c.Kind, c.Kind)
		}
		if !(c.A > 0) || math.IsInf(c.A, 0) || math.IsNaN(c.B) || math.IsInf(c.B, 0) || !(c.C >= 0) || math.IsInf(c.C, 0) {
			return nil, fmt.Errorf("calibration: curve %s/%s: a = %v, b = %v, c = %v: want a finite rising curve (a > 0, c ≥ 0)", c.Lang, c.Kind, c.A, c.B, c.C)
		}
	}
	return &cal, nil
}

func mustParseCalibration(b []byte) *Calibration {
	cal, err := ParseCalibration(b)
	if err != nil {
		panic(err)
	}
	return cal
}

// MarshalCalibration writes a calibration as ParseCalibration reads it.
func MarshalCalibration(cal *Calibration) ([]byte, error) {
	b, err := json.MarshalIndent(cal, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
