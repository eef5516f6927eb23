package explore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
)

// Warning says that a value in a request was not what it looked like: a
// term named by a label, a name or in the wrong letter case, which the core
// resolved to its id (Resolved), or one it could not resolve and kept as
// given (Resolved empty), which then matches nothing.
type Warning struct {
	Field       string   // the key of the value's field (ilgraph.FieldFilterTerms, FieldProfileTerms, …), which each front door names its own way
	Value       string   // the value as given
	Message     string   // what happened, for people
	Resolved    string   // the id used instead of Value; empty when Value was kept
	Suggestions []string // ids Value may have meant, nearest first ("did you mean …")
}

// Warnings collects the warnings of one request. Front doors create one per
// request with WithWarnings and show its List with the answer; the core adds
// to it while it resolves filters and profiles. Safe for concurrent use:
// GraphQL resolves fields in parallel.
type Warnings struct {
	mu   sync.Mutex
	list []Warning
	seen map[string]bool
}

type warningsKey struct{}

// WithWarnings returns a context that collects the core's warnings, and the
// collector.
func WithWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{seen: map[string]bool{}}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// WarningsFrom returns the collector of ctx, or nil.
func WarningsFrom(ctx context.Context) *Warnings {
	w, _ := ctx.Value(warningsKey{}).(*Warnings)
	return w
}

// List returns the warnings collected so far, each once, in the order
// first given.
func (w *Warnings) List() []Warning {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Warning(nil), w.list...)
}

func (w *Warnings) add(ws []Warning) {
	if w == nil || len(ws) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range ws {
		key := x.Field + "\x00" + x.Value + "\x00" + x.Message
		if !w.seen[key] {
			w.seen[key] = true
			w.list = append(w.list, x)
		}
	}
}

// report adds warnings to the request's collector, if it has one.
func report(ctx context.Context, ws []Warning) { WarningsFrom(ctx).add(ws) }

// Suggestion bounds.
const (
	MaxSuggestions = 3
	// maxSuggestRunes: longer values get no suggestions (edit distance is
	// quadratic, and nobody mistypes an id that long).
	maxSuggestRunes = 64
)

// termIndex finds terms by id, letter case, label and organization name.
type termIndex struct {
	byKind map[ilgraph.Kind][]ilgraph.Term
	ids    map[ilgraph.TermKey]bool
}

