//go:build unix

package main

import (
	"context"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// without is s with the variables keys left out of its runs (and of nothing else).
func (s *sandbox) without(keys ...string) *sandbox {
	c := *s
	c.env = maps.Clone(s.env)
	for _, k := range keys {
		delete(c.env, k)
	}
	return &c
}

// trapConfig writes a config whose one server writes marker when it is started, and
// another whose command does not exist: a CLI that read it and started a server
// would leave the marker, or fail.
func trapConfig(t *testing.T, s *sandbox) (cfg, marker string) {
	t.Helper()
	marker = filepath.Join(t.TempDir(), "started")
	cfg = s.writeConfig("trap.json", `{"mcpServers": {
  "trap": {"command": "sh", "args": ["-c", `+jsonString("echo started > '"+marker+"'")+`]},
  "missing": {"command": "/nonexistent/switchboard-test-server"}
}}`)
	return cfg, marker
}

// wantNoServerStarted fails the test when the trap config's server ran.
func wantNoServerStarted(t *testing.T, marker string) {
	t.Helper()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a command with $%s started a server of the local config", serverEnv)
	}
}

// TestRemote: with $SWITCHBOARD_SERVER and $SWITCHBOARD_TOKEN, tools (every format),
// call, status, search (words, a pattern, stdin), sessions and chat answer from a
// running `switchboard serve` with the output and exit codes of the same commands run
// here on the service's config; the local config, whose servers cannot start, is
// never read (no server of it starts).
func TestRemote(t *testing.T) {
	t.Parallel()
	const token = "tok-remote-Xx9Yy8"
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock", `"approve": ["add_duration"]`)+`, "notes": `+demoEntry(t, "notes")+`},
  "switchboard": {"model": {"name": "test-model", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	dataDir := t.TempDir()
	p := startServe(t, s, cfg, token, "--data-dir", dataDir)
	p.waitHealthy(t)
	defer func() {
		if code := p.stop(t); code != exitOK {
			t.Errorf("serve: exit %d after SIGTERM\n%s", code, p.stderr.String())
		}
	}()

	local := s.without()
	trap, marker := trapConfig(t, s)
	s.env["SWITCHBOARD_CONFIG"] = trap
	s.env[serverEnv] = p.url
	s.env[tokenEnv] = token
	defer wantNoServerStarted(t, marker)

	convert := `{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`
	same := []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"tools"}, "", exitOK},
		{[]string{"tools", "--json"}, "", exitOK},
		{[]string{"tools", "--format", "mcp"}, "", exitOK},
		{[]string{"tools", "--format", "openai", "--strict"}, "", exitOK},
		{[]string{"tools", "--format", "anthropic"}, "", exitOK},
		{[]string{"status"}, "", exitOK},
		{[]string{"status", "--json"}, "", exitOK},
		{[]string{"call", "convert_time", convert}, "", exitOK},
		{[]string{"call", "--json", "convert_time", convert}, "", exitOK},
		{[]string{"call", "convert_time", "-"}, convert, exitOK},
		{[]string{"call", "convert_time", `{"time": "x", "to": "Nowhere/Else"}`}, "", exitFailed},
		{[]string{"call", "convert_tim"}, "", exitUsage},
		{[]string{"call", "convert_time", strings.Repeat(`{"a": `, 70) + "1" + strings.Repeat("}", 70)}, "", exitUsage},
		{[]string{"search", "convert", "a", "time", "zone"}, "", exitOK},
		{[]string{"search", "--json", "--limit", "2", "note"}, "", exitOK},
		{[]string{"search", "--regex", "^(get|put)_note$"}, "", exitOK},
		{[]string{"search", "--regex", "nothing-matches-this"}, "", exitFailed},
		{[]string{"search"}, "time zone\n\n[bad\nnotes\n", exitOK},
		{[]string{"search", "--regex"}, "[bad\n", exitFailed},
	}
	for _, c := range same {
		in := c.stdin
		want := local.runStdin(&in, append([]string{"--config", cfg}, c.args...)...)
		want.wantCode(t, c.code)
		got := s.runStdin(&in, c.args...)
		got.wantCode(t, c.code)
		if got.stdout != want.stdout {
			t.Errorf("switchboard %s: the service's answer differs from the local one:\n--- remote:\n%s--- local:\n%s", strings.Join(c.args, " "), got.stdout, want.stdout)
		}
		if c.code == exitUsage && lastLine(got.stderr) != lastLine(want.stderr) {
			t.Errorf("switchboard %s: stderr differs:\n--- remote:\n%s--- local:\n%s", strings.Join(c.args, " "), got.stderr, want.stderr)
		}
	}

	// A turn: the answer on stdout, the calls on stderr, the session the service's.
	r := s.run("chat", "-m", "call convert_time "+convert)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "convert_time: 2026-01-02T12:04:05+09:00")
	r.wantStderr(t, `→ convert_time {"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}`, "← convert_time ", " ok\n")
	id := sessionOf(t, r)
	r = s.run("chat", "--session", id, "-m", "thanks")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: thanks")
	if n := len(fake.Requests()[len(fake.Requests())-1].Messages); n != 5 {
		t.Errorf("the continued session sent %d messages, want the 5 of its history", n)
	}
	// Lines of stdin are turns; a call that needs approval is denied with nobody to ask.
	in := "hello\ncall add_duration {\"time\": \"2026-01-02T03:04:05Z\", \"duration\": \"1h\"}\n"
	r = s.runStdin(&in, "chat", "--session", id)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: hello\n", "add_duration failed: ", "the user must approve add_duration and no terminal was there to ask")
	// --json: the local chat's events.
	r = s.run("chat", "--json", "-m", `call current_time {"zone": "UTC"}`)
	r.wantCode(t, exitOK)
	var kinds []string
	for _, line := range nonEmptyLines(r.stdout) {
		var e eventJSON
		decodeJSON(t, line, &e)
		if e.Session == "" {
			t.Errorf("an event without its session: %s", line)
		}
		kinds = append(kinds, e.Type)
	}
	// The stream tells the steps' usage at the end of the turn only.
	if got, want := strings.Join(dedupeText(kinds), " "), "tool_started tool_finished text step_usage step_usage turn_usage answer"; got != want {
		t.Errorf("chat --json event kinds = %s, want %s\n%s", got, want, r)
	}

	// The sessions are the service's store's: what the local command reads there.
	for _, args := range [][]string{{"sessions", "--json"}, {"sessions", "show", id}, {"sessions", "show", "--json", id}} {
		want := local.run(append([]string{"--config", cfg, "--data-dir", dataDir}, args...)...)
		want.wantCode(t, exitOK)
		got := s.run(args...)
		got.wantCode(t, exitOK)
		if got.stdout != want.stdout {
			t.Errorf("switchboard %s: the service's answer differs from the local one:\n--- remote:\n%s--- local:\n%s", strings.Join(args, " "), got.stdout, want.stdout)
		}
	}
	r = s.run("sessions")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "SESSION ", id)
	r = s.run("sessions", "rm", id)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "removed "+id)
	r = s.run("sessions", "show", id)
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "session not found", "run 'switchboard sessions' to list them")

	// The token: none says where to set it, a wrong one that it was refused; neither
	// shows it.
	r = s.without(tokenEnv).run("tools")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "the switchboard service at "+p.url+" wants a token: set $SWITCHBOARD_TOKEN")
	wrong := s.without()
	wrong.env[tokenEnv] = "tok-wrong-Zz7"
	r = wrong.run("call", "current_time")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "refused the token in $SWITCHBOARD_TOKEN")
	if strings.Contains(r.stdout+r.stderr, "tok-wrong-Zz7") || strings.Contains(r.stdout+r.stderr, token) {
		t.Errorf("a token was printed\n%s", r)
	}
	// --server wins over $SWITCHBOARD_SERVER.
	r = s.run("--server", unreachable(t), "status")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "cannot reach the switchboard service at http://127.0.0.1:")
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := nonEmptyLines(s)
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// unreachable is the URL of a loopback port where nothing listens.
func unreachable(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestRemoteUsage: a service nobody listens at is a failure naming it; --server on a
// command that cannot ask a service, with --config, or with a flag of a local run
// (a model, a store) is a usage error; a URL that is none too. --data-dir is taken:
// it says where a serve of this machine keeps its token.
func TestRemoteUsage(t *testing.T) {
	t.Parallel()
	url := unreachable(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--server", url, "tools"}, exitFailed, "cannot reach the switchboard service at " + url + " (--server or $SWITCHBOARD_SERVER): "},
		{[]string{"--server", url + "/v1", "call", "x"}, exitFailed, "cannot reach the switchboard service at " + url + " "},
		{[]string{"--server", url, "mcp"}, exitUsage, "switchboard mcp does not take --server: only tools, call, status, search, sessions and chat"},
		{[]string{"--server", url, "serve"}, exitUsage, "switchboard serve does not take --server"},
		{[]string{"--server", url, "check"}, exitUsage, "switchboard check does not take --server"},
		{[]string{"--server", url, "--config", "mcp.json", "tools"}, exitUsage, "--config and a running service"},
		{[]string{"--server", url, "tools", "--data-dir", "x"}, exitFailed, "cannot reach the switchboard service at " + url + " "},
		{[]string{"--server", url, "chat", "--model", "m", "--store", "memory", "-m", "hi"}, exitUsage, "--model, --store would be the service's to set"},
		{[]string{"--server", "ftp://host", "tools"}, exitUsage, `--server "ftp://host" is not the URL of a switchboard service`},
		{[]string{"--server", " ", "tools"}, exitUsage, "--server: the URL is empty"},
		{[]string{"--server", url, "help", "call"}, exitOK, ""},
	} {
		r := runInProcess(t, c.args...)
		r.wantCode(t, c.code)
		r.wantStderr(t, c.want)
	}
}

// TestRemoteServerEnvIgnored: $SWITCHBOARD_SERVER does not reach a command that runs
// on the local config; it says so.
func TestRemoteServerEnvIgnored(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.env[serverEnv] = unreachable(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`}}`)
	r := s.run("--config", cfg, "check")
	r.wantCode(t, exitOK)
	r.wantStderr(t, "$SWITCHBOARD_SERVER is ignored: switchboard check runs here")
	// A command that asks the service says how to run it here instead.
	r = s.run("--config", cfg, "tools")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "switchboard tools: --config and a running service ($SWITCHBOARD_SERVER) do not go together", "or unset $SWITCHBOARD_SERVER to run it here")
	r = s.run("sessions", "--store", "memory")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "switchboard sessions with a running service ($SWITCHBOARD_SERVER): --store would be the service's to set")
}

