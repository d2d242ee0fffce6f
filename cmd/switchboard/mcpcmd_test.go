package main

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// `switchboard mcp` over stdio, driven by the official SDK client: the demo catalog,
// a call, and nothing left running once the client disconnects.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cmd, marker := s.command(context.Background(), "mcp")
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to switchboard mcp: %v", err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(demoTools) {
		t.Errorf("gateway lists %d tools, want %d", len(res.Tools), len(demoTools))
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{"zone": "Asia/Tokyo"}})
	if err != nil || out.IsError || !strings.Contains(tool.Text(out), "Asia/Tokyo") {
		t.Fatalf("current_time through the gateway: %v %+v", err, out)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitGone(t, marker)
}

// waitGone waits up to 10 s for every process carrying marker to exit, and fails the
// test, listing them, if some are still running then.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	var left []string
	defer func() {
		if len(left) > 0 { // WaitFor gave up
			t.Logf("still running:\n%s", strings.Join(left, "\n"))
		}
	}()
	testenv.WaitFor(t, "every process of the gateway to exit", 10*time.Second, func() bool {
		left = marked(marker)
		return len(left) == 0
	})
}

func TestMCPPrintConfig(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {}}`)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--print-config", "claude"}, []string{`"mcpServers"`, `"switchboard"`, `"command"`, `"--config"`, jsonString(cfg)}},
		{[]string{"--print-config", "vscode"}, []string{`"servers"`, `"type": "stdio"`}},
		{[]string{"--print-config", "codex"}, []string{"[mcp_servers.switchboard]", `args = ["mcp", "--config", ` + jsonString(cfg) + `]`}},
		{[]string{"--print-config", "claude", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`"type": "http"`, `"url": "http://127.0.0.1:8931/mcp"`, "Bearer ${SWITCHBOARD_TOKEN}"}},
		{[]string{"--print-config", "vscode", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`"servers"`, `"type": "http"`, `"url": "http://127.0.0.1:8931/mcp"`, "Bearer ${env:SWITCHBOARD_TOKEN}"}},
		{[]string{"--print-config", "codex", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`url = "http://127.0.0.1:8931/mcp"`, `bearer_token_env_var = "SWITCHBOARD_TOKEN"`}},
	}
	for _, tt := range tests {
		r := s.run(append([]string{"mcp", "--config", cfg}, tt.args...)...)
		r.wantCode(t, exitOK)
		r.wantStdout(t, tt.want...)
		if strings.Contains(r.stdout+r.stderr, "tok-123456") {
			t.Errorf("%v printed the token:\n%s", tt.args, r)
		}
		if strings.HasPrefix(strings.TrimSpace(r.stdout), "{") {
			var v any
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Errorf("%v: output is not JSON: %v", tt.args, err)
			}
		}
	}
	s.run("mcp", "--print-config", "cursor").wantCode(t, exitUsage)
	for _, flag := range []string{"--listen", "--addr"} { // --addr as for serve
		r := s.run("mcp", flag, "0.0.0.0:0")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, "not a loopback address")
	}
	r := s.run("mcp", "--listen", "127.0.0.1:0", "--session-timeout", "-1m")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "--session-timeout -1m0s: must be 0 (never) or more")
	r = s.run("mcp", "--listen", "127.0.0.1:0", "--watch", "-1s")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "--watch -1s: must be 0 (only on SIGHUP) or more")
}

// TestMCPHTTP serves the demo catalog over Streamable HTTP with a bearer token, given by
// --token or by $SWITCHBOARD_TOKEN: a client without the token, or with another one, is
// refused; a client with it lists the demo tools, in a session unless --stateless.
// SIGTERM then ends the command with exit 0, leaving nothing running, and the token
// never shows in the log.
func TestMCPHTTP(t *testing.T) {
	t.Parallel()
	const token = "tok-Hh5Jj8Kk2Ll"
	tests := []struct {
		name      string
		args      []string
		envToken  bool // the token in $SWITCHBOARD_TOKEN rather than --token
		stateless bool
	}{
		{"--token", []string{"--token", token}, false, false},
		{"$SWITCHBOARD_TOKEN --stateless", []string{"--stateless", "--session-timeout", "0"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			if tt.envToken {
				s.env[tokenEnv] = token
			}
			g := startHTTPGateway(t, s, tt.args...)
			if g.tools != len(demoTools) || !g.auth {
				t.Errorf("listening line: %d tools, auth %v; want %d tools, auth true\n%s", g.tools, g.auth, len(demoTools), g.stderr.String())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, header := range []string{"", "Bearer wrong-token"} {
				cs, err := g.connect(ctx, t, header, nil)
				if err == nil {
					cs.Close()
					t.Errorf("Authorization %q: connected", header)
				} else if !strings.Contains(err.Error(), "Unauthorized") {
					t.Errorf("Authorization %q: connect: %v, want 401 Unauthorized", header, err)
				}
			}
			// The scheme in any case, as RFC 7235 has it (a client may send "bearer").
			for _, scheme := range []string{"bearer", "BEARER"} {
				cs, err := g.connect(ctx, t, scheme+" "+token, nil)
				if err != nil {
					t.Fatalf("connect with %q and the token: %v\n%s", scheme, err, g.stderr.String())
				}
				cs.Close()
			}
			// A client of 2025-11-25 gets a session unless --stateless; one of
			// 2026-07-28 (the SDK's default), which has none, never does.
			older, err := g.connectVersion(ctx, t, "Bearer "+token, nil, "2025-11-25")
			if err != nil {
				t.Fatalf("connect at 2025-11-25 with the token: %v\n%s", err, g.stderr.String())
			}
			if id := older.ID(); (id == "") != tt.stateless {
				t.Errorf("2025-11-25: session id %q, stateless %v", id, tt.stateless)
			}
			older.Close()
			cs, err := g.connect(ctx, t, "Bearer "+token, nil)
			if err != nil {
				t.Fatalf("connect with the token: %v\n%s", err, g.stderr.String())
			}
			if v, id := cs.InitializeResult().ProtocolVersion, cs.ID(); v != "2026-07-28" || id != "" {
				t.Errorf("default client: protocol %s, session id %q; want 2026-07-28 and none", v, id)
			}
			names, listed := listedTools(ctx, t, cs)
			for name := range demoTools {
				if !names[name] {
					t.Errorf("demo tool %s missing", name)
				}
			}
			if listed != len(demoTools) {
				t.Errorf("gateway lists %d tools, want %d: %v", listed, len(demoTools), names)
			}
			if err := cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			if code := g.stop(t); code != exitOK {
				t.Errorf("exit %d after SIGTERM, want %d\n%s", code, exitOK, g.stderr.String())
			}
			if strings.Contains(g.stderr.String(), token) {
				t.Errorf("the log shows the token:\n%s", g.stderr.String())
			}
		})
	}
}

// Over HTTP the clients are not known when the servers start: they are told every
// capability the gateway forwards, so server-everything offers its sampling,
// elicitation and roots tools even to a client that has none of them.
func TestMCPHTTPCapabilities(t *testing.T) {
	t.Parallel()
	ev := testenv.NPMBin(t, testenv.ServerEverything)
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", fmt.Sprintf(`{"mcpServers": {"ev": {"command": %q}}}`, ev))
	g := startHTTPGateway(t, s, "--config", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := g.connect(ctx, t, "", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, g.stderr.String())
	}
	names, _ := listedTools(ctx, t, cs)
	for _, n := range []string{"echo", "trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} {
		if !names[n] {
			t.Errorf("tool %s not offered: %v", n, names)
		}
	}
	cs.Close()
	if code := g.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want %d\n%s", code, exitOK, g.stderr.String())
	}
}

// gatewayProc is a switchboard process of a test.
type gatewayProc struct {
	cmd    *exec.Cmd
	marker string
	stderr testenv.Buffer
	exited chan struct{} // closed once cmd.Wait has returned
}

// startProc starts cmd, which carries marker (sandbox.command), collecting its stderr.
// It is killed if the test ends while it runs.
func startProc(t *testing.T, cmd *exec.Cmd, marker string) *gatewayProc {
	t.Helper()
	p := &gatewayProc{cmd: cmd, marker: marker, exited: make(chan struct{})}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // an error once it has exited
		<-p.exited
	})
	return p
}

// waitExit waits up to 15 s for the process to exit after what made it, and for every
// process it started, and returns its exit code.
func (p *gatewayProc) waitExit(t *testing.T, what string) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("switchboard did not exit within 15s of %s\n%s", what, p.stderr.String())
	}
	waitGone(t, p.marker)
	return p.cmd.ProcessState.ExitCode()
}

// httpGateway is a running `switchboard mcp --listen`.
type httpGateway struct {
	*gatewayProc
	// From the "gateway listening" log line:
	url   string
	tools int
	auth  bool
}

// startHTTPGateway starts `switchboard --log-format json mcp --listen 127.0.0.1:0 ARGS`
// in s and waits for its "gateway listening" log line, which gives its URL. It is
// killed if the test ends while it runs; stop ends it properly.
func startHTTPGateway(t *testing.T, s *sandbox, args ...string) *httpGateway {
	t.Helper()
	cmd, marker := s.command(context.Background(), append([]string{"--log-format", "json", "mcp", "--listen", "127.0.0.1:0"}, args...)...)
	g := &httpGateway{gatewayProc: startProc(t, cmd, marker)}
	testenv.WaitFor(t, `the gateway's "gateway listening" log line`, 30*time.Second, func() bool {
		select {
		case <-g.exited:
			t.Fatalf("switchboard mcp exited before listening: %v\n%s", cmd.ProcessState, g.stderr.String())
		default:
		}
		for line := range strings.Lines(g.stderr.String()) {
			var rec struct {
				Msg   string `json:"msg"`
				URL   string `json:"url"`
				Tools int    `json:"tools"`
				Auth  bool   `json:"auth"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "gateway listening" {
				g.url, g.tools, g.auth = rec.URL, rec.Tools, rec.Auth
				return true
			}
		}
		return false
	})
	return g
}

// connect connects a client to the gateway over Streamable HTTP, sending header (if
// any) as the Authorization of every request. The client's connections are closed when
// the test ends.
func (g *httpGateway) connect(ctx context.Context, t *testing.T, header string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	return g.connectVersion(ctx, t, header, opts, "")
}

// connectVersion is connect asking for protocol version ("": the SDK's newest,
// 2026-07-28, which has no sessions).
func (g *httpGateway) connectVersion(ctx context.Context, t *testing.T, header string, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, error) {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, opts)
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	return client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   g.url,
		HTTPClient: &http.Client{Transport: authorization{header, tr}},
		MaxRetries: -1,
	}, so)
}

// stop sends the gateway SIGTERM and returns its exit code, once it and every process
// it started have exited.
func (g *httpGateway) stop(t *testing.T) int {
	t.Helper()
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	return g.waitExit(t, "SIGTERM")
}

// authorization is an http.RoundTripper that sets the Authorization header of every
// request to header, unless it is empty.
type authorization struct {
	header string
	next   http.RoundTripper
}

func (a authorization) RoundTrip(r *http.Request) (*http.Response, error) {
	if a.header != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", a.header)
	}
	return a.next.RoundTrip(r)
}

// Over stdio the servers start with the client's own capabilities: server-everything
// offers its sampling, elicitation and roots tools only to a client that has them,
// and through the gateway its roots and sampling requests reach the client — of the
// 2025-11-25 protocol as requests, of 2026-07-28 (the Go SDK's default) as the input
// requests of a multi-round-trip call.
func TestMCPStdioPassesClientCapabilities(t *testing.T) {
	t.Parallel()
	ev := testenv.NPMBin(t, testenv.ServerEverything)
	capabilityTools := []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"}
	for _, tc := range []struct {
		capable bool
		version string
	}{{false, "2025-11-25"}, {true, "2025-11-25"}, {false, "2026-07-28"}, {true, "2026-07-28"}} {
		capable := tc.capable
		t.Run(fmt.Sprintf("capable=%v,%s", capable, tc.version), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			cfg := s.writeConfig("mcp.json", fmt.Sprintf(`{"mcpServers": {"ev": {"command": %q}}}`, ev))
			cmd, marker := s.command(context.Background(), "mcp", "--config", cfg)
			opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}} // no roots either
			if capable {
				opts = &mcp.ClientOptions{
					CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "ok"}}, nil
					},
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "decline"}, nil
					},
				}
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "caps-test", Version: "1"}, opts)
			const root = "file:///srv/caps-test-root"
			if capable {
				client.AddRoots(&mcp.Root{URI: root, Name: "r"})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != tc.version {
				t.Fatalf("negotiated %s, want %s", v, tc.version)
			}
			defer func() {
				cs.Close()
				waitGone(t, marker)
			}()
			names, _ := listedTools(ctx, t, cs)
			if !names["echo"] {
				t.Fatalf("server-everything's echo missing: %v", names)
			}
			for _, n := range capabilityTools {
				if names[n] != capable {
					t.Errorf("tool %s offered = %v, want %v (client capable: %v)", n, names[n], capable, capable)
				}
			}
			if capable {
				out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list", Arguments: map[string]any{}})
				if err != nil || out.IsError || !strings.Contains(tool.Text(out), root) {
					t.Errorf("get-roots-list: %v %q", err, tool.Text(out))
				}
				out, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi", "maxTokens": 5}})
				if err != nil || out.IsError || !strings.Contains(tool.Text(out), `"ok"`) {
					t.Errorf("trigger-sampling-request: %v %q", err, tool.Text(out))
				}
			}
		})
	}
}

// A required server that does not come up: over stdio the servers start at the
// client's first request, so the client learns it from its requests; when it
// disconnects, the command ends with exit 1, leaving nothing running.
func TestMCPStdioRequiredServerFails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"gone": {"command": "/nonexistent/server", "required": true}}}`)
	cmd, marker := s.command(context.Background(), "mcp", "--config", cfg)
	client := mcp.NewClient(&mcp.Implementation{Name: "required-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for range 2 {
		if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), `required server(s) not ready: gone`) {
			t.Errorf("tools/list with a required server down: err = %v", err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Logf("session ended: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	waitGone(t, marker)
}

// SIGTERM while a client's call is under way ends `switchboard mcp` at once, over
// stdio and over HTTP: the call is cancelled, not waited for (closing a session in
// the SDK waits for its requests, here a server's one-minute sleep).
func TestMCPSigtermDuringCall(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	// call starts the one-minute sleep of the slow server on cs and waits until the
	// server says it runs, in the gateway's log.
	call := func(t *testing.T, cs *mcp.ClientSession, stderr *testenv.Buffer) {
		t.Helper()
		go func() {
			_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 60000}})
		}()
		testenv.WaitFor(t, `the slow server's "testserver: sleep started" in the gateway's log`, 30*time.Second, func() bool {
			return strings.Contains(stderr.String(), "testserver: sleep started")
		})
	}
	config := func(s *sandbox) string {
		return s.writeConfig("mcp.json", `{"mcpServers": {"slow": {"command": `+jsonString(bin)+`}}}`)
	}
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cmd, marker := s.command(context.Background(), "mcp", "--config", config(s))
		var stderr testenv.Buffer
		cmd.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "sigterm-test", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		call(t, cs, &stderr)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatalf("SIGTERM: %v", err)
		}
		waitGone(t, marker)
		cs.Close() // waits for the gateway's exit, so its log is whole
		// A stop asked for is no error: the SDK logged "server run cancelled" at ERROR.
		if log := stderr.String(); strings.Contains(log, "level=ERROR") {
			t.Errorf("SIGTERM logged an error:\n%s", log)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		g := startHTTPGateway(t, s, "--config", config(s))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := g.connect(ctx, t, "", nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, g.stderr.String())
		}
		t.Cleanup(func() { cs.Close() })
		call(t, cs, &g.stderr)
		if code := g.stop(t); code != exitOK {
			t.Errorf("exit %d after SIGTERM, want %d\n%s", code, exitOK, g.stderr.String())
		}
	})
}

