package jsonapi_test

import (
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/corpus"
)

// TestEveryKindFilters: /cases takes a parameter for every kind of the
// domain's table, named as the kind, and selects what the seed files say
// (the cases that have the term, counted here from the JSON).
func TestEveryKindFilters(t *testing.T) {
	s := mustServer(t)
	cases := corpus.Cases(t, filepath.Join(s.seeds, "cases"))
	for _, k := range ilgraph.AllKinds {
		t.Run(string(k), func(t *testing.T) {
			var term string
			for _, c := range cases {
				if ts := c.Tags(k); len(ts) > 0 {
					term = ts[len(ts)-1]
					break
				}
			}
			if term == "" {
				t.Fatalf("no seed case has a %s", k.Label())
			}
			var want []string
			for _, c := range cases {
				if slices.Contains(c.Tags(k), term) {
					want = append(want, c.ID)
				}
			}
			page := decode[casePage](t, s.get("/cases?limit=100&sort=id_asc&"+url.Values{string(k): {term}}.Encode()))
			var got []string
			for _, c := range page.Cases {
				got = append(got, c.ID)
			}
			slices.Sort(want)
			if page.Total != len(want) || !slices.Equal(got, want[:min(100, len(want))]) {
				t.Errorf("%s=%s: total %d %v, want %d %v", k, term, page.Total, got, len(want), want)
			}
		})
	}
}
