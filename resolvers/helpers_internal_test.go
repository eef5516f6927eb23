package resolvers

import (
	"reflect"
	"testing"

	"github.com/ilgraph/ilgraph/explore"
)

func TestUTF16Offsets(t *testing.T) {
	// "😀" is two UTF-16 units and four bytes; "장" one unit and three bytes.
	text := "😀 장애 ok"
	spans := []explore.Span{{Start: 5, End: 11}, {Start: 12, End: 14}}
	want := []Highlight{{Start: 3, End: 5}, {Start: 6, End: 8}}
	if got := utf16Offsets(text, spans); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
