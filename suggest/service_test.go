package suggest_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/suggest"
)

// TestServiceStreamsLikeNew checks that the service's engine, built as the
// cases stream from the graph (organizations read first, texts analysed on
// every core meanwhile), answers exactly as New over the same cases held
// at once: for the trigger and lessons of every seed case, in both
// languages, and a text from the issue.
func TestServiceStreamsLikeNew(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	v, err := db.Vocabulary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cases []ilgraph.Case
	if err := db.EachCase(ctx, func(c *ilgraph.Case) error { cases = append(cases, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	want, err := suggest.New(v, cases, suggest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := suggest.NewService(db, memstore.NewSource(db), suggest.Options{})
	texts := []string{"Kinesis front-end servers hit the OS thread limit; latency and errors up"}
	for _, c := range cases {
		texts = append(texts, c.Trigger.En, c.Lessons.En, c.Trigger.Ko)
	}
	compared := 0
	for _, text := range texts {
		w, werr := want.Suggest(text, "", "")
		g, gerr := svc.Suggest(ctx, text, "")
		if ilgraph.ErrorCode(werr) != ilgraph.ErrorCode(gerr) {
			t.Fatalf("%q: error %v, want %v", text, gerr, werr)
		}
		if werr != nil {
			continue
		}
		compared++
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%q: the service suggests\n%+v\nwant\n%+v", text, g, w)
		}
	}
	if compared < len(cases) {
		t.Errorf("compared %d answers, want at least %d", compared, len(cases))
	}
}
