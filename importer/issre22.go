package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/suggest"
)

// ISSREPrefix is the id prefix of cases imported from the ISSRE'22 study's
// collection of cloud post-mortems (IntelligentDDS/Post-mortems-Analysis).
const ISSREPrefix = "IS"

// LabelConfidence is the confidence recorded for a tag that a person's
// label in the source gives through a table of certain mappings
// (ISSRERootCauseMap): the label is a person's reading of the whole report,
// finer than a postmortems.app category (CategoryConfidence), but made under
// another taxonomy and not checked against our tagging rules.
const LabelConfidence = 0.8

// ProviderConfidence is the confidence of the provider domain (aws, azure,
// gcp) of an ISSRE'22 case: the collection files every record under the
// provider whose own service failed, and the organization is that provider.
const ProviderConfidence = 1.0

// ISSREProvider is one of the three clouds of the collection.
type ISSREProvider struct {
	Name   string // the collection's folder name: AWS, Azure, Google
	Org    string // the organization, as the seeds write it
	Domain string // the provider domain
	// Hosts are where the provider publishes its reports; a link elsewhere
	// is a copy, and the case cites History as its official source.
	Hosts   []string
	History string
	// named matches a title that names the provider.
	named *regexp.Regexp
}

// ISSREProviders are the collection's providers, by lower-case folder name.
var ISSREProviders = map[string]*ISSREProvider{
	"aws": {Name: "AWS", Org: "Amazon Web Services", Domain: "aws",
		Hosts: []string{"aws.amazon.com"}, History: "https://aws.amazon.com/premiumsupport/technology/pes/",
		named: regexp.MustCompile(`\bAWS\b|(?i:\bamazon\b)`)},
	"azure": {Name: "Azure", Org: "Microsoft Azure", Domain: "azure",
		Hosts: []string{"status.azure.com", "azure.status.microsoft", "azure.microsoft.com"}, History: "https://status.azure.com/en-us/status/history/",
		named: regexp.MustCompile(`(?i:\bazure\b|\bmicrosoft\b)`)},
	"google": {Name: "Google", Org: "Google Cloud", Domain: "gcp",
		Hosts: []string{"status.cloud.google.com"}, History: "https://status.cloud.google.com/summary",
		named: regexp.MustCompile(`(?i:\bgoogle\b)|\bGCP\b|\bGCE\b|\bGKE\b`)},
}

// ISSRERootCauseMap maps the study's root-cause labels ("layer-1/layer-2/
// layer-3", normalised by issreLabel) to our root causes, only where the
// label says what our term says (docs/import.md gives the reason for each).
// "layer-1/layer-2/*" stands for every layer-3 of that layer-2, and for
// none. Labels not listed are left to the suggestion engine.
var ISSRERootCauseMap = map[string]string{
	"external causes/hardware failures/power outage":            "power-cooling",
	"external causes/hardware failures/power":                   "power-cooling",
	"external causes/hardware failures/cooling system":          "power-cooling",
	"external causes/hardware failures/fire suppression system": "power-cooling",
	"external causes/hardware failures/network device":          "hardware-failure",
	"external causes/hardware failures/fiber cut":               "network",
	"external causes/insufficient resource/*":                   "capacity",
	"internal causes/software bugs/config":                      "config-change",
	"internal causes/software bugs/code change":                 "deployment",
}

// issreSpelling evens out the collection's own spelling variants of a
// label part.
var issreSpelling = map[string]string{
	"softwares bugs":         "software bugs",
	"software failures":      "software bugs",
	"cooling systems":        "cooling system",
	"fire supression system": "fire suppression system",
}

// issreLabel is one root-cause label of a record.
type issreLabel struct {
	L1 *string `json:"layer-1"`
	L2 *string `json:"layer-2"`
	L3 *string `json:"layer-3"`
}

