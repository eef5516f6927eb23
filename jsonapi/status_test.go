package jsonapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/jsonapi"
)

// failingStore is a store whose reads fail with err; other methods are
// never reached by the requests below.
type failingStore struct {
	explore.Store
	err error
}

func (s failingStore) RawJSON(context.Context, []string) ([]string, error) { return nil, s.err }
func (s failingStore) ListCases(context.Context, ilgraph.CaseFilter, ilgraph.CaseSort, int, int) (*ilgraph.CasePage, error) {
	return nil, s.err
}

// TestStoreFailuresAnswerTheirStatus checks the statuses and bodies of
// failures the live tests cannot cause without stopping Neo4j: 503 when it
// is down, 504 past the time limit, 500 hiding a bug's details.
func TestStoreFailuresAnswerTheirStatus(t *testing.T) {
	router, err := legacy.NewRouter(loadDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err    error
		status int
		code   string
	}{
		{ilgraph.WrapError(ilgraph.EUNAVAILABLE, errors.New("connection refused"), "Neo4j cannot be reached"), 503, "UNAVAILABLE"},
		{context.DeadlineExceeded, 504, "TIMEOUT"},
		{ilgraph.Errorf(ilgraph.ETIMEOUT, "slow"), 504, "TIMEOUT"},
		{errors.New("bolt: secret detail"), 500, "INTERNAL"},
	} {
		h := jsonapi.NewHandler(explore.New(failingStore{err: tc.err}, nil), jsonapi.Options{Logger: quiet()})
		for _, path := range []string{"/cases/IL-0282", "/cases?limit=3"} {
			req := httptest.NewRequest("GET", path, nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			var e errorBody
			json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != tc.status || e.Error.Code != tc.code || strings.Contains(w.Body.String(), "secret") {
				t.Errorf("%s with %v: %d %s", path, tc.err, w.Code, w.Body)
			}
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatal(err)
			}
			in := &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
				Status:                 w.Code, Header: w.Header(), Body: io.NopCloser(bytes.NewReader(w.Body.Bytes())),
			}
			if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
				t.Errorf("%s: %d does not match openapi.json: %v", path, w.Code, err)
			}
		}
	}
	// Every code has its status.
	for code, status := range map[string]int{ilgraph.EINVALID: 400, ilgraph.ELIMIT: 400, ilgraph.ENOTFOUND: 404,
		ilgraph.ECONFLICT: 409, ilgraph.EUNAVAILABLE: 503, ilgraph.ETIMEOUT: 504, ilgraph.EINTERNAL: 500, "other": 500} {
		if got := jsonapi.Status(code); got != status {
			t.Errorf("Status(%s) = %d, want %d", code, got, status)
		}
	}
}

// TestValidationCatchesWrongAnswers makes sure the response checks above
// can fail: answers that break the document are refused.
func TestValidationCatchesWrongAnswers(t *testing.T) {
	router, err := legacy.NewRouter(loadDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	validate := func(path, body string) error {
		req := httptest.NewRequest("GET", path, nil)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 200, Header: map[string][]string{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)),
		}
		return openapi3filter.ValidateResponse(context.Background(), in)
	}
	// The wrong shares below are wrong only in their share.
	for _, share := range []string{
		`{"kind": "mechanism", "id": "overload", "label": "Overload", "weight": 1, "contribution": 0.1}`,
		`{"kind": "text", "weight": 60, "cosine": 0.2, "contribution": 0.1, "words": ["overload"]}`,
	} {
		if err := validate("/cases/IL-0282/similar", similarWithShare(share)); err != nil {
			t.Errorf("share %s fails validation: %v", share, err)
		}
	}
	for _, tc := range []struct{ path, body string }{
		{"/cases", `{"total": "many", "cases": []}`},
		{"/cases", `{"total": 1, "cases": [{"id": "IL-0001"}]}`},
		{"/cases", `{"total": 1, "cases": [], "extra": true}`},
		{"/cases/IL-0384/judgments", `{"case_id": "IL-0384", "judgments": [{"case_id": "IL-0384", "match": "IL-0282", "judge": "a", "grade": "maybe", "grade_value": 1, "at": "2025-01-01T00:00:00Z", "note": "n"}], "hidden": []}`},
		{"/cases/IL-0282/similar", `{"case_id": "IL-0282", "matches": [{"case": {}, "score": 2, "shared": [], "differing": []}]}`},
		// A share is a feature of a feature kind, or the text channel's part
		// (kind text, cosine and words, no term), and nothing in between.
		{"/cases/IL-0282/similar", similarWithShare(`{"kind": "planet", "id": "x", "label": "X", "weight": 1, "contribution": 0.1}`)},
		{"/cases/IL-0282/similar", similarWithShare(`{"kind": "text", "id": "x", "label": "X", "weight": 1, "contribution": 0.1}`)},
		{"/cases/IL-0282/similar", similarWithShare(`{"kind": "text", "weight": 60, "contribution": 0.1, "words": []}`)},
		{"/cases/IL-0282/similar", similarWithShare(`{"kind": "text", "id": "text", "weight": 60, "cosine": 0.2, "contribution": 0.1, "words": []}`)},
		{"/cases/IL-0282/similar", similarWithShare(`{"kind": "mechanism", "id": "overload", "label": "Overload", "weight": 1, "contribution": 0.1, "cosine": 0.2}`)},
		{"/vocab", `{"kinds": {"planet": []}}`},
		{"/cases/IL-0282", `{"id": "lower-case"}`},
	} {
		if err := validate(tc.path, tc.body); err == nil {
			t.Errorf("%s: %s passed validation", tc.path, tc.body)
		}
	}
}

// similarWithShare is a similar-cases answer, valid but for the one share
// given.
func similarWithShare(share string) string {
	return `{"case_id": "IL-0282", "matches": [{"case": {"id": "IL-0384", "url": "/cases/IL-0384", "org": "Amazon Web Services", "org_slug": "amazon-web-services",
		"date": "2020-11-25", "title": {"en": "t"}, "summary": {"en": "s"}, "root_cause": "capacity", "components": [], "symptoms": [], "contributing": [], "domain": []},
		"score": 0.2, "shared": [` + share + `], "differing": [], "judgments": [], "hidden": false, "notes": []}]}`
}
