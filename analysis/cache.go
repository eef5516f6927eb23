package analysis

import (
	"sync"
	"sync/atomic"
)

// stemCache remembers stems: incident text repeats its words, and stemming
// is most of the cost of analysis. It stops growing at maxCached words so
// that odd input cannot fill memory; words past that are stemmed each time.
var (
	stemCache sync.Map // "e"+word or "k"+word → stem
	cached    atomic.Int64
)

const maxCached = 200_000

func cachedStem(key string, stem func() string) string {
	if v, ok := stemCache.Load(key); ok {
		return v.(string)
	}
	s := stem()
	if cached.Load() < maxCached {
		if _, loaded := stemCache.LoadOrStore(key, s); !loaded {
			cached.Add(1)
		}
	}
	return s
}
