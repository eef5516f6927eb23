package graph_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

// TestWordFormsInCypher: a search finds every form of an English word in
// every text mode, says which forms it found, and a graph written before
// word forms (no stemmed fields) finds them once Migrate has run.
func TestWordFormsInCypher(t *testing.T) {
	db := neo4jtest.MustOpen(t)
	ctx := context.Background()
	if err := db.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	mk := func(id, title, summary string) *ilgraph.Case {
		return &ilgraph.Case{ID: id, Date: "2024-01-02", Title: ilgraph.Text{En: title}, Summary: ilgraph.Text{En: summary, Ko: "인증서 만료"}}
	}
	cases := []*ilgraph.Case{
		mk("WF-1", "Certificates expired", "Two TLS certificates had expired overnight."),
		mk("WF-2", "A certificate expiry", "The certificate expires; renewal failed."),
		mk("WF-3", "Database failover", "The databases failed over."),
		mk("WF-4", "Phishing", "A phishing mail; certification training followed."),
	}
	if _, err := db.WriteCases(ctx, cases); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, tt := range []struct {
			text string
			mode ilgraph.TextMode
			want []string
		}{
			{"certificate", "", []string{"WF-1", "WF-2"}},
			{"CERTIFICATES", "", []string{"WF-1", "WF-2"}},
			{"expire", "", []string{"WF-1", "WF-2"}},
			{"expiry", "", []string{"WF-1", "WF-2"}},
			{"certificate expired", "", []string{"WF-1", "WF-2"}},
			{"certificate expired", ilgraph.TextPhrase, []string{"WF-1", "WF-2"}},
			{"certificate had expired", ilgraph.TextPhrase, []string{"WF-1"}},
			{"database phishing", ilgraph.TextAny, []string{"WF-3", "WF-4"}},
			{"fail", "", []string{"WF-2", "WF-3"}},
			{"인증서", "", []string{"WF-1", "WF-2", "WF-3", "WF-4"}},
		} {
			got, err := db.CaseIDsMatching(ctx, ilgraph.CaseFilter{Text: tt.text, TextMode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: %q (%s): got %v, want %v", when, tt.text, tt.mode, got, tt.want)
			}
		}
		found, err := db.WordFormsFound(ctx, ilgraph.CaseFilter{Text: "certificate"}, ilgraph.WordFormCandidates("certificate"))
		slices.Sort(found)
		if err != nil || !slices.Equal(found, []string{"certificate", "certificates"}) {
			t.Errorf("%s: forms of certificate found: %v, %v", when, found, err)
		}
		found, err = db.WordFormsFound(ctx, ilgraph.CaseFilter{Text: "certificate", DateFrom: "2025-01-01"}, ilgraph.WordFormCandidates("certificate"))
		if err != nil || len(found) != 0 {
			t.Errorf("%s: forms found in no case: %v, %v", when, found, err)
		}
	}
	check("written now")
	if err := graph.ForgetWordForms(ctx, db); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.CaseIDsMatching(ctx, ilgraph.CaseFilter{Text: "certificate"}); len(got) != 0 {
		t.Fatalf("without stemmed fields a search found %v: the test would not show Migrate restemming", got)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	check("after Migrate restemmed an older graph")
}
