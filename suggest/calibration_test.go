package suggest

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// nll is the negative log-likelihood platt minimises, with its targets.
func nll(pts []point, a, b float64) float64 {
	hi, lo := plattTargets(pts)
	var sum float64
	for _, p := range pts {
		q := sigmoid(a*logit(p.score) + b)
		t := lo
		if p.right {
			t = hi
		}
		sum -= t*math.Log(q) + (1-t)*math.Log(1-q)
	}
	return sum
}

// TestPlattFindsTheMaximumLikelihood: on points drawn so that the share
// right at each score is σ(2·logit(score) − 1), the fit comes back near
// (2, −1), and no point of a grid around it has a lower loss.
func TestPlattFindsTheMaximumLikelihood(t *testing.T) {
	var pts []point
	for _, x := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
		right := int(math.Round(200 * sigmoid(2*logit(x)-1)))
		for i := 0; i < 200; i++ {
			pts = append(pts, point{x, 0, i < right})
		}
	}
	a, b := platt(pts)
	if math.Abs(a-2) > 0.05 || math.Abs(b+1) > 0.05 {
		t.Errorf("fit a = %.3f, b = %.3f, want about 2 and -1", a, b)
	}
	best := nll(pts, a, b)
	for _, da := range []float64{-0.01, 0, 0.01} {
		for _, db := range []float64{-0.01, 0, 0.01} {
			if l := nll(pts, a+da, b+db); l < best-1e-9 {
				t.Errorf("loss at (%.3f, %.3f) is %.6f, below the fit's %.6f", a+da, b+db, l, best)
			}
		}
	}
}

// With the lead: on points whose score says nothing (0.3 and 0.7 alike,
// right as often) and whose share right at each lead is σ(4·lead − 0.5),
// the fit comes back near a = 0, c = 4, b = −0.5.
func TestLogisticWithLead(t *testing.T) {
	var pts []point
	for _, lead := range []float64{-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6} {
		right := int(math.Round(400 * sigmoid(4*lead-0.5)))
		for i := 0; i < 400; i++ {
			score := 0.3
			if i%2 == 1 {
				score = 0.7
			}
			pts = append(pts, point{score, lead, i < right})
		}
	}
	w := logistic(pts, true)
	if math.Abs(w[0]) > 0.05 || math.Abs(w[1]-4) > 0.1 || math.Abs(w[2]+0.5) > 0.05 {
		t.Errorf("fit a = %.3f, c = %.3f, b = %.3f, want about 0, 4 and -0.5", w[0], w[1], w[2])
	}
}

// A kind all of whose suggestions were right, or wrong, still gets a
// finite, rising curve (Platt's targets), near 1 or 0.
func TestPlattOneSided(t *testing.T) {
	for _, right := range []bool{true, false} {
		var pts []point
		for i := 0; i < 50; i++ {
			pts = append(pts, point{0.2 + 0.6*float64(i)/50, 0, right})
		}
		a, b := platt(pts)
		c := Curve{Lang: "en", Kind: ilgraph.KindComponent, A: a, B: b}
		if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
			t.Fatalf("right=%v: a = %v, b = %v", right, a, b)
		}
		mid := c.At(0.5, 0)
		if right && mid < 0.9 || !right && mid > 0.1 {
			t.Errorf("right=%v: confidence at 0.5 is %.3f", right, mid)
		}
	}
}

