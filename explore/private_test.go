package explore_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
)

// Data sources that must never be reached: each embeds a nil interface, so
// any call panics.
type (
	noStore      struct{ explore.Store }
	noSimilarity struct{ explore.Similarity }
	noReadModel  struct{ explore.ReadModel }
	noSuggester  struct{ explore.Suggester }
	noWriter     struct{ explore.CaseWriter }
	noValidator  struct{ explore.CaseValidator }
	noJudgments  struct{ explore.JudgmentStore }
)

var (
	anonymous = context.Background()
	asViewer  = ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "v", Role: ilgraph.RoleViewer})
	asEditor  = ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "e", Role: ilgraph.RoleEditor})
	asAdmin   = ilgraph.NewContextWithPrincipal(context.Background(), ilgraph.Principal{Name: "a", Role: ilgraph.RoleAdmin})
)

// TestPrivateCoreReadsNothingAnonymously calls every exported method of
// the core, found by reflection so that a new one cannot be left out, as
// an anonymous caller of a private core whose data sources panic when
// touched: none may reach them, and each that fails does so with
// EUNAUTHORIZED or an input error, never one that depends on the data (a
// method may succeed with nothing to look up: resolving an empty filter).
func TestPrivateCoreReadsNothingAnonymously(t *testing.T) {
	core := explore.New(noStore{}, noSimilarity{}, explore.WithReadModel(noReadModel{}), explore.WithSuggester(noSuggester{}),
		explore.WithWrites(noWriter{}, noValidator{}), explore.WithJudgments(noJudgments{}), explore.WithPrivate())
	v := reflect.ValueOf(core)
	ctxType := reflect.TypeFor[context.Context]()
	tried := 0
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		ft := m.Type // receiver first
		if ft.NumIn() < 2 || ft.In(1) != ctxType {
			continue // no context: configuration, not data (SimilarityDefaults, SuggestCutoffs)
		}
		tried++
		args := []reflect.Value{reflect.ValueOf(anonymous)}
		for j := 2; j < ft.NumIn(); j++ {
			if ft.IsVariadic() && j == ft.NumIn()-1 {
				break
			}
			args = append(args, plausible(ft.In(j)))
		}
		t.Run(m.Name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("an anonymous caller reached the data: %v", p)
				}
			}()
			out := v.Method(i).Call(args)
			errV := out[len(out)-1]
			err, _ := errV.Interface().(error)
			if code := ilgraph.ErrorCode(err); err != nil && code != ilgraph.EUNAUTHORIZED && code != ilgraph.EINVALID && code != ilgraph.ELIMIT {
				t.Errorf("%s: error %v, want EUNAUTHORIZED (or an input error)", m.Name, err)
			}
		})
	}
	if tried < 25 {
		t.Fatalf("only %d methods tried", tried)
	}
}

// plausible is a value of t that passes input checks where it can: a case
// id for strings, one element for slices.
func plausible(t reflect.Type) reflect.Value {
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf("IL-0384").Convert(t)
	case reflect.Int:
		return reflect.ValueOf(5).Convert(t)
	case reflect.Slice:
		s := reflect.MakeSlice(t, 1, 1)
		s.Index(0).Set(plausible(t.Elem()))
		return s
	}
	return reflect.Zero(t)
}

// TestPrivateCoreServesViewers: a private core answers a viewer (and any
// role above) as a public one does, and refuses an anonymous caller.
func TestPrivateCoreServesViewers(t *testing.T) {
	f := mustCore(t)
	private := explore.New(f.store, newMemSimilarity(f.cases), explore.WithPrivate())
	want, err := f.core.Cases(anonymous, explore.CaseQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ctx := range []context.Context{asViewer, asEditor, asAdmin} {
		got, err := private.Cases(ctx, explore.CaseQuery{})
		if err != nil || got.TotalCount != want.TotalCount || len(got.Cases) != len(want.Cases) {
			t.Errorf("%v: %v %v", ilgraph.PrincipalFrom(ctx), got, err)
		}
		st, err := private.Stats(ctx, ilgraph.CaseFilter{})
		if err != nil || st.Cases != want.TotalCount {
			t.Errorf("stats: %+v %v", st, err)
		}
	}
	if _, err := private.Cases(anonymous, explore.CaseQuery{}); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
		t.Errorf("anonymous: %v", err)
	}
	if _, err := f.core.Cases(anonymous, explore.CaseQuery{}); err != nil || f.core.Private() || !private.Private() {
		t.Errorf("public core: %v", err)
	}
}

