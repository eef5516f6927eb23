package ilgraph

import (
	"context"
	"fmt"
)

// Role is what a principal may do. Each role may do everything the roles
// before it may: a viewer reads; a reviewer also reviews machine tags and
// judges similar matches; an editor also creates, updates and deletes
// cases; an admin also manages tokens.
type Role int

// The roles, in order. RoleNone is no role at all: an anonymous caller.
const (
	RoleNone Role = iota
	RoleViewer
	RoleReviewer
	RoleEditor
	RoleAdmin
)

// Roles lists the roles a token may have, in order.
var Roles = []Role{RoleViewer, RoleReviewer, RoleEditor, RoleAdmin}

var roleNames = map[Role]string{RoleNone: "none", RoleViewer: "viewer", RoleReviewer: "reviewer", RoleEditor: "editor", RoleAdmin: "admin"}

// String is the role's name as the command line and the APIs spell it.
func (r Role) String() string {
	if s, ok := roleNames[r]; ok {
		return s
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// ParseRole returns the role a name spells (viewer, reviewer, editor,
// admin).
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if r.String() == s {
			return r, nil
		}
	}
	return RoleNone, Errorf(EINVALID, "unknown role %q: want viewer, reviewer, editor or admin", s)
}

// Principal is who makes a request: the name of the token it carried and
// that token's role. The zero principal is anonymous.
type Principal struct {
	Name string
	Role Role
}

// Anonymous reports whether p stands for no one.
func (p Principal) Anonymous() bool { return p.Role == RoleNone }

// Can reports whether p has role r or one above it.
func (p Principal) Can(r Role) bool { return p.Role >= r }

type principalKey struct{}

// NewContextWithPrincipal returns ctx carrying p: the doors put the
// request's principal there once they have authenticated it, and the core
// reads it to decide what the request may do and to record who wrote.
func NewContextWithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, or the anonymous one.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// Require returns nil when ctx's principal has role r or one above it,
// otherwise an EUNAUTHORIZED error for an anonymous principal (it should
// authenticate) or an EFORBIDDEN error naming the missing role.
func Require(ctx context.Context, r Role) error {
	p := PrincipalFrom(ctx)
	switch {
	case p.Can(r):
		return nil
	case p.Anonymous():
		return Errorf(EUNAUTHORIZED, "this needs a token with the %s role or above: send it as Authorization: Bearer <token>", r)
	default:
		return Errorf(EFORBIDDEN, "this needs the %s role; the token %q has the %s role", r, p.Name, p.Role)
	}
}

// Authenticator turns a bearer token into the principal it stands for. It
// answers EUNAUTHORIZED for a token that is unknown, expired or revoked,
// saying no more than that.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (Principal, error)
}
