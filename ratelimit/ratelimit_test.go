package ratelimit_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph/ratelimit"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })

// clock is a settable clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func get(h http.Handler, remote string, xff ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/cases", nil)
	r.RemoteAddr = remote
	for _, v := range xff {
		r.Header.Add("X-Forwarded-For", v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestBurstThen429WithRetryAfter(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 3, Now: c.now})
	h := l.Middleware(ok)
	for i := range 3 {
		if w := get(h, "203.0.113.5:4000"); w.Code != 200 {
			t.Fatalf("request %d within the burst: %d", i+1, w.Code)
		}
	}
	w := get(h, "203.0.113.5:4000")
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("after the burst: %d, want 429", w.Code)
	}
	if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
		t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
	}
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error.Code != "RATE_LIMITED" || body.Error.Message == "" {
		t.Fatalf("body %s (%v)", w.Body, err)
	}
	// Another client is not affected.
	if w := get(h, "203.0.113.6:4000"); w.Code != 200 {
		t.Fatalf("other client: %d", w.Code)
	}
	// Refused requests spend nothing: a second later one token is back.
	for range 5 {
		get(h, "203.0.113.5:4000")
	}
	c.t = c.t.Add(time.Second)
	if w := get(h, "203.0.113.5:4000"); w.Code != 200 {
		t.Fatalf("after a second: %d", w.Code)
	}
	if w := get(h, "203.0.113.5:4000"); w.Code != 429 {
		t.Fatalf("second request after a second: %d", w.Code)
	}
}

func TestLoopbackExemptByDefault(t *testing.T) {
	for _, remote := range []string{"127.0.0.1:5000", "[::1]:5000"} {
		h := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 1}).Middleware(ok)
		for i := range 10 {
			if w := get(h, remote); w.Code != 200 {
				t.Fatalf("%s request %d: %d", remote, i, w.Code)
			}
		}
		h = ratelimit.New(ratelimit.Options{Rate: 1, Burst: 1, LimitLoopback: true}).Middleware(ok)
		get(h, remote)
		if w := get(h, remote); w.Code != 429 {
			t.Fatalf("%s with LimitLoopback: %d, want 429", remote, w.Code)
		}
	}
}

func TestOffWithoutRate(t *testing.T) {
	h := ratelimit.New(ratelimit.Options{}).Middleware(ok)
	for range 100 {
		if w := get(h, "203.0.113.5:1"); w.Code != 200 {
			t.Fatal(w.Code)
		}
	}
}

func TestForwardedAddressOnlyFromTrustedProxy(t *testing.T) {
	proxies, err := ratelimit.ParsePrefixes("10.0.0.0/8, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	l := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 1, TrustedProxies: proxies})
	addr := func(remote string, xff ...string) string {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		for _, v := range xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		a, _ := l.ClientAddr(r)
		return a.String()
	}
	for _, tc := range []struct {
		remote string
		xff    []string
		want   string
	}{
		{"203.0.113.9:1", []string{"198.51.100.1"}, "203.0.113.9"},          // untrusted: header ignored
		{"10.1.2.3:1", []string{"198.51.100.1"}, "198.51.100.1"},            // trusted proxy
		{"192.0.2.1:1", []string{"198.51.100.7, 10.0.0.2"}, "198.51.100.7"}, // through two trusted hops
		{"10.1.2.3:1", []string{"1.1.1.1, 198.51.100.1"}, "198.51.100.1"},   // the client cannot choose its key
		{"10.1.2.3:1", []string{"1.1.1.1", "198.51.100.2"}, "198.51.100.2"}, // several header lines
		{"10.1.2.3:1", nil, "10.1.2.3"},                                     // no header
		{"10.1.2.3:1", []string{"not-an-address"}, "10.1.2.3"},              // garbage
		{"[::ffff:10.1.2.3]:1", []string{"[2001:db8::1]"}, "10.1.2.3"},      // bracketed: unparseable, stop
		{"[::ffff:10.1.2.3]:1", []string{"2001:db8::1"}, "2001:db8::1"},     // v4-mapped proxy
	} {
		if got := addr(tc.remote, tc.xff...); got != tc.want {
			t.Errorf("remote %s, X-Forwarded-For %q: client %s, want %s", tc.remote, tc.xff, got, tc.want)
		}
	}
	// Two clients behind the proxy have separate buckets; a forged header
	// from outside does not escape the sender's own bucket.
	h := l.Middleware(ok)
	if w := get(h, "10.1.2.3:1", "198.51.100.1"); w.Code != 200 {
		t.Fatal(w.Code)
	}
	if w := get(h, "10.1.2.3:1", "198.51.100.2"); w.Code != 200 {
		t.Fatal("second client behind the proxy:", w.Code)
	}
	if w := get(h, "10.1.2.3:1", "198.51.100.1"); w.Code != 429 {
		t.Fatal("first client again:", w.Code)
	}
	get(h, "203.0.113.9:1", "198.51.100.50")
	if w := get(h, "203.0.113.9:1", "198.51.100.51"); w.Code != 429 {
		t.Fatal("untrusted sender changing X-Forwarded-For:", w.Code)
	}
	if _, err := ratelimit.ParsePrefixes("10.0.0.0/33"); err == nil {
		t.Fatal("bad prefix accepted")
	}
	if _, err := ratelimit.ParsePrefixes("proxy.local"); err == nil {
		t.Fatal("host name accepted")
	}
}

func TestBucketsAreBounded(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 1, MaxClients: 50, IdleTTL: time.Minute, Now: c.now})
	h := l.Middleware(ok)
	for i := range 500 {
		get(h, fmt.Sprintf("198.51.100.%d:1", i%250)+"")
		get(h, netip.AddrFrom4([4]byte{203, 0, byte(i / 256), byte(i)}).String()+":1")
		if n := l.Clients(); n > 50 {
			t.Fatalf("%d buckets, more than 50", n)
		}
	}
	// Idle clients go.
	c.t = c.t.Add(2 * time.Minute)
	get(h, "192.0.2.200:1")
	if n := l.Clients(); n != 1 {
		t.Fatalf("%d buckets after everyone else idled, want 1", n)
	}
}

func TestExempt(t *testing.T) {
	h := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/healthz" }}).Middleware(ok)
	for range 5 {
		r := httptest.NewRequest("GET", "/healthz", nil)
		r.RemoteAddr = "203.0.113.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatal(w.Code)
		}
	}
}

func TestIPv6CountsBySlash64(t *testing.T) {
	h := ratelimit.New(ratelimit.Options{Rate: 1, Burst: 2}).Middleware(ok)
	get(h, "[2001:db8:1:2::1]:1")
	get(h, "[2001:db8:1:2::ffff]:1")
	if w := get(h, "[2001:db8:1:2:abcd::9]:1"); w.Code != 429 {
		t.Fatalf("a third address of the same /64: %d, want 429", w.Code)
	}
	if w := get(h, "[2001:db8:1:3::1]:1"); w.Code != 200 {
		t.Fatalf("another /64: %d", w.Code)
	}
}
