// Package identity is who makes a request of a Switchboard service: the person a
// verified token names (their subject, and whether they are an admin), carried in
// the request's context from the API's middleware to the stores, the hub and the
// audit log, so that one person's sessions and sign-ins are never another's.
//
// Verifier (oidc.go) makes a Person of a request's bearer token: a JWT of an OpenID
// Connect provider, checked against the provider's published keys with go-oidc.
//
// A service without identities (loopback, or one shared token) puts no Person in
// the context: everything is everyone's, as for one person. The static token of a
// one-person set-up is an admin with no subject.
//
// See docs/architecture.md for where identity sits among the packages.
package identity

import "context"

// Person is who a request comes from.
type Person struct {
	// Subject is the token's "sub" at its issuer: the key of everything the person
	// owns (sessions, sign-ins). "" for the static token's admin.
	Subject string `json:"subject"`
	// Name is what to call them on a page (the token's "name", else
	// "preferred_username", else "email"; "" when it has none). Never a key.
	Name string `json:"name,omitempty"`
	// Admin: sees and manages everyone's sessions.
	Admin bool `json:"admin"`
	// Email is the token's "email" ("" when it has none). Never a key.
	Email string `json:"email,omitempty"`
	// Groups are the values of the provider's groups claim (OIDCOptions.GroupsClaim):
	// what profiles name a person by, besides their subject.
	Groups []string `json:"groups,omitempty"`
	// KeyID is the application key the request came with ("" for a person's token):
	// its Profiles are then exactly what it may reach.
	KeyID string `json:"keyId,omitempty"`
	// Profiles are an application key's profiles, exactly. A person's come from the
	// config's profiles (by Groups and Subject), not from here: nil for them.
	Profiles []string `json:"profiles,omitempty"`
}

// Owns reports whether p may see and use what owner owns: an admin may, and a person
// what carries their own subject. Something without an owner ("") is an admin's.
func (p Person) Owns(owner string) bool {
	return p.Admin || (owner != "" && owner == p.Subject)
}

// Admin reports whether the request of ctx may do what only admins may: its person
// is an admin, or it carries none (a service without identities, where every
// caller may).
func Admin(ctx context.Context) bool {
	p, ok := FromContext(ctx)
	return !ok || p.Admin
}

type ctxKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the person ctx carries, if any. None means a service without
// identities: everything is everyone's.
func FromContext(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(ctxKey{}).(Person)
	return p, ok
}

// Allowed reports whether the request of ctx may see and use what owner owns: yes
// without a person (a service without identities), else Person.Owns.
func Allowed(ctx context.Context, owner string) bool {
	p, ok := FromContext(ctx)
	return !ok || p.Owns(owner)
}

// Owner is the owner to give what the request of ctx creates: its person's subject,
// "" without one.
func Owner(ctx context.Context) string {
	p, _ := FromContext(ctx)
	return p.Subject
}
