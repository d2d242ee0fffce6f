package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/signin"
)

// signInSandbox is a sandbox with a config of the remote server "notes" (srv, which
// asks for a sign-in) and the demo clock server; browser: $BROWSER is a stand-in
// browser that opens the URL it is given and follows the redirects (curl), as a
// person who clicks "Allow" does.
func signInSandbox(t *testing.T, srv *fakeauth.Server, browser bool) (*sandbox, string) {
	t.Helper()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {
  "notes": {"url": `+jsonString(srv.MCPURL)+`},
  "clock": `+demoEntry(t, "clock")+`
}}`)
	if browser {
		s.env["BROWSER"] = writeBrowser(t, s)
	}
	return s, cfg
}

// writeBrowser writes the stand-in browser script and returns its path.
func writeBrowser(t *testing.T, s *sandbox) string {
	t.Helper()
	p := filepath.Join(s.Dir, "browser.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec curl -sfL -o /dev/null \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// noTokens fails the test when a run's output holds a token the server issued.
func noTokens(t *testing.T, srv *fakeauth.Server, runs ...result) {
	t.Helper()
	for _, r := range runs {
		for _, tok := range srv.Tokens() {
			if strings.Contains(r.stdout+r.stderr, tok) {
				t.Errorf("switchboard %s printed a token", strings.Join(r.args, " "))
			}
		}
	}
}

// TestLoginThenCalls: login signs in once (the URL printed, the browser opened on
// it); two calls in new processes use the stored sign-in: one authorization and one
// token request at the authorization server in all. The sign-in lives under
// --data-dir, in files only its owner may read.
func TestLoginThenCalls(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, &fakeauth.Options{Scopes: []string{"notes:read"}})
	s, cfg := signInSandbox(t, srv, true)
	data := filepath.Join(s.Dir, "data")
	login := s.run("--config", cfg, "login", "notes", "--data-dir", data)
	login.wantCode(t, exitOK)
	login.wantStdout(t, "Signed in to notes (3 tools).\n")
	login.wantStderr(t, "To sign in to notes, open this URL in a browser:\n\n  "+srv.Issuer+"/authorize?")
	// Its log does not tell the person to run the command they run (issue 34).
	if strings.Contains(login.stderr, "run 'switchboard login") {
		t.Errorf("login says to run login:\n%s", login)
	}

	delete(s.env, "BROWSER") // nobody at the terminal from now on
	var runs []result
	for _, text := range []string{"first", "second"} {
		r := s.run("--config", cfg, "call", "echo", `{"text": "`+text+`"}`, "--data-dir", data)
		r.wantCode(t, exitOK)
		r.wantStdout(t, text+"\n")
		runs = append(runs, r)
	}
	for kind, want := range map[string]int{fakeauth.Authorize: 1, fakeauth.TokenCode: 1, fakeauth.Register: 1, fakeauth.TokenRefresh: 0} {
		if got := srv.Count(kind); got != want {
			t.Errorf("%s: %d requests, want %d", kind, got, want)
		}
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
	noTokens(t, srv, append(runs, login)...)
	dir := filepath.Join(data, signin.DirName)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v, %v; want a 0700 directory", dir, fi, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %o, want 600", e.Name(), fi.Mode().Perm())
		}
	}

	// Another data directory holds no sign-in: there the server needs one.
	r := s.run("--config", cfg, "status", "--data-dir", filepath.Join(s.Dir, "other"))
	r.wantCode(t, exitFailed)
	// login again: already signed in, nothing asked of anybody.
	again := s.run("--config", cfg, "login", "notes", "--data-dir", data)
	again.wantCode(t, exitOK)
	again.wantStdout(t, "Already signed in to notes (3 tools). 'switchboard logout notes' forgets the sign-in.\n")
	if got := srv.Count(fakeauth.Authorize); got != 1 {
		t.Errorf("%d authorizations after a second login, want 1", got)
	}
}

// TestNeedsSignInReported: with nobody to ask (no terminal, no $BROWSER), a server
// that needs a sign-in is reported with the command to run, at once, and the others
// are served: status exits 1, tools lists the others', a call to another server's
// tool goes through, and a call to a tool nobody lists says which server waits.
func TestNeedsSignInReported(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	s, cfg := signInSandbox(t, srv, false)
	st := s.run("--config", cfg, "status")
	st.wantCode(t, exitFailed)
	rows := tableRows(st.stdout)
	if row := strings.Join(rows["notes"], " "); !strings.HasPrefix(row, "notes needs_sign_in http 0 0 server notes needs a sign-in: run 'switchboard login notes'") {
		t.Errorf("row notes = %q\n%s", row, st)
	}
	tools := s.run("--config", cfg, "tools")
	tools.wantCode(t, exitOK)
	tools.wantStdout(t, "3 tools from 1 of 2 servers (1 needs_sign_in: notes)\n")
	tools.wantStderr(t, "switchboard login notes")
	clock := s.run("--config", cfg, "call", "current_time", `{"zone": "UTC"}`)
	clock.wantCode(t, exitOK)
	echo := s.run("--config", cfg, "call", "echo", `{"text": "x"}`)
	echo.wantCode(t, exitFailed)
	echo.wantStderr(t, `unknown tool "echo"`, "notes wait for a sign-in, and their tools are not listed: 'switchboard login notes'")
	if got := srv.Count(fakeauth.Authorize); got != 0 {
		t.Errorf("%d authorizations with nobody to ask, want 0", got)
	}
}

// TestCallSignsIn: with a browser to open ($BROWSER), call signs in by itself when
// the server asks, and again when a call needs more access (step-up), then calls.
func TestCallSignsIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, &fakeauth.Options{Scopes: []string{"notes:read"}, StepUp: "notes:write"})
	s, cfg := signInSandbox(t, srv, true)
	r := s.run("--config", cfg, "call", "write", `{"text": "x"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "wrote x\n")
	if n := strings.Count(r.stderr, "Signed in to notes."); n != 2 {
		t.Errorf("stderr tells %d sign-ins, want 2 (the first, then the step-up)\n%s", n, r)
	}
	if got := srv.Count(fakeauth.Authorize); got != 2 {
		t.Errorf("%d authorizations, want 2", got)
	}
	if got := srv.Count(fakeauth.Register); got != 1 {
		t.Errorf("%d registrations, want 1", got)
	}
	noTokens(t, srv, r)
}

