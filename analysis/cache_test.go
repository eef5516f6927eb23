package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tokensByDefinition is tokens without the part cache: every part analysed
// where it stands, Whole built from the parts.
func tokensByDefinition(text string) []Token {
	rs := split(text)
	var out []Token
	for _, r := range rs {
		surface := text[r.start:r.end]
		t := Token{Surface: surface, Start: r.start, End: r.end, Script: r.script, Word: r.word}
		switch r.script {
		case Latin:
			low := strings.ReplaceAll(foldWidth(strings.ToLower(surface)), "’", "'")
			t.Stop = stopEN[low] && (len(surface) < 2 || strings.ToUpper(surface) != surface)
			low = strings.ReplaceAll(strings.TrimSuffix(low, "'s"), "'", "")
			if isAcronym(surface) {
				t.Norm = low
			} else {
				t.Norm = stemEN(low)
			}
		case Hangul:
			t.Norm = StemKorean(surface)
			t.Stop = stopKO[surface] || stopKO[t.Norm]
		default:
			t.Norm = foldWidth(strings.ToLower(surface))
		}
		out = append(out, t)
	}
	for i := 0; i < len(out); {
		j := i
		var b strings.Builder
		for j < len(out) && out[j].Word == out[i].Word {
			b.WriteString(strings.ToLower(strings.ReplaceAll(out[j].Surface, "’", "'")))
			j++
		}
		for k := i; k < j; k++ {
			out[k].Whole = strings.TrimSuffix(b.String(), "'s")
		}
		i = j
	}
	return out
}

// seedTexts is every string in the seed cases' JSON.
func seedTexts(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("..", "seeds", "cases", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed cases (%v)", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(v)
	}
	return out
}

// The cached analysis of every text of the seed cases, twice (cache empty,
// then full), is the analysis by definition.
func TestCachedTokensAreTheDefinition(t *testing.T) {
	texts := append(seedTexts(t), "US IT us it Let's DDoS MySQL’s ＡＢＣ ipv6 front-end's", "DynamoDB에 장애가 났다 東京")
	for round := range 2 {
		for _, text := range texts {
			if got, want := tokens(text), tokensByDefinition(text); !slices.Equal(got, want) {
				t.Fatalf("round %d, %.80q:\n got %+v\nwant %+v", round, text, got, want)
			}
		}
	}
}

// Numbers are analysed where they stand, never cached: they would fill the
// cache with parts that do not repeat, and their analysis costs nothing.
func TestNumbersAreNotCached(t *testing.T) {
	text := "GEN-0918273 at 2021-11-30 after 4711 retries: １２３４"
	if got, want := tokens(text), tokensByDefinition(text); !slices.Equal(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	c := &partCaches[Digit]
	c.mu.RLock()
	n := len(c.m)
	c.mu.RUnlock()
	if n != 0 {
		t.Errorf("numbers cached: %d, want 0", n)
	}
	if !cachedHas(Latin, "GEN") {
		t.Error("the word GEN is not cached")
	}
	if n := testing.AllocsPerRun(100, func() { analysePart(Digit, "918273") }); n != 0 {
		t.Errorf("analysing an ASCII number allocates %v times, want 0", n)
	}
}

func cachedHas(script Script, surface string) bool {
	c := &partCaches[script]
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.m[surface]
	return ok
}
