package explorer_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/memstore"
)

// BenchmarkScreensAtScale measures, in headless Chromium, how long the
// Cases and Case screens take to become usable over the corpus the Neo4j
// already holds — it neither loads nor empties anything: load a generated
// corpus first (make bench does, with BENCH_CASES) and point NEO4J_URI at
// it. Usable is the page's "ilgraph:ready" mark (main.js): the screen is
// drawn with its data and takes input.
//
// Two ways in, each over a spread of URLs: a fresh load of the URL (from
// the navigation's start: HTML, modules, API requests, drawing) and a move
// inside the running page (a click on a case in the list, from the click's
// render to ready). The read model is built before timing, as a running
// server has it; the browser cache is off, so every fresh load fetches
// every module again. Reported as p50 and max milliseconds per screen.
func BenchmarkScreensAtScale(b *testing.B) {
	db := neo4jtest.MustOpenKeep(b)
	ctx := context.Background()
	src := memstore.NewSource(db)
	s := newSite(b, db, src)
	start := time.Now()
	c, err := src.Get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d cases; read model built in %s", c.Len(), time.Since(start).Round(time.Millisecond))
	var page struct {
		Cases struct {
			Nodes []struct {
				ID        string
				RootCause struct{ ID string }
				Year      int
			}
		}
	}
	s.api(`{ cases(first: 40) { nodes { id year rootCause { id } } } }`, nil, &page)
	if len(page.Cases.Nodes) == 0 {
		b.Fatal("the database holds no cases: load a corpus first")
	}
	var lists, cases []string
	for i, n := range page.Cases.Nodes {
		cases = append(cases, "/case/"+url.PathEscape(n.ID))
		switch i % 4 {
		case 0:
			lists = append(lists, "/")
		case 1:
			lists = append(lists, "/?rc="+n.RootCause.ID)
		case 2:
			lists = append(lists, fmt.Sprintf("/?from=%d-01-01&to=%d-12-31", n.Year, n.Year))
		default:
			lists = append(lists, "/?rc="+n.RootCause.ID+"&sort=DATE_ASC")
		}
	}
	br := newBrowser(b)
	// Once through every screen untimed: the server's caches and the
	// browser's compiled code are warm, as for a user a minute in.
	for _, p := range []string{"/", cases[0]} {
		if st, _ := br.open(s.url + p); st != "ready" {
			b.Fatalf("%s: state %s", p, st)
		}
	}
	// readyAfter is the time from the navigation's start (a fresh load) or
	// from the last render's start (a move inside the page) to ready.
	readyAfter := func(fresh bool) float64 {
		js := `(() => { const r = performance.getEntriesByName("ilgraph:ready"); const l = performance.getEntriesByName("ilgraph:loading");
		  return r.length ? r[r.length-1].startTime - (` + fmt.Sprint(!fresh) + ` ? l[l.length-1].startTime : 0) : -1; })()`
		return eval[float64](br, js)
	}
	times := map[string][]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range lists {
			if st, _ := br.open(s.url + lists[j]); st != "ready" {
				b.Fatalf("%s: state %s", lists[j], st)
			}
			times["cases-load"] = append(times["cases-load"], readyAfter(true))
			// A move inside the page: click the first case of the list.
			br.do(chromedp.Evaluate[chromedp.Void](`performance.clearMarks(); document.querySelector('main a[href^="/case/"]').click()`))
			if st := br.settle(); st != "ready" {
				b.Fatalf("case from %s: state %s", lists[j], st)
			}
			times["case-click"] = append(times["case-click"], readyAfter(false))
			if st, _ := br.open(s.url + cases[j]); st != "ready" {
				b.Fatalf("%s: state %s", cases[j], st)
			}
			times["case-load"] = append(times["case-load"], readyAfter(true))
		}
	}
	b.StopTimer()
	for name, ts := range times {
		sort.Float64s(ts)
		b.ReportMetric(ts[len(ts)/2], name+"-p50-ms")
		b.ReportMetric(ts[len(ts)-1], name+"-max-ms")
	}
}
