// Package gen writes synthetic corpora in the incident-library format for
// benchmarks and scale tests. Output is deterministic for a seed and
// streamed: a million cases never sit in memory together.
//
// The shape follows the seed corpus: root causes are drawn with the seed
// corpus's frequencies, and each case's components, symptoms, contributing
// factors and domains are drawn given its root cause with the co-occurrence
// frequencies the seed corpus shows (smoothed so that every vocabulary term
// can appear). Organizations follow a Zipf law (a few large, a long tail);
// dates span fifteen years, denser in recent years; about one case in
// twenty is related to an earlier case with the same root cause.
package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/ilgraph/ilgraph"
)

// IDPrefix starts every generated id; the seed corpus uses IL- and ILG-.
const IDPrefix = "GEN-"

// Options for a corpus.
type Options struct {
	Cases int
	Seed  uint64
	// Vocab is the vocabulary to tag with; Prior the cases whose
	// frequencies the generated ones follow (the seed corpus).
	Vocab *ilgraph.Vocabulary
	Prior []*ilgraph.Case
}

// modelKinds are the list kinds whose per-cause frequencies the model
// learns; generated cases draw the first four with the main generator and
// mechanisms with the text generator (so that adding mechanisms left the
// other tags of a seed's corpus as they were).
var modelKinds = []ilgraph.Kind{ilgraph.KindComponent, ilgraph.KindSymptom, ilgraph.KindContributing, ilgraph.KindDomain, ilgraph.KindMechanism}

// Model holds the distributions a corpus is drawn from.
type Model struct {
	causes     dist
	byCause    map[string]map[ilgraph.Kind]termProbs
	orgs       int
	zipfOrg    *rand.Zipf
	rng        *rand.Rand
	start, end time.Time
	// Per cause, the prior cases' triggers and lessons, which generated
	// cases reuse (one of each, drawn apart) so that the text channel of
	// similarity has text of a realistic length and vocabulary to index.
	// They are drawn with their own generator, so that the tags stay as
	// they were before generated cases had text.
	triggers, lessons map[string][]string
	textRng           *rand.Rand
}

type dist struct {
	ids []string
	cum []float64
}

func newDist(weights map[string]float64) dist {
	var d dist
	for id := range weights {
		d.ids = append(d.ids, id)
	}
	sort.Strings(d.ids)
	total := 0.0
	for _, id := range d.ids {
		total += weights[id]
		d.cum = append(d.cum, total)
	}
	for i := range d.cum {
		d.cum[i] /= total
	}
	return d
}

func (d dist) draw(r *rand.Rand) string {
	x := r.Float64()
	i := sort.SearchFloat64s(d.cum, x)
	if i >= len(d.ids) {
		i = len(d.ids) - 1
	}
	return d.ids[i]
}

// termProbs gives each term of a kind an independent inclusion probability.
type termProbs struct {
	ids   []string
	probs []float64
	mean  float64 // expected number of terms, for fallbacks
}

// NewModel estimates the distributions from the prior cases.
func NewModel(opt Options) *Model {
	m := &Model{byCause: map[string]map[ilgraph.Kind]termProbs{}}
	m.rng = rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	m.textRng = rand.New(rand.NewPCG(opt.Seed^0x5851f42d4c957f2d, opt.Seed))
	m.triggers, m.lessons = map[string][]string{}, map[string][]string{}
	for _, c := range opt.Prior {
		if c.Trigger.En != "" {
			m.triggers[c.RootCause] = append(m.triggers[c.RootCause], c.Trigger.En)
			m.triggers[""] = append(m.triggers[""], c.Trigger.En)
		}
		if c.Lessons.En != "" {
			m.lessons[c.RootCause] = append(m.lessons[c.RootCause], c.Lessons.En)
			m.lessons[""] = append(m.lessons[""], c.Lessons.En)
		}
	}
	causeCount := map[string]float64{}
	for _, t := range opt.Vocab.Kinds[ilgraph.KindRootCause] {
		causeCount[t.ID] = 0.5 // every cause possible
	}
	for _, c := range opt.Prior {
		causeCount[c.RootCause]++
	}
	m.causes = newDist(causeCount)
	// Per cause, how often each term of each kind appears with it; smoothed
	// toward the term's overall frequency.
	overall := map[ilgraph.Kind]map[string]float64{}
	perCause := map[string]map[ilgraph.Kind]map[string]float64{}
	listsPerCause := map[string]map[ilgraph.Kind]float64{}
	for _, c := range opt.Prior {
		if perCause[c.RootCause] == nil {
			perCause[c.RootCause] = map[ilgraph.Kind]map[string]float64{}
			listsPerCause[c.RootCause] = map[ilgraph.Kind]float64{}
		}
		for _, k := range modelKinds {
			if overall[k] == nil {
				overall[k] = map[string]float64{}
			}
			if perCause[c.RootCause][k] == nil {
				perCause[c.RootCause][k] = map[string]float64{}
			}
			for _, t := range c.Tags(k) {
				overall[k][t]++
				perCause[c.RootCause][k][t]++
			}
			listsPerCause[c.RootCause][k] += float64(len(c.Tags(k)))
		}
	}
	n := float64(max(len(opt.Prior), 1))
	for _, cause := range m.causes.ids {
		m.byCause[cause] = map[ilgraph.Kind]termProbs{}
		nc := causeCount[cause]
		for _, k := range modelKinds {
			var tp termProbs
			meanLen := 2.5
			if nc >= 1 {
				meanLen = listsPerCause[cause][k] / math.Max(nc-0.5, 1)
			}
			terms := opt.Vocab.Kinds[k]
			raw := make([]float64, len(terms))
			sum := 0.0
			for i, t := range terms {
				p := (perCause[cause][k][t.ID] + 0.3*overall[k][t.ID]/n + 0.05) / math.Max(nc, 1)
				raw[i] = p
				sum += p
			}
			for i, t := range terms {
				tp.ids = append(tp.ids, t.ID)
				tp.probs = append(tp.probs, math.Min(0.95, raw[i]/sum*math.Max(meanLen, 1)))
			}
			tp.mean = meanLen
			m.byCause[cause][k] = tp
		}
	}
	m.orgs = max(50, opt.Cases/25)
	m.zipfOrg = rand.NewZipf(m.rng, 1.15, 4, uint64(m.orgs-1))
	m.start = time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC)
	m.end = time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	return m
}

