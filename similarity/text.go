package similarity

import (
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/analysis"
)

// calendar words say when, never how: months, weekdays, times of day and
// time zones, which every report is full of.
var calendar = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun
		am pm utc gmt pdt pst pt edt est et cet cest kst jst ist bst aest morning afternoon evening night
		yesterday today weekend weekday`) {
		calendar[w] = true
	}
}

// The text channel's vectors. A case's text (ilgraph.SimilarityText: its
// trigger and lessons) is
// analysed with vendor, product and the corpus's organization names left
// out; stop words, numbers, one-letter words and calendar words (months,
// weekdays, times of day, time zones) are dropped. A term's
// weight in a case is
//
//	(1 + ln tf) × ln(N / df)
//
// (tf: occurrences in the case, N: cases, df: cases with the term), over the
// terms with 2 ≤ df ≤ N/3 only: a term of one case cannot make two cases
// alike, and a term on more than a third of the cases ("outage", "server")
// says nothing about how a failure happened. Each case keeps its
// MaxTextTerms heaviest terms (ties by term), scaled to length 1, each
// weight then rounded to single precision (float32), which is how the index
// stores it: half the memory, and the vectors are still exactly the ones
// the index holds.
const (
	// MaxTextTerms is how many terms a case's text vector keeps.
	MaxTextTerms = 48
	// TextMinDF and TextMaxDFShare bound the document frequency of a term
	// the text channel uses.
	TextMinDF      = 2
	TextMaxDFShare = 1.0 / 3
)

// TextVectors computes the text channel's vector of every row (see above):
// the definition the index's text postings are built from.
func TextVectors(rows []ilgraph.CaseFeatures) []ilgraph.TextVector {
	vs, _ := textVectors(rows)
	return vs
}

// TextStats are the corpus statistics the text vectors follow: the number
// of cases, the document frequency of every term the channel uses (those
// with TextMinDF ≤ df ≤ N·TextMaxDFShare; any other term is left out), and
// the organization names the analyser leaves out.
type TextStats struct {
	N     int
	DF    map[string]int
	Extra []string
}

// textVectors computes the rows' text vectors under the rows' own
// statistics, and returns those statistics.
func textVectors(rows []ilgraph.CaseFeatures) ([]ilgraph.TextVector, TextStats) {
	st := TextStats{N: len(rows), DF: map[string]int{}, Extra: orgNames(rows)}
	tfs := termCounts(rows, st.Extra)
	df := map[string]int{}
	for _, tf := range tfs {
		for t := range tf {
			df[t]++
		}
	}
	for t, d := range df {
		if d >= TextMinDF && float64(d) <= float64(st.N)*TextMaxDFShare {
			st.DF[t] = d
		}
	}
	return vectorsFrom(tfs, st), st
}

// TextVectorsWith computes the rows' text vectors under frozen statistics
// (see Snapshot): the same definition with N, the document frequencies and
// the organization names taken from st rather than from the rows.
func TextVectorsWith(rows []ilgraph.CaseFeatures, st TextStats) []ilgraph.TextVector {
	return vectorsFrom(termCounts(rows, st.Extra), st)
}

// orgNames are the name parts of the rows' organizations, in the order the
// rows first name them.
func orgNames(rows []ilgraph.CaseFeatures) []string {
	var extra []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, name := range analysis.NameParts(r.Org) {
			if !seen[name] {
				seen[name] = true
				extra = append(extra, name)
			}
		}
	}
	return extra
}

// termCounts analyses each row's text, leaving out the names in extra, and
// counts its terms.
func termCounts(rows []ilgraph.CaseFeatures, extra []string) []map[string]int {
	an := analysis.New(analysis.Options{DropVendors: true, Extra: extra})
	// Analysing the texts is most of the work of a rebuild: on every core.
	tfs := make([]map[string]int, len(rows))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				tf := map[string]int{}
				for _, t := range an.Tokens(rows[i].Text) {
					if t.Stop || t.Script == analysis.Digit || len([]rune(t.Norm)) < 2 || calendar[strings.ToLower(t.Surface)] {
						continue
					}
					tf[t.Norm]++
				}
				tfs[i] = tf
			}
		}(w)
	}
	wg.Wait()
	return tfs
}

// vectorsFrom weighs term counts into text vectors under st.
func vectorsFrom(tfs []map[string]int, st TextStats) []ilgraph.TextVector {
	n := float64(st.N)
	out := make([]ilgraph.TextVector, len(tfs))
	type tw struct {
		t string
		w float64
	}
	for i, tf := range tfs {
		var ws []tw
		for t, f := range tf {
			d := st.DF[t]
			if d < TextMinDF || float64(d) > n*TextMaxDFShare {
				continue
			}
			ws = append(ws, tw{t, (1 + math.Log(float64(f))) * math.Log(n/float64(d))})
		}
		sort.Slice(ws, func(a, b int) bool {
			if ws[a].w != ws[b].w {
				return ws[a].w > ws[b].w
			}
			return ws[a].t < ws[b].t
		})
		if len(ws) > MaxTextTerms {
			ws = ws[:MaxTextTerms]
		}
		var norm float64
		for _, x := range ws {
			norm += x.w * x.w
		}
		v := make(ilgraph.TextVector, len(ws))
		for _, x := range ws {
			v[x.t] = float64(float32(x.w / math.Sqrt(norm)))
		}
		out[i] = v
	}
	return out
}
