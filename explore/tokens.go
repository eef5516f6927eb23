package explore

import (
	"context"
	"regexp"
	"time"

	"github.com/ilgraph/ilgraph"
)

// TokenManager creates, lists and revokes API tokens (the token package's
// Service implements it over graph.DB). It authorizes nothing: the core's
// methods below require the admin role first.
type TokenManager interface {
	CreateToken(ctx context.Context, name string, role ilgraph.Role, expires time.Time) (string, ilgraph.Token, error)
	Tokens(ctx context.Context) ([]ilgraph.Token, error)
	RevokeToken(ctx context.Context, name string) error
}

// WithTokens lets the core manage API tokens through tm.
func WithTokens(tm TokenManager) Option { return func(s *Service) { s.tokens = tm } }

// MaxTokenTTL is the longest a token may be made to last.
const MaxTokenTTL = 5 * 365 * 24 * time.Hour

var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// manage is the check of every token operation: an admin principal, and a
// core that manages tokens.
func (s *Service) manage(ctx context.Context) error {
	if err := ilgraph.Require(ctx, ilgraph.RoleAdmin); err != nil {
		return err
	}
	if s.tokens == nil {
		return ilgraph.Errorf(ilgraph.EUNAVAILABLE, "this server does not manage tokens")
	}
	return nil
}

// CreateToken makes an API token named name with role, lasting ttl (0:
// it never expires), and returns it — the only time it is seen; only its
// hash is kept. It needs the admin role.
func (s *Service) CreateToken(ctx context.Context, name string, role ilgraph.Role, ttl time.Duration) (string, ilgraph.Token, error) {
	if err := s.manage(ctx); err != nil {
		return "", ilgraph.Token{}, err
	}
	if !tokenName.MatchString(name) {
		return "", ilgraph.Token{}, ilgraph.Errorf(ilgraph.EINVALID, "a token's name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; not %q", ilgraph.Clip(name, 80))
	}
	if role < ilgraph.RoleViewer || role > ilgraph.RoleAdmin {
		return "", ilgraph.Token{}, ilgraph.Errorf(ilgraph.EINVALID, "a token's role is viewer, reviewer, editor or admin")
	}
	if ttl < 0 || ttl > MaxTokenTTL {
		return "", ilgraph.Token{}, ilgraph.Errorf(ilgraph.EINVALID, "a token lasts from a minute to 5 years, or never expires; not %s", ttl)
	}
	if ttl > 0 && ttl < time.Minute {
		return "", ilgraph.Token{}, ilgraph.Errorf(ilgraph.EINVALID, "a token lasts from a minute to 5 years, or never expires; not %s", ttl)
	}
	var expires time.Time
	if ttl > 0 {
		expires = time.Now().Add(ttl).UTC().Truncate(time.Second)
	}
	return s.tokens.CreateToken(ctx, name, role, expires)
}

// Tokens lists every API token, without secrets. It needs the admin role.
func (s *Service) Tokens(ctx context.Context) ([]ilgraph.Token, error) {
	if err := s.manage(ctx); err != nil {
		return nil, err
	}
	return s.tokens.Tokens(ctx)
}

// RevokeToken revokes the token named. It needs the admin role.
func (s *Service) RevokeToken(ctx context.Context, name string) error {
	if err := s.manage(ctx); err != nil {
		return err
	}
	return s.tokens.RevokeToken(ctx, name)
}
