package apitest

import (
	"fmt"
	"net/netip"
	"sync"

	"github.com/ilgraph/ilgraph/ratelimit"
)

// FloodAnswers are what the clients of a Flood were answered.
type FloodAnswers[O any] struct {
	Heavy, Lookups []O
}

// Flood sends, from clients goroutines at once, perClient heavy requests
// each (heavy(client, i)), while lookupClients other goroutines send
// lookups (lookup(client, i)) one after another until the flood is over,
// and at least one each. Nothing in it depends on how long a request
// takes.
func Flood[O any](clients, perClient, lookupClients int, heavy, lookup func(client, i int) O) FloodAnswers[O] {
	var mu sync.Mutex
	var out FloodAnswers[O]
	var flood, lookups sync.WaitGroup
	start, done := make(chan struct{}), make(chan struct{})
	for c := 0; c < clients; c++ {
		flood.Add(1)
		go func() {
			defer flood.Done()
			<-start
			for i := 0; i < perClient; i++ {
				o := heavy(c, i)
				mu.Lock()
				out.Heavy = append(out.Heavy, o)
				mu.Unlock()
			}
		}()
	}
	for c := 0; c < lookupClients; c++ {
		lookups.Add(1)
		go func() {
			defer lookups.Done()
			<-start
			for i := 0; ; i++ {
				o := lookup(c, i)
				mu.Lock()
				out.Lookups = append(out.Lookups, o)
				mu.Unlock()
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	close(start)
	flood.Wait()
	close(done)
	lookups.Wait()
	return out
}

// ClientAddr is the address flood client c claims, in X-Forwarded-For,
// to a server behind ManyClients: every client its own address, as a
// flood from many machines.
func ClientAddr(c int) string { return fmt.Sprintf("10.%d.%d.%d", c>>16&255, c>>8&255, c&255) }

// ManyClients is the per-client rate limit as ilgraph serve runs it
// (10 requests a second, bursts of 20), behind a proxy on loopback, so
// that a test's clients count as the addresses they name in
// X-Forwarded-For (ClientAddr): a flood from many addresses, which the
// per-client limit does not stop, as admission control must.
func ManyClients() *ratelimit.Limiter {
	return ratelimit.New(ratelimit.Options{Rate: 10, Burst: 20, LimitLoopback: true,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
}
