package main

import (
	"testing"

	"github.com/ilgraph/ilgraph"
)

// An error of the core about an input names the flag that set it.
func TestMessageNamesTheFlag(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldSimilarK, "must be from 1 to 100, not 500"), "--k must be from 1 to 100, not 500"},
		{ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldSimilarMinScore, "must be from 0 to 1, not 2"), "--min-score must be from 0 to 1, not 2"},
		{ilgraph.Errorf(ilgraph.ENOTFOUND, `no case with id "IL-9999"`), `no case with id "IL-9999"`},
	} {
		if got := message(tc.err); got != tc.want {
			t.Errorf("message(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
