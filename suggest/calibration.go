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
// leave-one-out suggestion was a tag of its case. It has two parameters, so
// a few hundred suggestions per kind fit it without chasing noise, and it
// rises strictly, so the order of the terms and every cut-off on it keep
// their meaning. (Isotonic regression was tried first: with a few hundred
// suggestions its top block pooled every root cause scored above 0.6 into
// one confidence, 0.59, and no root cause could be told apart as sure.)

// Curve maps a kind's score in one language onto the precision measured at
// it: σ(A·logit(score) + B), the score clamped to [scoreFloor, 1 −
// scoreFloor]. N is how many suggestions it was fit on.
type Curve struct {
	Lang string       `json:"lang"`
	Kind ilgraph.Kind `json:"kind"`
	A    float64      `json:"a"`
	B    float64      `json:"b"`
	N    int          `json:"n"`
}

// scoreFloor keeps a score's log-odds finite.
const scoreFloor = 0.005

func logit(x float64) float64 {
	x = min(max(x, scoreFloor), 1-scoreFloor)
	return math.Log(x / (1 - x))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// At is the curve's value at score x.
func (c *Curve) At(x float64) float64 { return sigmoid(c.A*logit(x) + c.B) }

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
		for i, s := range ss {
			s.Confidence = round(c.At(s.Score))
			cs[i] = s
		}
		out.ByKind[k] = cs
	}
	return &out
}

// calibrationDepth is how many of each answer's best suggestions of a kind
// a curve is fit on: for the root cause the best one (a case has one, and
// the best is what a profile takes and a chip shows), for the other kinds
// as many as any cut-off may let into a profile (calibrateMaxTerms). A
// root cause ranked below the best gets the same curve.
func calibrationDepth(k ilgraph.Kind) int {
	if k == ilgraph.KindRootCause {
		return 1
	}
	return calibrateMaxTerms
}

// fit calibrates uncalibrated answers: for every language and kind, the
// Platt curve of right (1) or wrong (0) on the score, over each answer's
// calibrationDepth best suggestions.
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
				for _, s := range a.res.Top(k, calibrationDepth(k), 0) {
					pts = append(pts, point{s.Score, tags[s.ID]})
				}
			}
			if len(pts) == 0 {
				continue
			}
			a, b := platt(pts)
			cal.Curves = append(cal.Curves, Curve{Lang: lang, Kind: k, A: round(a), B: round(b), N: len(pts)})
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
	score float64
	right bool
}

// platt fits σ(a·logit(score) + b) to the points by Newton's method on the
// log-likelihood, with Platt's targets ((n₊+1)/(n₊+2) for a right point,
// 1/(n₋+2) for a wrong one) so that a kind every suggestion of which was
// right, or wrong, still gets a finite curve.
func platt(pts []point) (a, b float64) {
	hi, lo := plattTargets(pts)
	a, b = 1, 0
	for iter := 0; iter < 100; iter++ {
		// Gradient and Hessian of the negative log-likelihood in (a, b).
		var ga, gb, haa, hab, hbb float64
		for _, p := range pts {
			x := logit(p.score)
			q := sigmoid(a*x + b)
			t := lo
			if p.right {
				t = hi
			}
			d := q - t
			w := max(q*(1-q), 1e-12)
			ga += d * x
			gb += d
			haa += w * x * x
			hab += w * x
			hbb += w
		}
		haa += 1e-9
		hbb += 1e-9
		det := haa*hbb - hab*hab
		if det <= 0 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		a, b = a-da, b-db
		if math.Abs(da) < 1e-10 && math.Abs(db) < 1e-10 {
			break
		}
	}
	return a, b
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
		if !(c.A > 0) || math.IsInf(c.A, 0) || math.IsNaN(c.B) || math.IsInf(c.B, 0) {
			return nil, fmt.Errorf("calibration: curve %s/%s: a = %v, b = %v: want a finite rising curve (a > 0)", c.Lang, c.Kind, c.A, c.B)
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
