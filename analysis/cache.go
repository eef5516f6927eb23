package analysis

import (
	"strings"
	"sync"
	"sync/atomic"
)

// The part cache remembers each word part's analysis by its script and
// written form: incident text repeats its words, and lower-casing, stemming
// and the stop-word checks were most of the cost of analysis (an in-memory
// corpus's build analyses every case's text). It stops growing at
// maxCached parts so that odd input cannot fill memory; parts past that are
// analysed each time. Numbers are never cached: their analysis is a
// lower-casing that leaves ASCII digits as they are, with no allocation, and
// they are the words that repeat least (ids, counts, times) — a generated
// million-case corpus filled the whole cache with them, about 20 MB that
// stayed live and saved no work.
var (
	partCaches [scripts]partCache
	cached     atomic.Int64
)

// scripts is the number of Script values.
const scripts = int(Digit) + 1

type partCache struct {
	mu sync.RWMutex
	m  map[string]part
}

const maxCached = 200_000

// cachedPart is analysePart(script, surface), remembered.
func cachedPart(script Script, surface string) part {
	if script == Digit {
		return analysePart(script, surface)
	}
	c := &partCaches[script]
	c.mu.RLock()
	p, ok := c.m[surface]
	c.mu.RUnlock()
	if ok {
		return p
	}
	p = analysePart(script, surface)
	if cached.Load() < maxCached {
		// The surface and what lower-casing left unchanged are slices of
		// the text analysed: cloned, so that the cache keeps no text alive.
		key, kept := strings.Clone(surface), part{norm: strings.Clone(p.norm), lower: strings.Clone(p.lower), stop: p.stop}
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]part{}
		}
		if _, ok := c.m[key]; !ok {
			c.m[key] = kept
			cached.Add(1)
		}
		c.mu.Unlock()
		return kept
	}
	return p
}
