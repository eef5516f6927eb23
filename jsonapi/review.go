package jsonapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/internal/view"
)

// reviewQueue answers a page of the machine-tagged cases waiting for
// review (explore.Service.ReviewQueue).
func (a *api) reviewQueue(w http.ResponseWriter, r *http.Request) {
	p, err := query(r, "limit", "cursor")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page := p.page()
	if p.err != nil {
		a.fail(w, r, p.err)
		return
	}
	q, err := a.core.ReviewQueue(r.Context(), page)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := view.Review(r.Context(), a.core, q)
	a.answer(w, r, out, err)
}

// reviewBody is a review as the API takes it: the names are the core's
// (explore.ReviewInput), so that its problems (decisions[2].with) name
// this body's fields.
type reviewBody struct {
	Decisions []struct {
		Kind     string `json:"kind"`
		Term     string `json:"term"`
		Decision string `json:"decision"`
		With     string `json:"with"`
	} `json:"decisions"`
	Add []struct {
		Kind string `json:"kind"`
		Term string `json:"term"`
	} `json:"add"`
}

// reviewCase reviews a machine-tagged case read at the version If-Match
// names: the body is {"decisions": [...], "add": [...]}.
func (a *api) reviewCase(w http.ResponseWriter, r *http.Request) {
	b, err := body(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v, err := ifMatch(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var in reviewBody
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Decisions == nil {
		msg := "must hold the decisions on the case's suggested tags"
		if err != nil {
			msg = ilgraph.Clip(err.Error(), 120)
		}
		a.fail(w, r, ilgraph.Errorf(ilgraph.EINVALID, "the body must be {\"decisions\": [{\"kind\", \"term\", \"decision\", \"with\"}], \"add\": [{\"kind\", \"term\"}]}: %s", msg))
		return
	}
	review := explore.ReviewInput{}
	for _, d := range in.Decisions {
		review.Decisions = append(review.Decisions, explore.TagDecision{Kind: ilgraph.Kind(d.Kind), Term: d.Term, Decision: d.Decision, With: d.With})
	}
	for _, x := range in.Add {
		review.Add = append(review.Add, ilgraph.Feature{Kind: ilgraph.Kind(x.Kind), ID: x.Term})
	}
	rev, err := a.core.ReviewCase(r.Context(), r.PathValue("id"), v, review)
	a.written(w, r, http.StatusOK, rev, err)
}
