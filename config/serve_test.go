package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServeSettings: "switchboard.serve" with auth, audit and limits, and a server's
// "oauth": {"perUser": true}.
func TestServeSettings(t *testing.T) {
	cfg := mustParse(t, `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp", "oauth": {"perUser": true}}},
	"switchboard": {"serve": {
		"auth": {"issuer": "${IDP}", "audience": "switchboard", "admins": ["alice", "${BOSS}"], "adminClaim": "groups=sb-admins", "groupsClaim": "roles", "clientId": "${CLIENT}"},
		"audit": {"arguments": true},
		"limits": {"requestsPerMinute": 120}}}}`, map[string]string{"IDP": "https://login.example.com/tenant", "BOSS": "carol", "CLIENT": "dashboard"})
	want := ServeSettings{
		Auth:   &AuthSettings{Issuer: "https://login.example.com/tenant", Audience: "switchboard", Admins: []string{"alice", "carol"}, AdminClaim: "groups=sb-admins", GroupsClaim: "roles", ClientID: "dashboard"},
		Audit:  AuditSettings{Arguments: true},
		Limits: LimitSettings{RequestsPerMinute: 120},
	}
	if !reflect.DeepEqual(cfg.Settings.Serve, want) {
		t.Errorf("Serve = %+v (auth %+v), want %+v", cfg.Settings.Serve, cfg.Settings.Serve.Auth, want)
	}
	if c, v := cfg.Settings.Serve.Auth.AdminClaimParts(); c != "groups" || v != "sb-admins" {
		t.Errorf("AdminClaimParts = %q, %q", c, v)
	}
	if !cfg.Server("linear").OAuth.PerUser {
		t.Error("linear: OAuth.PerUser is false")
	}
	local := mustParse(t, `{"switchboard": {"serve": {"auth": {"issuer": "http://127.0.0.1:9000", "audience": "a"}}}}`, nil)
	if got := local.Settings.Serve.Auth.Issuer; got != "http://127.0.0.1:9000" {
		t.Errorf("an http issuer on loopback: %q", got)
	}
}

// TestServeSettingsErrors: every bad value is an error at its place that never
// quotes a value from the environment.
func TestServeSettingsErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"auth not an object", `{"switchboard": {"serve": {"auth": "x"}}}`,
			[]string{"mcp.json:1:36: switchboard.serve.auth: want an object"}},
		{"no issuer or audience", `{"switchboard": {"serve": {"auth": {}}}}`,
			[]string{`mcp.json:1:36: switchboard.serve.auth: needs "issuer", the identity provider's issuer URL (e.g. "https://login.example.com")`,
				`mcp.json:1:36: switchboard.serve.auth: needs "audience", the "aud" its tokens for this service carry`}},
		{"http issuer elsewhere", `{"switchboard": {"serve": {"auth": {"issuer": "${IDP}", "audience": "a"}}}}`,
			[]string{`mcp.json:1:47: switchboard.serve.auth.issuer: want an https URL with a host (http only on loopback), such as "https://login.example.com"`}},
		{"admin claim", `{"switchboard": {"serve": {"auth": {"issuer": "https://i", "audience": "a", "adminClaim": "groups"}}}}`,
			[]string{`mcp.json:1:91: switchboard.serve.auth.adminClaim: want CLAIM=VALUE, such as "groups=switchboard-admins"`}},
		{"empty groups claim and client id", `{"switchboard": {"serve": {"auth": {"issuer": "https://i", "audience": "a", "groupsClaim": " ", "clientId": ""}}}}`,
			[]string{`mcp.json:1:92: switchboard.serve.auth.groupsClaim: empty: want the name of the claim that holds a person's groups (default "groups")`,
				`mcp.json:1:109: switchboard.serve.auth.clientId: empty: want the provider's client id of the dashboard (a public client), or leave it out`}},
		{"limit", `{"switchboard": {"serve": {"limits": {"requestsPerMinute": 0}}}}`,
			[]string{`mcp.json:1:60: switchboard.serve.limits.requestsPerMinute: want a whole number of at least 1`}},
		{"perUser with client credentials", `{"servers": {"x": {"url": "https://h", "oauth": {"grant": "client_credentials", "clientId": "c", "clientSecret": "s", "perUser": true}}}}`,
			[]string{`mcp.json:1:130: servers.x.oauth.perUser: not with "grant": "client_credentials": that grant signs the service in, no person`}},
	}
	env := map[string]string{"IDP": "http://leaked.example.com"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrs(t, tt.src, env)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			for _, msg := range got {
				if strings.Contains(msg, "leaked") {
					t.Errorf("error quotes a value from the environment: %s", msg)
				}
			}
		})
	}
}

// TestUsageSettings: "serve": {"usage": {"retention"}} is a duration; "0" keeps no
// usage (-1), and no setting is the default (0).
func TestUsageSettings(t *testing.T) {
	for src, want := range map[string]time.Duration{
		`{"switchboard": {"serve": {"usage": {"retention": "168h"}}}}`: 168 * time.Hour,
		`{"switchboard": {"serve": {"usage": {"retention": "0"}}}}`:    -1,
		`{"switchboard": {"serve": {}}}`:                               0,
	} {
		if got := mustParse(t, src, nil).Settings.Serve.Usage.Retention; got != want {
			t.Errorf("%s: retention %v, want %v", src, got, want)
		}
	}
}
