package jsonapi

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/view"
)

// params reads query parameters, keeping the first error, which names the
// parameter at fault.
type params struct {
	v   map[string][]string
	err error
}

// query parses the query string, refusing parameters the endpoint does not
// take (a typo would otherwise silently select everything).
func query(r *http.Request, allowed ...string) (*params, error) {
	v, err := parseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	for name := range v {
		if !slices.Contains(allowed, name) {
			if len(allowed) == 0 {
				return nil, ilgraph.Errorf(ilgraph.EINVALID, "unknown parameter %q: this endpoint takes none", ilgraph.Clip(name, 40))
			}
			return nil, ilgraph.Errorf(ilgraph.EINVALID, "unknown parameter %q: this endpoint takes %s", ilgraph.Clip(name, 40), strings.Join(allowed, ", "))
		}
	}
	return &params{v: v}, nil
}

// maxQuery bounds the query string: room for a /suggest text of 10,000
// Korean characters, percent-encoded (9 bytes each).
const maxQuery = 128 << 10

func parseQuery(raw string) (map[string][]string, error) {
	if len(raw) > maxQuery {
		return nil, ilgraph.Errorf(ilgraph.ELIMIT, "the query string is longer than %d bytes", maxQuery)
	}
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "the query string is not valid: %v", err)
	}
	return v, nil
}

func (p *params) setErr(err error) {
	if p.err == nil {
		p.err = err
	}
}

// str returns a parameter given at most once ("" when absent).
func (p *params) str(name string) string {
	vs := p.v[name]
	if len(vs) == 0 {
		return ""
	}
	if len(vs) > 1 {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: given %d times; give it once", name, len(vs)))
	}
	if !utf8.ValidString(vs[0]) {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: not valid UTF-8", name))
		return ""
	}
	return vs[0]
}

// list returns a parameter's values, repeated or comma-separated.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.v[name] {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				if !utf8.ValidString(x) {
					p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: not valid UTF-8", name))
					return nil
				}
				out = append(out, x)
			}
		}
	}
	if len(out) > ilgraph.MaxFilterTerms {
		p.setErr(ilgraph.Errorf(ilgraph.ELIMIT, "%s: at most %d values, not %d", name, ilgraph.MaxFilterTerms, len(out)))
		return nil
	}
	return out
}

// intIn returns a whole number from lo to hi, def when absent: for
// parameters the core does not bound. Values out of range are a LIMIT
// error that states the range.
func (p *params) intIn(name string, def, lo, hi int) int {
	n := p.optInt(name)
	if n == nil {
		return def
	}
	if *n < lo || *n > hi {
		p.setErr(ilgraph.Errorf(ilgraph.ELIMIT, "%s must be from %d to %d, not %d", name, lo, hi, *n))
		return def
	}
	return *n
}

// optInt returns a whole number, nil when absent; the core checks its
// range.
func (p *params) optInt(name string) *int {
	s := p.str(name)
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: %q is not a whole number", name, ilgraph.Clip(s, 40)))
		return nil
	}
	return &n
}

// intOr returns *n, or def when n is nil.
func intOr(n *int, def int) int {
	if n == nil {
		return def
	}
	return *n
}

// floatIn returns a number from lo to hi, def when absent: for parameters
// the core does not bound.
func (p *params) floatIn(name string, def, lo, hi float64) float64 {
	f := p.float(name, def)
	if f < lo || f > hi {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s must be from %g to %g, not %g", name, lo, hi, f))
		return def
	}
	return f
}

// float returns a number, def when absent; the core checks its range.
func (p *params) float(name string, def float64) float64 {
	s := p.str(name)
	if s == "" {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: %q is not a number", name, ilgraph.Clip(s, 40)))
		return def
	}
	return f
}

func (p *params) boolean(name string) bool {
	s := p.str(name)
	if s == "" {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: %q is not true or false", name, ilgraph.Clip(s, 40)))
	}
	return b
}

// optBoolean is boolean for a parameter whose absence means "the default":
// nil when it is not given.
func (p *params) optBoolean(name string) *bool {
	if p.str(name) == "" {
		return nil
	}
	b := p.boolean(name)
	return &b
}

func (p *params) weights(name string) ilgraph.Weights {
	s := p.str(name)
	if s == "" {
		return ilgraph.Weights{}
	}
	w, err := ilgraph.ParseWeights(s)
	if err != nil {
		p.setErr(err) // its message starts with "weights:"
		return nil
	}
	return w
}

func (p *params) date(name string) string {
	s := p.str(name)
	if s == "" {
		return ""
	}
	if _, err := time.Parse(ilgraph.DateLayout, s); err != nil {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: %q is not a date in the form YYYY-MM-DD", name, ilgraph.Clip(s, 40)))
		return ""
	}
	return s
}

// page reads limit and cursor; the core applies the list's default size
// and checks both.
func (p *params) page() explore.Page {
	return explore.Page{First: p.optInt("limit"), After: p.str("cursor")}
}

// sort reads a case order: date_desc (default), date_asc, id_asc, id_desc,
// relevance (the core refuses it without q).
func (p *params) sort(name string) ilgraph.CaseSort {
	s := p.str(name)
	if s == "" {
		return ilgraph.SortDateDesc
	}
	cs := ilgraph.CaseSort(strings.ToUpper(strings.TrimSpace(s)))
	if !cs.Valid() {
		p.setErr(ilgraph.Errorf(ilgraph.EINVALID, "%s: %q is not one of date_desc, date_asc, id_asc, id_desc, relevance", name, ilgraph.Clip(s, 40)))
		return ilgraph.SortDateDesc
	}
	return cs
}

// filter reads the case-selecting parameters. What they may hold (q's
// length, the order of from and to) the core checks, naming the parameter
// through fieldNames.
func (p *params) filter() view.Filter {
	f := view.Filter{Terms: map[ilgraph.Kind][]string{}, Severities: p.list("severity"),
		From: p.date("from"), To: p.date("to"), Text: strings.TrimSpace(p.str("q"))}
	for _, k := range ilgraph.AllKinds {
		f.Terms[k] = p.list(string(k)) // the parameter is the kind: root_cause, component, …
	}
	return f
}
