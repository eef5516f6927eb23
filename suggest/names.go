package suggest

import (
	"strings"

	"github.com/ilgraph/ilgraph/analysis"
)

// ProductNames pairs product names that vocabulary terms list as English
// aliases with the ways Korean writes them in Hangul. The engine reads a
// Hangul spelling as the English name — in the input, in the corpus's
// texts and in the vocabulary's Korean aliases — so that 카프카 is the
// alias "Kafka", with the reliability the corpus gives "Kafka" (Korean
// reports mostly write product names in Latin letters, so the Hangul
// spelling alone would occur in almost no case text and count only with
// its prior), and the Korean neighbours are found by the word "kafka".
// seeds/vocab.json lists the same Hangul spellings as Korean aliases of the
// terms whose English aliases name the product (a test keeps the two
// alike). Every English name here is an English alias or label of a term.
var ProductNames = []struct {
	En string
	Ko []string
}{
	{"Kafka", []string{"카프카"}},
	{"Kinesis", []string{"키네시스"}},
	{"RabbitMQ", []string{"래빗MQ", "래빗엠큐"}},
	{"Kubernetes", []string{"쿠버네티스"}},
	{"Docker", []string{"도커"}},
	{"Redis", []string{"레디스"}},
	{"memcached", []string{"멤캐시드"}},
	{"Elasticsearch", []string{"엘라스틱서치", "일래스틱서치"}},
	{"OpenSearch", []string{"오픈서치"}},
	{"MongoDB", []string{"몽고DB", "몽고디비"}},
	{"PostgreSQL", []string{"포스트그레SQL", "포스트그레스큐엘"}},
	{"Postgres", []string{"포스트그레스"}},
	{"MySQL", []string{"마이SQL", "마이에스큐엘"}},
	{"Cassandra", []string{"카산드라"}},
	{"DynamoDB", []string{"다이나모DB", "다이나모디비"}},
	{"ZooKeeper", []string{"주키퍼"}},
	{"etcd", []string{"엣시디"}},
	{"Consul", []string{"콘설"}},
	{"nginx", []string{"엔진엑스"}},
	{"Envoy", []string{"엔보이"}},
	{"HAProxy", []string{"에이치에이프록시"}},
	{"Cloudflare", []string{"클라우드플레어"}},
	{"CloudFront", []string{"클라우드프론트"}},
	{"Fastly", []string{"패스틀리"}},
	{"Akamai", []string{"아카마이"}},
	{"CloudWatch", []string{"클라우드워치"}},
	{"Prometheus", []string{"프로메테우스"}},
	{"Grafana", []string{"그라파나"}},
	{"Datadog", []string{"데이터독"}},
	{"Jenkins", []string{"젠킨스"}},
	{"Lambda", []string{"람다"}},
	{"Hadoop", []string{"하둡"}},
	{"Spark", []string{"스파크"}},
	{"Bigtable", []string{"빅테이블"}},
	{"BigQuery", []string{"빅쿼리"}},
	{"Okta", []string{"옥타"}},
	{"GitHub", []string{"깃허브"}},
	{"GitLab", []string{"깃랩"}},
	{"Slack", []string{"슬랙"}},
}

// names rewrites Hangul spellings of product names into the English
// name's tokens.
type names struct {
	byFirst map[string][]spelling // by the first norm of the Hangul spelling, longest first
}

type spelling struct {
	ko    []string // the Hangul spelling's norms
	en    []string // the English name's norms
	whole string   // the English name as one lower-case word ("postgresql")
}

func newNames() *names {
	n := &names{byFirst: map[string][]spelling{}}
	for _, p := range ProductNames {
		en := analysis.Phrase(p.En)
		whole := strings.ToLower(p.En)
		if toks := analysis.Tokens(p.En); len(toks) > 0 {
			whole = toks[0].Whole
		}
		for _, ko := range p.Ko {
			k := analysis.Phrase(ko)
			if len(k) == 0 || len(en) == 0 {
				continue
			}
			n.byFirst[k[0]] = append(n.byFirst[k[0]], spelling{k, en, whole})
		}
	}
	for _, ss := range n.byFirst {
		for i := 1; i < len(ss); i++ { // longest first: few, so insertion sort
			for j := i; j > 0 && len(ss[j].ko) > len(ss[j-1].ko); j-- {
				ss[j], ss[j-1] = ss[j-1], ss[j]
			}
		}
	}
	return n
}

// at returns the spelling that starts at norms[i], if any.
func (n *names) at(norms func(int) string, count, i int) (spelling, bool) {
	for _, s := range n.byFirst[norms(i)] {
		if i+len(s.ko) > count {
			continue
		}
		ok := true
		for j := 1; j < len(s.ko); j++ {
			if norms(i+j) != s.ko[j] {
				ok = false
				break
			}
		}
		if ok {
			return s, true
		}
	}
	return spelling{}, false
}

// tokens returns toks with every Hangul spelling of a product name replaced
// by the English name's tokens, which keep the spelling's offsets, word
// index and script (the language is detected before).
func (n *names) tokens(toks []analysis.Token) []analysis.Token {
	var out []analysis.Token
	for i := 0; i < len(toks); i++ {
		s, ok := n.at(func(j int) string { return toks[j].Norm }, len(toks), i)
		if !ok {
			if out != nil {
				out = append(out, toks[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]analysis.Token, 0, len(toks)+2), toks[:i]...)
		}
		first, last := toks[i], toks[i+len(s.ko)-1]
		for _, norm := range s.en {
			out = append(out, analysis.Token{Norm: norm, Surface: first.Surface, Start: first.Start, End: last.End,
				Script: first.Script, Word: first.Word, Whole: s.whole})
		}
		i += len(s.ko) - 1
	}
	if out == nil {
		return toks
	}
	return out
}

// terms is tokens for an index's terms (stop words already out); a name
// that turns out to be a vendor's is left out, as the analyzer leaves out
// the English one.
func (n *names) terms(ts []string, vendor func(string) bool) []string {
	var out []string
	for i := 0; i < len(ts); i++ {
		s, ok := n.at(func(j int) string { return ts[j] }, len(ts), i)
		if !ok {
			if out != nil {
				out = append(out, ts[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(ts)+2), ts[:i]...)
		}
		if !vendor(s.whole) {
			for _, norm := range s.en {
				if !vendor(norm) {
					out = append(out, norm)
				}
			}
		}
		i += len(s.ko) - 1
	}
	if out == nil {
		return ts
	}
	return out
}

// phrase is a vocabulary phrase with its Hangul product names read as the
// English ones.
func (n *names) phrase(p []string) []string {
	return n.terms(p, func(string) bool { return false })
}