// TestLogout: logout revokes the tokens and forgets the sign-in; the server asks
// for one again; a second logout has nothing to forget; login and logout refuse a
// server there is nothing to sign in to.
func TestLogout(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	s, cfg := signInSandbox(t, srv, true)
	s.run("--config", cfg, "login", "notes").wantCode(t, exitOK)
	out := s.run("--config", cfg, "logout", "notes")
	out.wantCode(t, exitOK)
	out.wantStdout(t, "Signed out of notes: its tokens and registration are forgotten, and the authorization server revoked 2 tokens.\n")
	if n := len(srv.Tokens()); n != 0 {
		t.Errorf("the authorization server still takes %d token(s)", n)
	}
	delete(s.env, "BROWSER")
	s.run("--config", cfg, "status").wantCode(t, exitFailed)
	s.run("--config", cfg, "logout", "notes").wantStdout(t, "No sign-in to notes is stored.\n")
	bad := s.run("--config", cfg, "login", "clock")
	bad.wantCode(t, exitUsage)
	bad.wantStderr(t, "switchboard login: clock is a stdio server (a program on this machine): there is no sign-in to make")
	bad = s.run("--config", cfg, "logout", "nosuch")
	bad.wantCode(t, exitUsage)
	bad.wantStderr(t, `switchboard logout: no server "nosuch" in the config`, "its servers: notes, clock")
}

