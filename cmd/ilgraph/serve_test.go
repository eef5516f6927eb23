package main

import (
	"net/http/httptest"
	"testing"
)

// TestRateLimitExempt: the probes and the static files of the explorer and
// of the IDE skip the rate limit; pages and API requests do not.
func TestRateLimitExempt(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/healthz", true},
		{"GET", "/assets/app/main.js", true},
		{"HEAD", "/assets/app/main.js", true},
		{"GET", "/ide/assets/vendor/graphiql/graphiql.min.js", true},
		{"POST", "/ide/assets/vendor/graphiql/graphiql.min.js", false},
		{"GET", "/ide", false},
		{"GET", "/", false},
		{"POST", "/graphql", false},
		{"GET", "/cases", false},
	} {
		if got := exempt(httptest.NewRequest(c.method, c.path, nil)); got != c.want {
			t.Errorf("%s %s: exempt %v, want %v", c.method, c.path, got, c.want)
		}
	}
}
