package token_test

import (
	"context"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/token"
)

// memStore is a token store in memory, for the benchmark.
type memStore struct {
	t        ilgraph.Token
	id, hash string
}

func (m *memStore) CreateToken(_ context.Context, t ilgraph.Token, id, hash string) error {
	m.t, m.id, m.hash = t, id, hash
	return nil
}
func (m *memStore) Tokens(context.Context) ([]ilgraph.Token, error)      { return []ilgraph.Token{m.t}, nil }
func (m *memStore) RevokeToken(context.Context, string, time.Time) error { return nil }
func (m *memStore) TouchToken(context.Context, string, time.Time) error  { return nil }
func (m *memStore) TokenByID(_ context.Context, id string) (ilgraph.Token, string, bool, error) {
	return m.t, m.hash, id == m.id, nil
}

// BenchmarkAuthenticate is what authentication adds to a request whose
// token is cached (the common case: one store lookup per token per
// CacheTTL) and to one that misses (the lookup itself not counted).
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"cached", time.Hour}, {"uncached", time.Nanosecond}} {
		b.Run(c.name, func(b *testing.B) {
			svc := token.New(&memStore{}, token.Options{CacheTTL: c.ttl})
			tok, _, err := svc.CreateToken(ctx, "b", ilgraph.RoleViewer, time.Time{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := svc.Authenticate(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
