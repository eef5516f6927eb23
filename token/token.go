// Package token issues and checks ilgraph's API tokens, and is the
// ilgraph.Authenticator the HTTP shell and stdio MCP authenticate bearer
// tokens with.
//
// A token is "ilg_" + id + "_" + secret: id is 8 random bytes in hex, the
// public half, which the store looks the token up by; secret is 32 random
// bytes (256 bits) in unpadded base64url, of which only the SHA-256 is
// stored. A plain hash suffices where passwords would need a slow one
// (bcrypt, Argon2): a password is guessable, so its hash must be slow to
// guess against; a 256-bit random secret is not, and no work factor makes
// 2^256 guesses more out of reach. It also keeps each check cheap enough to
// run on every request that misses the cache. The stored hash is compared
// in constant time; the lookup itself is by the id, which is not secret, so
// its timing says nothing of the secret.
//
// Checked tokens are cached for CacheTTL, so that a request is not a round
// trip to Neo4j: a token revoked through this process's Service stops
// working at once; one revoked by another process (ilgraph token revoke, or
// another server) stops within CacheTTL. Expiry is checked on every
// request, cached or not. Last use is written at most once per
// LastUseResolution per token and process, not on every request.
package token

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ilgraph/ilgraph"
)

// Defaults of Options.
const (
	// CacheTTL is how long a checked token is believed without asking the
	// store again: the longest a revocation made elsewhere takes to reach
	// a running server.
	CacheTTL = 10 * time.Second
	// LastUseResolution is how stale a token's recorded last use may be.
	LastUseResolution = time.Minute
	// maxCached bounds the cache; only valid tokens are cached, so a flood
	// of bad ones cannot fill it.
	maxCached = 10000
)

// Prefix starts every token, so that secret scanners and people can tell
// one at a glance.
const Prefix = "ilg_"

// Store keeps tokens (graph.DB implements it).
type Store interface {
	CreateToken(ctx context.Context, t ilgraph.Token, id, hash string) error
	Tokens(ctx context.Context) ([]ilgraph.Token, error)
	RevokeToken(ctx context.Context, name string, at time.Time) error
	TokenByID(ctx context.Context, id string) (t ilgraph.Token, hash string, found bool, err error)
	TouchToken(ctx context.Context, id string, at time.Time) error
}

// Options configure a Service.
type Options struct {
	CacheTTL          time.Duration // default CacheTTL
	LastUseResolution time.Duration // default LastUseResolution
	Logger            *slog.Logger  // default slog.Default()
	Now               func() time.Time
}

// Service creates, lists, revokes and checks tokens. It does no
// authorization of its own: the core (explore) requires the admin role
// before it manages tokens through it. Safe for concurrent use.
type Service struct {
	store Store
	opt   Options

	mu      sync.Mutex
	cache   map[[32]byte]entry
	touched map[string]time.Time // token id → when this process last recorded its use
}

type entry struct {
	p       ilgraph.Principal
	id      string
	expires time.Time
	checked time.Time
}

// New returns the service over store.
func New(store Store, opt Options) *Service {
	if opt.CacheTTL <= 0 {
		opt.CacheTTL = CacheTTL
	}
	if opt.LastUseResolution <= 0 {
		opt.LastUseResolution = LastUseResolution
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Service{store: store, opt: opt, cache: map[[32]byte]entry{}, touched: map[string]time.Time{}}
}

// errInvalid is every failure to authenticate a token: it says no more
// (unknown, wrong secret, expired and revoked look alike).
func errInvalid() error {
	return ilgraph.Errorf(ilgraph.EUNAUTHORIZED, "the token is not valid: it is malformed, unknown, expired or revoked")
}

// CreateToken makes a token with name and role, expiring at expires (zero:
// never), stores its hash and returns the token, which exists nowhere else:
// the caller shows it once.
func (s *Service) CreateToken(ctx context.Context, name string, role ilgraph.Role, expires time.Time) (string, ilgraph.Token, error) {
	var idb [8]byte
	var secret [32]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return "", ilgraph.Token{}, ilgraph.WrapError(ilgraph.EINTERNAL, err, "no randomness for a token")
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", ilgraph.Token{}, ilgraph.WrapError(ilgraph.EINTERNAL, err, "no randomness for a token")
	}
	id := hex.EncodeToString(idb[:])
	sec := base64.RawURLEncoding.EncodeToString(secret[:])
	t := ilgraph.Token{Name: name, Role: role, Created: s.opt.Now().UTC().Truncate(time.Second), Expires: expires}
	if err := s.store.CreateToken(ctx, t, id, hashHex(sec)); err != nil {
		return "", ilgraph.Token{}, err
	}
	return Prefix + id + "_" + sec, t, nil
}

