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
		if strings.HasPrefix(k, "GET ") {
			classified = append(classified, k)
		}
	}
	slices.Sort(routes)
	slices.Sort(classified)
	if !slices.Equal(routes, classified) {
		t.Errorf("routes %v, classified %v", routes, classified)
	}
}
