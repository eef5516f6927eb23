package graph_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
)

func judgmentsText(js []ilgraph.Judgment) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = fmt.Sprintf("%s %s %s %d %q %s", j.Query, j.Match, j.Judge, j.Grade, j.Reason, j.At.Format(time.RFC3339))
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJudgmentsStore: one judgment per query, match and judge (judging
// again replaces it), read back by match then judge; hiding rests on a
// not-relevant judgment and goes with the last one; unknown cases change
// nothing.
func TestJudgmentsStore(t *testing.T) {
	db := neo4jtest.MustOpenSeeds(t)
	ctx := context.Background()
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(match, judge string, g ilgraph.Grade, reason string, at time.Time) {
		t.Helper()
		if err := db.PutJudgment(ctx, ilgraph.Judgment{Query: "IL-0384", Match: match, Judge: judge, Grade: g, Reason: reason, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	feedback := func() ([]string, []ilgraph.Hiding) {
		t.Helper()
		js, hs, err := db.SimilarFeedback(ctx, "IL-0384")
		if err != nil {
			t.Fatal(err)
		}
		return judgmentsText(js), hs
	}

	t.Run("judging again replaces the judge's judgment", func(t *testing.T) {
		put("IL-0282", "bob", ilgraph.GradeRelevant, "same broker", t0)
		put("IL-0282", "alice", ilgraph.GradeRelevant, "", t0)
		put("IL-0282", "alice", ilgraph.GradeNotRelevant, "another failure", t0.Add(time.Minute))
		put("IL-0206", "alice", ilgraph.GradeStronglyRelevant, "", t0)
		got, hs := feedback()
		want := []string{
			`IL-0384 IL-0206 alice 2 "" 2025-03-01T10:00:00Z`,
			`IL-0384 IL-0282 alice 0 "another failure" 2025-03-01T10:01:00Z`,
			`IL-0384 IL-0282 bob 1 "same broker" 2025-03-01T10:00:00Z`,
		}
		if !sameStrings(got, want) || len(hs) != 0 {
			t.Errorf("got %q and hidden %v, want %q and none", got, hs, want)
		}
		props, err := graph.PropertiesOf(ctx, db, graph.LabelJudgment)
		if err != nil || len(props) != 3 {
			t.Errorf("got %d judgment nodes (%v), want 3", len(props), err)
		}
		// The lock taken on the query case's node leaves it as it was.
		cases, err := graph.PropertiesOf(ctx, db, graph.LabelCase)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range cases {
			if _, ok := p["_judgment_lock"]; ok {
				t.Errorf("case %v keeps the lock's property", p["id"])
			}
		}
	})

	t.Run("unknown cases are NOT_FOUND and change nothing", func(t *testing.T) {
		for _, pair := range [][2]string{{"IL-9999", "IL-0282"}, {"IL-0384", "IL-9999"}} {
			err := db.PutJudgment(ctx, ilgraph.Judgment{Query: pair[0], Match: pair[1], Judge: "alice", Grade: ilgraph.GradeRelevant, At: t0})
			if got := ilgraph.ErrorCode(err); got != ilgraph.ENOTFOUND {
				t.Errorf("%v: got code %q (%v), want %q", pair, got, err, ilgraph.ENOTFOUND)
			}
			err = db.HideSimilar(ctx, ilgraph.Hiding{Query: pair[0], Match: pair[1], By: "carol", At: t0})
			if got := ilgraph.ErrorCode(err); got != ilgraph.ENOTFOUND {
				t.Errorf("hide %v: got code %q (%v), want %q", pair, got, err, ilgraph.ENOTFOUND)
			}
		}
		all, err := db.AllJudgments(ctx)
		if err != nil || len(all) != 3 {
			t.Errorf("got %d judgments (%v), want the 3 made before", len(all), err)
		}
	})

	t.Run("only a match marked not relevant can be hidden", func(t *testing.T) {
		err := db.HideSimilar(ctx, ilgraph.Hiding{Query: "IL-0384", Match: "IL-0206", By: "carol", At: t0})
		if got := ilgraph.ErrorCode(err); got != ilgraph.ECONFLICT {
			t.Errorf("hiding a match judged strongly relevant: got code %q (%v), want %q", got, err, ilgraph.ECONFLICT)
		}
		if err := db.HideSimilar(ctx, ilgraph.Hiding{Query: "IL-0384", Match: "IL-0282", By: "carol", At: t0}); err != nil {
			t.Fatal(err)
		}
		// Hiding again keeps the first hiding's who and when.
		if err := db.HideSimilar(ctx, ilgraph.Hiding{Query: "IL-0384", Match: "IL-0282", By: "dave", At: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		_, hs := feedback()
		if len(hs) != 1 || hs[0].Match != "IL-0282" || hs[0].By != "carol" || !hs[0].At.Equal(t0) {
			t.Errorf("got hidden %+v, want IL-0282 by carol at %v", hs, t0)
		}
	})

	t.Run("the hiding goes with the last not-relevant judgment", func(t *testing.T) {
		put("IL-0282", "bob", ilgraph.GradeNotRelevant, "", t0) // two say not relevant
		if ok, err := db.DeleteJudgment(ctx, "IL-0384", "IL-0282", "alice"); err != nil || !ok {
			t.Fatalf("withdraw: %v %v", ok, err)
		}
		if _, hs := feedback(); len(hs) != 1 {
			t.Errorf("after one of two not-relevant judgments is withdrawn: hidden %v, want still hidden", hs)
		}
		put("IL-0282", "bob", ilgraph.GradeRelevant, "", t0) // bob changes his mind
		if _, hs := feedback(); len(hs) != 0 {
			t.Errorf("with no not-relevant judgment left: hidden %v, want none", hs)
		}
		if ok, err := db.DeleteJudgment(ctx, "IL-0384", "IL-0282", "alice"); err != nil || ok {
			t.Errorf("withdrawing a judgment withdrawn already: got %v %v, want false and no error", ok, err)
		}
	})

	t.Run("unhide says whether the match was hidden", func(t *testing.T) {
		put("IL-0282", "alice", ilgraph.GradeNotRelevant, "", t0)
		if err := db.HideSimilar(ctx, ilgraph.Hiding{Query: "IL-0384", Match: "IL-0282", By: "carol", At: t0}); err != nil {
			t.Fatal(err)
		}
		for i, want := range []bool{true, false} {
			if ok, err := db.UnhideSimilar(ctx, "IL-0384", "IL-0282"); err != nil || ok != want {
				t.Errorf("unhide #%d: got %v %v, want %v", i+1, ok, err, want)
			}
		}
	})

	t.Run("one judgment per query, match and judge, however many write at once", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- db.PutJudgment(ctx, ilgraph.Judgment{Query: "IL-0282", Match: "IL-0384", Judge: "erin", Grade: ilgraph.Grade(i % 3), At: t0})
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		js, _, err := db.SimilarFeedback(ctx, "IL-0282")
		if err != nil || len(js) != 1 {
			t.Errorf("got %d judgments of IL-0282 (%v), want 1", len(js), err)
		}
		// The constraint refuses a second node for the key outright.
		err = graph.WriteForTest(ctx, db, "CREATE (:SimilarJudgment {query_id: 'IL-0282', match_id: 'IL-0384', judge: 'erin', grade: 1})", nil)
		if err == nil {
			t.Error("a second judgment node of the same key was created")
		}
	})

	t.Run("a reset empties them", func(t *testing.T) {
		if err := db.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		all, err := db.AllJudgments(ctx)
		if err != nil || len(all) != 0 {
			t.Errorf("after a reset: %d judgments (%v), want none", len(all), err)
		}
	})
}