// termIndex reads the terms of the kinds asked for: vocabulary kinds and
// organizations from the caches they share between requests.
func (s *Service) termIndex(ctx context.Context, kinds map[ilgraph.Kind]bool) (*termIndex, error) {
	ix := &termIndex{byKind: map[ilgraph.Kind][]ilgraph.Term{}, ids: map[ilgraph.TermKey]bool{}}
	vocabNeeded := false
	for k := range kinds {
		vocabNeeded = vocabNeeded || k != ilgraph.KindOrg
	}
	if vocabNeeded {
		vocab, err := s.VocabularySnapshot(ctx)
		if err != nil {
			return nil, err
		}
		for k, ti := range vocab {
			ix.byKind[k.Kind] = append(ix.byKind[k.Kind], ti.Term)
			ix.ids[k] = true
		}
	}
	if kinds[ilgraph.KindOrg] {
		orgs, err := s.organizations(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range orgs {
			ix.byKind[ilgraph.KindOrg] = append(ix.byKind[ilgraph.KindOrg], t)
			ix.ids[ilgraph.TermKey{Kind: ilgraph.KindOrg, ID: t.ID}] = true
		}
	}
	for k, ts := range ix.byKind {
		ts = append([]ilgraph.Term(nil), ts...) // the caches' slices are shared
		sort.Slice(ts, func(i, j int) bool { return ts[i].ID < ts[j].ID })
		ix.byKind[k] = ts
	}
	return ix, nil
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// slug turns "Circular Dependency" and "circular_dependency" into
// circular-dependency, the form ids take.
func slug(s string) string {
	return strings.NewReplacer(" ", "-", "_", "-").Replace(fold(s))
}

// resolve returns the id value stands for among the terms of kind k, and a
// warning when value is not itself an id.
func (ix *termIndex) resolve(field string, k ilgraph.Kind, value string) (string, *Warning) {
	if ix.ids[ilgraph.TermKey{Kind: k, ID: value}] {
		return value, nil
	}
	what := k.Label()
	type hit struct{ id, how string }
	var hits []hit
	seen := map[string]bool{}
	add := func(id, how string) {
		if !seen[id] {
			seen[id] = true
			hits = append(hits, hit{id, how})
		}
	}
	// The nearest reading first: the id in another case, then a label or
	// name, then the id with spaces or underscores for hyphens, then one of
	// the term's aliases ("OOM", "스로틀링").
	v, sv := fold(value), slug(value)
	hasAlias := func(as []string) bool {
		for _, a := range as {
			if fold(a) == v {
				return true
			}
		}
		return false
	}
	for pass := 0; pass < 4 && len(hits) == 0; pass++ {
		for _, t := range ix.byKind[k] {
			id := strings.ToLower(t.ID)
			switch {
			case pass == 0 && id == v:
				add(t.ID, "its id in another letter case")
			case pass == 1 && t.En != "" && fold(t.En) == v && k == ilgraph.KindOrg:
				add(t.ID, "the organization's name")
			case pass == 1 && t.En != "" && fold(t.En) == v:
				add(t.ID, "its English label")
			case pass == 1 && t.Ko != "" && fold(t.Ko) == v:
				add(t.ID, "its Korean label")
			case pass == 2 && id == sv:
				add(t.ID, "its id written with spaces")
			case pass == 3 && hasAlias(t.Aliases.En):
				add(t.ID, "an English alias")
			case pass == 3 && hasAlias(t.Aliases.Ko):
				add(t.ID, "a Korean alias")
			}
		}
	}
	w := &Warning{Field: field, Value: ilgraph.Clip(value, 100)}
	switch {
	case len(hits) == 1:
		w.Resolved = hits[0].id
		w.Message = fmt.Sprintf("%q is not %s id; using %s (%s)", ilgraph.Clip(value, 60), article(what), hits[0].id, hits[0].how)
		return hits[0].id, w
	case len(hits) > 1:
		for _, h := range hits {
			w.Suggestions = append(w.Suggestions, h.id)
		}
		w.Message = fmt.Sprintf("%q is not %s id and could be any of %s; kept as given, it matches nothing", ilgraph.Clip(value, 60), article(what), strings.Join(w.Suggestions, ", "))
		return value, w
	}
	w.Suggestions = ix.suggest(k, v)
	w.Message = fmt.Sprintf("no %s has the id %q, so it matches nothing", what, ilgraph.Clip(value, 60))
	if other := ix.otherKind(k, value); other != "" {
		w.Message += fmt.Sprintf("; %s is %s, not %s", value, article(other), article(what)) // an exact id: short
	}
	if len(w.Suggestions) > 0 {
		w.Message += "; did you mean " + strings.Join(w.Suggestions, " or ") + "?"
	}
	return value, w
}

// article puts "a" or "an" before a kind's label.
func article(label string) string {
	if label == "" {
		return label
	}
	if strings.IndexByte("aeiou", label[0]) >= 0 {
		return "an " + label
	}
	return "a " + label
}

// otherKind names the kind of another vocabulary term with this exact id.
func (ix *termIndex) otherKind(k ilgraph.Kind, id string) string {
	for _, o := range ilgraph.AllKinds {
		if o != k && ix.ids[ilgraph.TermKey{Kind: o, ID: id}] {
			return o.Label()
		}
	}
	return ""
}

// suggest returns the ids of kind k whose id or label is within a small
// edit distance of v (lower-cased), nearest first, then by id.
func (ix *termIndex) suggest(k ilgraph.Kind, v string) []string {
	n := utf8.RuneCountInString(v)
	if n == 0 || n > maxSuggestRunes {
		return nil
	}
	limit := max(1, min(3, n/3))
	type cand struct {
		id string
		d  int
	}
	var cs []cand
	for _, t := range ix.byKind[k] {
		best := limit + 1
		for _, s := range []string{t.ID, t.En, t.Ko} {
			if s == "" {
				continue
			}
			s = fold(s)
			if d := utf8.RuneCountInString(s) - n; d > limit || -d > limit {
				continue
			}
			best = min(best, editDistance(v, s, limit))
			best = min(best, editDistance(slug(v), s, limit))
		}
		if best <= limit {
			cs = append(cs, cand{t.ID, best})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].id < cs[j].id
	})
	var out []string
	for _, c := range cs[:min(len(cs), MaxSuggestions)] {
		out = append(out, c.id)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b in runes, or
// limit+1 when it is larger than limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit+1)
}

// ResolveFilter resolves the term ids of a filter: an exact id stays; a
// label (English or Korean), an organization's name or an id in another
// letter case becomes the id it names when only one term matches; anything
// else stays as given (and matches nothing). It returns the resolved filter
// and a warning for every value that was not an exact id. Its Field is the
// value's field key (ilgraph.FieldFilterTerms, FieldFilterExcludeOrgs),
// with prefix in place of "filter".
func (s *Service) ResolveFilter(ctx context.Context, f ilgraph.CaseFilter, prefix string) (ilgraph.CaseFilter, []Warning, error) {
	kinds := map[ilgraph.Kind]bool{}
	for k, m := range f.Tags {
		if !m.IsZero() {
			kinds[k] = true
		}
	}
	if len(f.ExcludeOrgs) > 0 {
		kinds[ilgraph.KindOrg] = true
	}
	if len(kinds) == 0 {
		return f, nil, nil
	}
	ix, err := s.termIndex(ctx, kinds)
	if err != nil {
		return f, nil, err
	}
	var ws []Warning
	key := func(k string) string { return prefix + strings.TrimPrefix(k, ilgraph.FieldFilter) }
	list := func(field string, k ilgraph.Kind, vals []string) []string {
		if len(vals) == 0 {
			return vals
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			id, w := ix.resolve(field, k, v)
			out[i] = id
			if w != nil {
				ws = append(ws, *w)
			}
		}
		return out
	}
	out := f
	out.Tags = make(map[ilgraph.Kind]ilgraph.TermMatch, len(f.Tags))
	for _, k := range ilgraph.AllKinds {
		m, ok := f.Tags[k]
		if !ok {
			continue
		}
		out.Tags[k] = ilgraph.TermMatch{AnyOf: list(key(ilgraph.FieldFilterTerms(k, ilgraph.MatchAnyOf)), k, m.AnyOf),
			AllOf: list(key(ilgraph.FieldFilterTerms(k, ilgraph.MatchAllOf)), k, m.AllOf)}
	}
	for k, m := range f.Tags { // kinds the front doors do not know: as given
		if _, ok := out.Tags[k]; !ok {
			out.Tags[k] = m
		}
	}
	out.ExcludeOrgs = list(key(ilgraph.FieldFilterExcludeOrgs), ilgraph.KindOrg, f.ExcludeOrgs)
	return out, ws, nil
}

// ResolveProfile resolves a profile's term ids the way ResolveFilter does;
// a warning's Field is the value's key, ilgraph.FieldProfileTerms.
func (s *Service) ResolveProfile(ctx context.Context, p Profile) (Profile, []Warning, error) {
	kinds := map[ilgraph.Kind]bool{}
	for _, f := range p.Features() {
		kinds[f.Kind] = true
	}
	if len(kinds) == 0 {
		return p, nil, nil
	}
	ix, err := s.termIndex(ctx, kinds)
	if err != nil {
		return p, nil, err
	}
	var ws []Warning
	out := p
	for _, info := range ilgraph.Kinds {
		vs := p.Terms(info.Kind)
		if len(vs) == 0 {
			continue
		}
		ids := make([]string, 0, len(vs))
		for _, v := range vs {
			if v == "" {
				continue
			}
			id, w := ix.resolve(ilgraph.FieldProfileTerms(info.Kind), info.Kind, v)
			if w != nil {
				ws = append(ws, *w)
			}
			ids = append(ids, id)
		}
		out.SetTerms(info.Kind, ids)
	}
	return out, ws, nil
}

// resolveFilter resolves a filter and reports its warnings to the request.
func (s *Service) resolveFilter(ctx context.Context, f ilgraph.CaseFilter) (ilgraph.CaseFilter, error) {
	out, ws, err := s.ResolveFilter(ctx, f, "filter")
	report(ctx, ws)
	return out, err
}
