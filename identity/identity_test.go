package identity_test

import (
	"context"
	"testing"

	"github.com/switchboard-mcp/switchboard/identity"
)

// TestAllowed: without a person everything is everyone's; a person owns what
// carries their subject; an admin owns everything; nobody but an admin owns what
// has no owner.
func TestAllowed(t *testing.T) {
	ctx := context.Background()
	alice := identity.NewContext(ctx, identity.Person{Subject: "alice"})
	admin := identity.NewContext(ctx, identity.Person{Subject: "carol", Admin: true})
	for _, tt := range []struct {
		name  string
		ctx   context.Context
		owner string
		want  bool
	}{
		{"no person, alice's", ctx, "alice", true},
		{"no person, no owner", ctx, "", true},
		{"alice, hers", alice, "alice", true},
		{"alice, bob's", alice, "bob", false},
		{"alice, no owner", alice, "", false},
		{"admin, bob's", admin, "bob", true},
		{"admin, no owner", admin, "", true},
	} {
		if got := identity.Allowed(tt.ctx, tt.owner); got != tt.want {
			t.Errorf("%s: Allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := identity.Owner(alice); got != "alice" {
		t.Errorf("Owner(alice's request) = %q", got)
	}
	if got := identity.Owner(ctx); got != "" {
		t.Errorf("Owner(no person) = %q, want \"\"", got)
	}
}
