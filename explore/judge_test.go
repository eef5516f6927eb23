package explore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/internal/neo4jtest"
	"github.com/ilgraph/ilgraph/loader"
	"github.com/ilgraph/ilgraph/memstore"
	"github.com/ilgraph/ilgraph/similarity"
)

// judgingCore is the core as cmd/ilgraph wires it, judgments included,
// over the seeds in Neo4j.
func judgingCore(t *testing.T) (*explore.Service, *graph.DB) {
	t.Helper()
	db := neo4jtest.MustOpenSeeds(t)
	src := memstore.NewSource(db)
	sim := similarity.NewService(db, src)
	return explore.New(db, sim, explore.WithReadModel(memstore.NewStore(src)), explore.WithWrites(db, loader.Validator{DB: db}),
		explore.WithJudgments(db)), db
}

func as(name string, r ilgraph.Role) context.Context {
	return ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: name, Role: r})
}

// ranked is a list of matches as "id score hidden", to compare lists.
func ranked(scs []explore.SimilarCase) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = fmt.Sprintf("%s %.9f hidden=%v", sc.Case.ID, sc.Score, sc.Hidden != nil)
	}
	return out
}

// TestJudgingSimilarCases: reviewers judge matches, editors hide the ones
// marked not relevant; the judgments show on the matches, a hidden match
// leaves the default list (the next one takes its place) and comes back
// marked hidden when asked for, and no score or order changes.
func TestJudgingSimilarCases(t *testing.T) {
	core, _ := judgingCore(t)
	const query = "IL-0384"
	alice, bob := as("alice", ilgraph.RoleReviewer), as("bob", ilgraph.RoleReviewer)
	carol := as("carol", ilgraph.RoleEditor)
	reader := context.Background()
	similar := func(k int, includeHidden bool) []explore.SimilarCase {
		t.Helper()
		scs, err := core.Similar(reader, query, explore.SimilarityQuery{K: k, IncludeHidden: includeHidden})
		if err != nil {
			t.Fatal(err)
		}
		return scs
	}
	before5, before6 := similar(5, false), similar(6, false)
	if len(before6) != 6 {
		t.Fatalf("only %d matches of %s", len(before6), query)
	}
	target := before5[1].Case.ID // the second match

	t.Run("a judgment shows on its match and changes no score", func(t *testing.T) {
		j, err := core.JudgeSimilar(alice, query, target, ilgraph.GradeNotRelevant, "a different failure")
		if err != nil {
			t.Fatal(err)
		}
		if j.Judge != "alice" || j.Query != query || j.Match != target || j.At.IsZero() {
			t.Errorf("got judgment %+v, want alice's of %s–%s with a time", j, query, target)
		}
		if _, err := core.JudgeSimilar(bob, query, target, ilgraph.GradeRelevant, ""); err != nil {
			t.Fatal(err)
		}
		after := similar(5, false)
		if got, want := ranked(after), ranked(before5); !slices.Equal(got, want) {
			t.Errorf("got %q, want the list as before %q", got, want)
		}
		got := after[1].Notes()
		want := []string{"marked not relevant by alice: a different failure", "marked relevant by bob"}
		if !slices.Equal(got, want) {
			t.Errorf("notes %q, want %q", got, want)
		}
		for i, sc := range after {
			if i != 1 && len(sc.Judgments) != 0 {
				t.Errorf("%s has judgments %v, want none", sc.Case.ID, sc.Judgments)
			}
		}
	})

	t.Run("judging again replaces the judge's judgment", func(t *testing.T) {
		if _, err := core.JudgeSimilar(bob, query, target, ilgraph.GradeStronglyRelevant, "same broker"); err != nil {
			t.Fatal(err)
		}
		fb, err := core.Judgments(reader, query)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, j := range fb.Judgments {
			got = append(got, j.Note())
		}
		if want := []string{"marked not relevant by alice: a different failure", "marked strongly relevant by bob: same broker"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})

	t.Run("a hidden match leaves the default list, not the ranking", func(t *testing.T) {
		h, err := core.HideSimilar(carol, query, target)
		if err != nil {
			t.Fatal(err)
		}
		if h.By != "carol" || h.Match != target {
			t.Errorf("got hiding %+v, want carol's of %s", h, target)
		}
		// Independently: the six before, less the hidden one.
		var want []string
		for _, sc := range before6 {
			if sc.Case.ID != target {
				want = append(want, fmt.Sprintf("%s %.9f hidden=false", sc.Case.ID, sc.Score))
			}
		}
		if got := ranked(similar(5, false)); !slices.Equal(got, want) {
			t.Errorf("default list %q, want %q", got, want)
		}
		all := similar(5, true)
		want = ranked(before5)
		want[1] = strings.Replace(want[1], "hidden=false", "hidden=true", 1)
		if got := ranked(all); !slices.Equal(got, want) {
			t.Errorf("with hidden ones %q, want %q", got, want)
		}
		if notes := all[1].Notes(); len(notes) != 3 || notes[2] != "hidden by carol" {
			t.Errorf("notes %q, want the judgments then \"hidden by carol\"", notes)
		}
	})

	t.Run("only a match marked not relevant can be hidden", func(t *testing.T) {
		other := before5[2].Case.ID
		if _, err := core.JudgeSimilar(alice, query, other, ilgraph.GradeRelevant, ""); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{other, before5[3].Case.ID} {
			_, err := core.HideSimilar(carol, query, m)
			if got := ilgraph.ErrorCode(err); got != ilgraph.ECONFLICT {
				t.Errorf("hiding %s: got %v (code %q), want %q", m, err, got, ilgraph.ECONFLICT)
			}
		}
	})

	t.Run("a judge withdraws only their own judgment", func(t *testing.T) {
		if ok, err := core.WithdrawJudgment(bob, query, target); err != nil || !ok {
			t.Fatalf("bob withdraws: %v %v", ok, err)
		}
		after := similar(5, true)
		if got, want := after[1].Notes(), []string{"marked not relevant by alice: a different failure", "hidden by carol"}; !slices.Equal(got, want) {
			t.Errorf("after bob withdrew: notes %q, want %q", got, want)
		}
		if ok, err := core.WithdrawJudgment(bob, query, target); err != nil || ok {
			t.Errorf("bob withdraws again: got %v %v, want false and no error", ok, err)
		}
	})

	t.Run("the hiding goes with the last not-relevant judgment", func(t *testing.T) {
		if ok, err := core.WithdrawJudgment(alice, query, target); err != nil || !ok {
			t.Fatalf("alice withdraws: %v %v", ok, err)
		}
		if got, want := ranked(similar(5, false)), ranked(before5); !slices.Equal(got, want) {
			t.Errorf("got %q, want the list as before %q", got, want)
		}
	})

	t.Run("unhiding shows the match again", func(t *testing.T) {
		if _, err := core.JudgeSimilar(alice, query, target, ilgraph.GradeNotRelevant, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := core.HideSimilar(carol, query, target); err != nil {
			t.Fatal(err)
		}
		if ok, err := core.UnhideSimilar(carol, query, target); err != nil || !ok {
			t.Fatalf("unhide: %v %v", ok, err)
		}
		if got, want := ranked(similar(5, false)), ranked(before5); !slices.Equal(got, want) {
			t.Errorf("got %q, want the list as before %q", got, want)
		}
	})

	t.Run("a profile's matches carry no judgments", func(t *testing.T) {
		pm, err := core.SimilarToProfile(reader, explore.Profile{Components: []string{"message-broker"}}, explore.SimilarityQuery{K: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range pm.Matches {
			if len(sc.Judgments) != 0 || sc.Hidden != nil {
				t.Errorf("profile match %s: judgments %v, hidden %v", sc.Case.ID, sc.Judgments, sc.Hidden)
			}
		}
	})
}

// TestJudgingRefusals: who may judge and hide, and the input refused —
// each refusal changes nothing.
func TestJudgingRefusals(t *testing.T) {
	core, _ := judgingCore(t)
	reviewer, editor := as("rita", ilgraph.RoleReviewer), as("ed", ilgraph.RoleEditor)
	judge := func(ctx context.Context, q, m string, g ilgraph.Grade, reason string) error {
		_, err := core.JudgeSimilar(ctx, q, m, g, reason)
		return err
	}
	hide := func(ctx context.Context) error { _, err := core.HideSimilar(ctx, "IL-0384", "IL-0282"); return err }
	unhide := func(ctx context.Context) error { _, err := core.UnhideSimilar(ctx, "IL-0384", "IL-0282"); return err }
	withdraw := func(ctx context.Context) error {
		_, err := core.WithdrawJudgment(ctx, "IL-0384", "IL-0282")
		return err
	}
	for _, tc := range []struct {
		name  string
		err   error
		code  string
		field string // the key an INVALID error names
		role  string // the role a FORBIDDEN error names
	}{
		{"judging anonymously", judge(context.Background(), "IL-0384", "IL-0282", 1, ""), ilgraph.EUNAUTHORIZED, "", ""},
		{"judging as a viewer", judge(as("vic", ilgraph.RoleViewer), "IL-0384", "IL-0282", 1, ""), ilgraph.EFORBIDDEN, "", "reviewer"},
		{"withdrawing as a viewer", withdraw(as("vic", ilgraph.RoleViewer)), ilgraph.EFORBIDDEN, "", "reviewer"},
		{"hiding anonymously", hide(context.Background()), ilgraph.EUNAUTHORIZED, "", ""},
		{"hiding as a reviewer", hide(reviewer), ilgraph.EFORBIDDEN, "", "editor"},
		{"unhiding as a reviewer", unhide(reviewer), ilgraph.EFORBIDDEN, "", "editor"},
		{"a case with itself", judge(reviewer, "IL-0384", "IL-0384", 1, ""), ilgraph.EINVALID, ilgraph.FieldJudgmentMatch, ""},
		{"hiding a case from itself", func() error { _, err := core.HideSimilar(editor, "IL-0384", "IL-0384"); return err }(), ilgraph.EINVALID, ilgraph.FieldJudgmentMatch, ""},
		{"an unknown query case", judge(reviewer, "IL-9999", "IL-0282", 1, ""), ilgraph.ENOTFOUND, "", ""},
		{"an unknown match", judge(reviewer, "IL-0384", "IL-9999", 1, ""), ilgraph.ENOTFOUND, "", ""},
		{"a grade above the scale", judge(reviewer, "IL-0384", "IL-0282", 3, ""), ilgraph.EINVALID, ilgraph.FieldJudgmentGrade, ""},
		{"a reason too long", judge(reviewer, "IL-0384", "IL-0282", 1, strings.Repeat("x", ilgraph.MaxJudgmentReason+1)), ilgraph.EINVALID, ilgraph.FieldJudgmentReason, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *ilgraph.Error
			if !errors.As(tc.err, &e) || e.Code != tc.code {
				t.Fatalf("got %v, want code %q", tc.err, tc.code)
			}
			if e.Field != tc.field {
				t.Errorf("got field %q, want %q", e.Field, tc.field)
			}
			if tc.role != "" && !strings.Contains(e.Message, "the "+tc.role+" role") {
				t.Errorf("got %q, want it to name the %s role", e.Message, tc.role)
			}
		})
	}
	t.Run("nothing was stored", func(t *testing.T) {
		fb, err := core.Judgments(context.Background(), "IL-0384")
		if err != nil || len(fb.Judgments) != 0 || len(fb.Hidden) != 0 {
			t.Errorf("got %+v, %v; want no judgments", fb, err)
		}
	})
	t.Run("the judgments of an unknown case are NOT_FOUND", func(t *testing.T) {
		_, err := core.Judgments(context.Background(), "IL-9999")
		if got := ilgraph.ErrorCode(err); got != ilgraph.ENOTFOUND {
			t.Errorf("got %v (code %q), want %q", err, got, ilgraph.ENOTFOUND)
		}
	})
	t.Run("a core without a judgment store says so after the role check", func(t *testing.T) {
		plain, _ := writingCore(t)
		if _, err := plain.JudgeSimilar(context.Background(), "IL-0384", "IL-0282", 1, ""); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("anonymously: got %v, want %q", err, ilgraph.EUNAUTHORIZED)
		}
		if _, err := plain.JudgeSimilar(reviewer, "IL-0384", "IL-0282", 1, ""); ilgraph.ErrorCode(err) != ilgraph.EUNAVAILABLE {
			t.Errorf("as a reviewer: got %v, want %q", err, ilgraph.EUNAVAILABLE)
		}
	})
}

// TestManyHiddenMatches: a case with more hidden matches than the ranking
// asks for beyond k before its hidings are known still lists k matches, the
// first k of its ranking that are not hidden, and each hidden one comes
// back marked when asked for.
func TestManyHiddenMatches(t *testing.T) {
	core, _ := judgingCore(t)
	const query, k, hide = "IL-0282", 5, 10 // more hidden than the k the ranking starts with
	reviewer, editor := as("alice", ilgraph.RoleReviewer), as("carol", ilgraph.RoleEditor)
	before, err := core.Similar(context.Background(), query, explore.SimilarityQuery{K: k + 2*hide + 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < k+2*hide {
		t.Fatalf("only %d matches of %s, want at least %d", len(before), query, k+2*hide)
	}
	// Hide the first hide matches and, further down, every other one, so
	// that the top of the ranking is all hidden and then alternates.
	hidden := map[string]bool{}
	for i := 0; i < 2*hide; i++ {
		if i >= hide && i%2 == 0 {
			continue
		}
		id := before[i].Case.ID
		if _, err := core.JudgeSimilar(reviewer, query, id, ilgraph.GradeNotRelevant, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := core.HideSimilar(editor, query, id); err != nil {
			t.Fatal(err)
		}
		hidden[id] = true
	}
	// Independently: the ranking before, less the hidden matches, first k.
	var want []string
	for _, sc := range before {
		if !hidden[sc.Case.ID] && len(want) < k {
			want = append(want, fmt.Sprintf("%s %.9f hidden=false", sc.Case.ID, sc.Score))
		}
	}
	got, err := core.Similar(context.Background(), query, explore.SimilarityQuery{K: k})
	if err != nil {
		t.Fatal(err)
	}
	if g := ranked(got); !slices.Equal(g, want) {
		t.Errorf("with %d hidden: got %q, want %q", len(hidden), g, want)
	}
	all, err := core.Similar(context.Background(), query, explore.SimilarityQuery{K: k + 2*hide + 5, IncludeHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range all {
		if sc.Case.ID != before[i].Case.ID || (sc.Hidden != nil) != hidden[sc.Case.ID] {
			t.Errorf("with hidden ones, row %d is %s hidden=%v; want %s hidden=%v", i, sc.Case.ID, sc.Hidden != nil, before[i].Case.ID, hidden[before[i].Case.ID])
		}
	}
}
