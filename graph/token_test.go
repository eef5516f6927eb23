package graph_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/token"
)

// TestTokenStoredAsHash: what Neo4j holds of a token made by the token
// service is its id, name, role, times and the SHA-256 of its secret —
// never the token or its secret.
func TestTokenStoredAsHash(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	svc := token.New(db, token.Options{})
	tok, _, err := svc.CreateToken(ctx, "ops", ilgraph.RoleAdmin, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, tok); err != nil { // writes last_used
		t.Fatal(err)
	}
	props, err := graph.PropertiesOf(ctx, db, "ApiToken")
	if err != nil || len(props) != 1 {
		t.Fatalf("%v %v", props, err)
	}
	p := props[0]
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"created", "expires", "hash", "id", "last_used", "name", "role"}; !slices.Equal(keys, want) {
		t.Errorf("properties %v, want %v", keys, want)
	}
	rest := strings.TrimPrefix(tok, token.Prefix)
	id, secret, _ := strings.Cut(rest, "_")
	sum := sha256.Sum256([]byte(secret))
	if p["id"] != id || p["hash"] != hex.EncodeToString(sum[:]) || p["role"] != "admin" || p["name"] != "ops" {
		t.Errorf("stored %v", p)
	}
	for k, v := range p {
		if s := fmt.Sprint(v); strings.Contains(s, secret) {
			t.Errorf("property %s holds the secret", k)
		}
	}
}