// TestRemoteChatTerminal: at a terminal, a call that needs approval and the server's
// question during it are asked as a local chat asks them, and the answers reach the
// service: the call runs and the server gets the form's values.
func TestRemoteChatTerminal(t *testing.T) {
	scriptBin := scriptCommand(t)
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"ts": {"command": `+jsonString(testserver.Build(t))+`, "args": ["--ask"], "approve": ["ask"]}},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	p.waitHealthy(t)
	defer func() {
		if code := p.stop(t); code != exitOK {
			t.Errorf("serve: exit %d after SIGTERM\n%s", code, p.stderr.String())
		}
	}()
	trap, marker := trapConfig(t, s)
	s.env["SWITCHBOARD_CONFIG"] = trap
	s.env[serverEnv] = p.url
	defer wantNoServerStarted(t, marker)

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	line := "'" + testExe(t) + `' chat -m 'call ask {}'`
	cmd := exec.CommandContext(ctx, scriptBin, "-qec", line, "/dev/null")
	cmd.Dir = s.Work
	cmd.Env = s.environ("remote-terminal")
	// Allow the call; answer the form: yes, a name, the defaults of the rest.
	cmd.Stdin = strings.NewReader("y\ny\nada\n\n\n\n\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chat under script: %v\n%s", err, out)
	}
	r := result{args: []string{"chat"}, stdout: string(out)}
	r.wantStdout(t, "Allow ask {}? [y/N] ", "ts asks: ", "Your name (what to call you): ",
		`ask: action=accept content={"color":"green","count":3,"name":"ada","size":"l","subscribe":true}`)
}