// Tokens lists every token (never a secret or a hash).
func (s *Service) Tokens(ctx context.Context) ([]ilgraph.Token, error) { return s.store.Tokens(ctx) }

// RevokeToken revokes the token named; this process stops accepting it at
// once.
func (s *Service) RevokeToken(ctx context.Context, name string) error {
	if err := s.store.RevokeToken(ctx, name, s.opt.Now()); err != nil {
		return err
	}
	s.mu.Lock()
	for k, e := range s.cache {
		if e.p.Name == name {
			delete(s.cache, k)
		}
	}
	s.mu.Unlock()
	return nil
}

// Authenticate returns the principal a token stands for, or EUNAUTHORIZED
// for a token that is malformed, unknown, expired or revoked. A store that
// cannot answer gives its own error (EUNAVAILABLE), not EUNAUTHORIZED.
func (s *Service) Authenticate(ctx context.Context, tok string) (ilgraph.Principal, error) {
	id, secret, ok := parse(tok)
	if !ok {
		return ilgraph.Principal{}, errInvalid()
	}
	key := sha256.Sum256([]byte(tok))
	now := s.opt.Now()
	s.mu.Lock()
	e, hit := s.cache[key]
	s.mu.Unlock()
	if !hit || now.Sub(e.checked) >= s.opt.CacheTTL || now.Before(e.checked) {
		t, hash, found, err := s.store.TokenByID(ctx, id)
		if err != nil {
			return ilgraph.Principal{}, err
		}
		// Compare even for an unknown id, against a hash that cannot
		// match, so that both take the same time.
		want := hash
		if !found {
			want = strings.Repeat("0", sha256.Size*2)
		}
		if subtle.ConstantTimeCompare([]byte(hashHex(secret)), []byte(want)) != 1 || !found || !t.Revoked.IsZero() {
			s.forget(key)
			return ilgraph.Principal{}, errInvalid()
		}
		e = entry{p: ilgraph.Principal{Name: t.Name, Role: t.Role}, id: id, expires: t.Expires, checked: now}
		s.mu.Lock()
		if len(s.cache) >= maxCached {
			clear(s.cache)
		}
		s.cache[key] = e
		s.mu.Unlock()
	}
	if !e.expires.IsZero() && !now.Before(e.expires) {
		return ilgraph.Principal{}, errInvalid()
	}
	s.touch(ctx, e.id, now)
	return e.p, nil
}

func (s *Service) forget(key [32]byte) {
	s.mu.Lock()
	delete(s.cache, key)
	s.mu.Unlock()
}

// touch records the token's use when this process has not done so for
// LastUseResolution. A failure is logged, not the request's: the request
// was authenticated.
func (s *Service) touch(ctx context.Context, id string, now time.Time) {
	s.mu.Lock()
	last, ok := s.touched[id]
	due := !ok || now.Sub(last) >= s.opt.LastUseResolution || now.Before(last)
	if due {
		if len(s.touched) >= maxCached {
			clear(s.touched)
		}
		s.touched[id] = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	if err := s.store.TouchToken(ctx, id, now); err != nil {
		s.opt.Logger.WarnContext(ctx, "recording a token's last use", "err", err.Error())
		s.mu.Lock()
		delete(s.touched, id) // try again on the next use
		s.mu.Unlock()
	}
}

// parse splits a token into its id and secret; ok is false for anything
// that is not shaped like a token.
func parse(tok string) (id, secret string, ok bool) {
	rest, found := strings.CutPrefix(tok, Prefix)
	if !found || len(rest) != 16+1+43 || rest[16] != '_' {
		return "", "", false
	}
	id, secret = rest[:16], rest[17:]
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", "", false
	}
	if b, err := base64.RawURLEncoding.DecodeString(secret); err != nil || len(b) != 32 {
		return "", "", false
	}
	return id, secret, true
}

func hashHex(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}