// String is the label as "layer-1/layer-2/layer-3", lower-cased, spelling
// evened out, without the layers it lacks.
func (l issreLabel) String() string {
	var parts []string
	for _, p := range []*string{l.L1, l.L2, l.L3} {
		if p == nil || strings.TrimSpace(*p) == "" {
			break
		}
		s := strings.Join(strings.Fields(strings.ToLower(*p)), " ")
		if v, ok := issreSpelling[s]; ok {
			s = v
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "/")
}

// MapISSRELabel is our root cause for one label, or "".
func MapISSRELabel(label string) string {
	if rc, ok := ISSRERootCauseMap[label]; ok {
		return rc
	}
	parts := strings.Split(label, "/")
	if len(parts) >= 2 {
		return ISSRERootCauseMap[parts[0]+"/"+parts[1]+"/*"]
	}
	return ""
}

// MapISSRELabels is the root cause a record's labels give for certain: every
// label maps, and to the same term. Otherwise "".
func MapISSRELabels(labels []string) string {
	rc := ""
	for _, l := range labels {
		m := MapISSRELabel(l)
		if m == "" || rc != "" && m != rc {
			return ""
		}
		rc = m
	}
	return rc
}

// issreRecord is one record of the collection. The shapes vary: link is a
// list (or a string), root cause is {label: [...], details} (or a bare
// {"layer-1": "unknown"}), mitigation may be null.
type issreRecord struct {
	Title       *string         `json:"title"`
	Link        json.RawMessage `json:"link"`
	Time        *string         `json:"time"`
	Summary     string          `json:"summary"`
	Details     string          `json:"details"`
	Duration    *float64        `json:"duration"`
	Detection   *float64        `json:"detection time"`
	RootCause   json.RawMessage `json:"root cause"`
	Mitigation  *issreMitigate  `json:"mitigation"`
	ServiceName []string        `json:"service_name"`
}

type issreRootCause struct {
	Label   []issreLabel `json:"label"`
	Details string       `json:"details"`
	issreLabel
}

type issreMitigate struct {
	Label   []string `json:"label"`
	Details string   `json:"details"`
}

// ISSRERecord is a record read from the collection with what the importer
// and its evaluation need besides the Record: the study's key, the
// provider, and the root-cause labels.
type ISSRERecord struct {
	*Record
	Key      string // the record's key in its file ("aws-1", "gcnet-19009")
	Provider *ISSREProvider
	Labels   []string // the root-cause labels, "layer-1/layer-2/layer-3"
	// Mapped is the root cause the labels give for certain (MapISSRELabels),
	// or "".
	Mapped string
	// MappedAny are the root causes its labels map to one by one, whether
	// or not every label maps (a record labelled with several causes).
	MappedAny []string
}

// ReadISSRE22 reads the collection's JSON files under paths (the
// repository, its anomaly_collection folder, a provider's folder, or
// files): each file is an object of records by key. The provider is the
// folder a file is in (AWS, Azure, Google). Records that cannot become a
// Record are reported with file, line, key and field; a key read before
// (the collection repeats a few records in two files) is reported as a
// duplicate. The rest are returned in file order, then in file order of
// their keys.
func ReadISSRE22(paths []string) ([]*ISSRERecord, loader.Problems, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot read", p)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(strings.ToLower(d.Name()), ".json") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, ilgraph.WrapError(ilgraph.EINVALID, err, "%s: cannot list", p)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, nil, ilgraph.Errorf(ilgraph.EINVALID, "no *.json files in %s (give the collection's anomaly_collection folder)", strings.Join(paths, ", "))
	}
	var recs []*ISSRERecord
	var probs loader.Problems
	seen := map[string]loader.Position{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			probs = append(probs, &loader.Problem{Pos: loader.Position{File: f, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		rs, ps := ParseISSRE22(f, data)
		probs = append(probs, ps...)
		for _, r := range rs {
			if at, dup := seen[r.Key]; dup {
				probs = append(probs, &loader.Problem{Pos: r.Pos, Msg: fmt.Sprintf("record %s: duplicate: the same key was read at %s; the first is imported", r.Key, at)})
				continue
			}
			seen[r.Key] = r.Pos
			recs = append(recs, r)
		}
	}
	return recs, probs, nil
}

// ProviderOf is the provider of a file of the collection: the nearest
// folder named after one (AWS, Azure, Google; any case), or nil.
func ProviderOf(file string) *ISSREProvider {
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if p := ISSREProviders[strings.ToLower(filepath.Base(dir))]; p != nil {
			return p
		}
		if next := filepath.Dir(dir); next == dir {
			return nil
		}
	}
}

// ParseISSRE22 reads one file of the collection: a JSON object of records
// by key. A file that is not such an object is one problem; a record that
// cannot be read is a problem naming the file, the record's line, its key
// and the field.
func ParseISSRE22(name string, data []byte) ([]*ISSRERecord, loader.Problems) {
	filePos := loader.Position{File: name, Line: 1, Index: -1}
	fileProblem := func(line int, format string, args ...any) loader.Problems {
		p := filePos
		p.Line = line
		return loader.Problems{{Pos: p, Msg: fmt.Sprintf(format, args...)}}
	}
	if !utf8.Valid(data) {
		return nil, fileProblem(1, "invalid UTF-8 (the file must be UTF-8)")
	}
	prov := ProviderOf(name)
	if prov == nil {
		return nil, fileProblem(1, "cannot tell the provider: the file is not in a folder named AWS, Azure or Google")
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	syntax := func(err error) loader.Problems {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fileProblem(lineAt(se.Offset), "invalid JSON: %v", err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fileProblem(lineAt(int64(len(data))), "invalid JSON: unexpected end of file")
		}
		return fileProblem(lineAt(dec.InputOffset()), "invalid JSON: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fileProblem(1, "want a JSON object of records by key, got %v", tok)
	}
	var recs []*ISSRERecord
	var probs loader.Problems
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return recs, append(probs, syntax(err)...)
		}
		key := tok.(string) // an object's keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return recs, append(probs, syntax(err)...)
		}
		// The record starts at its value's first byte.
		start := dec.InputOffset() - int64(len(raw))
		pos := loader.Position{File: name, Line: lineAt(start), Index: -1}
		r, p := parseISSRERecord(key, raw, pos, prov)
		if p != nil {
			probs = append(probs, p)
			continue
		}
		recs = append(recs, r)
	}
	return recs, probs
}

func parseISSRERecord(key string, raw json.RawMessage, pos loader.Position, prov *ISSREProvider) (*ISSRERecord, *loader.Problem) {
	problem := func(field, format string, args ...any) *loader.Problem {
		return &loader.Problem{Pos: pos, Field: field, Msg: fmt.Sprintf("record %s: ", key) + fmt.Sprintf(format, args...)}
	}
	var x issreRecord
	if err := json.Unmarshal(raw, &x); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, problem(te.Field, "want %s, got a JSON %s", jsonKind(te.Type.String()), te.Value)
		}
		return nil, problem("", "want a JSON object, got %s", ilgraph.Clip(string(raw), 40))
	}
	rec := &ISSRERecord{Key: key, Provider: prov}
	r := &Record{Pos: pos, SourceID: key, Key: hashKey(key), Org: prov.Org, DateKind: "incident"}
	rec.Record = r

	// time: MM/DD/YYYY, the day the incident began.
	if x.Time == nil || strings.TrimSpace(*x.Time) == "" {
		return nil, problem("time", "required: the incident's date, MM/DD/YYYY")
	}
	d, err := time.Parse("1/2/2006", strings.TrimSpace(*x.Time))
	if err != nil {
		return nil, problem("time", "%q is not a date MM/DD/YYYY", ilgraph.Clip(*x.Time, 40))
	}
	r.Date = d.Format(ilgraph.DateLayout)

	// link: the report; its host decides whether it is the official source.
	links, err := stringOrList(x.Link)
	if err != nil {
		return nil, problem("link", "%v", err)
	}
	if len(links) == 0 {
		return nil, problem("link", "required: the record cites no report")
	}
	for i, l := range links {
		if u, err := url.Parse(l); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, problem(fmt.Sprintf("link[%d]", i), "%q is not an http(s) URL", ilgraph.Clip(l, 80))
		}
	}
	r.URL = links[0]

	// Root-cause labels.
	if len(x.RootCause) > 0 && string(x.RootCause) != "null" {
		var rc issreRootCause
		if err := json.Unmarshal(x.RootCause, &rc); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, problem("root cause."+te.Field, "want %s, got a JSON %s", jsonKind(te.Type.String()), te.Value)
			}
			return nil, problem("root cause", "%v", err)
		}
		for _, l := range rc.Label {
			if s := l.String(); s != "" {
				rec.Labels = append(rec.Labels, s)
			}
		}
		if len(rc.Label) == 0 {
			if s := rc.issreLabel.String(); s != "" {
				rec.Labels = append(rec.Labels, s)
			}
		}
		x.Details = joinNew(x.Details, "Root cause: ", rc.Details)
	}
	rec.Mapped = MapISSRELabels(rec.Labels)
	for _, l := range rec.Labels {
		if m := MapISSRELabel(l); m != "" && !slices.Contains(rec.MappedAny, m) {
			rec.MappedAny = append(rec.MappedAny, m)
		}
	}
	if rec.Mapped != "" {
		r.Given = append(r.Given, Given{ilgraph.Feature{Kind: ilgraph.KindRootCause, ID: rec.Mapped}, LabelConfidence})
	}
	r.Given = append(r.Given, Given{ilgraph.Feature{Kind: ilgraph.KindDomain, ID: prov.Domain}, ProviderConfidence})

	if x.Mitigation != nil {
		seen := map[string]bool{}
		for _, m := range x.Mitigation.Label {
			m = strings.Join(strings.Fields(m), " ")
			if m != "" && !seen[strings.ToLower(m)] {
				seen[strings.ToLower(m)] = true
				r.Remediation = append(r.Remediation, m)
			}
		}
		x.Details = joinNew(x.Details, "Mitigation: ", x.Mitigation.Details)
	}

	// Durations, in minutes: duration is the impact's, start to
	// mitigation; detection time is start to detection.
	if x.Duration != nil && *x.Duration >= 1 && *x.Duration <= 366*1440 {
		r.ResolvedAfter = ilgraph.FormatDuration(int(*x.Duration))
	}
	if x.Detection != nil && *x.Detection >= 0 && *x.Detection <= 366*1440 {
		r.DetectedAfter = ilgraph.FormatDuration(int(*x.Detection))
	}

	summary := strings.TrimSpace(x.Summary)
	details := strings.TrimSpace(x.Details)
	r.Summary = joinNew(summary, "", details)
	title := ""
	if x.Title != nil {
		title = strings.Join(strings.Fields(*x.Title), " ")
	}
	if title == "" {
		title = fallbackTitle(prov.Org, r.Summary)
	} else if !prov.named.MatchString(title) {
		title = prov.Org + ": " + title
	}
	r.Title = title
	if strings.TrimSpace(r.Summary) == "" || r.Title == "" {
		return nil, problem("summary", "no text: summary, details and root cause details are all empty")
	}
	r.Sources = issreSources(prov, links)
	return rec, nil
}