// listedTools lists cs's tools: the set of their names, and how many were listed
// (more than the set holds if a name came twice).
func listedTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) (map[string]bool, int) {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range res.Tools {
		names[tl.Name] = true
	}
	return names, len(res.Tools)
}

// A stdio client that goes away may leave the gateway writing to a broken pipe (a
// reply, a notification): the write fails and the gateway shuts down as for any
// client that leaves (exit 0), its servers included, rather than being killed by
// SIGPIPE.
func TestMCPStdioBrokenPipe(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	g, stdin, gwOut := startStdioGateway(t, s, "mcp")
	// The client reads through a pipe of its own, which never ends: closing gwOut
	// breaks the gateway's stdout without the client noticing and closing stdin.
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.Copy(pw, gwOut)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, n := listedTools(ctx, t, cs); n != len(demoTools) {
		t.Fatalf("gateway lists %d tools, want %d", n, len(demoTools))
	}

	gwOut.Close()
	pingCtx, stopPing := context.WithTimeout(ctx, 2*time.Second)
	defer stopPing()
	_ = cs.Ping(pingCtx, nil) // its answer goes to the broken pipe
	if code := g.waitExit(t, "its stdout breaking"); code != exitOK {
		t.Errorf("%v, want exit %d\n%s", g.cmd.ProcessState, exitOK, g.stderr.String())
	}
}

