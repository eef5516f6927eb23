// Package ratelimit limits how fast each client may call the server: one
// token bucket per client address, shared by every front door (GraphQL, the
// JSON API, MCP over HTTP). A client over its rate gets 429 with Retry-After.
//
// The client is the connection's remote address, or — only when that address
// is a configured trusted proxy — the address the proxy put in
// X-Forwarded-For (the right-most address that is not itself a trusted
// proxy, so that a client cannot choose its own key by sending the header).
// Loopback clients are exempt unless told otherwise, so that local tools and
// health checks never wait. The buckets live in a bounded map: clients idle
// for longer than IdleTTL are evicted, and when the map is full the longest
// idle tenth goes first. An IPv6 client is counted by its /64, the block a
// single subscriber usually gets, so that walking through the addresses of
// one's own block neither escapes the limit nor floods the map.
package ratelimit

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Options configure a Limiter.
type Options struct {
	// Rate is the sustained number of requests per second a client may make;
	// 0 or less turns the limiter off.
	Rate float64
	// Burst is how many requests a client may make at once (default: Rate
	// rounded up, at least 1).
	Burst int
	// TrustedProxies are the addresses or CIDR prefixes of proxies whose
	// X-Forwarded-For header is believed. Empty: the header is ignored.
	TrustedProxies []netip.Prefix
	// LimitLoopback applies the limit to loopback clients too (off by
	// default: they are exempt).
	LimitLoopback bool
	// MaxClients bounds the number of buckets kept (default 10000).
	MaxClients int
	// IdleTTL is how long a bucket is kept after its client's last request
	// (default 10 minutes).
	IdleTTL time.Duration
	// Exempt, when set, exempts requests it returns true for (health checks).
	Exempt func(*http.Request) bool
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Limiter is the rate-limiting middleware's state. Safe for concurrent use.
type Limiter struct {
	opt     Options
	mu      sync.Mutex
	clients map[netip.Addr]*client
	sweep   time.Time
}

type client struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a limiter with opt's settings, defaults filled in.
func New(opt Options) *Limiter {
	if opt.Burst <= 0 {
		opt.Burst = max(1, int(math.Ceil(opt.Rate)))
	}
	if opt.MaxClients <= 0 {
		opt.MaxClients = 10000
	}
	if opt.IdleTTL <= 0 {
		opt.IdleTTL = 10 * time.Minute
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Limiter{opt: opt, clients: map[netip.Addr]*client{}}
}

// Enabled reports whether the limiter limits anything.
func (l *Limiter) Enabled() bool { return l.opt.Rate > 0 }

// Clients returns how many buckets the limiter holds.
func (l *Limiter) Clients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// Middleware wraps next: requests over their client's rate get 429 with
// Retry-After (whole seconds) and a JSON error.
func (l *Limiter) Middleware(next http.Handler) http.Handler {
	if !l.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.opt.Exempt != nil && l.opt.Exempt(r) {
			next.ServeHTTP(w, r)
			return
		}
		addr, ok := l.ClientAddr(r)
		if !ok || (addr.IsLoopback() && !l.opt.LimitLoopback) {
			next.ServeHTTP(w, r)
			return
		}
		if wait := l.reserve(key(addr)); wait > 0 {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"error":{"code":"RATE_LIMITED","message":"too many requests from this client: at most %g per second (bursts of %d); retry after %d s"}}`+"\n",
				l.opt.Rate, l.opt.Burst, secs)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// reserve takes a token from addr's bucket; it returns 0 when the request
// may go ahead, or how long the client should wait.
func (l *Limiter) reserve(addr netip.Addr) time.Duration {
	now := l.opt.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.clients[addr]
	if c == nil {
		l.evict(now)
		c = &client{lim: rate.NewLimiter(rate.Limit(l.opt.Rate), l.opt.Burst)}
		l.clients[addr] = c
	}
	c.seen = now
	res := c.lim.ReserveN(now, 1)
	if !res.OK() {
		return time.Second
	}
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now) // a refused request spends no token
		return d
	}
	return 0
}

// key is the bucket a client address counts against: itself for IPv4, its
// /64 for IPv6.
func key(a netip.Addr) netip.Addr {
	if a.Is6() && !a.Is4In6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// evict drops idle clients (at most once a second, or whenever the map is
// full) and, if the map is still full, the longest idle tenth of them — a
// batch, so that a flood of new addresses costs a sort per tenth of the map
// rather than a scan per request. Callers hold mu.
func (l *Limiter) evict(now time.Time) {
	full := len(l.clients) >= l.opt.MaxClients
	if !full && now.Sub(l.sweep) < time.Second {
		return
	}
	l.sweep = now
	for a, c := range l.clients {
		if now.Sub(c.seen) > l.opt.IdleTTL {
			delete(l.clients, a)
		}
	}
	if len(l.clients) < l.opt.MaxClients {
		return
	}
	type entry struct {
		addr netip.Addr
		seen time.Time
	}
	all := make([]entry, 0, len(l.clients))
	for a, c := range l.clients {
		all = append(all, entry{a, c.seen})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seen.Before(all[j].seen) })
	for _, e := range all[:max(1, len(all)/10)] {
		delete(l.clients, e.addr)
	}
}

// ClientAddr returns the address a request is counted against: its remote
// address, or, when that is a trusted proxy, the right-most address of
// X-Forwarded-For that is not a trusted proxy.
func (l *Limiter) ClientAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	addr = addr.Unmap().WithZone("")
	if !l.trusted(addr) {
		return addr, true
	}
	hops := forwarded(r.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // garbage: stop at the last address we can name
		}
		a = a.Unmap().WithZone("")
		addr = a
		if !l.trusted(a) {
			break
		}
	}
	return addr, true
}

func (l *Limiter) trusted(a netip.Addr) bool {
	for _, p := range l.opt.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwarded splits X-Forwarded-For header values into addresses, left
// (client) to right (nearest proxy).
func forwarded(values []string) []string {
	var out []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// ParsePrefixes reads a comma-separated list of addresses and CIDR prefixes
// ("10.0.0.0/8, 192.168.1.7").
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %v", part, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not an address or a CIDR prefix", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