// issreSources cites the record's links: a link on the provider's own site
// is the official source; a link elsewhere (a PDF print of the status
// history kept with the study, the study group's own server) is a copy,
// and the provider's incident history, where the report was published, is
// cited first as the official source.
func issreSources(prov *ISSREProvider, links []string) []ilgraph.Source {
	var official, copies []ilgraph.Source
	for _, l := range links {
		u, _ := url.Parse(l)
		own := false
		for _, h := range prov.Hosts {
			own = own || strings.EqualFold(u.Host, h)
		}
		if own {
			official = append(official, ilgraph.Source{URL: l, Kind: "official-status"})
		} else {
			copies = append(copies, ilgraph.Source{URL: l, Kind: "copy"})
		}
	}
	if len(official) == 0 {
		official = []ilgraph.Source{{URL: prov.History, Kind: "official-status"}}
	}
	return append(official, copies...)
}

// stringOrList reads a JSON string or list of strings (null: none).
func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one = strings.TrimSpace(one); one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("want a URL or a list of URLs, got %s", ilgraph.Clip(string(raw), 40))
	}
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// joinNew appends text to base as a new paragraph, prefixed with label
// ("Root cause: "), unless it is empty or base already says it (the
// collection's root-cause and mitigation details are often quoted from the
// details); when text holds base, text replaces it.
func joinNew(base, label, text string) string {
	text = strings.TrimSpace(text)
	base = strings.TrimSpace(base)
	switch {
	case text == "":
		return base
	case base == "":
		return label + text
	case strings.Contains(norm(base), norm(text)):
		return base
	case label == "" && strings.Contains(norm(text), norm(base)):
		return text
	}
	return base + "\n\n" + label + text
}

