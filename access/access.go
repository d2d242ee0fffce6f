// Package access is who may reach which servers and tools: the config's profiles
// ("switchboard": {"profiles": {NAME: {...}}}) and the one filter made of them for
// each request, which every view of the catalog takes (the API's lists and search,
// a turn's tools, the gateway's lists) and the hub checks before any call runs.
//
// A Profile names servers, allow and deny globs over the exposed tool names (deny
// wins), and the people it is for: groups (values of the identity provider's groups
// claim, identity.Person.Groups) and users (subjects). A person's Access is the
// union of the profiles they belong to; an admin's is everything; an application
// key's (identity.Person.KeyID) is exactly its profiles (identity.Person.Profiles).
// With no profiles configured, and for a request without a person (a service without
// identities), nothing is filtered: everyone sees everything, as before profiles.
//
//	pol := access.NewPolicy([]access.Profile{{Name: "sales", Servers: []string{"crm"}, Groups: []string{"sales"}}})
//	acc, err := pol.For(ctx, "") // ctx carries the identity.Person of the request
//	ctx = access.NewContext(ctx, acc)
//	tools := acc.Toolset(hub)    // the tools this request may list and call
//
// An Access follows its Policy: a Policy changed by Set (a config reloaded) holds
// for every Access made from it, those of requests and sessions under way too.
//
// See docs/architecture.md for where access sits among the packages.
package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Profile is one profile: what it reaches, and whom it is for.
type Profile struct {
	// Name is the profile's key in the config, and what ?profile= and
	// /mcp/{profile} name.
	Name string
	// Servers are the servers it reaches, by name; empty: every server.
	Servers []string
	// Tools keeps, of those servers' tools, those whose exposed name an allow glob
	// matches (every one when Allow is empty) and no deny glob does.
	Tools tool.ToolFilter
	// Groups and Users are whom the profile is for: a person with one of these
	// groups (identity.Person.Groups), or with one of these subjects.
	Groups []string
	Users  []string
}

// reachesServer reports whether p reaches server at all.
func (p *Profile) reachesServer(server string) bool {
	return len(p.Servers) == 0 || slices.Contains(p.Servers, server)
}

// reaches reports whether p reaches the tool exposed as name on server.
func (p *Profile) reaches(server, name string) bool {
	return p.reachesServer(server) && p.Tools.Allows(name)
}

// isFor reports whether person belongs to p: by subject or by a group.
func (p *Profile) isFor(person identity.Person) bool {
	if person.Subject != "" && slices.Contains(p.Users, person.Subject) {
		return true
	}
	return slices.ContainsFunc(person.Groups, func(g string) bool { return slices.Contains(p.Groups, g) })
}

// profileSet is one version of a Policy's profiles.
type profileSet struct {
	list   []*Profile
	byName map[string]*Profile
}

// Policy is a service's profiles, replaced as a whole by Set when its config is
// reloaded. A nil *Policy has none. It is safe for concurrent use.
type Policy struct {
	cur atomic.Pointer[profileSet]
}

// NewPolicy returns the policy of profiles (none: everyone sees everything).
func NewPolicy(profiles []Profile) *Policy {
	p := &Policy{}
	p.Set(profiles)
	return p
}

// Set replaces the profiles: every Access made from p follows from now on.
func (p *Policy) Set(profiles []Profile) {
	s := &profileSet{byName: make(map[string]*Profile, len(profiles))}
	for i := range profiles {
		pr := profiles[i]
		pr.Servers = slices.Clone(pr.Servers)
		s.list = append(s.list, &pr)
		s.byName[pr.Name] = &pr
	}
	p.cur.Store(s)
}

// set is the profiles now; nil for a nil Policy.
func (p *Policy) set() *profileSet {
	if p == nil {
		return nil
	}
	return p.cur.Load()
}

// Names are the profiles' names, in the order Set had them.
func (p *Policy) Names() []string {
	s := p.set()
	if s == nil {
		return nil
	}
	out := make([]string, len(s.list))
	for i, pr := range s.list {
		out[i] = pr.Name
	}
	return out
}

// ErrNotYours is For's error for a profile the caller does not belong to (or that
// does not exist): the API's 403.
var ErrNotYours = errors.New("not one of your profiles")

// For is the access of the request of ctx (its identity.Person, when it has one),
// narrowed to the profile only when only is not "": an error wrapping ErrNotYours
// when only is not one of the caller's profiles (an admin's, and a request's
// without a person, are every profile there is). A nil *Access is everything.
func (p *Policy) For(ctx context.Context, only string) (*Access, error) {
	person, known := identity.FromContext(ctx)
	a := &Access{policy: p, person: person, known: known, only: only}
	if only == "" && p.set() == nil {
		return nil, nil
	}
	if only != "" {
		r := a.resolve()
		if !r.all && !slices.ContainsFunc(r.profiles, func(pr *Profile) bool { return pr.Name == only }) {
			return nil, fmt.Errorf("profile %q: %w", only, ErrNotYours)
		}
	}
	return a, nil
}

// Access is what one request (or MCP session) may reach: see Policy.For. Its
// methods follow the Policy as it is now. A nil *Access reaches everything.
type Access struct {
	policy *Policy
	person identity.Person
	known  bool   // the request has a person
	only   string // narrowed to this profile
	cur    atomic.Pointer[resolved]
}

// resolved is an Access under one version of its Policy.
type resolved struct {
	set      *profileSet
	all      bool       // nothing filtered
	profiles []*Profile // the union reached, when not all
}

