package ilgraph

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestFieldErrorNamesTheFieldAsEachDoorDoes(t *testing.T) {
	e := FieldErrorf(ELIMIT, FieldPageSize, "must be from 0 to %d, not %d", 100, 500)
	graphQL := map[string]string{FieldPageSize: "first"}
	jsonAPI := map[string]string{FieldPageSize: "limit"}
	for _, tc := range []struct {
		names map[string]string
		want  string
	}{
		{graphQL, "first must be from 0 to 100, not 500"},
		{jsonAPI, "limit must be from 0 to 100, not 500"},
		{nil, "page.size must be from 0 to 100, not 500"},                                   // no name: the key
		{map[string]string{FieldSimilarK: "k"}, "page.size must be from 0 to 100, not 500"}, // no name for this key
	} {
		if got := e.MessageIn(tc.names); got != tc.want {
			t.Errorf("MessageIn(%v) = %q, want %q", tc.names, got, tc.want)
		}
	}
	if got := ErrorMessage(e); got != "page.size must be from 0 to 100, not 500" {
		t.Errorf("ErrorMessage = %q", got)
	}
	if got := e.Error(); got != "ilgraph limit: page.size must be from 0 to 100, not 500" {
		t.Errorf("Error() = %q", got)
	}
	// Without a field the message is shown as it is, whatever the names.
	plain := Errorf(ENOTFOUND, "no case with id %q", "IL-9999")
	if got := plain.MessageIn(graphQL); got != `no case with id "IL-9999"` {
		t.Errorf("MessageIn of an error without a field = %q", got)
	}
}

func TestFieldErrorKeepsCodeAndCause(t *testing.T) {
	cause := io.ErrUnexpectedEOF
	e := &Error{Code: EINVALID, Field: FieldPageCursor, Message: "is not a cursor this API gave out", Err: cause}
	wrapped := fmt.Errorf("asking for a page: %w", e)
	if !errors.Is(wrapped, cause) {
		t.Error("errors.Is does not find the cause")
	}
	var got *Error
	if !errors.As(wrapped, &got) || got.Field != FieldPageCursor || got.Code != EINVALID {
		t.Fatalf("errors.As: %+v", got)
	}
	if ErrorCode(wrapped) != EINVALID {
		t.Errorf("ErrorCode = %q", ErrorCode(wrapped))
	}
	if msg := ErrorMessageIn(wrapped, map[string]string{FieldPageCursor: "after"}); msg != "after is not a cursor this API gave out" {
		t.Errorf("ErrorMessageIn = %q", msg)
	}
	if s := e.Error(); !strings.Contains(s, "page.cursor is not a cursor") || !strings.Contains(s, cause.Error()) {
		t.Errorf("Error() = %q, want the field, the message and the cause", s)
	}
	if msg := ErrorMessageIn(errors.New("driver: connection reset"), nil); msg != "internal error" {
		t.Errorf("a plain error shows %q, want internal error", msg)
	}
}

// The keys are distinct and not empty.
func TestFieldKeysAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range FieldKeys {
		if k == "" || seen[k] {
			t.Errorf("field key %q is empty or listed twice", k)
		}
		seen[k] = true
	}
}
