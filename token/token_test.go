package token_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/token"
)

// clock is a settable clock for the services under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// counting is graph.DB counting the lookups and last-use writes the
// service makes.
type counting struct {
	*graph.DB
	lookups, touches atomic.Int64
}

func (c *counting) TokenByID(ctx context.Context, id string) (ilgraph.Token, string, bool, error) {
	c.lookups.Add(1)
	return c.DB.TokenByID(ctx, id)
}

func (c *counting) TouchToken(ctx context.Context, id string, at time.Time) error {
	c.touches.Add(1)
	return c.DB.TouchToken(ctx, id, at)
}

// TestTokensInNeo4j: a token is created, stored as a hash only, accepted
// with the right secret and refused with any other, refused once expired
// or revoked (at once on the revoking service, within the cache's time on
// another), looked up at most once per cache period and its last use
// written at most once per resolution.
func TestTokensInNeo4j(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	store := &counting{DB: db}
	svc := token.New(store, token.Options{Now: clk.Now})

	secret, rec, err := svc.CreateToken(ctx, "ci", ilgraph.RoleEditor, clk.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Name != "ci" || rec.Role != ilgraph.RoleEditor || !strings.HasPrefix(secret, token.Prefix) {
		t.Fatalf("created %+v, token %q", rec, secret)
	}

	t.Run("the right token authenticates, others do not", func(t *testing.T) {
		p, err := svc.Authenticate(ctx, secret)
		if err != nil || p != (ilgraph.Principal{Name: "ci", Role: ilgraph.RoleEditor}) {
			t.Fatalf("got %+v, %v", p, err)
		}
		last := secret[len(secret)-1]
		flipped := secret[:len(secret)-1] + string("AB"[map[bool]int{true: 1}[last == 'A']])
		otherID := token.Prefix + "0000000000000000" + secret[len(token.Prefix)+16:]
		for name, bad := range map[string]string{"wrong secret": flipped, "unknown id": otherID, "empty": "", "garbage": "hello",
			"no prefix": secret[len(token.Prefix):], "longer": secret + "x"} {
			if _, err := svc.Authenticate(ctx, bad); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
				t.Errorf("%s: got %v, want EUNAUTHORIZED", name, err)
			}
		}
	})

	t.Run("a cached token is not looked up again within the cache period", func(t *testing.T) {
		before := store.lookups.Load()
		for range 50 {
			if _, err := svc.Authenticate(ctx, secret); err != nil {
				t.Fatal(err)
			}
		}
		if n := store.lookups.Load() - before; n != 0 {
			t.Errorf("%d lookups for 50 requests within the cache period", n)
		}
		clk.Add(token.CacheTTL)
		if _, err := svc.Authenticate(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if n := store.lookups.Load() - before; n != 1 {
			t.Errorf("%d lookups after the cache period, want 1", n)
		}
	})

	t.Run("last use is written at most once per resolution", func(t *testing.T) {
		before := store.touches.Load()
		for range 20 {
			clk.Add(time.Second)
			svc.Authenticate(ctx, secret)
		}
		if n := store.touches.Load() - before; n > 1 {
			t.Errorf("%d last-use writes in 20 s", n)
		}
		clk.Add(token.LastUseResolution)
		svc.Authenticate(ctx, secret)
		ts, err := svc.Tokens(ctx)
		if err != nil || len(ts) != 1 {
			t.Fatal(ts, err)
		}
		if d := clk.Now().Sub(ts[0].LastUsed); ts[0].LastUsed.IsZero() || d < 0 || d > time.Second {
			t.Errorf("last used %v, now %v", ts[0].LastUsed, clk.Now())
		}
	})

	t.Run("a name is unique", func(t *testing.T) {
		if _, _, err := svc.CreateToken(ctx, "ci", ilgraph.RoleViewer, time.Time{}); ilgraph.ErrorCode(err) != ilgraph.ECONFLICT {
			t.Errorf("a second ci: %v", err)
		}
	})

	t.Run("an expired token is refused, cached or not", func(t *testing.T) {
		short, _, err := svc.CreateToken(ctx, "short", ilgraph.RoleViewer, clk.Now().Add(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Authenticate(ctx, short); err != nil {
			t.Fatal(err)
		}
		clk.Add(31 * time.Second) // within the cache period of the first check
		if _, err := svc.Authenticate(ctx, short); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("expired: %v", err)
		}
		other := token.New(db, token.Options{Now: clk.Now})
		if _, err := other.Authenticate(ctx, short); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("expired, uncached: %v", err)
		}
	})

	t.Run("revocation: at once here, within the cache period elsewhere", func(t *testing.T) {
		other := token.New(db, token.Options{Now: clk.Now})
		if _, err := other.Authenticate(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if err := svc.RevokeToken(ctx, "ci"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Authenticate(ctx, secret); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("revoked, same service: %v", err)
		}
		clk.Add(token.CacheTTL)
		if _, err := other.Authenticate(ctx, secret); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("revoked, other service after the cache period: %v", err)
		}
		if err := svc.RevokeToken(ctx, "nobody"); ilgraph.ErrorCode(err) != ilgraph.ENOTFOUND {
			t.Errorf("revoking an unknown name: %v", err)
		}
		ts, _ := svc.Tokens(ctx)
		for _, x := range ts {
			if x.Name == "ci" && x.Status(clk.Now()) != "revoked" {
				t.Errorf("ci is %s", x.Status(clk.Now()))
			}
		}
	})
}