// resolve is a's profiles under the Policy now, worked out again once it changed.
func (a *Access) resolve() *resolved {
	s := a.policy.set()
	if r := a.cur.Load(); r != nil && r.set == s {
		return r
	}
	r := &resolved{set: s}
	switch {
	case a.only != "":
		// Narrowed: that profile alone, while the caller still belongs to it.
		if pr := s.find(a.only); pr != nil && a.mayUse(s, pr) {
			r.profiles = []*Profile{pr}
		}
	case a.person.KeyID != "":
		// An application key reaches exactly its profiles, whatever else is set.
		for _, name := range a.person.Profiles {
			if pr := s.find(name); pr != nil {
				r.profiles = append(r.profiles, pr)
			}
		}
	case s == nil || len(s.list) == 0 || !a.known || a.person.Admin:
		r.all = true
	default:
		for _, pr := range s.list {
			if pr.isFor(a.person) {
				r.profiles = append(r.profiles, pr)
			}
		}
	}
	a.cur.Store(r)
	return r
}

// find is the profile name; nil without it.
func (s *profileSet) find(name string) *Profile {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// mayUse reports whether a's caller may narrow to pr: a key's own profile, any
// profile for an admin or a request without a person, else one they belong to.
func (a *Access) mayUse(s *profileSet, pr *Profile) bool {
	switch {
	case a.person.KeyID != "":
		return slices.Contains(a.person.Profiles, pr.Name)
	case !a.known || a.person.Admin:
		return true
	}
	return pr.isFor(a.person)
}

// All reports whether a filters nothing now.
func (a *Access) All() bool { return a == nil || a.resolve().all }

// Only is the profile a is narrowed to ("" when it is not).
func (a *Access) Only() string {
	if a == nil {
		return ""
	}
	return a.only
}

// Profiles are the names of the profiles a reaches now, nil when it filters nothing.
func (a *Access) Profiles() []string {
	if a == nil {
		return nil
	}
	r := a.resolve()
	if r.all {
		return nil
	}
	out := make([]string, 0, len(r.profiles))
	for _, pr := range r.profiles {
		out = append(out, pr.Name)
	}
	return out
}

// Allows reports whether a reaches the tool exposed as name on server.
func (a *Access) Allows(server, name string) bool {
	if a == nil {
		return true
	}
	r := a.resolve()
	return r.all || slices.ContainsFunc(r.profiles, func(pr *Profile) bool { return pr.reaches(server, name) })
}

// Tool reports whether a reaches t (by its server and exposed name).
func (a *Access) Tool(t tool.Tool) bool { return a.Allows(t.Server, t.Name) }

// Server reports whether a reaches server at all: its prompts and resources.
func (a *Access) Server(server string) bool {
	if a == nil {
		return true
	}
	r := a.resolve()
	return r.all || slices.ContainsFunc(r.profiles, func(pr *Profile) bool { return pr.reachesServer(server) })
}

// Tools is the tools of ts that a reaches (ts itself when a filters nothing).
func (a *Access) Tools(ts []tool.Tool) []tool.Tool {
	if a.All() {
		return ts
	}
	out := make([]tool.Tool, 0, len(ts))
	for _, t := range ts {
		if a.Tool(t) {
			out = append(out, t)
		}
	}
	return out
}

// Toolset is ts seen through a: the tools of ts that a reaches, listed afresh
// (a Policy changed meanwhile holds at once), and a call of any other refused as
// an unknown tool's, never made, and audited as refused when ts audits its calls
// (a hub's AuditRefused). ts itself when a is nil.
func (a *Access) Toolset(ts tool.Toolset) tool.Toolset {
	if a == nil || ts == nil {
		return ts
	}
	return &filtered{a: a, inner: ts}
}

// filtered is Access.Toolset's.
type filtered struct {
	a     *Access
	inner tool.Toolset
}

func (f *filtered) Tools() []tool.Tool       { return f.a.Tools(f.inner.Tools()) }
func (f *filtered) Changed() <-chan struct{} { return f.inner.Changed() }

// Lookup finds a tool of the inner toolset that a reaches.
func (f *filtered) Lookup(name string) (tool.Tool, bool) {
	if l, ok := f.inner.(interface {
		Lookup(string) (tool.Tool, bool)
	}); ok {
		t, found := l.Lookup(name)
		return t, found && f.a.Tool(t)
	}
	for _, t := range f.inner.Tools() {
		if t.Name == name {
			return t, f.a.Tool(t)
		}
	}
	return tool.Tool{}, false
}

// Call runs a tool that a reaches; any other is unknown.
func (f *filtered) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Result, error) {
	if _, ok := f.Lookup(name); !ok {
		tool.AuditRefused(ctx, f.inner, name, args)
		return tool.ErrorResult("unknown tool %q", name), nil
	}
	return f.inner.Call(NewContext(ctx, f.a), name, args)
}

// Keep is a's test of a tool, for the views that take one (deferred.Views.ViewOnly,
// agent.TurnOptions.Allow); nil when a is nil.
func (a *Access) Keep() func(tool.Tool) bool {
	if a == nil {
		return nil
	}
	return a.Tool
}

type ctxKey struct{}

// NewContext returns ctx carrying a: the hub refuses the calls of ctx that a does
// not reach, and the views of the catalog list only what it reaches.
func NewContext(ctx context.Context, a *Access) context.Context {
	if a == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, a)
}

// FromContext is the Access ctx carries; nil (everything) without one.
func FromContext(ctx context.Context) *Access {
	a, _ := ctx.Value(ctxKey{}).(*Access)
	return a
}
