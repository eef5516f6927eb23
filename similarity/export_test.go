package similarity

import (
	"reflect"
	"slices"
	"unsafe"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/memstore"
)

// RankSample is topKOf over every step-th case of ix.
func RankSample(ix *Index, step, k int, opt ilgraph.SimilarityOptions) [][]ilgraph.SimilarLink {
	var some []int32
	for i := 0; i < ix.Len(); i += step {
		some = append(some, int32(i))
	}
	return topKOf(ix, some, k, opt)
}

// OwnTextStats are the text statistics of rows, as a build over them
// weighs their texts with.
func OwnTextStats(rows []ilgraph.CaseFeatures) TextStats {
	_, st := textVectors(rows)
	return st
}

// NewConsumer returns the consumer a Service registers with its source,
// which builds, saves and loads its index.
func NewConsumer() memstore.Persister { return &consumer{} }

// IndexFields are ix's fields by name, for comparing two indexes field by
// field: every field but the per-query scratch pool, the rankers' lock and
// pools, the text analyzer and the common features' bitsets (made on
// demand, no state of the index) and Built. It reads them
// by reflection, so that a field added later is compared too.
func IndexFields(ix *Index) map[string]any {
	v := reflect.ValueOf(ix).Elem()
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		switch name {
		case "scratch", "rankMu", "rankPools", "textAn", "bits", "Built":
			continue
		}
		if name == "textVec" { // its records as read, not their places in the arena
			out[name] = ix.textVec.list()
			continue
		}
		f := v.Field(i)
		out[name] = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	return out
}

// WrongTextTops names the first term whose postings' top is not the
// largest of their bounds ("" when every term's is).
func WrongTextTops(ix *Index) string {
	for id, p := range ix.textPost {
		var q uint8
		for _, u := range p.ub {
			q = max(q, u)
		}
		if p.top != q {
			return ix.terms[id]
		}
	}
	return ""
}

// WrongBits names the first feature whose bitset (as made or followed)
// is not the one its postings make ("" when every feature's is, or the
// bitsets are not made).
func WrongBits(ix *Index) string {
	if !ix.bits.made.Load() {
		return ""
	}
	var fresh featureBits
	want := fresh.get(ix, nil)
	for f := range ix.features {
		if !slices.Equal(ix.bits.sets[f], want[f]) {
			return string(ix.features[f].Kind) + ":" + ix.features[f].ID
		}
	}
	return ""
}
