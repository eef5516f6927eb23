package loader

import (
	"strings"
	"testing"
)

func vocabWith(term string) []byte {
	other := `[{"id":"x","en":"X","ko":"엑스"}]`
	return []byte(`{"version":1,"kinds":{"root_cause":[` + term + `],"component":` + other + `,"symptom":` + other +
		`,"contributing":` + other + `,"domain":` + other + `}}`)
}

func TestVocabularyAliases(t *testing.T) {
	v, probs := DecodeVocabulary("vocab.json", vocabWith(`{"id":"capacity","en":"Capacity","ko":"용량","aliases":{"en":["rate limit","OOM"],"ko":["한도 초과"]}}`))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	got := v.Kinds["root_cause"][0].Aliases
	if strings.Join(got.En, "|") != "rate limit|OOM" || strings.Join(got.Ko, "|") != "한도 초과" {
		t.Errorf("aliases = %+v", got)
	}
	for _, tc := range []struct{ term, want string }{
		{`{"id":"capacity","en":"C","ko":"용량","aliases":{"en":["a",""]}}`, `kinds.root_cause[0].aliases.en[1]": term "capacity": an alias is empty`},
		{`{"id":"capacity","en":"C","ko":"용량","aliases":{"ko":["  "]}}`, `kinds.root_cause[0].aliases.ko[0]": term "capacity": an alias is empty`},
		{`{"id":"capacity","en":"C","ko":"용량","aliases":{"en":["OOM","oom"]}}`, `kinds.root_cause[0].aliases.en[1]": term "capacity": alias "oom" is listed twice`},
		{`{"id":"capacity","en":"C","ko":"용량","aliases":{"fr":["x"]}}`, `unknown field "fr"`},
	} {
		_, probs := DecodeVocabulary("vocab.json", vocabWith(tc.term))
		if len(probs) == 0 || !strings.Contains(probs.Error(), tc.want) {
			t.Errorf("%s: got %v, want a problem containing %q", tc.term, probs, tc.want)
		}
	}
}
