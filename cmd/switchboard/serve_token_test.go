package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/redact"
)

// TestServeMakesToken: a serve given neither a token nor a provider (what `make run`
// starts) answers 401 to whoever has not its token — another account of the machine
// reaches loopback too, and could otherwise add a server, a command the service
// runs — while /health stays open. The token it made is in the data directory,
// readable by its owner only, printed once on stderr in the dashboard's URL and
// nowhere else in the log; the CLI's --server finds it there without
// $SWITCHBOARD_TOKEN, and the next start keeps it.
func TestServeMakesToken(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	p := startServe(t, s, "", "", "--store", "memory")
	tok := p.token
	if tok == "" {
		t.Fatalf("serve printed no dashboard URL with a token:\n%s", p.stderr.String())
	}
	p.waitHealthy(t)
	if log := p.stderr.String(); strings.Count(log, tok) != 1 || !strings.Contains(log, "switchboard serve: the dashboard is at "+p.url+"/#token="+tok+" ") {
		t.Errorf("stderr shows the token %d times, want once in the dashboard's URL:\n%s", strings.Count(log, tok), log)
	}

	// Without the token: the probes and /health only.
	bare := &serveProc{gatewayProc: p.gatewayProc, url: p.url}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"GET", "/health", "", 200},
		{"GET", "/readyz", "", 200},
		{"GET", "/v1/tools", "", 401},
		{"GET", "/v1/servers", "", 401},
		{"POST", "/v1/servers", `{"name": "pwned", "command": "sh", "args": ["-c", "touch pwned"]}`, 401},
		{"POST", "/v1/tools/list_notes/call", `{"arguments": {}}`, 401},
		{"POST", "/mcp", `{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`, 401},
	} {
		if code, body := bare.do(t, c.method, c.path, c.body); code != c.want {
			t.Errorf("%s %s without the token: %d, want %d: %s", c.method, c.path, code, c.want, body)
		}
	}
	if code, body := p.do(t, "GET", "/v1/servers", ""); code != 200 {
		t.Errorf("GET /v1/servers with the token: %d %s", code, body)
	}

	// Kept where the CLI looks, for this account only.
	path := filepath.Join(s.Home, ".local", "state", "switchboard", host.ServeTokenFile)
	b, err := os.ReadFile(path)
	if err != nil || strings.TrimSpace(string(b)) != tok {
		t.Errorf("%s holds %q (%v), want the token", path, b, err)
	}
	if fi, err := os.Stat(path); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o600) {
		t.Errorf("%s: mode %v (%v), want 0600", path, fi.Mode(), err)
	}

	// The CLI against it, with no $SWITCHBOARD_TOKEN: README's make run, then
	// SWITCHBOARD_SERVER=… switchboard tools.
	remote := s.forTest(t)
	remote.env = map[string]string{serverEnv: p.url}
	r := remote.run("tools")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "list_notes")
	// Another data directory holds no token: the service says it wants one.
	r = remote.run("status", "--data-dir", t.TempDir())
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "the switchboard service at "+p.url+" wants a token")

	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
	again := startServe(t, s, "", "", "--store", "memory")
	if again.token != tok {
		t.Errorf("the next start's token %q, want the same %q", again.token, tok)
	}
	if code := again.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, again.stderr.String())
	}
}

// TestServeTokenDataDir: a serve with --data-dir keeps its token there, and the CLI
// given the same --data-dir finds it; the local token never goes to a service that
// is not on loopback.
func TestServeTokenDataDir(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	data := t.TempDir()
	p := startServe(t, s, "", "", "--store", "memory", "--data-dir", data)
	p.waitHealthy(t)
	if got, err := host.ReadServeToken(data); got != p.token || err != nil {
		t.Errorf("the token in --data-dir: %q %v, want the printed %q", got, err, p.token)
	}
	r := s.run("--server", p.url, "call", "list_notes", "--data-dir", data)
	r.wantCode(t, exitOK)
	r = s.run("--server", p.url, "status")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "wants a token", "--data-dir")
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}

	a := &app{red: &redact.Redactor{}}
	for raw, want := range map[string]string{"http://127.0.0.1:7300": p.token, "localhost:7300": p.token, "http://192.0.2.1:7300": "", "https://sb.example.com": ""} {
		rem, err := a.newRemote(raw, data)
		if err != nil {
			t.Fatal(err)
		}
		if rem.token != want {
			t.Errorf("the client of %s sends %q, want %q", raw, rem.token, want)
		}
	}
}

// TestServeTokenUsage: --cors without a token or a provider is refused (any page of
// that origin could run commands through the service), and so is --no-token beyond
// loopback, with --cors or with a token; on loopback --no-token serves with no token,
// warning that anyone on the machine can use it, and makes none.
func TestServeTokenUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", "--store", "memory", "--cors", "*"}, "--cors * needs a bearer token in $SWITCHBOARD_TOKEN (or --token), or an identity provider"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--store", "memory", "--cors", "http://app.example"}, "--cors http://app.example needs a bearer token"},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--no-token"}, "--no-token serves loopback only: --addr 0.0.0.0:0"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--no-token", "--cors", "http://app.example"}, "--no-token and --cors do not go together"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--no-token", "--token", "tok-Aa1"}, "--no-token and a token"},
	} {
		r := s.run(c.args...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, c.want)
	}
	p := startServe(t, s, "", "", "--store", "memory", "--no-token")
	if p.token != "" {
		t.Errorf("--no-token printed a token")
	}
	if code, body := p.do(t, "GET", "/v1/tools", ""); code != 200 {
		t.Errorf("GET /v1/tools with --no-token: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
	if log := p.stderr.String(); !strings.Contains(log, `"level":"WARN","msg":"serving without a token (--no-token): anyone on this machine can use the service`) {
		t.Errorf("no warning of --no-token:\n%s", log)
	}
	if tok, err := host.ReadServeToken(filepath.Join(s.Home, ".local", "state", "switchboard")); tok != "" || err != nil {
		t.Errorf("--no-token made a token: %q %v", tok, err)
	}
}
