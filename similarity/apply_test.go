package similarity_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestIndexWithMatchesBruteForce: an index reached by changes — creates,
// updates (some of a case twice) and deletes, in random order, from a
// start that lacks a third of the final cases, holds wrong versions of
// another third and decoys — ranks exactly as brute force over the final
// cases does: rarity over the final corpus, the text vectors of cases the
// changes left alone as the start's build weighed them, and those of the
// changed cases weighed with the start's text statistics. The ranking
// that serves a case's similar cases (SimilarTo) is asked too. The
// changes are applied one at a time (With) and in batches of one to eight
// (WithAll, as a replica follows the change feed).
func TestIndexWithMatchesBruteForce(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("batched_%v", batched), func(t *testing.T) { indexWithMatchesBruteForce(t, batched) })
	}
}

func indexWithMatchesBruteForce(t *testing.T, batched bool) {
	final := generated(t, 600, 42)
	decoys := generated(t, 60, 9)
	r := rand.New(rand.NewPCG(4, 2))
	type change struct {
		id string
		c  *ilgraph.Case // nil: delete
	}
	var start []*ilgraph.Case
	byCase := map[string][]change{}
	var order []string
	add := func(id string, c *ilgraph.Case) {
		if byCase[id] == nil {
			order = append(order, id)
		}
		byCase[id] = append(byCase[id], change{id, c})
	}
	wrong := func(id string) *ilgraph.Case {
		w := *final[r.IntN(len(final))]
		w.ID = id
		return &w
	}
	for i, c := range final {
		switch i % 3 {
		case 0:
			add(c.ID, c)
		case 1:
			start = append(start, wrong(c.ID))
			if i%2 == 0 {
				add(c.ID, wrong(c.ID))
			}
			add(c.ID, c)
		default:
			start = append(start, c)
		}
	}
	for i, d := range decoys {
		x := *d
		x.ID = fmt.Sprintf("ZZ-DECOY-%03d", i)
		if i%2 == 0 {
			start = append(start, &x)
		} else {
			add(x.ID, &x)
		}
		add(x.ID, nil)
	}
	r.Shuffle(len(start), func(i, j int) { start[i], start[j] = start[j], start[i] })

	ix := similarity.Build(rowsOf(start), 1)
	// The changes share the start's arena of text vectors, and a second
	// change is applied to the start too: neither may alter the start's.
	first, firstVecs := ix, similarity.IndexFields(ix)["textVec"]
	firstPost := fmt.Sprint(similarity.IndexFields(ix)["textPost"]) // a copy: changes may share its lists
	firstAnswer := ix.SimilarTo(start[0].ID, ilgraph.DefaultOptions(10))
	snap := ix.Corpus()
	version := int64(1)
	changed := map[string]bool{}
	for len(order) > 0 {
		size := 1
		if batched {
			size = 1 + r.IntN(8)
		}
		var edits []memstore.Edit
		var texts []string
		for ; size > 0 && len(order) > 0; size-- {
			k := r.IntN(len(order))
			ch := byCase[order[k]][0]
			if byCase[ch.id] = byCase[ch.id][1:]; len(byCase[ch.id]) == 0 {
				order = slices.Delete(order, k, k+1)
			}
			version++
			var row *ilgraph.CaseFeatures
			text := ""
			if ch.c != nil {
				x := ilgraph.SimilarityRow(ch.c)
				row, text = &x, x.Text
			}
			edits, texts = append(edits, memstore.Edit{ID: ch.id, Row: row}), append(texts, text)
			changed[ch.id] = true
		}
		if !batched {
			next, m := snap.With(version, edits[0].ID, edits[0].Row)
			ix, snap = ix.With(next, m, texts[0]), next
		} else {
			next, moves := snap.WithAll(version, edits)
			ix, snap = ix.WithAll(next, moves, texts), next
		}
		if version%5 == 0 && ix.Len() > 0 {
			// The ranker's bitsets are made here and followed by the
			// changes after: the final index's are followed ones.
			ix.SimilarTo(snap.ID(0), ilgraph.DefaultOptions(10))
		}
	}
	if f := similarity.WrongBits(ix); f != "" {
		t.Errorf("after the changes, the bitset of %s is not its postings'", f)
	}
	if branch := first.Corpus(); branch.Len() > 0 {
		x := ilgraph.SimilarityRow(final[len(final)-1])
		x.ID = "ZZ-BRANCH"
		next, m := branch.With(version+1, x.ID, &x)
		if got := first.With(next, m, x.Text); got.Len() != first.Len()+1 {
			t.Fatalf("a branch from the start has %d cases, want %d", got.Len(), first.Len()+1)
		}
	}
	if got := similarity.IndexFields(first)["textVec"]; !reflect.DeepEqual(got, firstVecs) {
		t.Error("the changes altered the text vectors of the index they started from")
	}
	if got := fmt.Sprint(similarity.IndexFields(first)["textPost"]); got != firstPost {
		t.Error("the changes altered the text postings of the index they started from")
	}
	sameMatches(t, "the start after the changes", first.SimilarTo(start[0].ID, ilgraph.DefaultOptions(10)), firstAnswer)
	if ix.Len() != len(final) || ix.Version != version {
		t.Fatalf("after the changes: %d cases at version %d, want %d at %d", ix.Len(), ix.Version, len(final), version)
	}
	if term := similarity.WrongTextTops(ix); term != "" {
		t.Errorf("after the changes, the postings of %q hold a top that is not their largest bound", term)
	}

	brute := corpus.NewBrute(final)
	startRows := rowsOf(start)
	startVecs := similarity.TextVectors(startRows)
	stats := similarity.OwnTextStats(startRows)
	for i, c := range start {
		if !changed[c.ID] {
			brute.Text[c.ID] = startVecs[i]
		}
	}
	for _, c := range final {
		if changed[c.ID] {
			brute.Text[c.ID] = similarity.TextVectorsWith(rowsOf([]*ilgraph.Case{c}), stats)[0]
		}
	}
	for wi, w := range weightSettings {
		for _, rarity := range []bool{false, true} {
			for i := 0; i < len(final); i += 37 {
				c := final[i]
				opt := ilgraph.SimilarityOptions{K: 10, Weights: w, Rarity: rarity}
				label := fmt.Sprintf("weights #%d rarity %v case %s (changed %v)", wi, rarity, c.ID, changed[c.ID])
				want := brute.Similar(c, 10, w, rarity, nil)
				sameMatches(t, label, ix.Similar(c.Features(), c.ID, opt), want)
				// The served path: the max-score ranker, whose bounds
				// (each term's largest weight) follow the changes too.
				sameMatches(t, label+", SimilarTo", ix.SimilarTo(c.ID, opt), want)
			}
		}
	}
	profile := []ilgraph.Feature{{Kind: ilgraph.KindSymptom, ID: "high-latency"}, {Kind: ilgraph.KindComponent, ID: "message-broker"}}
	opt := ilgraph.SimilarityOptions{K: 20, Weights: ilgraph.DefaultWeights(), Rarity: true}
	sameMatches(t, "profile", ix.Similar(profile, "", opt), brute.ToFeatures(profile, "", 20, opt.Weights, true, nil))
	// The decoys are gone from the ranking as from the corpus.
	for _, m := range ix.Similar(final[0].Features(), final[0].ID, ilgraph.SimilarityOptions{K: len(final), Weights: ilgraph.DefaultWeights()}) {
		if len(m.ID) > 3 && m.ID[:3] == "ZZ-" {
			t.Fatalf("deleted case %s still ranks", m.ID)
		}
	}
}