// Write streams opt.Cases generated cases to w as JSON Lines.
func Write(w io.Writer, opt Options) error {
	m := NewModel(opt)
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	recent := map[string][]string{} // per cause, the last ids, for related links
	for i := 1; i <= opt.Cases; i++ {
		c := m.next(i, recent)
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ID returns the id of the i-th generated case (1-based).
func ID(i int) string { return fmt.Sprintf("%s%07d", IDPrefix, i) }

func (m *Model) next(i int, recent map[string][]string) *ilgraph.Case {
	r := m.rng
	cause := m.causes.draw(r)
	c := &ilgraph.Case{
		ID:        ID(i),
		RootCause: cause,
		Severity:  []string{"unknown", "sev1", "sev2", "sev3"}[r.IntN(4)],
		DateKind:  "incident",
	}
	org := int(m.zipfOrg.Uint64()) + 1
	c.Org = fmt.Sprintf("Generated Org %04d", org)
	c.OrgSlug = fmt.Sprintf("generated-org-%04d", org)
	// Dates: density grows linearly over the fifteen years.
	span := m.end.Sub(m.start).Hours() / 24
	day := span * math.Sqrt(r.Float64())
	c.Date = m.start.AddDate(0, 0, int(day)).Format(ilgraph.DateLayout)
	for _, k := range []ilgraph.Kind{ilgraph.KindComponent, ilgraph.KindSymptom, ilgraph.KindContributing, ilgraph.KindDomain} {
		tp := m.byCause[cause][k]
		var tags []string
		for j, id := range tp.ids {
			if r.Float64() < tp.probs[j] {
				tags = append(tags, id)
			}
		}
		if len(tags) == 0 {
			// Every case has at least one term of each kind, like the seeds.
			tags = []string{tp.ids[weightedIndex(r, tp.probs)]}
		}
		switch k {
		case ilgraph.KindComponent:
			c.Components = tags
		case ilgraph.KindSymptom:
			c.Symptoms = tags
		case ilgraph.KindContributing:
			c.Contributing = tags
		case ilgraph.KindDomain:
			c.Domain = tags
		}
	}
	if tp := m.byCause[cause][ilgraph.KindMechanism]; len(tp.ids) > 0 {
		for j, id := range tp.ids {
			if m.textRng.Float64() < tp.probs[j] {
				c.Mechanisms = append(c.Mechanisms, id)
			}
		}
	}
	c.Related = []string{}
	if prev := recent[cause]; len(prev) > 0 && r.IntN(20) == 0 {
		c.Related = []string{prev[r.IntN(len(prev))]}
	}
	recent[cause] = append(recent[cause], c.ID)
	if len(recent[cause]) > 200 {
		recent[cause] = recent[cause][1:]
	}
	minutes := int(math.Exp(r.NormFloat64()*1.2+5)) + 1 // median ≈ 2.5 hours
	c.Timeline.ResolvedAfter = ilgraph.FormatDuration(minutes)
	c.Title = ilgraph.Text{En: fmt.Sprintf("Generated incident %d: %s affecting %s", i, cause, c.Components[0])}
	c.Summary = ilgraph.Text{En: fmt.Sprintf("A synthetic %s incident at %s with %s.", cause, c.Org, c.Symptoms[0])}
	pick := func(texts map[string][]string) string {
		ts := texts[cause]
		if len(ts) == 0 {
			ts = texts[""]
		}
		if len(ts) == 0 {
			return ""
		}
		return ts[m.textRng.IntN(len(ts))]
	}
	c.Trigger = ilgraph.Text{En: pick(m.triggers)}
	c.Lessons = ilgraph.Text{En: pick(m.lessons)}
	c.Remediation = []ilgraph.Item{{Text: ilgraph.Text{En: "Mitigated the synthetic failure."}}}
	c.ActionItems = []ilgraph.Item{{Text: ilgraph.Text{En: "Follow up on the synthetic failure."}}}
	c.Impact = ilgraph.Impact{Scope: "synthetic", Users: "unknown", Region: "global"}
	c.Sources = []ilgraph.Source{{URL: "https://example.com/generated/" + c.ID, Kind: "generated"}}
	c.Docs = []json.RawMessage{}
	c.Review = ilgraph.Review{WrittenBy: "generator"}
	return c
}

func weightedIndex(r *rand.Rand, ws []float64) int {
	total := 0.0
	for _, w := range ws {
		total += w
	}
	x := r.Float64() * total
	for i, w := range ws {
		x -= w
		if x <= 0 {
			return i
		}
	}
	return len(ws) - 1
}
