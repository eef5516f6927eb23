package ilgraph

import "time"

// Token is an API token as the store keeps it: everything but its secret,
// of which only a hash is ever stored.
type Token struct {
	Name     string // unique, chosen by the admin who creates it
	Role     Role
	Created  time.Time
	Expires  time.Time // zero: never
	LastUsed time.Time // zero: never used; kept to within token.LastUseResolution
	Revoked  time.Time // zero: not revoked
}

// Status is "active", "expired" or "revoked" at now.
func (t Token) Status(now time.Time) string {
	switch {
	case !t.Revoked.IsZero():
		return "revoked"
	case !t.Expires.IsZero() && !now.Before(t.Expires):
		return "expired"
	}
	return "active"
}
