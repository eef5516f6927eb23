package jsonapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
)

// FuzzParams reads arbitrary query strings as /cases and /similar do: never
// a panic, and every refusal — the parameters' own, or the core's check of
// the filter they make — is an INVALID or LIMIT error with a message.
func FuzzParams(f *testing.F) {
	for _, s := range []string{
		"", "k=5&weights=root_cause=3,component=1.5&rarity=true&min_score=0.5",
		"root_cause=capacity&component=a,b&component=c&q=DynamoDB&sort=relevance&limit=10&cursor=bzox",
		"from=2020-01-01&to=2019-01-01", "limit=99999999999999999999", "k=-0", "q=%ff", "a=%zz", "sort=RELEVANCE",
		"weights=,,,=", "min_score=1e309", "cursor=" + strings.Repeat("A", 100), "severity=sev1&org=x&domain=,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/cases", nil)
		r.URL.RawQuery = raw
		all := append([]string{"sort", "limit", "cursor", "k", "weights", "rarity", "min_score"}, filterParams...)
		p, err := query(r, all...)
		if err == nil {
			fl := p.filter()
			p.sort("sort")
			p.page()
			p.optInt("k")
			p.weights("weights")
			p.boolean("rarity")
			p.float("min_score", 0)
			err = p.err
			if err == nil {
				cf := fl.CaseFilter()
				err = cf.Validate()
			}
		}
		if err == nil {
			return
		}
		var ie *ilgraph.Error
		if !errors.As(err, &ie) || (ie.Code != ilgraph.EINVALID && ie.Code != ilgraph.ELIMIT) || ie.Message == "" {
			t.Fatalf("%q: %v is not an INVALID or LIMIT error", raw, err)
		}
	})
}
