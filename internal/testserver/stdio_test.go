//go:build unix

package testserver

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// stdioPeer is a test server connected over stdio with the SDK client.
type stdioPeer struct {
	session *mcp.ClientSession
	cmd     *exec.Cmd
	stderr  *testenv.Buffer
}

// connectStdio starts the test server with args and connects the SDK client
// to it over stdin/stdout. The session is closed in cleanup.
func connectStdio(t *testing.T, opts *mcp.ClientOptions, args ...string) *stdioPeer {
	t.Helper()
	cmd := Command(t, args...)
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "testserver-test", Version: "v0.0.1"}, opts)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		_ = session.Close()
		if t.Failed() {
			t.Logf("test server stderr:\n%s", stderr.String())
		}
	})
	return &stdioPeer{session: session, cmd: cmd, stderr: stderr}
}

func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

// resultText returns the text of a result made of a single text block.
func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want 1 content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// exitCode returns the exit status from a Wait-style error, or -1.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func TestStdioTools(t *testing.T) {
	changed := make(chan struct{}, 10)
	p := connectStdio(t, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			changed <- struct{}{}
		},
	}, "--name", "peer-one", "--tools", "alpha,beta")
	s := p.session

	if got := s.InitializeResult().ServerInfo; got == nil || got.Name != "peer-one" {
		t.Errorf("server info = %+v, want name peer-one", got)
	}
	// SDK v1.8.0 defaults to 2026-07-28 over stdio (server/discover, and
	// list_changed via subscriptions/listen). The add_tool subtest checks
	// that path; TestStdioToolListChangedLegacyProtocol checks 2025-11-25.
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Logf("negotiated protocol %q (expected 2026-07-28 with SDK v1.8.0)", v)
	}
	want := []string{"add", "add_tool", "add_tool_later", "alpha", "beta", "big", "crash", "echo", "fail", "log", "pid", "remove_tool", "sleep", "stderr"}
	if got := toolNames(t, s); !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}

	t.Run("echo", func(t *testing.T) {
		if got := resultText(t, callTool(t, s, "echo", map[string]any{"text": "hello"})); got != "hello" {
			t.Errorf("echo = %q", got)
		}
		if got := resultText(t, callTool(t, s, "beta", map[string]any{"text": "b"})); got != "b" {
			t.Errorf("beta = %q", got)
		}
	})
	t.Run("add", func(t *testing.T) {
		res := callTool(t, s, "add", map[string]any{"a": 2, "b": 3.5})
		if got := resultText(t, res); got != "2+3.5=5.5" {
			t.Errorf("add text = %q", got)
		}
		sc, ok := res.StructuredContent.(map[string]any)
		if !ok || sc["sum"] != 5.5 {
			t.Errorf("add structured = %#v, want {sum: 5.5}", res.StructuredContent)
		}
	})
	t.Run("big", func(t *testing.T) {
		const n = 1 << 20
		got := resultText(t, callTool(t, s, "big", map[string]any{"bytes": n}))
		if len(got) != n || strings.Trim(got, "x") != "" {
			t.Errorf("big: got %d bytes, want %d 'x'", len(got), n)
		}
	})
	t.Run("fail", func(t *testing.T) {
		res := callTool(t, s, "fail", nil)
		if !res.IsError || resultText(t, res) != "failure requested" {
			t.Errorf("fail = %+v", res)
		}
	})
	t.Run("pid", func(t *testing.T) {
		got := resultText(t, callTool(t, s, "pid", nil))
		if got != strconv.Itoa(p.cmd.Process.Pid) {
			t.Errorf("pid = %s, want %d", got, p.cmd.Process.Pid)
		}
	})
	t.Run("sleep", func(t *testing.T) {
		if got := resultText(t, callTool(t, s, "sleep", map[string]any{"ms": 20})); got != "slept" {
			t.Errorf("sleep = %q", got)
		}
		// A cancelled call returns promptly; the server stops sleeping and
		// stays usable.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 60000}}); err == nil {
			t.Error("cancelled sleep succeeded")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cancelled sleep took %v", d)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(p.stderr.String(), "sleep cancelled") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.Contains(p.stderr.String(), "sleep cancelled") {
			t.Errorf("server did not note the cancellation; stderr:\n%s", p.stderr.String())
		}
		if got := resultText(t, callTool(t, s, "echo", map[string]any{"text": "after"})); got != "after" {
			t.Errorf("echo after cancel = %q", got)
		}
	})
	t.Run("stderr", func(t *testing.T) {
		if got := resultText(t, callTool(t, s, "stderr", map[string]any{"text": "to-stderr-123"})); got != "ok" {
			t.Errorf("stderr = %q", got)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(p.stderr.String(), "to-stderr-123\n") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !strings.Contains(p.stderr.String(), "to-stderr-123\n") {
			t.Errorf("stderr line missing; stderr:\n%s", p.stderr.String())
		}
	})
	t.Run("add_tool", func(t *testing.T) {
		for len(changed) > 0 { // drain anything stale
			<-changed
		}
		if got := resultText(t, callTool(t, s, "add_tool", map[string]any{"name": "gamma"})); got != "added gamma" {
			t.Errorf("add_tool = %q", got)
		}
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("ToolListChangedHandler did not fire after add_tool")
		}
		if names := toolNames(t, s); !slices.Contains(names, "gamma") {
			t.Errorf("gamma not listed: %v", names)
		}
		if got := resultText(t, callTool(t, s, "gamma", map[string]any{"text": "g"})); got != "g" {
			t.Errorf("gamma = %q", got)
		}
		if got := resultText(t, callTool(t, s, "remove_tool", map[string]any{"name": "gamma"})); got != "removed gamma" {
			t.Errorf("remove_tool = %q", got)
		}
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("ToolListChangedHandler did not fire after remove_tool")
		}
		if names := toolNames(t, s); slices.Contains(names, "gamma") {
			t.Errorf("gamma still listed: %v", names)
		}
	})
}

