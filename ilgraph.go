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
	KindOrg          Kind = "org"
)

// VocabKinds lists the kinds that have a controlled vocabulary, in the order
// they are shown.
var VocabKinds = []Kind{KindRootCause, KindComponent, KindSymptom, KindContributing, KindDomain}

// AllKinds lists every feature kind, vocabulary kinds first.
var AllKinds = []Kind{KindRootCause, KindComponent, KindSymptom, KindContributing, KindDomain, KindOrg}

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool {
	for _, x := range AllKinds {
		if k == x {
			return true
		}
	}
	return false
}

// Label is the human name of the kind, in English.
func (k Kind) Label() string {
	switch k {
	case KindRootCause:
		return "root cause"
	case KindComponent:
		return "component"
	case KindSymptom:
		return "symptom"
	case KindContributing:
		return "contributing factor"
	case KindDomain:
		return "domain"
	case KindOrg:
		return "organization"
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
