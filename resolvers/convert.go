package resolvers

import (
	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
)

func itemTexts(items []ilgraph.Item) []ilgraph.Text {
	out := make([]ilgraph.Text, len(items))
	for i, it := range items {
		out[i] = it.Text
	}
	return out
}

func nonNilCounts(ts []graph.TermCount) []graph.TermCount {
	return append([]graph.TermCount{}, ts...)
}

// measured hides a quantile of a distribution with no measured case.
func measured(d *graph.Distribution, v int) *int {
	if d.Measured == 0 {
		return nil
	}
	return &v
}

func minutes(s string) *int {
	if s == "" {
		return nil
	}
	m, err := ilgraph.ParseDuration(s)
	if err != nil {
		return nil
	}
	return &m
}