// startStdioGateway starts `switchboard ARGS` in s with pipes for its stdin and stdout.
func startStdioGateway(t *testing.T, s *sandbox, args ...string) (*gatewayProc, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd, marker := s.command(context.Background(), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return startProc(t, cmd, marker), stdin, stdout
}

// --listen binds before any server starts: an address in use is a usage error naming
// it, with no server started; an address that does not parse says why.
func TestMCPListenBindsFirst(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	started := filepath.Join(s.Dir, "server-started")
	script := "echo > '" + started + "'; exec " + testExe(t) + " demo-server clock"
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": {"command": "sh", "args": ["-c", `+jsonString(script)+`]}}}`)

	r := s.run("mcp", "--config", cfg, "--listen", addr)
	if _, err := os.Stat(started); err == nil {
		t.Errorf("a server started before the bind failed\n%s", r)
	}
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "switchboard: --listen "+addr+": ")

	r = s.run("mcp", "--config", cfg, "--listen", "nonsense")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "--listen nonsense: address nonsense: missing port in address")
	if strings.Contains(r.stderr, "loopback") {
		t.Errorf("a parse error reported as a loopback problem\n%s", r)
	}
	r = s.run("mcp", "--config", cfg, "--listen", "127.0.0.1:http-ish")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "--listen 127.0.0.1:http-ish: ", "unknown port")
	if _, err := os.Stat(started); err == nil {
		t.Errorf("a server started for an address that does not parse")
	}
}

