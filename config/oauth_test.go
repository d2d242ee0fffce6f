package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestOAuthField: a server's "oauth" is read into Server.OAuth, ${VAR} expanded,
// with the grant's default; a stdio server's is ignored with a warning.
func TestOAuthField(t *testing.T) {
	cfg := mustParse(t, `{"mcpServers": {
		"gh": {"url": "https://api.example/mcp", "oauth": {
			"clientId": "${GH_CLIENT}", "clientSecret": "${GH_CLIENT_SECRET}",
			"scopes": ["repo", "read:org"], "redirectUri": "http://127.0.0.1:33418/callback",
			"clientMetadataUrl": "https://switchboard.example/client.json"}},
		"m2m": {"url": "https://m2m.example/mcp", "oauth": {"grant": "client_credentials", "clientId": "svc", "clientSecret": "s3cret"}},
		"bare": {"url": "https://bare.example/mcp", "oauth": {}},
		"none": {"url": "https://none.example/mcp"},
		"local": {"command": "srv", "oauth": {"clientId": "x"}}
	}}`, map[string]string{"GH_CLIENT": "Iv1.abc", "GH_CLIENT_SECRET": "ghsecret"})
	want := &OAuth{ClientID: "Iv1.abc", ClientSecret: "ghsecret", Scopes: []string{"repo", "read:org"},
		RedirectURI: "http://127.0.0.1:33418/callback", ClientMetadataURL: "https://switchboard.example/client.json"}
	if got := cfg.Server("gh").OAuth; !reflect.DeepEqual(got, want) {
		t.Errorf("gh: OAuth = %+v, want %+v", got, want)
	}
	if got := cfg.Server("gh").OAuth.GrantType(); got != GrantAuthorizationCode {
		t.Errorf("gh: GrantType = %q, want the default %q", got, GrantAuthorizationCode)
	}
	if got := cfg.Server("m2m").OAuth.GrantType(); got != GrantClientCredentials {
		t.Errorf("m2m: GrantType = %q, want %q", got, GrantClientCredentials)
	}
	if got := cfg.Server("bare").OAuth; got == nil || !reflect.DeepEqual(*got, OAuth{}) {
		t.Errorf("bare: OAuth = %+v, want an empty OAuth", got)
	}
	if got := cfg.Server("none").OAuth; got != nil {
		t.Errorf("none: OAuth = %+v, want nil", got)
	}
	if got := cfg.Server("local").OAuth; got != nil {
		t.Errorf("local (stdio): OAuth = %+v, want nil", got)
	}
	if !slices.Contains(cfg.Warnings, "mcpServers.local.oauth: ignored for stdio servers") {
		t.Errorf("warnings %q lack the stdio server's ignored oauth", cfg.Warnings)
	}
	// The client secrets are secrets, written or substituted.
	secrets := cfg.Secrets()
	for _, s := range []string{"ghsecret", "s3cret"} {
		if !slices.Contains(secrets, s) {
			t.Errorf("Secrets() = %q lacks the client secret %q", secrets, s)
		}
	}
}