// norm is s lower-cased, spaces evened out, without the punctuation that
// ends a sentence.
func norm(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(strings.ToLower(s)), " "), ".;:, ")
}

// jsonKind names a Go type as the JSON the field wants.
func jsonKind(t string) string {
	switch {
	case t == "string" || t == "*string":
		return "a string"
	case strings.Contains(t, "float") || strings.Contains(t, "int"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object"
}

// ISSREAgreement is how often the suggestion engine's root cause agrees
// with the root cause a person's label gives (MapISSRELabels), for one
// provider.
type ISSREAgreement struct {
	Provider string `json:"provider"`
	Records  int    `json:"records"`  // records read
	Labelled int    `json:"labelled"` // of them, with a mapped root cause
	Top1     int    `json:"top1"`     // the engine's best is the mapped root cause
	Top3     int    `json:"top3"`     // the mapped root cause is among the engine's best three
	// Partly: records with at least one label that maps (MappedAny),
	// several causes among them; PartlyTop3: one of those root causes is
	// among the engine's best three.
	Partly     int `json:"partly_labelled"`
	PartlyTop3 int `json:"partly_top3"`
}

// RootCauseAgreement runs the suggestion engine on each record's text (as
// Import does) and counts, per provider and in all, the records whose
// mapped human root cause is the engine's first, and among its first three,
// root-cause suggestions. exclude gives, per record key, a corpus case to
// leave out of the engine's evidence (a seed written from the same report),
// so that the engine is not shown the answer.
func (t *Tagger) RootCauseAgreement(recs []*ISSRERecord, exclude map[string]string) ([]ISSREAgreement, error) {
	by := map[string]*ISSREAgreement{}
	var order []string
	all := &ISSREAgreement{Provider: "all"}
	for _, r := range recs {
		a := by[r.Provider.Name]
		if a == nil {
			a = &ISSREAgreement{Provider: r.Provider.Name}
			by[r.Provider.Name] = a
			order = append(order, r.Provider.Name)
		}
		for _, a := range []*ISSREAgreement{a, all} {
			a.Records++
		}
		if len(r.MappedAny) == 0 {
			continue
		}
		res, err := t.engine.Suggest(suggest.ImportText(r.Title, r.Summary), "en", exclude[r.Key])
		if err != nil {
			return nil, fmt.Errorf("%s: record %s: %w", r.Pos, r.Key, err)
		}
		top := res.Top(ilgraph.KindRootCause, 3, 0)
		hit := slices.ContainsFunc(top, func(s suggest.Suggestion) bool { return slices.Contains(r.MappedAny, s.ID) })
		for _, a := range []*ISSREAgreement{a, all} {
			a.Partly++
			if hit {
				a.PartlyTop3++
			}
		}
		if r.Mapped == "" {
			continue
		}
		for _, a := range []*ISSREAgreement{a, all} {
			a.Labelled++
			for i, s := range top {
				if s.ID == r.Mapped {
					if i == 0 {
						a.Top1++
					}
					a.Top3++
				}
			}
		}
	}
	sort.Strings(order)
	var out []ISSREAgreement
	for _, p := range order {
		out = append(out, *by[p])
	}
	return append(out, *all), nil
}
