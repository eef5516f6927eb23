// Package ilgraph holds the domain types that every other package shares:
// incident cases in the incident-library format, the controlled vocabulary
// they are tagged with, and coded errors. It imports nothing outside the
// standard library; Neo4j lives in graph/, parsing in loader/, and GraphQL in
// resolvers/.
package ilgraph

import (
	"strconv"
	"strings"
)

// Kind is a kind of feature a case is tagged with. The string values are the
// keys the incident-library format and the command line use.
type Kind string

// The kinds of feature. Every kind but KindOrg has a controlled vocabulary.
const (
	KindRootCause    Kind = "root_cause"
	KindComponent    Kind = "component"
	KindSymptom      Kind = "symptom"
	KindContributing Kind = "contributing"
	KindDomain       Kind = "domain"
	KindMechanism    Kind = "mechanism"
	KindOrg          Kind = "org"
)

// KindInfo is what the domain knows of a kind: its name for people and the
// spellings of its fields. Every list of kinds — profile and filter fields,
// weights, warnings, the doors' parameters and schemas — is read from the
// table Kinds, so that a kind cannot be left out of one of them by hand.
type KindInfo struct {
	Kind  Kind
	Label string // for people, singular: "root cause", "contributing factor"
	// One is true when a case has exactly one term of the kind (the root
	// cause, the organization): a profile names one, a filter a plain list.
	One bool
	// Vocab is true when the kind has a controlled vocabulary.
	Vocab bool
	// Field is the kind's field in a filter ("rootCauses", "components"),
	// ProfileField its field in a profile ("rootCause", "components").
	Field, ProfileField string
}

// Kinds is the table of every kind, in the order they are shown:
// vocabulary kinds first, then the organization.
var Kinds = []KindInfo{
	{Kind: KindRootCause, Label: "root cause", One: true, Vocab: true, Field: "rootCauses", ProfileField: "rootCause"},
	{Kind: KindComponent, Label: "component", Vocab: true, Field: "components", ProfileField: "components"},
	{Kind: KindSymptom, Label: "symptom", Vocab: true, Field: "symptoms", ProfileField: "symptoms"},
	{Kind: KindContributing, Label: "contributing factor", Vocab: true, Field: "contributing", ProfileField: "contributing"},
	{Kind: KindDomain, Label: "domain", Vocab: true, Field: "domains", ProfileField: "domains"},
	{Kind: KindMechanism, Label: "mechanism", Vocab: true, Field: "mechanisms", ProfileField: "mechanisms"},
	{Kind: KindOrg, Label: "organization", One: true, Field: "orgs", ProfileField: "org"},
}

// VocabKinds lists the kinds that have a controlled vocabulary, in the order
// they are shown.
var VocabKinds = kindsWhere(func(i KindInfo) bool { return i.Vocab })

// AllKinds lists every feature kind, vocabulary kinds first.
var AllKinds = kindsWhere(func(KindInfo) bool { return true })

func kindsWhere(keep func(KindInfo) bool) []Kind {
	var ks []Kind
	for _, i := range Kinds {
		if keep(i) {
			ks = append(ks, i.Kind)
		}
	}
	return ks
}

// Info returns the table's entry for k, and false when k is not a kind.
func (k Kind) Info() (KindInfo, bool) {
	for _, i := range Kinds {
		if i.Kind == k {
			return i, true
		}
	}
	return KindInfo{}, false
}

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool {
	_, ok := k.Info()
	return ok
}

// Label is the human name of the kind, in English.
func (k Kind) Label() string {
	if i, ok := k.Info(); ok {
		return i.Label
	}
	return string(k)
}

// CrossReferenceReason is the label of a same-root-cause cross reference:
// "same root cause", then each shared domain as the incident library writes
// it ("· shared Databases"), then how many features of each other kind the
// two cases also share, so that the label never hides what else they have in
// common: "same root cause · shared Databases · also shares 2 components,
// 1 symptom, the organization". others counts the shared features per kind
// (the root cause and domains are not counted there).
func CrossReferenceReason(sharedDomains []string, others map[Kind]int) string {
	s := "same root cause"
	for _, d := range sharedDomains {
		s += " · shared " + d
	}
	var also []string
	for _, k := range AllKinds {
		n := others[k]
		if n == 0 || k == KindRootCause || k == KindDomain {
			continue
		}
		switch {
		case k == KindOrg:
			also = append(also, "the organization")
		case n == 1:
			also = append(also, "1 "+k.Label())
		default:
			also = append(also, strconv.Itoa(n)+" "+k.Label()+"s")
		}
	}
	if len(also) > 0 {
		s += " · also shares " + strings.Join(also, ", ")
	}
	return s
}
