package jsonapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/internal/admission"
)

// Every route that asks the core has a cost class, and the table names no
// route that is gone.
func TestRoutesClassified(t *testing.T) {
	var routes, classified []string
	for p := range (&api{}).routes() {
		routes = append(routes, p)
	}
	for k := range admission.Classes {
		if method, _, ok := strings.Cut(k, " "); ok && slices.Contains([]string{"GET", "POST", "PUT", "DELETE"}, method) {
			classified = append(classified, k)
		}
	}
	slices.Sort(routes)
	slices.Sort(classified)
	if !slices.Equal(routes, classified) {
		t.Errorf("routes %v, classified %v", routes, classified)
	}
}