// The 2025-11-25 protocol delivers list_changed on the session channel
// rather than via subscriptions/listen; both must work.
func TestStdioToolListChangedLegacyProtocol(t *testing.T) {
	changed := make(chan struct{}, 10)
	cmd := Command(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "legacy"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %q", v)
	}
	callTool(t, s, "add_tool", map[string]any{"name": "delta"})
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("ToolListChangedHandler did not fire")
	}
}

func TestStdioPageSize(t *testing.T) {
	p := connectStdio(t, nil, "--page-size", "3")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := p.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 3 || first.NextCursor == "" {
		t.Errorf("first page: %d tools, cursor %q; want 3 and a cursor", len(first.Tools), first.NextCursor)
	}
	if got := toolNames(t, p.session); len(got) != 12 {
		t.Errorf("all pages: %d tools %v, want 12", len(got), got)
	}
}

func TestStdioInitDelay(t *testing.T) {
	start := time.Now()
	p := connectStdio(t, nil, "--init-delay", "300ms")
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("connect took %v, want >= 300ms", d)
	}
	if got := resultText(t, callTool(t, p.session, "echo", map[string]any{"text": "x"})); got != "x" {
		t.Errorf("echo = %q", got)
	}
}

func TestStdioDieAfter(t *testing.T) {
	p := connectStdio(t, nil, "--die-after", "2", "--pidfile", t.TempDir()+"/pid")
	for i := range 2 {
		if got := resultText(t, callTool(t, p.session, "echo", map[string]any{"text": "hi"})); got != "hi" {
			t.Fatalf("call %d: echo = %q", i+1, got)
		}
	}
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(5 * time.Second)
	for ProcessAlive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ProcessAlive(pid) {
		t.Fatal("server still alive after the second call")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Error("third call succeeded on a dead server")
	}
	_ = p.session.Close() // waits for the process
	if p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != ExitDieAfter {
		t.Errorf("process state = %v, want exit %d", p.cmd.ProcessState, ExitDieAfter)
	}
}

func TestStdioCrashTool(t *testing.T) {
	p := connectStdio(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: "crash"}); err == nil {
		t.Fatal("crash call succeeded")
	}
	_ = p.session.Close()
	if p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != ExitCrashTool {
		t.Errorf("process state = %v, want exit %d", p.cmd.ProcessState, ExitCrashTool)
	}
}

// --proxy serves another server's tools through a plain SDK client: the same tool
// list, and calls answered by that server's process (a stdio child of the proxy,
// gone when the proxy's session ends).
func TestStdioProxy(t *testing.T) {
	direct := connectStdio(t, nil)
	p := connectStdio(t, nil, "--proxy", Build(t))
	if got, want := toolNames(t, p.session), toolNames(t, direct.session); !slices.Equal(got, want) {
		t.Errorf("proxied tools %v, want %v", got, want)
	}
	if got := resultText(t, callTool(t, p.session, "echo", map[string]any{"text": "via proxy"})); got != "via proxy" {
		t.Errorf("echo = %q", got)
	}
	child, err := strconv.Atoi(resultText(t, callTool(t, p.session, "pid", map[string]any{})))
	if err != nil || child == p.cmd.Process.Pid {
		t.Fatalf("pid through the proxy = %d (%v); the proxy itself is %d", child, err, p.cmd.Process.Pid)
	}
	p.session.Close()
	testenv.WaitFor(t, "the proxied server to exit with the proxy", 10*time.Second, func() bool { return !ProcessAlive(child) })
}

// --resource-link lists one resource; the link tool links to it and embeds it.
func TestStdioResourceLink(t *testing.T) {
	p := connectStdio(t, nil, "--resource-link")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := p.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://testserver/readme"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "readme of pid "+strconv.Itoa(p.cmd.Process.Pid) {
		t.Fatalf("read: %v %+v", err, res)
	}
	out := callTool(t, p.session, "link", map[string]any{})
	if len(out.Content) != 3 {
		t.Fatalf("link: %d blocks, want 3", len(out.Content))
	}
	if l, ok := out.Content[0].(*mcp.ResourceLink); !ok || l.URI != "test://testserver/readme" {
		t.Errorf("first block %+v, want a link to the readme", out.Content[0])
	}
}
