package explore

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// Page sizes of every list: the size of a page that names none (of the
// same-root-cause list, DefaultSameRootCause), and the largest.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Page asks for a slice of a list: at most First items (the list's default
// when nil: DefaultPageSize, or DefaultSameRootCause) after the item whose
// cursor is After (from the start when empty).
type Page struct {
	First *int
	After string
}

// bounds turns a page into an offset and a limit, def items when the page
// names no size.
func (p Page) bounds(def int) (offset, limit int, err error) {
	limit = def
	if p.First != nil {
		limit = *p.First
	}
	if limit < 0 {
		return 0, 0, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldPageSize, "must be from 0 to %d, not %d", MaxPageSize, limit)
	}
	if limit > MaxPageSize {
		return 0, 0, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldPageSize, "must be from 0 to %d, not %d", MaxPageSize, limit)
	}
	if p.After != "" {
		n, ok := DecodeCursor(p.After)
		if !ok {
			return 0, 0, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldPageCursor, "%q is not a cursor this API gave out", ilgraph.Clip(p.After, 60))
		}
		offset = n + 1
	}
	return offset, limit, nil
}

// pastTheEnd is the error for a cursor that points beyond the last item
// of a list: the list shrank (a load removed cases) or the cursor was made
// up. An empty page would look like the end of the list; the client must
// start again instead.
func pastTheEnd(offset, total int) error {
	if offset <= total {
		return nil
	}
	return ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldPageCursor, "points past the end of the list (%d items); the list has changed since the cursor was given out: start again from the beginning", total)
}

// EncodeCursor returns the opaque cursor of the item at offset.
func EncodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(offset)))
}

// DecodeCursor returns the offset a cursor from EncodeCursor holds.
func DecodeCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), "o:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, false
	}
	return n, true
}

// PageInfo says where a page sits in its list.
type PageInfo struct {
	HasNextPage     bool
	HasPreviousPage bool
	StartCursor     string // empty for an empty page
	EndCursor       string
}

func pageInfo(offset, count, total int) PageInfo {
	pi := PageInfo{HasPreviousPage: offset > 0, HasNextPage: offset+count < total}
	if count > 0 {
		pi.StartCursor, pi.EndCursor = EncodeCursor(offset), EncodeCursor(offset+count-1)
	}
	return pi
}
