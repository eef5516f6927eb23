package jsonapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/ilgraph/ilgraph"
)

// revision is a history entry as the API writes it: the case's JSON after
// the write (null after a delete) and before it (null before a create)
// are the JSON objects themselves.
type revision struct {
	ID           string          `json:"id"`
	Version      int64           `json:"version"`
	Action       string          `json:"action"`
	By           string          `json:"by"`
	At           string          `json:"at"`
	RestoredFrom int64           `json:"restored_from,omitempty"`
	Case         json.RawMessage `json:"case"`
	Previous     json.RawMessage `json:"previous"`
}

func revisionOf(r ilgraph.Revision) revision {
	out := revision{ID: r.CaseID, Version: r.Version, Action: r.Action, By: r.By, At: r.At, RestoredFrom: r.RestoredFrom,
		Case: json.RawMessage("null"), Previous: json.RawMessage("null")}
	if r.JSON != "" {
		out.Case = json.RawMessage(r.JSON)
	}
	if r.Previous != "" {
		out.Previous = json.RawMessage(r.Previous)
	}
	return out
}

// versionTag is the ETag of a case at version v.
func versionTag(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }

// ifMatch reads the version an update, delete or restore names: the ETag
// of the case as it was read, in If-Match. Missing, it is 0, which the
// core refuses naming If-Match.
func ifMatch(r *http.Request) (int64, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(strings.Trim(h, `"`), 10, 64); err == nil && n > 0 && strings.HasPrefix(h, `"`) && strings.HasSuffix(h, `"`) && len(h) > 2 {
		return n, nil
	}
	return 0, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldVersion, "must be the one ETag of the case as read (as \"3\"), not %s", ilgraph.Clip(h, 40))
}

// body reads a write's body; one over the shell's limit is a LIMIT error
// (413).
func body(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, ilgraph.Errorf(ilgraph.ELIMIT, "request body is larger than %d bytes", tooLarge.Limit)
	}
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "could not read the request body")
	}
	return b, nil
}

// written answers a write: the revision, with the case's new ETag unless
// it was deleted.
func (a *api) written(w http.ResponseWriter, r *http.Request, status int, rev *ilgraph.Revision, err error) {
	if err != nil {
		a.fail(w, r, err)
		return
	}
	b, err := encode(revisionOf(*rev))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if rev.Action != ilgraph.ActionDelete {
		w.Header().Set("ETag", versionTag(rev.Version))
		w.Header().Set("Location", "/cases/"+rev.CaseID)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func (a *api) createCase(w http.ResponseWriter, r *http.Request) {
	b, err := body(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rev, err := a.core.CreateCase(r.Context(), b)
	a.written(w, r, http.StatusCreated, rev, err)
}

func (a *api) updateCase(w http.ResponseWriter, r *http.Request) {
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
	rev, err := a.core.UpdateCase(r.Context(), r.PathValue("id"), v, b)
	a.written(w, r, http.StatusOK, rev, err)
}

func (a *api) deleteCase(w http.ResponseWriter, r *http.Request) {
	v, err := ifMatch(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rev, err := a.core.DeleteCase(r.Context(), r.PathValue("id"), v)
	a.written(w, r, http.StatusOK, rev, err)
}

// restoreCase writes an earlier version again: the body is {"from": N}.
func (a *api) restoreCase(w http.ResponseWriter, r *http.Request) {
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
	var in struct {
		From int64 `json:"from"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		a.fail(w, r, ilgraph.Errorf(ilgraph.EINVALID, "the body must be {\"from\": <version>}: %s", ilgraph.Clip(err.Error(), 120)))
		return
	}
	rev, err := a.core.RestoreCase(r.Context(), r.PathValue("id"), v, in.From)
	a.written(w, r, http.StatusOK, rev, err)
}

func (a *api) caseHistory(w http.ResponseWriter, r *http.Request) {
	if _, err := query(r); err != nil {
		a.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	revs, err := a.core.CaseHistory(r.Context(), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := struct {
		ID      string     `json:"id"`
		History []revision `json:"history"`
	}{ID: id, History: make([]revision, len(revs))}
	for i, rv := range revs {
		out.History[i] = revisionOf(rv)
	}
	a.answer(w, r, out, nil)
}
