package main

import (
	"context"
	"flag"
	"log/slog"
	"net/netip"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/session"
)

// sessionFlags are ilgraph serve's settings of the explorer's sessions.
type sessionFlags struct {
	lifetime time.Duration
	origins  []string
}

type sessionFlagValues struct {
	lifetime *time.Duration
	origins  *string
}

func addSessionFlags(fs *flag.FlagSet) sessionFlagValues {
	return sessionFlagValues{
		lifetime: fs.Duration("session-lifetime", session.DefaultLifetime,
			"how long an explorer sign-in lasts (never longer than its token)"),
		origins: fs.String("public-origins", "",
			"comma-separated origins browsers reach the server by (https://ilgraph.example.com), when a proxy rewrites Host; the explorer's state-changing requests must come from one (empty: the request's own scheme and Host)"),
	}
}

func (v sessionFlagValues) parse() sessionFlags {
	return sessionFlags{lifetime: *v.lifetime, origins: splitList(*v.origins)}
}

// manager returns the explorer's session manager, checking tokens with
// tokens, counting failed sign-ins with failures (the shell's limiter),
// and believing X-Forwarded-Proto from proxies (--trusted-proxies).
func (f sessionFlags) manager(tokens ilgraph.Authenticator, failures session.FailureLimiter, proxies []netip.Prefix, logger *slog.Logger) *session.Manager {
	auth := tokens
	if l, ok := tokens.(tokenLister); ok {
		auth = tokenExpiry{tokens, l}
	}
	return session.New(session.Options{
		Authenticator: auth, Lifetime: f.lifetime, TrustedProxies: proxies, Origins: f.origins,
		Failures: failures, Logger: logger,
	})
}

type tokenLister interface {
	Tokens(ctx context.Context) ([]ilgraph.Token, error)
}

// tokenExpiry is the token service with each token's expiry, so that an
// explorer session never outlives its token. It lists the tokens (a
// team's few) once per sign-in; the session's re-checks use Authenticate.
type tokenExpiry struct {
	ilgraph.Authenticator
	list tokenLister
}

func (t tokenExpiry) AuthenticateExpiry(ctx context.Context, tok string) (ilgraph.Principal, time.Time, error) {
	p, err := t.Authenticate(ctx, tok)
	if err != nil {
		return p, time.Time{}, err
	}
	all, err := t.list.Tokens(ctx)
	if err != nil {
		return ilgraph.Principal{}, time.Time{}, err
	}
	for _, x := range all {
		if x.Name == p.Name {
			return p, x.Expires, nil
		}
	}
	// Authenticated a moment ago, gone now: revoked and removed meanwhile.
	return ilgraph.Principal{}, time.Time{}, ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid")
}
