package ilgraph

// Term is one controlled vocabulary term.
type Term struct {
	Kind        Kind   `json:"-"`
	ID          string `json:"id"`
	En          string `json:"en"`
	Ko          string `json:"ko"`
	Description string `json:"description"`
	// Aliases are the other words people use for the term, per language:
	// "throttling" and "rate limit", "OOM", "메모리 부족". Suggestions match
	// them as phrases; they are never stored in a case.
	Aliases Aliases `json:"aliases,omitzero"`
}

// KoOrNil is the Korean label, or nil when the term has none (an
// organization, a term the vocabulary has not translated yet).
func (t *Term) KoOrNil() *string { return nonEmpty(t.Ko) }

// DescriptionOrNil is the description, or nil when the term has none.
func (t *Term) DescriptionOrNil() *string { return nonEmpty(t.Description) }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Aliases are a term's other names in English and Korean.
type Aliases struct {
	En []string `json:"en,omitempty"`
	Ko []string `json:"ko,omitempty"`
}

// IsZero reports whether there are no aliases.
func (a Aliases) IsZero() bool { return len(a.En) == 0 && len(a.Ko) == 0 }

// Vocabulary is the controlled vocabulary: the terms of each vocabulary kind.
type Vocabulary struct {
	Version int             `json:"version"`
	Kinds   map[Kind][]Term `json:"kinds"`
}

// Has reports whether id is a term of kind k.
func (v *Vocabulary) Has(k Kind, id string) bool {
	for _, t := range v.Kinds[k] {
		if t.ID == id {
			return true
		}
	}
	return false
}

// Terms returns every term, kinds in VocabKinds order, with Kind set.
func (v *Vocabulary) Terms() []Term {
	var ts []Term
	for _, k := range VocabKinds {
		for _, t := range v.Kinds[k] {
			t.Kind = k
			ts = append(ts, t)
		}
	}
	return ts
}

// Index returns a set of the term ids of each kind, for fast membership tests.
func (v *Vocabulary) Index() map[Kind]map[string]bool {
	idx := make(map[Kind]map[string]bool, len(v.Kinds))
	for _, k := range VocabKinds {
		set := make(map[string]bool, len(v.Kinds[k]))
		for _, t := range v.Kinds[k] {
			set[t.ID] = true
		}
		idx[k] = set
	}
	return idx
}
