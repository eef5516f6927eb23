package ilgraph_test

import (
	"context"
	"testing"

	"github.com/ilgraph/ilgraph"
)

func TestRoles(t *testing.T) {
	for i, r := range ilgraph.Roles {
		got, err := ilgraph.ParseRole(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRole(%q) = %v, %v; want %v", r.String(), got, err, r)
		}
		for j, s := range ilgraph.Roles {
			p := ilgraph.Principal{Name: "t", Role: r}
			if got, want := p.Can(s), i >= j; got != want {
				t.Errorf("%v.Can(%v) = %v, want %v", r, s, got, want)
			}
		}
	}
	if _, err := ilgraph.ParseRole("root"); ilgraph.ErrorCode(err) != ilgraph.EINVALID {
		t.Errorf("ParseRole(root): got %v, want an EINVALID error", err)
	}
}

func TestRequire(t *testing.T) {
	ctx := context.Background()
	if err := ilgraph.Require(ctx, ilgraph.RoleViewer); ilgraph.ErrorCode(err) != ilgraph.EUNAUTHORIZED {
		t.Errorf("anonymous: got %v, want EUNAUTHORIZED", err)
	}
	ctx = ilgraph.NewContextWithPrincipal(ctx, ilgraph.Principal{Name: "ci", Role: ilgraph.RoleReviewer})
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		t.Errorf("reviewer needs reviewer: got %v", err)
	}
	err := ilgraph.Require(ctx, ilgraph.RoleEditor)
	if ilgraph.ErrorCode(err) != ilgraph.EFORBIDDEN {
		t.Fatalf("reviewer needs editor: got %v, want EFORBIDDEN", err)
	}
	if got := ilgraph.ErrorMessage(err); got == "" {
		t.Error("EFORBIDDEN has no message")
	}
}
