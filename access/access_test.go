package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/tool"
)

var catalog = []tool.Tool{
	{Name: "crm_find", Server: "crm"}, {Name: "crm_delete", Server: "crm"},
	{Name: "db_query", Server: "db"}, {Name: "db_drop", Server: "db"},
	{Name: "mail_send", Server: "mail"},
}

var profiles = []access.Profile{
	{Name: "sales", Servers: []string{"crm", "mail"}, Tools: tool.ToolFilter{Deny: []string{"*delete*"}}, Groups: []string{"sales"}},
	{Name: "ops", Servers: []string{"db"}, Tools: tool.ToolFilter{Allow: []string{"db_*"}, Deny: []string{"db_drop"}}, Users: []string{"olga"}},
	{Name: "mailers", Servers: []string{"mail"}, Groups: []string{"marketing"}},
}

func as(p identity.Person) context.Context { return identity.NewContext(context.Background(), p) }

func names(ts []tool.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// TestAccess: a person reaches the union of their profiles (by group and by subject;
// deny wins within a profile), an admin and a request without a person everything,
// a person in no profile nothing, and an application key exactly its profiles,
// whatever its person's groups or admin flag say.
func TestAccess(t *testing.T) {
	pol := access.NewPolicy(profiles)
	cases := []struct {
		name     string
		ctx      context.Context
		only     string
		want     []string
		profiles []string
	}{
		{"sales", as(identity.Person{Subject: "sam", Groups: []string{"sales"}}), "", []string{"crm_find", "mail_send"}, []string{"sales"}},
		{"ops by subject", as(identity.Person{Subject: "olga"}), "", []string{"db_query"}, []string{"ops"}},
		{"union", as(identity.Person{Subject: "olga", Groups: []string{"sales", "x"}}), "", []string{"crm_find", "db_query", "mail_send"}, []string{"sales", "ops"}},
		{"narrowed", as(identity.Person{Subject: "olga", Groups: []string{"sales"}}), "ops", []string{"db_query"}, []string{"ops"}},
		{"in none", as(identity.Person{Subject: "nobody", Groups: []string{"x"}}), "", nil, []string{}},
		{"admin", as(identity.Person{Subject: "root", Admin: true}), "", names(catalog), nil},
		{"admin narrowed", as(identity.Person{Subject: "root", Admin: true}), "mailers", []string{"mail_send"}, []string{"mailers"}},
		{"no person", context.Background(), "", names(catalog), nil},
		{"key", as(identity.Person{Subject: "key-owner", KeyID: "k1", Profiles: []string{"ops", "gone"}, Groups: []string{"sales"}, Admin: true}), "", []string{"db_query"}, []string{"ops"}},
		{"key without profiles", as(identity.Person{Subject: "ci", KeyID: "k2"}), "", nil, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := pol.For(c.ctx, c.only)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(a.Tools(catalog)); !slices.Equal(got, c.want) {
				t.Errorf("tools = %v, want %v", got, c.want)
			}
			if got := a.Profiles(); !slices.Equal(got, c.profiles) || (got == nil) != (c.profiles == nil) {
				t.Errorf("profiles = %#v, want %#v", got, c.profiles)
			}
			for _, tl := range catalog {
				if a.Tool(tl) != slices.Contains(c.want, tl.Name) {
					t.Errorf("Tool(%s) = %v", tl.Name, a.Tool(tl))
				}
			}
		})
	}
}

// TestAccessNarrowing: ?profile= and /mcp/{profile} narrow only to a profile of the
// caller's; any other, or one that does not exist, is ErrNotYours. A key narrows
// only to its own.
func TestAccessNarrowing(t *testing.T) {
	pol := access.NewPolicy(profiles)
	for _, c := range []struct {
		name string
		ctx  context.Context
		only string
	}{
		{"not theirs", as(identity.Person{Subject: "sam", Groups: []string{"sales"}}), "ops"},
		{"unknown", as(identity.Person{Subject: "sam", Groups: []string{"sales"}}), "nope"},
		{"unknown to an admin", as(identity.Person{Admin: true}), "nope"},
		{"not the key's", as(identity.Person{KeyID: "k", Profiles: []string{"sales"}, Admin: true}), "ops"},
	} {
		if _, err := pol.For(c.ctx, c.only); !errors.Is(err, access.ErrNotYours) {
			t.Errorf("%s: err = %v, want ErrNotYours", c.name, err)
		}
	}
	var none *access.Policy
	if a, err := none.For(as(identity.Person{Subject: "x"}), ""); err != nil || a != nil || !a.All() {
		t.Errorf("no policy: %v, %v", a, err)
	}
	if _, err := access.NewPolicy(nil).For(context.Background(), "x"); !errors.Is(err, access.ErrNotYours) {
		t.Errorf("no profiles, narrowed: %v", err)
	}
}

