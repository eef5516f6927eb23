package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

// API tokens are :ApiToken nodes, apart from the incident graph (no
// relationships): id (the public half of a token, its lookup key), name
// (unique), role, hash (SHA-256 of the secret half, hex; the secret itself
// is never stored), created, expires (absent: never), last_used and
// revoked (absent: not yet). The token package generates and checks them.

const tokenReturn = "RETURN t.name AS name, t.role AS role, t.created AS created, t.expires AS expires, t.last_used AS last_used, t.revoked AS revoked"

// CreateToken stores a new token under id with the hash of its secret; a
// token of the same name (revoked or not) is a conflict.
func (db *DB) CreateToken(ctx context.Context, t ilgraph.Token, id, hash string) error {
	params := map[string]any{
		"id": id, "name": t.Name, "role": t.Role.String(), "hash": hash,
		"created": t.Created.UTC(), "expires": optTime(t.Expires),
	}
	created, err := write(ctx, db, "creating a token", func(tx neo4j.ManagedTransaction) (bool, error) {
		recs, err := collect(ctx, tx, `OPTIONAL MATCH (x:ApiToken {name: $name})
WITH x WHERE x IS NULL
CREATE (t:ApiToken {id: $id, name: $name, role: $role, hash: $hash, created: $created})
SET t.expires = $expires
RETURN t.id AS id`, params)
		return len(recs) == 1, err
	})
	if isConstraint(err) || err == nil && !created {
		return ilgraph.Errorf(ilgraph.ECONFLICT, "a token named %q exists already (names stay taken after a revocation): choose another name", t.Name)
	}
	return err
}

// isConstraint reports whether err is Neo4j refusing a write that breaks a
// uniqueness constraint (two creations of one name racing).
func isConstraint(err error) bool {
	var ne *neo4j.Neo4jError
	return errors.As(err, &ne) && strings.Contains(ne.Code, "ConstraintValidationFailed")
}

func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// Tokens returns every token, revoked and expired ones included, by name.
func (db *DB) Tokens(ctx context.Context) ([]ilgraph.Token, error) {
	return read(ctx, db, "listing tokens", func(tx neo4j.ManagedTransaction) ([]ilgraph.Token, error) {
		recs, err := collect(ctx, tx, "MATCH (t:ApiToken) "+tokenReturn+" ORDER BY name", nil)
		if err != nil {
			return nil, err
		}
		out := make([]ilgraph.Token, 0, len(recs))
		for _, r := range recs {
			t, err := recordToken(r)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	})
}

// RevokeToken marks the token named revoked at at; revoking a revoked
// token keeps its first revocation time. An unknown name is ENOTFOUND.
func (db *DB) RevokeToken(ctx context.Context, name string, at time.Time) error {
	found, err := write(ctx, db, "revoking a token", func(tx neo4j.ManagedTransaction) (bool, error) {
		recs, err := collect(ctx, tx, "MATCH (t:ApiToken {name: $name}) SET t.revoked = coalesce(t.revoked, $at) RETURN t.name AS name",
			map[string]any{"name": name, "at": at.UTC()})
		return len(recs) > 0, err
	})
	if err == nil && !found {
		return ilgraph.Errorf(ilgraph.ENOTFOUND, "no token is named %q (ilgraph token list shows them)", name)
	}
	return err
}

// TokenByID returns the token stored under id and the hash of its secret;
// found is false for an unknown id.
func (db *DB) TokenByID(ctx context.Context, id string) (t ilgraph.Token, hash string, found bool, err error) {
	type row struct {
		t    ilgraph.Token
		hash string
		ok   bool
	}
	r, err := read(ctx, db, "reading a token", func(tx neo4j.ManagedTransaction) (row, error) {
		recs, err := collect(ctx, tx, "MATCH (t:ApiToken {id: $id}) "+tokenReturn+", t.hash AS hash", map[string]any{"id": id})
		if err != nil || len(recs) == 0 {
			return row{}, err
		}
		t, err := recordToken(recs[0])
		return row{t, str(recs[0], "hash"), true}, err
	})
	return r.t, r.hash, r.ok, err
}

// TouchToken records that the token stored under id was used at at.
func (db *DB) TouchToken(ctx context.Context, id string, at time.Time) error {
	_, err := write(ctx, db, "recording a token's use", func(tx neo4j.ManagedTransaction) (Counters, error) {
		return exec(ctx, tx, "MATCH (t:ApiToken {id: $id}) SET t.last_used = $at", map[string]any{"id": id, "at": at.UTC()})
	})
	return err
}

func recordToken(r *neo4j.Record) (ilgraph.Token, error) {
	role, err := ilgraph.ParseRole(str(r, "role"))
	if err != nil {
		return ilgraph.Token{}, ilgraph.WrapError(ilgraph.EINTERNAL, err, "a stored token has an unknown role")
	}
	return ilgraph.Token{Name: str(r, "name"), Role: role, Created: timeOf(r, "created"), Expires: timeOf(r, "expires"),
		LastUsed: timeOf(r, "last_used"), Revoked: timeOf(r, "revoked")}, nil
}

// timeOf reads a datetime property (zero when absent).
func timeOf(r *neo4j.Record, key string) time.Time {
	v, _ := r.Get(key)
	switch t := v.(type) {
	case time.Time:
		return t.UTC()
	case dbtype.LocalDateTime:
		return time.Time(t).UTC()
	}
	return time.Time{}
}
