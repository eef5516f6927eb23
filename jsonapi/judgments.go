package jsonapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/view"
)

// judgmentBody is what PUT /cases/{id}/similar/{match}/judgment takes: a
// grade, as its key (not_relevant, relevant, strongly_relevant) or its
// number (0, 1, 2), and an optional reason.
type judgmentBody struct {
	Grade  json.RawMessage `json:"grade"`
	Reason string          `json:"reason"`
}

func (a *api) judgeSimilar(w http.ResponseWriter, r *http.Request) {
	b, err := body(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var in judgmentBody
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		a.fail(w, r, ilgraph.Errorf(ilgraph.EINVALID, `the body must be {"grade": "relevant", "reason": "…"}: %s`, ilgraph.Clip(err.Error(), 120)))
		return
	}
	if len(in.Grade) == 0 {
		a.fail(w, r, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldJudgmentGrade, "is missing: not_relevant, relevant or strongly_relevant (or 0, 1, 2)"))
		return
	}
	var key string
	if err := json.Unmarshal(in.Grade, &key); err != nil {
		key = string(in.Grade) // a number: ParseGrade reads 0, 1, 2 and refuses the rest
	}
	g, err := ilgraph.ParseGrade(key)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	j, err := a.core.JudgeSimilar(r.Context(), r.PathValue("id"), r.PathValue("match"), g, in.Reason)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.answer(w, r, view.JudgmentOf(*j), nil)
}

func (a *api) withdrawJudgment(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	ok, err := a.core.WithdrawJudgment(r.Context(), r.PathValue("id"), r.PathValue("match"))
	a.answer(w, r, map[string]bool{"withdrawn": ok}, err)
}

func (a *api) hideSimilar(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	h, err := a.core.HideSimilar(r.Context(), r.PathValue("id"), r.PathValue("match"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.answer(w, r, view.HidingOf(*h), nil)
}

func (a *api) unhideSimilar(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	ok, err := a.core.UnhideSimilar(r.Context(), r.PathValue("id"), r.PathValue("match"))
	a.answer(w, r, map[string]bool{"unhidden": ok}, err)
}

func (a *api) judgments(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	fb, err := a.core.Judgments(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.answer(w, r, view.FeedbackOf(fb), nil)
}