// fakeTokens records what the core asks of it.
type fakeTokens struct{ calls []string }

func (f *fakeTokens) CreateToken(_ context.Context, name string, role ilgraph.Role, expires time.Time) (string, ilgraph.Token, error) {
	f.calls = append(f.calls, fmt.Sprintf("create %s %s %v", name, role, expires.IsZero()))
	return "ilg_x", ilgraph.Token{Name: name, Role: role, Expires: expires}, nil
}

func (f *fakeTokens) Tokens(context.Context) ([]ilgraph.Token, error) {
	f.calls = append(f.calls, "list")
	return nil, nil
}

func (f *fakeTokens) RevokeToken(_ context.Context, name string) error {
	f.calls = append(f.calls, "revoke "+name)
	return nil
}

// TestTokenManagementNeedsAdmin: every token operation needs the admin
// role — EUNAUTHORIZED anonymously, EFORBIDDEN naming admin below it — and
// reaches the token store only then.
func TestTokenManagementNeedsAdmin(t *testing.T) {
	f := mustCore(t)
	tm := &fakeTokens{}
	core := explore.New(f.store, newMemSimilarity(f.cases), explore.WithTokens(tm))
	ops := map[string]func(context.Context) error{
		"create": func(ctx context.Context) error {
			_, _, err := core.CreateToken(ctx, "ci", ilgraph.RoleViewer, 24*time.Hour)
			return err
		},
		"list":   func(ctx context.Context) error { _, err := core.Tokens(ctx); return err },
		"revoke": func(ctx context.Context) error { return core.RevokeToken(ctx, "ci") },
	}
	for name, op := range ops {
		if err := op(anonymous); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
			t.Errorf("%s anonymously: %v", name, err)
		}
		for _, ctx := range []context.Context{asViewer, asEditor} {
			err := op(ctx)
			if ilgraph.ErrorCode(err) != ilgraph.EFORBIDDEN || !strings.Contains(ilgraph.ErrorMessage(err), "admin role") {
				t.Errorf("%s as %v: %v", name, ilgraph.PrincipalFrom(ctx).Role, err)
			}
		}
	}
	if len(tm.calls) != 0 {
		t.Fatalf("the token store was reached: %v", tm.calls)
	}
	for name, op := range ops {
		if err := op(asAdmin); err != nil {
			t.Errorf("%s as admin: %v", name, err)
		}
	}
	if len(tm.calls) != 3 {
		t.Errorf("calls %v", tm.calls)
	}
	for _, bad := range []struct {
		name string
		role ilgraph.Role
		ttl  time.Duration
	}{{"", ilgraph.RoleViewer, 0}, {"has space", ilgraph.RoleViewer, 0}, {"ok", ilgraph.RoleNone, 0}, {"ok", ilgraph.RoleViewer, -time.Hour},
		{"ok", ilgraph.RoleViewer, time.Second}, {"ok", ilgraph.RoleViewer, 10 * 365 * 24 * time.Hour}, {strings.Repeat("a", 65), ilgraph.RoleViewer, 0}} {
		if _, _, err := core.CreateToken(asAdmin, bad.name, bad.role, bad.ttl); ilgraph.ErrorCode(err) != ilgraph.EINVALID {
			t.Errorf("create %q %v %v: %v", bad.name, bad.role, bad.ttl, err)
		}
	}
}
