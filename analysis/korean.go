package analysis

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// koSuffixes are the particles (조사) and endings removed from the end of a
// Hangul word, longest first. They are the ones incident reports use: case
// particles, topic and plural markers, the 하다/되다/시키다 forms that turn a
// noun into a verb (지연되었다, 복구했다), and the commonest past and
// connective endings (늘었다, 멈췄고).
var koSuffixes = func() []string {
	s := strings.Fields(`
		이 가 은 는 을 를 의 에 로 와 과 도 만 들 께
		으로 에서 에게 한테 까지 부터 보다 처럼 마다 이나 이란 라는 이라는 이며 이고 이다 이자
		에는 에도 에만 에서는 에서도 에서의 에서만 으로는 으로도 으로서 으로써 로서 로써 로는 로도 로의 으로의
		와의 과의 와는 과는 와도 과도 까지는 까지도 부터는 만으로 로부터 으로부터 에게서 보다는 마저 조차 뿐
		였다 이었다 였고 이었고 입니다 이지만 이었으며 였으며 이라고 라고 이라서 라서
		들이 들을 들은 들의 들에 들도 들과 들로 들이다 들에서 들에게 들까지 들만 들처럼
		하다 한다 했다 하였다 했고 하였고 하고 하는 하여 해서 했으며 하였으며 하며 하면 하지 하기 했던 하던 했지만 하면서 하도록 하려고 해야 했다가 할 한 함 해
		되다 된다 됐다 되었다 됐고 되었고 되고 되는 되어 돼 되며 됐으며 되었으며 되면 되지 되기 됐던 되던 될 된 됨 되면서 되도록 됐지만 되었지만 돼서 되어서 되자 됐을 되었을
		시켰다 시키는 시켜 시킨 시켰고 시키고 시켜서 받았다 받은 받는 받고 당했다 당한
		졌다 졌고 지는 져 진 져서 해졌다 해진 해지는 해져
		었다 았다 었고 았고 어서 아서 었으며 았으며 었던 았던 었지만 았지만 는데 면서
	`)
	sort.SliceStable(s, func(i, j int) bool {
		return utf8.RuneCountInString(s[i]) > utf8.RuneCountInString(s[j])
	})
	return s
}()

// koKeep are whole words that end like a suffix but are not inflected.
var koKeep = setOf(
	"제한", "무제한", "심각도", "신뢰도", "중요도", "가용도", "만족도", "우선도", "게이트웨이", "릴레이", "어레이",
	"디스플레이", "플레이", "웨이", "마이크로", "메트로", "카카오페이", "네이버페이", "증가", "추가", "차이",
	"원인", "대한", "위한", "통한", "인한", "관한", "따른",
)

// koLoanNoEnding: a trailing 이 after these syllables belongs to a loanword
// ("게이트웨이", "어레이"), not a particle.
var koLoanNoEnding = setOf("레", "웨", "페", "베", "케", "데")

// StemKorean removes trailing particles and endings from a Hangul word: the
// longest suffix of koSuffixes, twice at most (서버들에서는 → 서버). A
// one-syllable suffix is removed only when two syllables remain (장애가 →
// 장애, but 증가 and 차이 stay); a longer one when one remains (지연됐다 →
// 지연). Words in koKeep are kept as written.
func StemKorean(word string) string {
	for pass := 0; pass < 2; pass++ {
		if koKeep[word] {
			return word
		}
		next := stripOnce(word)
		if next == word {
			break
		}
		word = next
	}
	return word
}

func stripOnce(word string) string {
	n := utf8.RuneCountInString(word)
	for _, suf := range koSuffixes {
		if !strings.HasSuffix(word, suf) {
			continue
		}
		sn := utf8.RuneCountInString(suf)
		rest := word[:len(word)-len(suf)]
		need := 1
		if sn == 1 {
			need = 2
		}
		if n-sn < need {
			continue
		}
		if suf == "이" {
			last, _ := utf8.DecodeLastRuneInString(rest)
			if koLoanNoEnding[string(last)] {
				continue
			}
		}
		if koKeep[word] {
			return word
		}
		return rest
	}
	return word
}

// stopKO are Korean words that carry no topic: bare particles (after a Latin
// word, "DynamoDB 에"), conjunctions, determiners and vague nouns.
var stopKO = setOf(
	"이", "가", "은", "는", "을", "를", "의", "에", "로", "으로", "와", "과", "도", "만", "에서", "에게", "까지", "부터",
	"보다", "처럼", "마다", "에는", "에서는", "으로는", "로는", "이다", "였다", "이었다", "이며", "이고", "들", "들이",
	"및", "등", "또는", "또", "그리고", "하지만", "그러나", "그래서", "그", "이", "저", "그런", "이런", "것", "수",
	"때", "더", "덜", "약", "뒤", "전", "후", "중", "동안", "모든", "여러", "다른", "몇", "각", "새", "두", "세",
	"한", "있다", "있는", "있었다", "있었고", "없다", "했다", "하는", "하고", "됐다", "되었다", "되는", "위해",
	"통해", "대해", "따라", "함께", "다시", "모두", "바로", "계속", "일부", "이를", "이후", "이전", "당시", "곳",
	"점", "데", "바", "쪽", "뿐", "까닭", "탓", "때문", "때문에", "하다", "되다",
)
