package similarity

import (
	"reflect"
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
// pools (made on demand, no state of the index) and Built. It reads them
// by reflection, so that a field added later is compared too.
func IndexFields(ix *Index) map[string]any {
	v := reflect.ValueOf(ix).Elem()
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		switch name {
		case "scratch", "rankMu", "rankPools", "Built":
			continue
		}
		f := v.Field(i)
		out[name] = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	return out
}
