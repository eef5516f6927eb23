package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// ParseVocabulary reads a vocabulary file (seeds/vocab.json) and checks it:
// every vocabulary kind present, ids well-formed and unique within a kind,
// English and Korean labels present, aliases not empty and not repeated
// within a term. Problems name the kind and index.
func ParseVocabulary(path string) (*ilgraph.Vocabulary, Problems) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Problems{{Pos: Position{File: path, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)}}
	}
	return DecodeVocabulary(path, data)
}

// DecodeVocabulary is ParseVocabulary on bytes already read.
func DecodeVocabulary(name string, data []byte) (*ilgraph.Vocabulary, Problems) {
	var probs Problems
	at := func(field, format string, args ...any) {
		probs = append(probs, &Problem{Pos: Position{File: name, Index: -1}, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v ilgraph.Vocabulary
	if err := dec.Decode(&v); err != nil {
		at("", "not a vocabulary file: %v", err)
		return nil, probs
	}
	for k := range v.Kinds {
		if !k.Valid() || k == ilgraph.KindOrg {
			at("kinds."+string(k), "unknown kind; want root_cause, component, symptom, contributing or domain")
		}
	}
	for _, k := range ilgraph.VocabKinds {
		terms, ok := v.Kinds[k]
		if !ok || len(terms) == 0 {
			at("kinds."+string(k), "missing or empty")
			continue
		}
		seen := map[string]bool{}
		for i, t := range terms {
			f := fmt.Sprintf("kinds.%s[%d]", k, i)
			switch {
			case !ilgraph.TermIDPattern.MatchString(t.ID):
				at(f+".id", "%q is not a term id: want lower-case words joined by dashes", clip(t.ID))
			case seen[t.ID]:
				at(f+".id", "%q is listed twice", t.ID)
			}
			seen[t.ID] = true
			if t.En == "" {
				at(f+".en", "required")
			}
			if t.Ko == "" {
				at(f+".ko", "required")
			}
			for _, l := range []struct {
				lang  string
				names []string
			}{{"en", t.Aliases.En}, {"ko", t.Aliases.Ko}} {
				dup := map[string]bool{}
				for j, a := range l.names {
					af := fmt.Sprintf("%s.aliases.%s[%d]", f, l.lang, j)
					key := strings.ToLower(strings.TrimSpace(a))
					switch {
					case key == "":
						at(af, "term %q: an alias is empty", t.ID)
					case dup[key]:
						at(af, "term %q: alias %q is listed twice", t.ID, a)
					}
					dup[key] = true
				}
			}
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return &v, nil
}