// TestMCPPicksUpLogin: a running gateway (switchboard mcp) reports a server that
// needs a sign-in and serves the rest; a login in another process is picked up
// without a restart, and the server's tools reach the client through list_changed.
func TestMCPPicksUpLogin(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	s, cfg := signInSandbox(t, srv, false)
	g := startHTTPGateway(t, s, "--config", cfg)
	testenv.WaitFor(t, "the gateway's log line naming the command to run", 10*time.Second, func() bool {
		return strings.Contains(g.stderr.String(), `server notes needs a sign-in: run 'switchboard login notes'`)
	})
	changed := make(chan struct{}, 16)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := g.connect(ctx, t, "", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if tools, _ := listedTools(ctx, t, cs); tools["echo"] || !tools["current_time"] {
		t.Fatalf("tools before the sign-in = %v, want the clock's and none of notes'", tools)
	}
	s.env["BROWSER"] = writeBrowser(t, s)
	s.run("--config", cfg, "login", "notes").wantCode(t, exitOK)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatalf("no tools/list_changed after the login elsewhere\n%s", g.stderr.String())
	}
	testenv.WaitFor(t, "echo in the gateway's tools", 10*time.Second, func() bool {
		tools, _ := listedTools(ctx, t, cs)
		return tools["echo"]
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through the gateway"}})
	if err != nil || res.IsError {
		t.Fatalf("echo through the gateway: %v %+v", err, res)
	}
	if code := g.stop(t); code != exitOK {
		t.Errorf("mcp exit %d, want 0", code)
	}
}

// TestSignInsInPostgresNeedAKey: with the sessions in PostgreSQL the sign-ins are kept
// there, encrypted; without $SWITCHBOARD_SECRET_KEY a command that connects to a
// remote server is refused (exit 2) with what to set, before anything starts.
func TestSignInsInPostgresNeedAKey(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"notes": {"url": `+jsonString(srv.MCPURL)+`}},
  "switchboard": {"sessions": {"store": "postgres", "dsn": "postgres://nobody@127.0.0.1:1/none"}}}`)
	for _, args := range [][]string{{"status"}, {"login", "notes"}, {"call", "echo"}} {
		r := s.run(append([]string{"--config", cfg}, args...)...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, `with "sessions": {"store": "postgres"} the sign-ins are kept in the database: sign-ins kept in PostgreSQL are encrypted, and $SWITCHBOARD_SECRET_KEY holds no key: set it, on every replica, to 32 random bytes in base64 (openssl rand -base64 32)`)
	}
}

// TestChatSignsIn: chat with a browser to open ($BROWSER) signs in to a server that
// waits for it before the turn, and the model's call of its tool goes through.
func TestChatSignsIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	s.env["BROWSER"] = writeBrowser(t, s)
	cfg := chatConfig(t, s, "openai", fake.URL, `, "notes": {"url": `+jsonString(srv.MCPURL)+`}`)
	r := s.run("--config", cfg, "chat", "-m", `call echo {"text": "signed in from chat"}`)
	r.wantCode(t, exitOK)
	r.wantStderr(t, "Signed in to notes.", "← echo")
	r.wantStdout(t, "signed in from chat")
	noTokens(t, srv, r)
}

// TestChatStepUp: a call the model makes during a chat turn that the server refuses
// for want of a scope (403 insufficient_scope) is signed in for again at the
// terminal and made once more: the model gets the tool's answer, not the refusal.
func TestChatStepUp(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, &fakeauth.Options{Scopes: []string{"notes:read"}, StepUp: "notes:write"})
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	s.env["BROWSER"] = writeBrowser(t, s)
	cfg := chatConfig(t, s, "openai", fake.URL, `, "notes": {"url": `+jsonString(srv.MCPURL)+`}`)
	r := s.run("--config", cfg, "chat", "-m", `call write {"text": "from chat"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "wrote from chat")
	if n := strings.Count(r.stderr, "Signed in to notes."); n != 2 {
		t.Errorf("stderr tells %d sign-ins, want 2 (before the turn, then the step-up)\n%s", n, r)
	}
	if got := srv.Count(fakeauth.StepUpNeeded); got != 1 {
		t.Errorf("the server refused %d requests for want of a scope, want 1", got)
	}
	noTokens(t, srv, r)
}