// Apply maps each suggestion's score through its language's and kind's
// curve, keeps the score and the order, and leaves a kind without a curve
// and the input alone.
func TestApply(t *testing.T) {
	cal := &Calibration{Curves: []Curve{
		{Lang: "en", Kind: ilgraph.KindComponent, A: 1.2, B: -1, N: 10},
		{Lang: "ko", Kind: ilgraph.KindComponent, A: 0.5, B: 2, N: 10},
	}}
	k := ilgraph.KindComponent
	in := &Result{Lang: "en", ByKind: map[ilgraph.Kind][]Suggestion{
		k:                   {{Kind: k, ID: "a", Confidence: 0.9, Score: 0.9}, {Kind: k, ID: "b", Confidence: 0.5, Score: 0.5}, {Kind: k, ID: "c", Confidence: 0.2, Score: 0.2}},
		ilgraph.KindSymptom: {{Kind: ilgraph.KindSymptom, ID: "s", Confidence: 0.7, Score: 0.7}},
	}}
	out := cal.Apply(in)
	var prev = 2.0
	for i, s := range out.ByKind[k] {
		want := round(sigmoid(1.2*math.Log(s.Score/(1-s.Score)) - 1))
		if s.Confidence != want || s.Score != in.ByKind[k][i].Score || s.ID != in.ByKind[k][i].ID {
			t.Errorf("%d: %+v, want %s scored %.2f at confidence %.4f", i, s, in.ByKind[k][i].ID, in.ByKind[k][i].Score, want)
		}
		if s.Confidence > prev {
			t.Errorf("%d: confidence %.4f after %.4f: the order by confidence is lost", i, s.Confidence, prev)
		}
		prev = s.Confidence
	}
	if got := out.ByKind[ilgraph.KindSymptom][0].Confidence; got != 0.7 {
		t.Errorf("symptom without a curve: confidence %.2f, want its score 0.7", got)
	}
	if in.ByKind[k][0].Confidence != 0.9 {
		t.Error("Apply changed its input")
	}
	if ko := cal.Apply(&Result{Lang: "ko", ByKind: map[ilgraph.Kind][]Suggestion{k: {{Kind: k, ID: "a", Confidence: 0.9, Score: 0.9}}}}); ko.ByKind[k][0].Confidence == out.ByKind[k][0].Confidence {
		t.Error("a Korean answer took the English curve")
	}
	// A root cause's confidence weighs its lead: the best, far ahead, is
	// surer than its score alone says; the order holds.
	rc := ilgraph.KindRootCause
	lead := &Calibration{Curves: []Curve{{Lang: "en", Kind: rc, A: 1, C: 3, B: -0.5, N: 10}}}
	r := lead.Apply(&Result{Lang: "en", ByKind: map[ilgraph.Kind][]Suggestion{rc: {
		{Kind: rc, ID: "p", Score: 0.6}, {Kind: rc, ID: "q", Score: 0.2}, {Kind: rc, ID: "r", Score: 0.1}}}})
	wantRC := []float64{sigmoid(logit(0.6) + 3*0.4 - 0.5), sigmoid(logit(0.2) + 3*-0.4 - 0.5), sigmoid(logit(0.1) + 3*-0.5 - 0.5)}
	for i, s := range r.ByKind[rc] {
		if s.Confidence != round(wantRC[i]) {
			t.Errorf("root cause %s: confidence %.4f, want %.4f", s.ID, s.Confidence, round(wantRC[i]))
		}
		if i > 0 && s.Confidence > r.ByKind[rc][i-1].Confidence {
			t.Errorf("root cause %s: confidence %.4f above the one before it", s.ID, s.Confidence)
		}
	}
	var none *Calibration
	if none.Apply(in) != in {
		t.Error("a nil calibration changed the answer")
	}
}

// The engine serves calibrated confidences with the scores beside them;
// with Uncalibrated, the scores are the confidences.
func TestEngineCalibrates(t *testing.T) {
	v, cases, full := seeds(t)
	raw, err := New(v, cases, Options{Names: orgNames(cases), Uncalibrated: true})
	if err != nil {
		t.Fatal(err)
	}
	const text = "kafka consumers lag and the broker disks are filling up; producers time out"
	got, err := full.Suggest(text, "en", "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := raw.Suggest(text, "en", "")
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, k := range ilgraph.VocabKinds {
		if len(got.ByKind[k]) != len(want.ByKind[k]) {
			t.Fatalf("%s: %d suggestions calibrated, %d not", k, len(got.ByKind[k]), len(want.ByKind[k]))
		}
		c := DefaultCalibration.curve("en", k)
		for i, s := range got.ByKind[k] {
			w := want.ByKind[k][i]
			if w.Confidence != w.Score {
				t.Errorf("uncalibrated %s %s: confidence %.4f, score %.4f", k, w.ID, w.Confidence, w.Score)
			}
			// The lead: the score less the best of the other terms' scores.
			other := 0.0
			for j, o := range want.ByKind[k] {
				if j != i {
					other = max(other, o.Score)
				}
			}
			if len(want.ByKind[k]) == 1 {
				other = 0
			}
			wantC := round(sigmoid(c.A*logit(w.Score) + c.C*(w.Score-other) + c.B))
			if s.ID != w.ID || s.Score != w.Score || s.Confidence != wantC {
				t.Errorf("%s %d: %s %.4f (score %.4f), want %s at %.4f (score %.4f)", k, i, s.ID, s.Confidence, s.Score, w.ID, wantC, w.Score)
			}
			if s.Confidence != s.Score {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("no confidence changed: the calibration is not applied")
	}
}

func TestParseCalibration(t *testing.T) {
	if len(DefaultCalibration.Curves) != 2*len(ilgraph.VocabKinds) {
		t.Errorf("DefaultCalibration has %d curves, want one per language and kind (%d)", len(DefaultCalibration.Curves), 2*len(ilgraph.VocabKinds))
	}
	b, err := MarshalCalibration(DefaultCalibration)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCalibration(b)
	if err != nil || !slices.Equal(back.Curves, DefaultCalibration.Curves) {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"curves":[{"lang":"fr","kind":"component","a":1,"b":0}]}`, `language "fr"`},
		{`{"curves":[{"lang":"en","kind":"colour","a":1,"b":0}]}`, `unknown kind "colour"`},
		{`{"curves":[{"lang":"en","kind":"component","a":0,"b":0}]}`, `rising curve`},
		{`{"curves":[{"lang":"en","kind":"component","a":-1,"b":0}]}`, `rising curve`},
		{`{"curves":[{"lang":"en","kind":"root_cause","a":1,"b":0,"c":-2}]}`, `rising curve`},
		{`{"curves":[`, `calibration:`},
	} {
		_, err := ParseCalibration([]byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.json, err, tc.want)
		}
	}
}
