package relevance

import (
	"math"
	"sort"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
	"github.com/ilgraph/ilgraph/similarity"
)

// Ranker ranks the cases most like a query case (never the case itself).
type Ranker struct {
	Name string
	Rank func(query string, k int) []string
}

// TagWeights are the tag weights the similarity service shipped with before
// the text channel and the judged set: the "tags" rankers use them.
func TagWeights() ilgraph.Weights {
	return ilgraph.Weights{
		ilgraph.KindRootCause: 3, ilgraph.KindComponent: 1.5, ilgraph.KindSymptom: 1, ilgraph.KindContributing: 2,
		ilgraph.KindDomain: 0.5, ilgraph.KindOrg: 0.5, ilgraph.WeightText: 0,
	}
}

// OldRarity is the rarity factor before issue #16, 1 + ln((N+1)/(df+1)):
// the "tags+rarity" ranker keeps it, to compare with what was measured.
func OldRarity(n, df int) float64 { return 1 + math.Log(float64(n+1)/float64(df+1)) }

// Rows returns the index rows of cases.
func Rows(cases []ilgraph.Case) []ilgraph.CaseFeatures {
	rows := make([]ilgraph.CaseFeatures, len(cases))
	for i := range cases {
		rows[i] = ilgraph.SimilarityRow(&cases[i])
	}
	return rows
}

// IndexRanker ranks with the similarity index under opt.
func IndexRanker(name string, ix *similarity.Index, opt ilgraph.SimilarityOptions) Ranker {
	return Ranker{Name: name, Rank: func(q string, k int) []string {
		opt.K = k
		var ids []string
		for _, m := range ix.Similar(ix.Features(q), q, opt) {
			ids = append(ids, m.ID)
		}
		return ids
	}}
}

// Rankers are the rankers `ilgraph eval similar` compares and pools from:
//
//   - default: the service's defaults (ilgraph.DefaultOptions), through the
//     index;
//   - default-mech: the defaults with the mechanism weight at 0 (tags and
//     text only), to measure what the mechanism kind adds;
//   - tags: tags only, with TagWeights and no rarity weighting (the
//     defaults before issue #16);
//   - tags+rarity: the same with the rarity factor of that time (OldRarity);
//   - tags+steep: the same with today's steeper rarity factor
//     (ilgraph.Rarity), no text;
//   - text: the text channel alone (cosine of the text vectors);
//   - bm25: Okapi BM25 over the same analysed text, the query case's whole
//     text as the query;
//   - blend: 0.5 × the tags score + 0.5 × the text cosine, untuned;
//   - tfidf: TF-IDF cosine over each case's English title, summary, trigger
//     and lessons, names kept (TFIDF, ReportText): the plain text baseline a
//     reader would build first, untuned.
func Rankers(cases []ilgraph.Case) []Ranker {
	rows := Rows(cases)
	ix := similarity.Build(rows, 0)
	df := map[ilgraph.Feature]int{}
	for _, r := range rows {
		for _, f := range r.Features {
			df[f]++
		}
	}
	tw := TagWeights()
	n := len(rows)
	text := ilgraph.SimilarityOptions{Weights: ilgraph.Weights{
		ilgraph.KindRootCause: 0, ilgraph.KindComponent: 0, ilgraph.KindSymptom: 0, ilgraph.KindContributing: 0,
		ilgraph.KindDomain: 0, ilgraph.KindOrg: 0, ilgraph.WeightText: 1,
	}}
	noMech := ilgraph.DefaultOptions(0)
	noMech.Weights = ilgraph.DefaultWeights()
	noMech.Weights[ilgraph.KindMechanism] = 0
	return []Ranker{
		IndexRanker("default", ix, ilgraph.DefaultOptions(0)),
		IndexRanker("default-mech", ix, noMech),
		IndexRanker("tags", ix, ilgraph.SimilarityOptions{Weights: tw}),
		scoreRanker("tags+rarity", ix, rows, func(f ilgraph.Feature) float64 { return tw[f.Kind] * OldRarity(n, df[f]) }),
		IndexRanker("tags+steep", ix, ilgraph.SimilarityOptions{Weights: tw, Rarity: true}),
		IndexRanker("text", ix, text),
		bm25Ranker(rows, NoNames(cases)),
		blendRanker(ix, rows),
		NewTFIDF(cases, analysis.Options{}, ReportText).Ranker("tfidf"),
	}
}

// scoreRanker ranks by the tags-only definition (ilgraph.Score) under
// weight, by brute force.
func scoreRanker(name string, ix *similarity.Index, rows []ilgraph.CaseFeatures, weight func(ilgraph.Feature) float64) Ranker {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return Ranker{Name: name, Rank: func(q string, k int) []string {
		scores := make([]float64, len(rows))
		qf := ix.Features(q)
		for i, r := range rows {
			scores[i] = ilgraph.Score(qf, r.Features, weight).Score
		}
		return Ranked(ids, scores, q, k)
	}}
}

// Ranked returns the k best ids of scores (positive only, exclude left
// out), score descending (compared as ilgraph.RoundScore rounds it) then id:
// how every ranker here orders its answer.
func Ranked(ids []string, scores []float64, exclude string, k int) []string {
	var idx []int
	for i, s := range scores {
		if s > 0 && ids[i] != exclude {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		sa, sb := ilgraph.RoundScore(scores[idx[a]]), ilgraph.RoundScore(scores[idx[b]])
		if sa != sb {
			return sa > sb
		}
		return ids[idx[a]] < ids[idx[b]]
	})
	var out []string
	for i := 0; i < len(idx) && i < k; i++ {
		out = append(out, ids[idx[i]])
	}
	return out
}

func blendRanker(ix *similarity.Index, rows []ilgraph.CaseFeatures) Ranker {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	w := TagWeights()
	weight := func(f ilgraph.Feature) float64 { return w[f.Kind] }
	return Ranker{Name: "blend", Rank: func(q string, k int) []string {
		scores := make([]float64, len(rows))
		qf, qt := ix.Features(q), ix.TextVector(q)
		for i, r := range rows {
			scores[i] = 0.5*ilgraph.Score(qf, r.Features, weight).Score + 0.5*ilgraph.Cosine(qt, ix.TextVector(r.ID))
		}
		return Ranked(ids, scores, q, k)
	}}
}

func bm25Ranker(rows []ilgraph.CaseFeatures, opts analysis.Options) Ranker {
	an := analysis.New(opts)
	ids := make([]string, len(rows))
	docs := make([]map[string]int, len(rows))
	lens := make([]float64, len(rows))
	df := map[string]int{}
	var total float64
	byID := map[string]int{}
	for i, r := range rows {
		ids[i] = r.ID
		byID[r.ID] = i
		tf := map[string]int{}
		for _, t := range an.Tokens(r.Text) {
			if !t.Stop && t.Script != analysis.Digit {
				tf[t.Norm]++
				lens[i]++
			}
		}
		for t := range tf {
			df[t]++
		}
		docs[i] = tf
		total += lens[i]
	}
	n := float64(len(rows))
	avg := total / n
	const k1, b = 1.2, 0.75
	return Ranker{Name: "bm25", Rank: func(q string, k int) []string {
		qi, ok := byID[q]
		if !ok {
			return nil
		}
		scores := make([]float64, len(rows))
		for t := range docs[qi] {
			d := float64(df[t])
			idf := math.Log(1 + (n-d+0.5)/(d+0.5))
			for i, tf := range docs {
				if f := float64(tf[t]); f > 0 {
					scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*lens[i]/avg))
				}
			}
		}
		return Ranked(ids, scores, q, k)
	}}
}
