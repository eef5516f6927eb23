package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// plotSeries is one line of a panel.
type plotSeries struct {
	name  string
	color string
	ys    []float64
}

// plotPanel is one chart of the soak plot, over the run's minutes.
type plotPanel struct {
	title  string
	series []plotSeries
}

// soakPanels are the soak plot's charts: the server's memory, its
// goroutines and open files, the p50 and the p99 per door, and the
// requests, refusals and errors per window.
func soakPanels(ws []SoakWindow) []plotPanel {
	col := func(f func(SoakWindow) float64) []float64 {
		ys := make([]float64, len(ws))
		for i, w := range ws {
			ys[i] = f(w)
		}
		return ys
	}
	doorColor := map[string]string{"graphql": "#1f77b4", "json": "#2ca02c", "mcp": "#d62728"}
	perDoor := func(f func(SoakStat) float64) []plotSeries {
		var out []plotSeries
		for _, d := range soakDoors {
			out = append(out, plotSeries{d, doorColor[d], col(func(w SoakWindow) float64 { return f(w.ByDoor[d]) })})
		}
		return out
	}
	return []plotPanel{
		{"server memory (MB)", []plotSeries{
			{"RSS", "#1f77b4", col(func(w SoakWindow) float64 { return w.RSSMB })},
			{"RSS (max)", "#aec7e8", col(func(w SoakWindow) float64 { return w.RSSMaxMB })},
			{"Go heap in use", "#ff7f0e", col(func(w SoakWindow) float64 { return w.HeapMB })},
		}},
		{"goroutines and open files (medians of the window)", []plotSeries{
			{"goroutines", "#9467bd", col(func(w SoakWindow) float64 { return float64(w.Goroutines) })},
			{"open files", "#8c564b", col(func(w SoakWindow) float64 { return float64(w.OpenFDs) })},
		}},
		{"highest goroutines in the window", []plotSeries{
			{"goroutines (max)", "#9467bd", col(func(w SoakWindow) float64 { return float64(w.GoroutinesMax) })},
		}},
		{"p50 of answered requests per door (ms)", perDoor(func(s SoakStat) float64 { return s.P50Ms })},
		{"p99 of answered requests per door (ms)", perDoor(func(s SoakStat) float64 { return s.P99Ms })},
		{"requests per window", []plotSeries{
			{"requests", "#1f77b4", col(func(w SoakWindow) float64 { return float64(w.Requests) })},
			{"refused (429/503)", "#ff7f0e", col(func(w SoakWindow) float64 { return float64(w.Refused) })},
			{"errors", "#d62728", col(func(w SoakWindow) float64 { return float64(w.Errors) })},
		}},
	}
}

// writeSoakSVG draws the soak run as an SVG: a panel per soakPanels chart,
// minutes on the x axis, each panel's y axis from 0 to a round number
// above its highest value.
func writeSoakSVG(w io.Writer, res *Soak) {
	const (
		width, panelH, left, right, top, gap = 760, 150, 60, 170, 40, 40
	)
	panels := soakPanels(res.Windows)
	height := top + len(panels)*(panelH+gap)
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%d" y="20" font-size="13" font-weight="bold">%s</text>`+"\n", left,
		html.EscapeString(fmt.Sprintf("ilgraph soak: %d cases, %d clients, %s, a write (%s) every %d s — %s", res.Cases, res.Clients, res.Duration, res.Writes, res.WriteS, res.When)))
	n := len(res.Windows)
	plotW := float64(width - left - right)
	xOf := func(i int) float64 {
		if n <= 1 {
			return float64(left)
		}
		return float64(left) + plotW*float64(i)/float64(n-1)
	}
	for p, panel := range panels {
		y0 := float64(top + p*(panelH+gap) + 16)
		h := float64(panelH - 16)
		hi := 0.0
		for _, s := range panel.series {
			for _, y := range s.ys {
				hi = math.Max(hi, y)
			}
		}
		hi = niceCeil(hi)
		fmt.Fprintf(w, `<text x="%d" y="%.0f" font-weight="bold">%s</text>`+"\n", left, y0-4, html.EscapeString(panel.title))
		fmt.Fprintf(w, `<rect x="%d" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0, plotW, h)
		for _, f := range []float64{0, 0.5, 1} {
			y := y0 + h - h*f
			fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, float64(left)+plotW, y)
			fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y+4, tick(hi*f))
		}
		for _, m := range minuteTicks(n) {
			fmt.Fprintf(w, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#666">%d</text>`+"\n", xOf(m-1), y0+h+12, m)
		}
		for k, s := range panel.series {
			var pts []string
			for i, y := range s.ys {
				py := y0 + h
				if hi > 0 {
					py -= h * y / hi
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(i), py))
			}
			fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
			ly := y0 + 12 + float64(k)*14
			fmt.Fprintf(w, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", float64(left)+plotW+10, ly-4, float64(left)+plotW+28, ly-4, s.color)
			fmt.Fprintf(w, `<text x="%.0f" y="%.0f">%s</text>`+"\n", float64(left)+plotW+32, ly, html.EscapeString(s.name))
		}
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" fill="#666">window of the run (a point per %d s)</text>`+"\n", left, height-8, res.WindowS)
	fmt.Fprintln(w, "</svg>")
}

// niceCeil is the smallest of 1, 2, 2.5 or 5 times a power of ten at or
// above x (1 for x ≤ 0).
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// minuteTicks are the windows (1-based) labelled on the x axis: about ten.
func minuteTicks(n int) []int {
	step := max(1, (n+9)/10)
	var out []int
	for m := 1; m <= n; m += step {
		out = append(out, m)
	}
	if len(out) > 0 && out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}