// TestAccessNoProfiles: without profiles nothing changes: everyone sees everything.
func TestAccessNoProfiles(t *testing.T) {
	a, err := access.NewPolicy(nil).For(as(identity.Person{Subject: "sam"}), "")
	if err != nil || !a.All() || len(a.Tools(catalog)) != len(catalog) {
		t.Errorf("no profiles: %v %v", a, err)
	}
}

// TestAccessFollowsPolicy: an Access made before Set follows the new profiles.
func TestAccessFollowsPolicy(t *testing.T) {
	pol := access.NewPolicy(profiles)
	a, err := pol.For(as(identity.Person{Subject: "sam", Groups: []string{"sales"}}), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if a.Server("db") || !a.Server("crm") {
		t.Errorf("servers before: db %v crm %v", a.Server("db"), a.Server("crm"))
	}
	pol.Set([]access.Profile{{Name: "sales", Servers: []string{"db"}, Groups: []string{"sales"}}})
	if got := names(a.Tools(catalog)); !slices.Equal(got, []string{"db_query", "db_drop"}) {
		t.Errorf("after Set: %v", got)
	}
	pol.Set([]access.Profile{{Name: "sales", Groups: []string{"others"}}})
	if got := a.Tools(catalog); len(got) != 0 {
		t.Errorf("no longer theirs, still reaches %v", names(got))
	}
}

// counting is a toolset that counts its calls and audits refusals, as a hub does.
type counting struct {
	calls, refused []string
}

func (c *counting) Tools() []tool.Tool       { return catalog }
func (c *counting) Changed() <-chan struct{} { return make(chan struct{}) }
func (c *counting) Call(ctx context.Context, name string, _ json.RawMessage) (*tool.Result, error) {
	if access.FromContext(ctx) == nil {
		return tool.ErrorResult("no access in the call's context"), nil
	}
	c.calls = append(c.calls, name)
	return tool.TextResult("ok"), nil
}
func (c *counting) AuditRefused(_ context.Context, name string, _ json.RawMessage) {
	c.refused = append(c.refused, name)
}

// TestAccessToolset: a toolset seen through an Access lists what it reaches, and a
// call of anything else never reaches the toolset, which audits it as refused.
func TestAccessToolset(t *testing.T) {
	inner := &counting{}
	a, _ := access.NewPolicy(profiles).For(as(identity.Person{KeyID: "k", Profiles: []string{"ops"}}), "")
	ts := a.Toolset(inner)
	if got := names(ts.Tools()); !slices.Equal(got, []string{"db_query"}) {
		t.Errorf("Tools = %v", got)
	}
	ctx := context.Background()
	if res, _ := ts.Call(ctx, "db_query", nil); res.IsError {
		t.Errorf("db_query: %s", tool.Text(res))
	}
	for _, name := range []string{"db_drop", "crm_find", "nope"} {
		res, _ := ts.Call(ctx, name, nil)
		if !res.IsError || tool.Text(res) != `unknown tool "`+name+`"` {
			t.Errorf("%s: %s", name, tool.Text(res))
		}
	}
	if !slices.Equal(inner.calls, []string{"db_query"}) || !slices.Equal(inner.refused, []string{"db_drop", "crm_find", "nope"}) {
		t.Errorf("calls %v, refused %v", inner.calls, inner.refused)
	}
	if ctx := access.NewContext(ctx, a); access.FromContext(ctx) != a {
		t.Error("FromContext does not give the Access back")
	}
}