// TestOAuthErrors: every bad "oauth" value is an error at its file:line:col, and
// none quotes a value that came from the environment.
func TestOAuthErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"not an object", `{"servers": {"x": {"url": "https://h", "oauth": true}}}`,
			[]string{"mcp.json:1:49: servers.x.oauth: want an object"}},
		{"clientId type", `{"servers": {"x": {"url": "https://h", "oauth": {"clientId": 7}}}}`,
			[]string{"mcp.json:1:62: servers.x.oauth.clientId: want a string"}},
		{"clientId empty", `{"servers": {"x": {"url": "https://h", "oauth": {"clientId": ""}}}}`,
			[]string{"mcp.json:1:62: servers.x.oauth.clientId: empty (leave it out to register a client dynamically)"}},
		{"secret without id", `{"servers": {"x": {"url": "https://h", "oauth": {"clientSecret": "${S}"}}}}`,
			[]string{`mcp.json:1:66: servers.x.oauth.clientSecret: needs "clientId", the client the secret belongs to`}},
		{"grant", `{"servers": {"x": {"url": "https://h", "oauth": {"grant": "password"}}}}`,
			[]string{`mcp.json:1:59: servers.x.oauth.grant: unknown value "password" (want authorization_code, client_credentials)`}},
		{"client_credentials without a client", `{"servers": {"x": {"url": "https://h", "oauth": {"grant": "client_credentials"}}}}`,
			[]string{`mcp.json:1:59: servers.x.oauth.grant: "client_credentials" needs "clientId": the authorization server knows the client by it`,
				`mcp.json:1:59: servers.x.oauth.grant: "client_credentials" needs "clientSecret": the authorization server knows the client by it`}},
		{"scopes type", `{"servers": {"x": {"url": "https://h", "oauth": {"scopes": "repo user"}}}}`,
			[]string{"mcp.json:1:60: servers.x.oauth.scopes: want an array of strings"}},
		{"scope with a space", "{\"servers\": {\"x\": {\"url\": \"https://h\", \"oauth\": {\n  \"scopes\": [\"repo\", \"read org\"]}}}}",
			[]string{`mcp.json:2:22: servers.x.oauth.scopes[1]: "read org" is not a scope (one word of printable characters, no quotes or backslashes; one scope per element)`}},
		{"redirect not loopback", `{"servers": {"x": {"url": "https://h", "oauth": {"redirectUri": "http://example.com:8000/cb"}}}}`,
			[]string{"mcp.json:1:65: servers.x.oauth.redirectUri: want a loopback URL with a port, like http://127.0.0.1:33418/callback"}},
		{"redirect without a port", `{"servers": {"x": {"url": "https://h", "oauth": {"redirectUri": "http://127.0.0.1/cb"}}}}`,
			[]string{"mcp.json:1:65: servers.x.oauth.redirectUri: want a loopback URL with a port, like http://127.0.0.1:33418/callback"}},
		{"redirect https", `{"servers": {"x": {"url": "https://h", "oauth": {"redirectUri": "https://localhost:8000/cb"}}}}`,
			[]string{"mcp.json:1:65: servers.x.oauth.redirectUri: want a loopback URL with a port, like http://127.0.0.1:33418/callback"}},
		{"metadata url not https", `{"servers": {"x": {"url": "https://h", "oauth": {"clientMetadataUrl": "http://example.com/c.json"}}}}`,
			[]string{"mcp.json:1:71: servers.x.oauth.clientMetadataUrl: want an https URL with a path (the client's ID metadata document), like https://example.com/switchboard/client.json"}},
		{"metadata url at the root", `{"servers": {"x": {"url": "https://h", "oauth": {"clientMetadataUrl": "https://example.com/"}}}}`,
			[]string{"mcp.json:1:71: servers.x.oauth.clientMetadataUrl: want an https URL with a path (the client's ID metadata document), like https://example.com/switchboard/client.json"}},
		{"oauth and an Authorization header", `{"servers": {"x": {"url": "https://h", "headers": {"authorization": "Bearer ${T}"}, "oauth": {}}}}`,
			[]string{`mcp.json:1:94: servers.x.oauth: conflicts with the "Authorization" header: give the token in "headers" or sign in with "oauth", not both`}},
	}
	env := map[string]string{"S": "leaked-secret", "T": "leaked-token"}
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

// TestOAuthWarnings: unknown "oauth" fields are warned about, not refused.
func TestOAuthWarnings(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"x": {"url": "https://h", "oauth": {"clientID": "a", "clientId": "b", "grant": "client_credentials", "clientSecret": "c", "redirectUri": "http://127.0.0.1:1/cb"}}}}`, nil)
	for _, w := range []string{"mcp.json:1:50: servers.x.oauth.clientID: unknown field (ignored)",
		`servers.x.oauth.redirectUri: ignored with "grant": "client_credentials" (no browser comes back)`} {
		if !slices.Contains(cfg.Warnings, w) {
			t.Errorf("warnings %q lack %q", cfg.Warnings, w)
		}
	}
}
