//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/redact"
)

// TestServiceTokenHints: the CLI's answer to a 401 says what this service wants. One
// that signs people in with an identity provider names it and asks for a token it
// issued (it told a person to set "the token it was started with"), and the API's
// message comes through whole ("no bearer token: send Authorization: Bearer TOKEN"
// read "no bearer token: [REDACTED] Authorization: …"); one on this machine that
// made its own token names the file the CLI looked for it in.
func TestServiceTokenHints(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	s := newSandbox(t).without(tokenEnv)
	p := startServe(t, s, "", "", "--store", "memory", "--oidc-issuer", idp.Issuer, "--oidc-audience", "switchboard")
	r := s.run("--server", p.url, "tools")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "the switchboard service at "+p.url+" signs people in with "+idp.Issuer+": set $SWITCHBOARD_TOKEN to an access token that it issued you for this service",
		"no bearer token: send Authorization: Bearer TOKEN")
	if strings.Contains(r.stderr, "started with") || strings.Contains(r.stderr, redact.Mask) {
		t.Errorf("the hint asks for the service's own token, or masks words\n%s", r)
	}
	wrong := s.without()
	wrong.env[tokenEnv] = "tok-wrong-Zz7"
	r = wrong.run("--server", p.url, "status")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "refused the token in $SWITCHBOARD_TOKEN", "it takes the access tokens of "+idp.Issuer)

	own := newSandbox(t).without(tokenEnv)
	q := startServe(t, own, "", "", "--store", "memory")
	elsewhere := t.TempDir()
	r = own.run("--server", q.url, "status", "--data-dir", elsewhere)
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "wants a token: set $SWITCHBOARD_TOKEN to the token it was started with",
		"give --data-dir its data directory (the token was looked for in "+filepath.Join(elsewhere, "serve-token")+")")
	if strings.Contains(r.stderr, redact.Mask) {
		t.Errorf("the hint masks words\n%s", r)
	}
}

// TestToolsSummaryPlurals: one is singular ("1 tools from 1 servers" was printed).
func TestToolsSummaryPlurals(t *testing.T) {
	ready := apiwire.ServerStatus{Name: "a", State: apiwire.Ready}
	failed := apiwire.ServerStatus{Name: "b", State: apiwire.Failed}
	for _, c := range []struct {
		tools int
		sts   []apiwire.ServerStatus
		want  string
	}{
		{1, []apiwire.ServerStatus{ready}, "1 tool from 1 server"},
		{2, []apiwire.ServerStatus{ready, ready}, "2 tools from 2 servers"},
		{0, nil, "0 tools from 0 servers"},
		{1, []apiwire.ServerStatus{ready, failed}, "1 tool from 1 of 2 servers (1 failed: b)"},
		{0, []apiwire.ServerStatus{failed}, "0 tools from 0 of 1 server (1 failed: b)"},
	} {
		if got := toolsSummary(c.tools, c.sts); got != c.want {
			t.Errorf("toolsSummary(%d, %d servers) = %q, want %q", c.tools, len(c.sts), got, c.want)
		}
	}
}
