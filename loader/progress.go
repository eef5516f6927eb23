package loader

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a one-line progress bar on a terminal; elsewhere it is silent.
type progress struct {
	w           io.Writer
	total, n    int
	start, last time.Time
}

func newProgress(w io.Writer, total int) *progress {
	if w == nil || !isTerminal(w) || total < 1000 {
		return &progress{}
	}
	return &progress{w: w, total: total, start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) add(n int) {
	if p.w == nil {
		return
	}
	p.n += n
	if time.Since(p.last) < 100*time.Millisecond && p.n < p.total {
		return
	}
	p.last = time.Now()
	const width = 30
	filled := width * p.n / p.total
	rate := float64(p.n) / time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d cases  %.0f/s ", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.n, p.total, rate)
}

func (p *progress) done() {
	if p.w != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
