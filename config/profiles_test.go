package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestProfiles: "switchboard.profiles" in file order, each with its servers, tool
// globs, groups and users; a profile may name a disabled server.
func TestProfiles(t *testing.T) {
	cfg := mustParse(t, `{"mcpServers": {"crm": {"command": "c"}, "db": {"url": "https://db.example.com/mcp", "disabled": true}},
	"switchboard": {"profiles": {
		"sales": {"servers": ["crm"], "tools": {"allow": ["crm__*", "search_*"], "deny": ["*delete*"]}, "groups": ["sales", "sales-eu"]},
		"ops.db": {"servers": ["db", "crm"], "users": ["auth0|42"]},
		"everyone": {}}}}`, nil)
	want := []Profile{
		{Name: "sales", Servers: []string{"crm"}, Tools: ToolFilter{Allow: []string{"crm__*", "search_*"}, Deny: []string{"*delete*"}}, Groups: []string{"sales", "sales-eu"}},
		{Name: "ops.db", Servers: []string{"db", "crm"}, Users: []string{"auth0|42"}},
		{Name: "everyone"},
	}
	if !reflect.DeepEqual(cfg.Settings.Profiles, want) {
		t.Errorf("Profiles = %+v\nwant %+v", cfg.Settings.Profiles, want)
	}
	if none := mustParse(t, `{"mcpServers": {"crm": {"command": "c"}}}`, nil); none.Settings.Profiles != nil {
		t.Errorf("no profiles: %+v", none.Settings.Profiles)
	}
}

// TestProfilesErrors: an unknown server, a bad glob, an unknown key and a name no URL
// path takes are errors at their place (file:line:col), never warnings.
func TestProfilesErrors(t *testing.T) {
	const servers = `"mcpServers": {"crm": {"command": "c"}, "db": {"command": "d"}, "switchboard": {"command": "sb"}}`
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown server", `{` + servers + `, "switchboard": {"profiles": {"p": {"servers": ["crm", "mail"]}}}}`,
			[]string{`mcp.json:1:155: switchboard.profiles.p.servers[1]: unknown server "mail" (the config has "crm" and "db")`}},
		{"the gateway itself", `{` + servers + `, "switchboard": {"profiles": {"p": {"servers": ["switchboard"]}}}}`,
			[]string{`mcp.json:1:148: switchboard.profiles.p.servers[0]: unknown server "switchboard" (the config has "crm" and "db")`}},
		{"bad glob", `{` + servers + `, "switchboard": {"profiles": {"p": {"tools": {"deny": ["ok", "[bad"]}}}}}`,
			[]string{`mcp.json:1:161: switchboard.profiles.p.tools.deny[1]: bad pattern "[bad": syntax error in pattern`}},
		{"unknown key", `{` + servers + `, "switchboard": {"profiles": {"p": {"group": ["x"], "roles": []}}}}`,
			[]string{`mcp.json:1:145: switchboard.profiles.p.group: unknown setting: did you mean "groups"?`,
				`mcp.json:1:161: switchboard.profiles.p.roles: unknown setting (it takes "servers", "tools", "groups" and "users")`}},
		{"unknown tools key", `{` + servers + `, "switchboard": {"profiles": {"p": {"tools": {"allowed": ["x"]}}}}}`,
			[]string{`mcp.json:1:157: switchboard.profiles.p.tools.allowed: unknown setting: did you mean "allow"?`}},
		{"bad name", `{` + servers + `, "switchboard": {"profiles": {"a/b": {}}}}`,
			[]string{`mcp.json:1:137: switchboard.profiles.a/b: bad profile name "a/b": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit): it names the endpoint /mcp/NAME`}},
		{"not objects", `{` + servers + `, "switchboard": {"profiles": {"p": {"servers": "crm", "users": [1]}}}}`,
			[]string{`mcp.json:1:147: switchboard.profiles.p.servers: want an array of strings`,
				`mcp.json:1:164: switchboard.profiles.p.users[0]: want a string`}},
		{"no servers at all", `{"switchboard": {"profiles": {"p": {"servers": ["crm"]}}}}`,
			[]string{`mcp.json:1:49: switchboard.profiles.p.servers[0]: unknown server "crm": the config has no servers`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErrs(t, tt.src, nil); !slices.Equal(got, tt.want) {
				t.Errorf("errors =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
