package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// fakeIdPProc is a running `switchboard fake-idp` and what it printed.
type fakeIdPProc struct {
	*gatewayProc
	stdout testenv.Buffer
	issuer string
}

// startFakeIdP runs `switchboard fake-idp` on a free loopback port and waits for the
// issuer it prints.
func startFakeIdP(t *testing.T, s *sandbox, args ...string) *fakeIdPProc {
	t.Helper()
	cmd, marker := s.command(context.Background(), append([]string{"fake-idp", "--listen", "127.0.0.1:0"}, args...)...)
	p := &fakeIdPProc{}
	cmd.Stdout = &p.stdout
	p.gatewayProc = startProc(t, cmd, marker)
	at := regexp.MustCompile(`fake OpenID provider at (http://127\.0\.0\.1:\d+)`)
	testenv.WaitFor(t, "fake-idp's issuer on stdout", 30*time.Second, func() bool {
		select {
		case <-p.exited:
			t.Fatalf("switchboard fake-idp exited: %v\n%s", cmd.ProcessState, p.stderr.String())
		default:
		}
		if m := at.FindStringSubmatch(p.stdout.String()); m != nil {
			p.issuer = m[1]
			return true
		}
		return false
	})
	return p
}

// get is the body of GET u, failing the test unless it is 200.
func get(t *testing.T, u string) string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	res, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %s %s", u, res.Status, b)
	}
	return string(b)
}

// TestTeamWalk is docs/deploy.md's walk through team mode on one machine, command by
// command: fake-idp names its people and how to serve with it; serve takes its
// config line; a token of alice's (curl her URL) is alice at /v1/me, bob's an admin
// (his group); the dashboard is told where to sign people in (the config line's
// clientId); the CLI with $SWITCHBOARD_TOKEN asks the service as alice; and
// 'switchboard login' signs alice in to the service's MCP gateway, as an MCP host
// would (the resource metadata, the provider's sign-in page, a JWT for the
// audience), after which another config's commands reach the team's tools through it.
func TestTeamWalk(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	idp := startFakeIdP(t, s)
	// startFakeIdP returns at its first line; the config line is its last.
	testenv.WaitFor(t, "fake-idp to print its config line", 30*time.Second, func() bool {
		return strings.Contains(idp.stdout.String(), `"serve": {"auth":`)
	})
	out := idp.stdout.String()
	for _, want := range []string{
		"never use it for anything real",
		"alice  " + idp.issuer + "/people/alice/token",
		"bob (groups: admins)  " + idp.issuer + "/people/bob/token",
		"switchboard serve --oidc-issuer " + idp.issuer + " --oidc-audience switchboard",
		`"clientId": "switchboard-dashboard"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fake-idp's output does not say %q:\n%s", want, out)
		}
	}
	// The config line it prints, as the walk has it pasted into the config.
	line := regexp.MustCompile(`(?m)^  ("serve": \{"auth": .*\})$`).FindStringSubmatch(out)
	if line == nil {
		t.Fatalf("fake-idp prints no config line:\n%s", out)
	}
	cfg := s.writeConfig("team.json", `{"switchboard": {`+line[1]+`},
 "mcpServers": {"clock": `+demoEntry(t, "clock")+`}}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	p.waitHealthy(t)

	alice := strings.TrimSpace(get(t, idp.issuer+"/people/alice/token"))
	bob := strings.TrimSpace(get(t, idp.issuer+"/people/bob/token"))
	for _, c := range []struct{ who, token, says string }{
		{"alice", alice, `"subject": "alice"`},
		{"alice", alice, `"admin": false`},
		{"bob", bob, `"subject": "bob"`},
		{"bob", bob, `"admin": true`},
	} {
		if code, _, body := p.ask(t, "/v1/me", c.token); code != 200 || !strings.Contains(body, c.says) {
			t.Errorf("%s: GET /v1/me = %d %s, want it to say %s", c.who, code, body, c.says)
		}
	}
	if code, _, _ := p.ask(t, "/v1/me", ""); code != 401 {
		t.Errorf("GET /v1/me without a token = %d, want 401", code)
	}
	// The dashboard learns, with no token, where to sign its person in.
	if code, _, body := p.ask(t, "/v1/dashboard/signin", ""); code != 200 || !strings.Contains(body, `"clientId": "switchboard-dashboard"`) || !strings.Contains(body, idp.issuer) {
		t.Errorf("GET /v1/dashboard/signin = %d %s, want the provider and the dashboard's client id", code, body)
	}

	// The CLI asks the service as alice.
	s.env[serverEnv] = p.url
	s.env[tokenEnv] = alice
	st := s.run("status")
	st.wantCode(t, exitOK)
	st.wantStdout(t, "clock")
	delete(s.env, serverEnv)
	delete(s.env, tokenEnv)

	// An MCP host's sign-in at the gateway: a browser that picks alice on the
	// provider's page (login_hint, as docs/deploy.md's script does).
	browser := filepath.Join(s.Dir, "browser-alice.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec curl -sfL -o /dev/null \"$1&login_hint=alice\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.env["BROWSER"] = browser
	client := s.writeConfig("client.json", `{"mcpServers": {"team": {"url": `+jsonString(p.url+"/mcp")+`}}}`)
	data := filepath.Join(s.Dir, "client-data")
	login := s.run("--config", client, "login", "team", "--data-dir", data)
	login.wantCode(t, exitOK)
	login.wantStdout(t, "Signed in to team")
	login.wantStderr(t, idp.issuer+"/authorize?")
	delete(s.env, "BROWSER")
	tools := s.run("--config", client, "tools", "--data-dir", data)
	tools.wantCode(t, exitOK)
	tools.wantStdout(t, "team")
	if strings.Contains(login.stdout+login.stderr+tools.stdout+tools.stderr, alice[:40]) {
		t.Errorf("a token shows in the output")
	}
}
