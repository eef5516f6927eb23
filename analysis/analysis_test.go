package analysis

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func norms(toks []Token) []string {
	var out []string
	for _, t := range toks {
		out = append(out, t.Norm)
	}
	return out
}

func TestKoreanStem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"장애가", "장애"}, {"장애를", "장애"}, {"장애는", "장애"}, {"장애의", "장애"}, {"장애로", "장애"},
		{"장애", "장애"}, {"장애에서", "장애"}, {"장애까지", "장애"},
		{"데이터베이스에서", "데이터베이스"}, {"데이터베이스", "데이터베이스"}, {"데이터베이스가", "데이터베이스"},
		{"지연되었다", "지연"}, {"지연됐다", "지연"}, {"지연이", "지연"}, {"지연되어", "지연"}, {"지연된", "지연"},
		{"스로틀링이", "스로틀링"}, {"스로틀링", "스로틀링"},
		{"서버가", "서버"}, {"서버들이", "서버"}, {"서버들에서는", "서버"}, {"서버에는", "서버"},
		{"메모리가", "메모리"}, {"메모리를", "메모리"}, {"부족했다", "부족"}, {"부족", "부족"},
		{"인증서가", "인증서"}, {"만료되어", "만료"}, {"만료됐다", "만료"}, {"만료", "만료"},
		{"복구했다", "복구"}, {"복구하는", "복구"}, {"복구", "복구"}, {"배포했고", "배포"}, {"배포되었다", "배포"},
		{"요청을", "요청"}, {"요청이", "요청"}, {"오류가", "오류"}, {"오류율이", "오류율"}, {"트래픽이", "트래픽"},
		{"네트워크로", "네트워크"}, {"네트워크에서", "네트워크"}, {"설정으로", "설정"}, {"설정을", "설정"},
		{"캐시와", "캐시"}, {"디스크가", "디스크"}, {"한도를", "한도"}, {"한도", "한도"},
		// words that only look inflected stay whole
		{"증가", "증가"}, {"증가했다", "증가"}, {"추가", "추가"}, {"차이", "차이"}, {"제한", "제한"}, {"무제한", "무제한"},
		{"게이트웨이", "게이트웨이"}, {"게이트웨이가", "게이트웨이"}, {"릴레이", "릴레이"}, {"속도", "속도"}, {"결과", "결과"},
		{"초과", "초과"}, {"경로", "경로"}, {"회의", "회의"}, {"심각도", "심각도"},
		// never fewer than one syllable
		{"이", "이"}, {"가", "가"}, {"에서", "에서"}, {"됐다", "됐다"}, {"키가", "키가"},
	} {
		if got := StemKorean(tc.in); got != tc.want {
			t.Errorf("StemKorean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Kinesis front-end servers hit the OS thread limit", []string{"kinesis", "front", "end", "server", "hit", "the", "os", "thread", "limit"}},
		{"PutMetricData INSUFFICIENT_DATA", []string{"put", "metric", "data", "insuffici", "data"}},
		{"HTTPServer APIs", []string{"http", "server", "api"}},
		{"MySQL DDoS FaaS OAuth IPv6 DynamoDB CloudWatch", []string{"mysql", "ddos", "faa", "oauth", "ipv6", "dynamo", "db", "cloud", "watch"}},
		{"UPS went up", []string{"ups", "went", "up"}},
		{"S3 and EC2 in US-EAST-1 at 5:15 AM", []string{"s3", "and", "ec2", "in", "us", "east", "1", "at", "5", "15", "am"}},
		{"throttled throttling throttles", []string{"throttl", "throttl", "throttl"}},
		{"AWS's limit; let's go", []string{"aws", "limit", "let", "go"}},
		{"DynamoDB에 저장된 설정", []string{"dynamo", "db", "에", "저장", "설정"}},
		{"2020년 11월", []string{"2020", "년", "11", "월"}},
		{"東京", []string{"東", "京"}},
		{"ｔｅｓｔ", []string{"test"}},
		{"", nil},
		{"  ,;--  ", nil},
	} {
		if got := norms(Tokens(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTokenFields(t *testing.T) {
	text := "The front-end 장애가 났다 in 2020"
	toks := Tokens(text)
	want := []struct {
		surface string
		script  Script
		stop    bool
		whole   string
	}{
		{"The", Latin, true, "the"}, {"front", Latin, false, "frontend"}, {"end", Latin, false, "frontend"},
		{"장애가", Hangul, false, "장애가"}, {"났다", Hangul, false, "났다"}, {"in", Latin, true, "in"}, {"2020", Digit, false, "2020"},
	}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d: %+v", len(toks), len(want), toks)
	}
	for i, w := range want {
		tk := toks[i]
		if tk.Surface != w.surface || text[tk.Start:tk.End] != w.surface || tk.Script != w.script || tk.Stop != w.stop || tk.Whole != w.whole {
			t.Errorf("token %d = %+v, want %+v", i, tk, w)
		}
	}
	if toks[1].Word != toks[2].Word || toks[0].Word == toks[1].Word {
		t.Errorf("front and end should share a word, the other should not: %+v", toks[:3])
	}
}

func TestVendors(t *testing.T) {
	for _, w := range []string{"aws", "AWS", "kinesis", "cloudwatch", "s3", "아마존", "구글", "마이크로소프트", "애저", "클라우드플레어", "카카오", "네이버"} {
		if !IsVendor(w) {
			t.Errorf("IsVendor(%q) = false", w)
		}
	}
	for _, w := range []string{"kafka", "kubernetes", "server", "limit", "web", "장애"} {
		if IsVendor(w) {
			t.Errorf("IsVendor(%q) = true", w)
		}
	}
	a := New(Options{DropVendors: true, Extra: []string{"Amazon Web Services", "Honeycomb", "PostHog", "Let's Encrypt"}})
	got := norms(a.Tokens("Amazon Web Services said CloudWatch on AWS web servers failed; Honeycomb and PostHog too; Let's Encrypt expired; 아마존의 장애"))
	want := []string{"said", "on", "web", "server", "fail", "and", "too", "expir", "장애"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !a.IsVendor("honeycomb") || a.IsVendor("web") {
		t.Error("extra names: honeycomb should be a vendor, web should not")
	}
	if got := norms(New(Options{}).Tokens("AWS Kinesis")); !reflect.DeepEqual(got, []string{"aws", "kinesis"}) {
		t.Errorf("without DropVendors vendors stay: %q", got)
	}
}

func TestPhrase(t *testing.T) {
	for _, tc := range []struct {
		label string
		text  string
		want  []string // surfaces matched
	}{
		{"Out of memory", "the hosts ran out of memory, then out-of-memory kills", []string{"out of memory", "out-of-memory"}},
		{"front end", "Kinesis front-end servers and the front end", []string{"front-end", "front end"}},
		{"rate limit", "rate limits were missing; the rate-limiter", []string{"rate limits", "rate-limiter"}},
		{"메모리 부족", "호스트의 메모리가 부족했다", []string{"메모리가 부족했다"}},
		{"장애", "장애가 났고 장애를 복구", []string{"장애가", "장애를"}},
		{"thread limit", "thread count, limit", nil},
		{"일부 사용자", "일부 사용자가 영향을 받았다; 사용자", []string{"일부 사용자가"}},
		{"sign in", "could not sign in; signs", []string{"sign in"}},
		{"UPS", "the UPS failed; errors went up", []string{"UPS"}},
		{"it", "it is", []string{"it"}},
	} {
		toks := Tokens(tc.text)
		var got []string
		for _, m := range Find(toks, Phrase(tc.label)) {
			got = append(got, tc.text[m.Start:m.End])
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Find(%q in %q) = %q, want %q", tc.label, tc.text, got, tc.want)
		}
	}
}

func TestMatcher(t *testing.T) {
	m := NewMatcher([][]string{Phrase("thread limit"), Phrase("limit"), Phrase("지연")})
	text := "the OS thread limit was hit; 지연이 늘었다"
	got := map[int][]string{}
	for _, pm := range m.FindAll(Tokens(text)) {
		got[pm.Phrase] = append(got[pm.Phrase], text[pm.Start:pm.End])
	}
	want := map[int][]string{0: {"thread limit"}, 1: {"limit"}, 2: {"지연이"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Kinesis front-end servers", "장애가 났다", "PutMetricData", "a\xffb", "‐‑’'", "東京", "e\u0301", "ＡＢＣ", "-_/", "x's"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tokens(s), tokensByDefinition(s); !slices.Equal(got, want) {
			t.Fatalf("cached analysis of %q:\n got %+v\nwant %+v", s, got, want)
		}
		toks := New(Options{DropVendors: true, Extra: []string{"Web Services"}}).Tokens(s)
		prev := 0
		for _, tk := range toks {
			if tk.Start < prev || tk.End <= tk.Start || tk.End > len(s) {
				t.Fatalf("bad offsets %d..%d (prev end %d, len %d)", tk.Start, tk.End, prev, len(s))
			}
			// a token is whole runes: valid UTF-8 that starts a rune, and the
			// byte after it is not the rest of its last rune
			if !utf8.ValidString(tk.Surface) || !utf8.FullRuneInString(tk.Surface) || tk.End < len(s) && utf8.ValidString(s[tk.Start:]) && !utf8.RuneStart(s[tk.End]) {
				t.Fatalf("offsets %d..%d not on rune boundaries of %q", tk.Start, tk.End, s)
			}
			if s[tk.Start:tk.End] != tk.Surface || tk.Norm == "" {
				t.Fatalf("token %+v", tk)
			}
			prev = tk.End
		}
		Find(toks, Phrase(s))
	})
}

var benchText = strings.Repeat("Kinesis front-end servers hit the OS thread limit; latency and errors up; CloudWatch metrics delayed. "+
	"US-EAST-1 의 Kinesis 프런트엔드에 용량을 조금 더하자 모든 서버가 운영체제 스레드 한도를 넘어 요청을 라우팅하지 못했다. ", 20)

func BenchmarkTokens(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		Tokens(benchText)
	}
}

func BenchmarkTokensDropVendors(b *testing.B) {
	a := New(Options{DropVendors: true, Extra: []string{"Amazon Web Services", "Google Cloud"}})
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		a.Tokens(benchText)
	}
}

func BenchmarkMatcher(b *testing.B) {
	var ps [][]string
	for _, l := range []string{"thread limit", "out of memory", "high latency", "front end", "지연", "메모리 부족", "rate limit", "error rate"} {
		ps = append(ps, Phrase(l))
	}
	m := NewMatcher(ps)
	toks := Tokens(benchText)
	for b.Loop() {
		m.FindAll(toks)
	}
}

// All, VendorWords and Kept give what Tokens gives, with and without
// DropVendors, and change neither the tokens nor the marks they are given.
func TestKeptIsTokens(t *testing.T) {
	texts := []string{
		"", "AWS S3 throttled the Stack-Exchange front-end; Amazon Web Services paged",
		"PutMetricData INSUFFICIENT_DATA from Cloudflare's edge\nAcme Cloud Services on-call",
		"카프카 브로커의 디스크가 가득 찼다 (Kafka)",
	}
	for _, opts := range []Options{{}, {DropVendors: true}, {DropVendors: true, Extra: []string{"Acme Cloud Services", "Stack Exchange"}}} {
		a := New(opts)
		for _, text := range texts {
			toks := All(text)
			before := slices.Clone(toks)
			vendor := a.VendorWords(toks)
			marks := slices.Clone(vendor)
			got, want := a.Kept(toks, vendor), a.Tokens(text)
			if !slices.Equal(got, want) {
				t.Errorf("%+v, %q: Kept\n got %v\nwant %v", opts, text, got, want)
			}
			if !slices.Equal(toks, before) || !slices.Equal(vendor, marks) {
				t.Errorf("%+v, %q: Kept changed what it was given", opts, text)
			}
			if g, w := Words(got), a.Terms(text); !slices.Equal(g, w) {
				t.Errorf("%+v, %q: Words %v, Terms %v", opts, text, g, w)
			}
		}
	}
}
