package ratelimit

import (
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

// Failures limits failed attempts per client (authentication with a bad
// token): a client may fail Burst times, then once per 1/Rate seconds; a
// client over that is blocked — every attempt it makes is refused before
// it is checked, valid or not, so that guessing gains nothing from the
// refusals. Successes cost nothing. Clients are keyed, evicted and, when
// LimitLoopback is off, exempted on loopback as by the Limiter.
type Failures struct{ l *Limiter }

// NewFailures returns a failure limiter; Rate 0 or less turns it off.
func NewFailures(opt Options) *Failures { return &Failures{New(opt)} }

// Blocked returns how long r's client must wait before it may try again (0:
// it may now).
func (f *Failures) Blocked(r *http.Request) time.Duration {
	c := f.client(r)
	if c == nil {
		return 0
	}
	now := f.l.opt.Now()
	if c.TokensAt(now) >= 1 {
		return 0
	}
	res := c.ReserveN(now, 1)
	defer res.CancelAt(now)
	if !res.OK() {
		return time.Second
	}
	return max(res.DelayFrom(now), time.Second)
}

// Failed counts a failed attempt by r's client.
func (f *Failures) Failed(r *http.Request) {
	if c := f.client(r); c != nil {
		c.AllowN(f.l.opt.Now(), 1)
	}
}

// client returns r's client's bucket (nil: not limited).
func (f *Failures) client(r *http.Request) *rate.Limiter {
	l := f.l
	if !l.Enabled() {
		return nil
	}
	addr, ok := l.ClientAddr(r)
	if !ok || (addr.IsLoopback() && !l.opt.LimitLoopback) {
		return nil
	}
	now := l.opt.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key(addr)
	c := l.clients[k]
	if c == nil {
		l.evict(now)
		c = &client{lim: rate.NewLimiter(rate.Limit(l.opt.Rate), l.opt.Burst)}
		l.clients[k] = c
	}
	c.seen = now
	return c.lim
}
