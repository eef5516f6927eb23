package explore_test

import (
	"context"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// versionedStore is the in-memory store with what suggestions need: the
// vocabulary and a corpus version.
type versionedStore struct {
	*memStore
	version int64
}

func (s *versionedStore) Vocabulary(context.Context) (*ilgraph.Vocabulary, error) {
	s.calls["Vocabulary"]++
	return s.vocab, nil
}

func (s *versionedStore) CorpusVersion(context.Context) (int64, error) {
	s.calls["CorpusVersion"]++
	return s.version, nil
}

func TestSuggestBuildsOnceAndAgainWhenTheCorpusChanges(t *testing.T) {
	f := mustCore(t)
	ctx := context.Background()
	if _, err := f.core.Suggest(ctx, "latency", ""); ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE {
		t.Fatalf("a store without suggestions: %v, want UNAVAILABLE", err)
	}
	store := &versionedStore{memStore: f.store, version: 1}
	core := explore.New(store, nil)
	suggest := func() {
		t.Helper()
		res, err := core.Suggest(ctx, "Kinesis front-end servers hit the OS thread limit; latency and errors up", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ByKind[ilgraph.KindSymptom]) == 0 {
			t.Fatal("no symptom suggested")
		}
	}
	builds := func() int { return store.calls["Vocabulary"] }
	suggest()
	suggest()
	if builds() != 1 || store.calls["CorpusVersion"] != 1 {
		t.Fatalf("%d builds, %d version reads after two suggestions in a row; want 1 and 1", builds(), store.calls["CorpusVersion"])
	}
	time.Sleep(explore.SuggestCheckInterval + 100*time.Millisecond)
	suggest()
	if builds() != 1 || store.calls["CorpusVersion"] != 2 {
		t.Fatalf("unchanged corpus: %d builds, %d version reads; want 1 and 2", builds(), store.calls["CorpusVersion"])
	}
	store.version++
	time.Sleep(explore.SuggestCheckInterval + 100*time.Millisecond)
	suggest()
	if builds() != 2 {
		t.Fatalf("after a load: %d builds, want 2", builds())
	}
	// The engine's own limits pass through with their codes.
	if _, err := core.Suggest(ctx, "  ", ""); ilgraph.ErrorCode(err) != ilgraph.EINVALID {
		t.Fatalf("blank text: %v", err)
	}
	if _, err := core.Suggest(ctx, string(make([]rune, explore.MaxSuggestText+1)), ""); ilgraph.ErrorCode(err) != ilgraph.ELIMIT {
		t.Fatalf("long text: %v", err)
	}
}