// --print-config warns on stderr about what would make the snippet fail or mislead:
// a config file that does not exist, the built-in demo config, an address of every
// interface (the URL then names this host) and port 0. stdout stays the snippet.
func TestMCPPrintConfigWarnings(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	hostname, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	missing := filepath.Join(s.Dir, "missing.json")
	r := s.run("mcp", "--config", missing, "--print-config", "claude")
	r.wantCode(t, exitOK)
	r.wantStderr(t, "switchboard: warning: config file "+missing+": no such file or directory")
	r.wantStdout(t, jsonString(missing))

	r = s.run("mcp", "--print-config", "claude") // the sandbox's work dir has no mcp.json
	r.wantCode(t, exitOK)
	r.wantStderr(t, "switchboard: warning: no config file", "built-in demo servers")

	cfg := s.writeConfig("mcp.json", `{"mcpServers": {}}`)
	for _, addr := range []string{"0.0.0.0:8931", "[::]:8931", ":8931"} {
		r = s.run("mcp", "--config", cfg, "--print-config", "codex", "--listen", addr, "--token", "tok-123456")
		r.wantCode(t, exitOK)
		r.wantStdout(t, `url = "http://`+hostname+`:8931/mcp"`)
		r.wantStderr(t, "--listen "+addr+" serves on every interface", "replace it")
		if strings.Contains(r.stderr, "config file") || strings.Contains(r.stderr, "free port") {
			t.Errorf("warnings about nothing wrong\n%s", r)
		}
	}
	r = s.run("mcp", "--config", cfg, "--print-config", "codex", "--listen", "127.0.0.1:0")
	r.wantCode(t, exitOK)
	r.wantStderr(t, "--listen 127.0.0.1:0 takes a free port at each start")
}

