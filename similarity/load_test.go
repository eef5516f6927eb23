package similarity_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/similarity"
)

// TestLoadStreamsLikeBuild checks that Load, which builds the index as the
// cases stream from the graph (the organizations read first, the texts
// analysed meanwhile), makes the index Build makes of the same rows held
// at once: every case's features, text vector and default ranking.
func TestLoadStreamsLikeBuild(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	got, err := similarity.Load(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var rows []ilgraph.CaseFeatures
	if err := db.SimilarityRows(ctx, func(r ilgraph.CaseFeatures) { rows = append(rows, r) }); err != nil {
		t.Fatal(err)
	}
	want := similarity.Build(rows, got.Version)
	if got.Len() != want.Len() || got.Len() < 100 {
		t.Fatalf("Load has %d cases, Build %d (want the seeds' 100 or more)", got.Len(), want.Len())
	}
	opt := ilgraph.DefaultOptions(10)
	withText := 0
	for _, r := range rows {
		if !reflect.DeepEqual(got.Features(r.ID), want.Features(r.ID)) {
			t.Errorf("%s: features %v, want %v", r.ID, got.Features(r.ID), want.Features(r.ID))
		}
		if v := got.TextVector(r.ID); !reflect.DeepEqual(v, want.TextVector(r.ID)) {
			t.Errorf("%s: text vector %v, want %v", r.ID, v, want.TextVector(r.ID))
		} else if len(v) > 0 {
			withText++
		}
		// ID, score and the text channel's cosine and words: the
		// explanation's contributions are sums over maps, whose last bit
		// varies from call to call.
		g, w := got.Similar(got.Features(r.ID), r.ID, opt), want.Similar(want.Features(r.ID), r.ID, opt)
		if len(g) != len(w) {
			t.Errorf("%s: %d similar, want %d", r.ID, len(g), len(w))
			continue
		}
		for i := range g {
			if g[i].ID != w[i].ID || g[i].Score != w[i].Score || (g[i].Text == nil) != (w[i].Text == nil) ||
				g[i].Text != nil && (g[i].Text.Cosine != w[i].Text.Cosine || !reflect.DeepEqual(g[i].Text.Words, w[i].Text.Words)) {
				t.Errorf("%s: similar #%d %s %v %+v, want %s %v %+v", r.ID, i, g[i].ID, g[i].Score, g[i].Text, w[i].ID, w[i].Score, w[i].Text)
			}
		}
	}
	if withText < len(rows)/2 {
		t.Errorf("only %d of %d cases have a text vector", withText, len(rows))
	}
}