// TestRemoteNotReady: a service one of whose servers failed answers status with the
// local command's rows and exit 1, tools with the summary naming it, and search with
// the same note on stderr; chat at a service without a model is the usage error of a
// local chat without one, before any session is made.
func TestRemoteNotReady(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`, "broken": {"command": "/nonexistent/switchboard-broken"}}}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	defer func() {
		if code := p.stop(t); code != exitOK {
			t.Errorf("serve: exit %d after SIGTERM\n%s", code, p.stderr.String())
		}
	}()
	testenv.WaitFor(t, "clock ready and broken failed", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/health", "")
		return strings.Contains(body, `"clock": {
      "state": "ready"`) && strings.Contains(body, `"broken": {
      "state": "failed"`)
	})
	local := s.without()
	trap, marker := trapConfig(t, s)
	s.env["SWITCHBOARD_CONFIG"] = trap
	s.env[serverEnv] = p.url
	defer wantNoServerStarted(t, marker)

	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"status"}, exitFailed},
		{[]string{"status", "--json"}, exitFailed},
		{[]string{"tools"}, exitOK},
		{[]string{"search", "time"}, exitOK},
	} {
		want := local.run(append([]string{"--config", cfg}, c.args...)...)
		want.wantCode(t, c.code)
		got := s.run(c.args...)
		got.wantCode(t, c.code)
		if got.stdout != want.stdout {
			t.Errorf("switchboard %s: the service's answer differs from the local one:\n--- remote:\n%s--- local:\n%s", strings.Join(c.args, " "), got.stdout, want.stdout)
		}
		if c.args[0] == "search" {
			got.wantStderr(t, "switchboard search: searching 3 tools from 1 of 2 servers (1 failed: broken)")
		}
	}
	r := s.run("chat", "-m", "hi")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "the switchboard service at "+p.url+" has no model configured")
	if code, body := p.do(t, "GET", "/v1/sessions", ""); code != 200 || !strings.Contains(body, `"sessions": []`) {
		t.Errorf("chat without a model made a session: %d %s", code, body)
	}
}

// TestRemoteChatInterrupted: Ctrl-C while the service's turn runs a tool ends chat
// with exit 130 and the line of a local chat; the request's end cancels the turn at
// the service, whose session keeps the user's message and the model's call and is
// free for the next turn.
func TestRemoteChatInterrupted(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL, `, "slow": {"command": `+jsonString(testserver.Build(t))+`}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	p.waitHealthy(t)
	defer func() {
		if code := p.stop(t); code != exitOK {
			t.Errorf("serve: exit %d after SIGTERM\n%s", code, p.stderr.String())
		}
	}()
	trap, marker := trapConfig(t, s)
	s.env["SWITCHBOARD_CONFIG"] = trap
	s.env[serverEnv] = p.url
	defer wantNoServerStarted(t, marker)

	s.onStart = func(cli *os.Process, stderr *testenv.Buffer) {
		// Both: the tool runs at the service, and chat has printed the step the
		// stream brought (the two race; the line is what this test checks).
		testenv.WaitFor(t, "the sleep call to start and chat to show it", 30*time.Second, func() bool {
			return strings.Contains(p.stderr.String(), "testserver: sleep started") && strings.Contains(stderr.String(), "→ sleep ")
		})
		if err := cli.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	r := s.run("chat", "--session", "cut", "-m", `call sleep {"ms": 600000}`)
	s.onStart = nil
	r.wantCode(t, 130)
	r.wantStderr(t, "→ sleep ", "switchboard: turn interrupted: session cut keeps its history up to the interruption (your message and every step that finished); continue it with --session cut\n")
	testenv.WaitFor(t, "the service's turn to end", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/v1/sessions/cut", "")
		return strings.Contains(body, `"busy": false`)
	})
	r = s.run("sessions", "show", "cut")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `user: call sleep {"ms": 600000}`, "→ sleep ")
	r = s.run("chat", "--session", "cut", "-m", "thanks")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: thanks")
}