// --max-request-size sets the largest request body the HTTP gateway takes: a larger
// one gets 413, one under it (and over the 4 MiB default) is served.
func TestMCPMaxRequestSize(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("mcp", "--listen", "127.0.0.1:0", "--max-request-size", "lots")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `invalid argument "lots" for "--max-request-size"`)

	g := startHTTPGateway(t, s, "--max-request-size", "6MiB")
	// post sends an initialize request padded to about size bytes.
	post := func(size int) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},` +
			`"clientInfo":{"name":"size-test","version":"1"},"_meta":{"pad":"` + strings.Repeat("x", size) + `"}}}`
		req, err := http.NewRequest("POST", g.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %d bytes: %v", size, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(5 << 20); code != http.StatusOK {
		t.Errorf("5 MiB under a 6 MiB limit: status %d, want 200\n%s", code, g.stderr.String())
	}
	if code := post(7 << 20); code != http.StatusRequestEntityTooLarge {
		t.Errorf("7 MiB over a 6 MiB limit: status %d, want 413", code)
	}
	if code := g.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want %d\n%s", code, exitOK, g.stderr.String())
	}
}

// Over stdio a request before initialize gets a JSON-RPC error with its id (also
// when stdin closes right after it), and input that is not JSON-RPC an error reply
// and a message on stderr (exit 1); either way no server starts.
func TestMCPStdioBeforeInitialize(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	started := filepath.Join(s.Dir, "server-started")
	script := "echo > '" + started + "'; exec " + testExe(t) + " demo-server clock"
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": {"command": "sh", "args": ["-c", `+jsonString(script)+`]}}}`)
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	tests := []struct {
		name, stdin string
		code        int
		wantID      string
		wantCode    int
		wantStderr  string
	}{
		{"tools/list first", `{"jsonrpc":"2.0","id":41,"method":"tools/list"}` + "\n", exitOK, "41", -32600, ""},
		{"junk", "hello there\n", exitFailed, "", -32700, "stdin is not JSON-RPC"},
	}
	for _, tt := range tests {
		r := s.runStdin(&tt.stdin, "mcp", "--config", cfg)
		if _, err := os.Stat(started); err == nil {
			t.Errorf("%s: a server started\n%s", tt.name, r)
			os.Remove(started)
		}
		r.wantCode(t, tt.code)
		r.wantStderr(t, tt.wantStderr)
		if n := strings.Count(r.stderr, "not JSON-RPC"); tt.wantStderr != "" && n != 1 {
			t.Errorf("%s: stderr says the error %d times, want once:\n%s", tt.name, n, r.stderr)
		}
		var got reply
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &got); err != nil || got.Error == nil {
			t.Errorf("%s: stdout is not one JSON-RPC error reply: %v\n%s", tt.name, err, r)
			continue
		}
		if string(got.ID) != tt.wantID && !(tt.wantID == "" && (got.ID == nil || string(got.ID) == "null")) {
			t.Errorf("%s: reply id %s, want %q", tt.name, got.ID, tt.wantID)
		}
		if got.Error.Code != tt.wantCode {
			t.Errorf("%s: error code %d, want %d (%s)", tt.name, got.Error.Code, tt.wantCode, got.Error.Message)
		}
	}
}

// Over stdio too, a 2025-11-25 client's results carry only the fields its version
// defines: no "ttlMs" or "cacheScope" (2026-07-28), which the SDK's result types
// always marshal.
func TestMCPStdioResultsOfTheClientsVersion(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	g, stdin, stdout := startStdioGateway(t, s, "mcp")
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	// call sends a request and returns the raw line of its reply.
	call := func(id int, method, params string) string {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for lines.Scan() {
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal(lines.Bytes(), &m) == nil && m.ID == id {
				return lines.Text()
			}
		}
		t.Fatalf("no reply to %s: %v\n%s", method, lines.Err(), g.stderr.String())
		return ""
	}
	call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	reply := call(2, "tools/list", `{}`)
	if !strings.Contains(reply, `"current_time"`) {
		t.Fatalf("tools/list: %s", reply)
	}
	for _, field := range []string{`"ttlMs"`, `"cacheScope"`} {
		if strings.Contains(reply, field) {
			t.Errorf("tools/list of a 2025-11-25 client has %s: %.300s", field, reply)
		}
	}
	stdin.Close()
	if code := g.waitExit(t, "stdin closing"); code != exitOK {
		t.Errorf("exit %d, want %d\n%s", code, exitOK, g.stderr.String())
	}
}
