//go:build unix

package upstream_test

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions servers use today; the supervisor passes it on.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// start starts a supervisor and closes it at the end of the test.
func start(t *testing.T, cfg config.Server, opts *upstream.Options) *upstream.Supervisor {
	t.Helper()
	s := upstream.New(cfg, opts)
	t.Cleanup(func() { s.Close() })
	s.Start()
	select {
	case <-s.Settled():
	case <-time.After(15 * time.Second):
		t.Fatalf("server %s did not settle: %+v", cfg.Name, s.Status())
	}
	return s
}

func call(t *testing.T, s *upstream.Supervisor, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return s.Call(ctx, name, raw)
}

func mustText(t *testing.T, s *upstream.Supervisor, name string, args any) string {
	t.Helper()
	res, err := call(t, s, name, args)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("call %s: error result %q", name, tool.Text(res))
	}
	return tool.Text(res)
}

func pidOf(t *testing.T, s *upstream.Supervisor) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(mustText(t, s, "pid", map[string]any{})))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestConnectListCall(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "ts", "--tools", "extra_one,extra_two", "--page-size", "2"), testserver.Fast())
	st := s.Status()
	if st.State != upstream.Ready {
		t.Fatalf("state = %s (%s)", st.State, st.LastError)
	}
	names := map[string]bool{}
	for _, tl := range s.Lists().Tools {
		names[tl.Name] = true
	}
	// Every page of tools/list (page size 2) must be fetched.
	for _, want := range []string{"echo", "add", "sleep", "extra_one", "extra_two", "crash"} {
		if !names[want] {
			t.Errorf("tool %q missing from %v", want, names)
		}
	}
	if got := mustText(t, s, "echo", map[string]any{"text": "héllo"}); got != "héllo" {
		t.Errorf("echo = %q", got)
	}
	res, err := call(t, s, "fail", map[string]any{})
	if err != nil || !res.IsError {
		t.Errorf("fail: res=%v err=%v, want an error result", res, err)
	}
}

// 2026-07-28 is asked for unless told otherwise, and a Go SDK server takes it;
// "latest" gets what the SDK offers first; a version in the server's config
// ("protocolVersion") wins over the options'.
func TestProtocolVersionOption(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ opt, cfg, want string }{
		{"", "", "2026-07-28"},
		{"latest", "", "2026-07-28"},
		{"2025-06-18", "", "2025-06-18"},
		{"", "2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-11-25", "2025-11-25"},
	} {
		o := testserver.Fast()
		o.ProtocolVersion = tc.opt
		cfg := testserver.Stdio(t, "ts")
		cfg.ProtocolVersion = tc.cfg
		s := start(t, cfg, o)
		if got := s.Status().Protocol; got != tc.want {
			t.Errorf("ProtocolVersion %q, config %q: negotiated %q, want %q", tc.opt, tc.cfg, got, tc.want)
		}
		if got := mustText(t, s, "echo", map[string]any{"text": "x"}); got != "x" {
			t.Errorf("ProtocolVersion %q, config %q: echo = %q", tc.opt, tc.cfg, got)
		}
	}
}

func TestKilledServerReconnects(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "victim"), testserver.Fast())
	pid := pidOf(t, s)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait until the process is reaped: a multi-threaded process shows as a zombie
	// while its other threads still hold its files (and so its stdin) open.
	testenv.WaitFor(t, "the killed process to be reaped", 5*time.Second, func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		return err != nil
	})
	// The next call waits for the reconnect and succeeds on a new process.
	if got := mustText(t, s, "echo", map[string]any{"text": "again"}); got != "again" {
		t.Fatalf("echo after kill = %q", got)
	}
	if pid2 := pidOf(t, s); pid2 == pid {
		t.Fatalf("still talking to pid %d", pid)
	}
	st := s.Status()
	if st.Restarts != 1 || st.State != upstream.Ready {
		t.Errorf("status after reconnect = %+v, want ready with 1 restart", st)
	}
	if testserver.ProcessAlive(pid) {
		t.Errorf("killed process %d still alive", pid)
	}
}

func TestHangingInitTimesOut(t *testing.T) {
	t.Parallel()
	cfg := testserver.Stdio(t, "hang", "--hang-init")
	cfg.InitTimeout = 300 * time.Millisecond
	began := time.Now()
	s := start(t, cfg, testserver.Fast())
	st := s.Status()
	if st.State != upstream.Failed {
		t.Fatalf("state = %s, want failed", st.State)
	}
	if !strings.Contains(st.LastError, "no answer to initialize within 300ms") {
		t.Errorf("last error = %q", st.LastError)
	}
	// 3 attempts of 300ms plus two short backoffs, far from unbounded.
	if el := time.Since(began); el > 5*time.Second {
		t.Errorf("settling took %s", el)
	}
	_, err := call(t, s, "echo", map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), "server is failed") {
		t.Errorf("call to failed server: err = %v", err)
	}
}

func TestCrashAtStartFailsWithStderr(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "crasher", "--crash-at-start"), testserver.Fast())
	st := s.Status()
	if st.State != upstream.Failed {
		t.Fatalf("state = %s, want failed", st.State)
	}
	if !strings.Contains(st.LastError, "exited with status 2") {
		t.Errorf("last error = %q, want the exit status", st.LastError)
	}
	joined := strings.Join(st.Stderr, "\n")
	if strings.Count(joined, "fatal: crash requested") != 3 {
		t.Errorf("stderr tail should hold the crash line of each of the 3 attempts:\n%s", joined)
	}
}

// TestNodeCrashAtStartReason: a Node.js server that crashes at start-up fails with
// Node's error as the reason, not with the version banner Node prints last
// ("process exited with status 1 during start-up: Node.js v20.20.2", before).
func TestNodeCrashAtStartReason(t *testing.T) {
	node := testenv.Node(t)
	script := filepath.Join(t.TempDir(), "server.js")
	if err := os.WriteFile(script, []byte("require('no-such-module-xyz');\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Server{Name: "nodey", Transport: config.Stdio, Command: node, Args: []string{script}, InheritEnv: true, InitTimeout: 10 * time.Second}
	s := start(t, cfg, testserver.Fast())
	st := s.Status()
	want := "process exited with status 1 during start-up: Error: Cannot find module 'no-such-module-xyz'"
	if st.State != upstream.Failed || st.LastError != want {
		t.Errorf("status = %s %q, want failed %q\nstderr:\n%s", st.State, st.LastError, want, strings.Join(st.Stderr, "\n"))
	}
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	cfg := config.Server{Name: "ghost", Transport: config.Stdio, Command: "no-such-command-xyz", InheritEnv: true}
	s := start(t, cfg, testserver.Fast())
	if st := s.Status(); st.State != upstream.Failed || st.LastError != "command not found: no-such-command-xyz" {
		t.Fatalf("status = %+v", st)
	}
}

func TestDiesAfterNCalls(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "mortal", "--die-after", "2"), testserver.Fast())
	for i := 0; i < 5; i++ {
		// Calls 1 and 2 are answered before the process exits; the following ones
		// wait for the reconnect (the process dies after every second call).
		if got := mustText(t, s, "echo", map[string]any{"text": strconv.Itoa(i)}); got != strconv.Itoa(i) {
			t.Fatalf("call %d = %q", i, got)
		}
	}
	testenv.WaitFor(t, "a restart", 5*time.Second, func() bool { return s.Status().Restarts >= 1 })
}

func TestCallInFlightWhenServerDies(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "crashy"), testserver.Fast())
	res, err := call(t, s, "crash", map[string]any{})
	if err == nil {
		t.Fatalf("crash call returned %v, want an error", tool.Text(res))
	}
	if !strings.Contains(err.Error(), "connection lost during the call") || !strings.Contains(err.Error(), "exited with status 3") {
		t.Errorf("err = %v", err)
	}
	// And the server comes back.
	if got := mustText(t, s, "echo", map[string]any{"text": "back"}); got != "back" {
		t.Fatalf("echo after crash = %q", got)
	}
}

func TestGarbageOnStdout(t *testing.T) {
	t.Parallel()
	s := start(t, testserver.Stdio(t, "noisy", "--garbage"), testserver.Fast())
	if st := s.Status(); st.State != upstream.Ready {
		t.Fatalf("state = %s (%s)", st.State, st.LastError)
	}
	for i := 0; i < 3; i++ {
		if got := mustText(t, s, "echo", map[string]any{"text": "clean"}); got != "clean" {
			t.Fatalf("echo = %q", got)
		}
	}
}

func TestTwentyMegabyteResult(t *testing.T) {
	t.Parallel()
	// Under the race detector, on a busy 2-core machine, 20 MB through the SDK's
	// decoders takes 5-10 s: the test is about size, not speed.
	cfg := testserver.Stdio(t, "big")
	cfg.ToolTimeout = time.Minute
	s := start(t, cfg, testserver.Fast())
	const size = 20 << 20
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Call(ctx, "big", json.RawMessage(fmt.Sprintf(`{"bytes": %d}`, size)))
	if err != nil || res.IsError {
		t.Fatalf("big: %v %v", err, res)
	}
	if got := tool.Text(res); len(got) != size || strings.Trim(got, "x") != "" {
		t.Fatalf("big result: %d bytes, want %d of 'x'", len(got), size)
	}
}

// TestRequestTooLargeForTheServer: a request larger than a stdio server reads (the
// SDK's 16 MiB a line) ends in an error that says the server closed the connection
// on it, with the reason it gave as it exited; it was "write |1: broken pipe".
func TestRequestTooLargeForTheServer(t *testing.T) {
	cfg := testserver.Stdio(t, "small")
	cfg.ToolTimeout = time.Minute
	s := start(t, cfg, testserver.Fast())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args, _ := json.Marshal(map[string]any{"text": strings.Repeat("x", 17<<20)})
	_, err := s.Call(ctx, "echo", args)
	if err == nil || !strings.HasPrefix(err.Error(), "the server closed the connection on a 17.0 MB request (process exited with status ") ||
		!strings.Contains(err.Error(), "exceeded the configured maximum line length") || strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("err = %v", err)
	}
	// The server comes back for the next call.
	if got := mustText(t, s, "echo", map[string]any{"text": "small"}); got != "small" {
		t.Fatalf("echo after = %q", got)
	}
}

// transportCase is the test server on one transport.
type transportCase struct {
	name   string
	server func(t *testing.T) config.Server
}

// everyTransport is the test server, named name, over stdio, Streamable HTTP (where
// every request after initialize must say its protocol version, as the spec asks)
// and legacy SSE.
func everyTransport(name string) []transportCase {
	return []transportCase{
		{"stdio", func(t *testing.T) config.Server { return testserver.Stdio(t, name) }},
		{"http", func(t *testing.T) config.Server {
			url := testserver.StartHTTP(t, "--require-protocol-header")
			return config.Server{Name: name, Transport: config.HTTP, URL: url + "/mcp"}
		}},
		{"sse", func(t *testing.T) config.Server {
			return config.Server{Name: name, Transport: config.SSE, URL: testserver.StartHTTP(t) + "/sse"}
		}},
	}
}

// A server's tools/list_changed reaches the supervisor over every transport, over
// Streamable HTTP on the standalone stream: the server's tools change after the call
// that changed them has been answered, so that the notification is unrelated to any
// request.
func TestToolsListChanged(t *testing.T) {
	t.Parallel()
	for _, tc := range everyTransport("growing") {
		t.Run(tc.name, func(t *testing.T) {
			events := make(chan upstream.Event, 16)
			opts := testserver.Fast()
			opts.ListChangedDebounce = 20 * time.Millisecond
			opts.OnEvent = func(e upstream.Event) {
				if e.ToolsChanged {
					events <- e
				}
			}
			s := start(t, tc.server(t), opts)
			select {
			case <-events: // the initial listing
			case <-time.After(5 * time.Second):
				t.Fatalf("no initial listing: %+v", s.Status())
			}
			mustText(t, s, "add_tool_later", map[string]any{"name": "brand_new"})
			select {
			case <-events:
			case <-time.After(5 * time.Second):
				t.Fatal("no tools-changed event after add_tool_later")
			}
			found := false
			for _, tl := range s.Lists().Tools {
				found = found || tl.Name == "brand_new"
			}
			if !found {
				t.Fatal("brand_new not in the re-listed tools")
			}
			if got := mustText(t, s, "brand_new", map[string]any{"text": "hi"}); got != "hi" {
				t.Errorf("brand_new = %q", got)
			}
		})
	}
}

func TestHeartbeatDetectsHungServer(t *testing.T) {
	t.Parallel()
	opts := testserver.Fast()
	opts.Heartbeat = 150 * time.Millisecond
	s := start(t, testserver.Stdio(t, "frozen"), opts)
	pid := pidOf(t, s)
	// A stopped process keeps its pipes open: only the heartbeat can notice.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	testenv.WaitFor(t, "a reconnect after missed heartbeats", 10*time.Second, func() bool {
		st := s.Status()
		return st.Restarts >= 1 && st.State == upstream.Ready
	})
	if pid2 := pidOf(t, s); pid2 == pid {
		t.Fatal("still on the frozen process")
	}
	testenv.WaitFor(t, "the frozen process group to be killed", 5*time.Second, func() bool { return !testserver.ProcessAlive(pid) })
}

func TestHeartbeatErrorReplyCountsAsAlive(t *testing.T) {
	// Servers of the 2026-07-28 era have no ping: they answer it with a JSON-RPC
	// error. An answer is an answer, so no reconnect may happen. Not in parallel: a
	// probe waits half the 50 ms heartbeat, which a parallel test's load may exceed.
	opts := testserver.Fast()
	opts.Heartbeat = 50 * time.Millisecond
	s := start(t, testserver.Stdio(t, "modern", "--no-ping"), opts)
	// The server says so on stderr for each ping it refuses; two missed probes in a
	// row would reconnect.
	testenv.WaitFor(t, "four refused pings", 5*time.Second, func() bool {
		return strings.Count(strings.Join(s.Status().Stderr, "\n"), "testserver: ping refused") >= 4
	})
	if st := s.Status(); st.Restarts != 0 || st.State != upstream.Ready {
		t.Fatalf("status = %+v, want ready without restarts", st)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	tests := []struct {
		name string
		args []string
	}{
		{"exits on stdin EOF", nil},
		{"ignores stdin EOF", []string{"--ignore-stdin-eof"}},
		{"ignores SIGTERM too", []string{"--ignore-stdin-eof", "--ignore-sigterm"}},
		{"leaves a grandchild", []string{"--grandchild"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pf := fmt.Sprintf("%s.%d", pidfile, i)
			args := append([]string{"--pidfile", pf}, tt.args...)
			s := upstream.New(testserver.Stdio(t, "tidy", args...), testserver.Fast())
			s.Start()
			select {
			case <-s.Settled():
			case <-time.After(15 * time.Second):
				t.Fatalf("server did not settle: %+v", s.Status())
			}
			if st := s.Status(); st.State != upstream.Ready {
				t.Fatalf("state = %s (%s)", st.State, st.LastError)
			}
			pids := []int{testserver.ReadPID(t, pf)}
			if tt.args != nil && tt.args[0] == "--grandchild" {
				pids = append(pids, testserver.ReadPID(t, pf+".grandchild"))
			}
			s.Close()
			for _, pid := range pids {
				if testserver.ProcessAlive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d survived Close", pid)
				}
			}
			if st := s.Status(); st.State != upstream.Closed {
				t.Errorf("state after Close = %s", st.State)
			}
		})
	}
}

func TestRetryFailedHeals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gate := filepath.Join(dir, "broken")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A wrapper that crashes while the gate file exists.
	script := fmt.Sprintf("if [ -e %q ]; then echo broken >&2; exit 7; fi; exec %q", gate, testserver.Build(t))
	cfg := config.Server{Name: "phoenix", Transport: config.Stdio, Command: "sh", Args: []string{"-c", script}, InheritEnv: true, InitTimeout: 3 * time.Second}
	opts := testserver.Fast()
	opts.RetryFailed = 200 * time.Millisecond
	s := start(t, cfg, opts)
	if st := s.Status(); st.State != upstream.Failed || !strings.Contains(st.LastError, "exited with status 7 during start-up: broken") {
		t.Fatalf("status = %+v", st)
	}
	os.Remove(gate)
	testenv.WaitFor(t, "the failed server to heal", 10*time.Second, func() bool { return s.State() == upstream.Ready })
}

func TestCallTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	cfg := testserver.Stdio(t, "slow")
	cfg.ToolTimeout = 200 * time.Millisecond
	s := start(t, cfg, testserver.Fast())
	_, err := call(t, s, "sleep", map[string]any{"ms": 5000})
	if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancelled once the server runs it (its second "sleep started"), so that the
		// cancellation has a call under way to reach.
		defer cancel()
		for ctx.Err() == nil && strings.Count(strings.Join(s.Status().Stderr, "\n"), "sleep started") < 2 {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err = s.Call(ctx, "sleep", json.RawMessage(`{"ms": 5000}`))
	if err != context.Canceled {
		t.Fatalf("cancelled call: err = %v", err)
	}
	// notifications/cancelled reached the server: its sleep tool says so on stderr
	// (both the timed-out and the cancelled call).
	testenv.WaitFor(t, "the server to see both cancellations", 5*time.Second, func() bool {
		return strings.Count(strings.Join(s.Status().Stderr, "\n"), "sleep cancelled after") == 2
	})
	// And it stays usable: no reconnect needed.
	if got := mustText(t, s, "echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Fatal(got)
	}
	if st := s.Status(); st.Restarts != 0 {
		t.Errorf("restarts = %d", st.Restarts)
	}
}

func TestEnvironmentPolicy(t *testing.T) {
	t.Setenv("SWITCHBOARD_TEST_HOST_VAR", "from-host")
	for _, inherit := range []bool{true, false} {
		t.Run(fmt.Sprint("inherit=", inherit), func(t *testing.T) {
			cfg := config.Server{
				Name: "env", Transport: config.Stdio, Command: "sh",
				Args:       []string{"-c", `echo "host=$SWITCHBOARD_TEST_HOST_VAR declared=$DECLARED" >&2; exec "$0"`, testserver.Build(t)},
				Env:        map[string]string{"DECLARED": "yes"},
				InheritEnv: inherit,
			}
			s := start(t, cfg, testserver.Fast())
			want := "host= declared=yes"
			if inherit {
				want = "host=from-host declared=yes"
			}
			if tail := strings.Join(s.Status().Stderr, "\n"); !strings.Contains(tail, want) {
				t.Fatalf("child saw %q, want %q", tail, want)
			}
		})
	}
}

func TestHTTPAndSSEWithHeaders(t *testing.T) {
	t.Parallel()
	base := testserver.StartHTTP(t, "--require-header", "X-Api-Key=k3y-value")
	for _, tc := range []struct {
		transport config.Transport
		path      string
	}{{config.SSE, "/sse"}, {config.HTTP, "/mcp"}} {
		t.Run(string(tc.transport), func(t *testing.T) {
			cfg := config.Server{Name: "remote", Transport: tc.transport, URL: base + tc.path, Headers: map[string]string{"X-Api-Key": "k3y-value"}, InitTimeout: 3 * time.Second}
			s := start(t, cfg, testserver.Fast())
			if got := mustText(t, s, "echo", map[string]any{"text": "over " + string(tc.transport)}); got != "over "+string(tc.transport) {
				t.Fatalf("echo = %q", got)
			}
			// Without the header the server refuses.
			cfg.Headers = nil
			bad := start(t, cfg, testserver.Fast())
			if st := bad.Status(); st.State != upstream.Failed {
				t.Fatalf("without header: state = %s", st.State)
			}
		})
	}
}

// logPeer records the sizes of the log messages a supervisor hands it.
type logPeer struct {
	mu   sync.Mutex
	logs []int
}

func (p *logPeer) Request(context.Context, string, string, mcp.Params) (mcp.Result, error) {
	return nil, errors.New("not answered here")
}

func (p *logPeer) Notify(_ context.Context, _, method string, params mcp.Params) {
	if lp, ok := params.(*mcp.LoggingMessageParams); ok && method == relay.NotificationLog {
		s, _ := lp.Data.(string)
		p.mu.Lock()
		p.logs = append(p.logs, len(s))
		p.mu.Unlock()
	}
}

// A call's log messages reach the Peer before the call returns, on every transport,
// however long they are: a log line far longer than what is decoded to count it
// (over stdio a line, over HTTP and SSE an event) is counted by its method.
func TestLogMessagesComeBeforeTheResult(t *testing.T) {
	t.Parallel()
	for _, tc := range everyTransport("logs") {
		t.Run(tc.name, func(t *testing.T) {
			peer := &logPeer{}
			opts := testserver.Fast()
			opts.Peer = peer
			s := start(t, tc.server(t), opts)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := s.SetLogLevel(ctx, "info"); err != nil {
				t.Fatal(err)
			}
			var want []int
			for range 5 {
				for _, size := range []int{10, 300 << 10} {
					mustText(t, s, "log", map[string]any{"bytes": size})
					want = append(want, size)
					peer.mu.Lock()
					got := slices.Clone(peer.logs)
					peer.mu.Unlock()
					if !slices.Equal(got, want) {
						t.Fatalf("when the call of a %d-byte log returned, the peer had logs of %v bytes; want %v", size, got, want)
					}
				}
			}
		})
	}
}

// After a reconnect the supervisor asks the new process for the log level set
// before: the test server logs only to a client that set one.
func TestReconnectRestoresLogLevel(t *testing.T) {
	t.Parallel()
	peer := &logPeer{}
	opts := testserver.Fast()
	opts.Peer = peer
	s := start(t, testserver.Stdio(t, "forgetful"), opts)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.SetLogLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, s)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "a reconnect", 10*time.Second, func() bool {
		st := s.Status()
		return st.Restarts == 1 && st.State == upstream.Ready
	})
	if pid2 := pidOf(t, s); pid2 == pid {
		t.Fatalf("still talking to pid %d", pid)
	}
	mustText(t, s, "log", map[string]any{"bytes": 10})
	peer.mu.Lock()
	got := slices.Clone(peer.logs)
	peer.mu.Unlock()
	if !slices.Equal(got, []int{10}) {
		t.Fatalf("after the reconnect the peer had logs of %v bytes, want [10]", got)
	}
}

// After a reconnect the supervisor subscribes again to the resources it was
// subscribed to. (The test server has no subscriptions: this server is in-process.)
// Not in parallel: its probes wait 25 ms, and a miss under a parallel test's load
// would add a reconnect.
func TestReconnectRestoresSubscriptions(t *testing.T) {
	subs := make(chan string, 4)
	server := mcp.NewServer(&mcp.Implementation{Name: "subscribable", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			subs <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(server, &mcp.Tool{Name: "noop"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	server.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "doc"}}}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(hs.Close)
	opts := testserver.Fast()
	opts.Heartbeat = 50 * time.Millisecond
	s := start(t, config.Server{Name: "subscribable", Transport: config.HTTP, URL: hs.URL}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.Subscribe(ctx, "test://doc"); err != nil {
		t.Fatal(err)
	}
	if got := <-subs; got != "test://doc" {
		t.Fatalf("subscribed to %q", got)
	}
	// The server forgets the session: the next heartbeat finds it gone, and the
	// supervisor reconnects.
	for ss := range server.Sessions() {
		ss.Close()
	}
	select {
	case got := <-subs:
		if got != "test://doc" {
			t.Fatalf("subscribed again to %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no subscription after the reconnect: %+v", s.Status())
	}
	testenv.WaitFor(t, "the reconnect to finish", 10*time.Second, func() bool {
		st := s.Status()
		return st.Restarts == 1 && st.State == upstream.Ready
	})
}

// connCounter counts the TCP connections an httptest server accepts and closes.
type connCounter struct{ opened, closed atomic.Int64 }

func (c *connCounter) track(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		c.opened.Add(1)
	case http.StateClosed, http.StateHijacked:
		c.closed.Add(1)
	}
}

// countedServer serves server over Streamable HTTP on loopback, counting
// connections.
func countedServer(t *testing.T, server *mcp.Server) (string, *connCounter) {
	t.Helper()
	var conns connCounter
	hs := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	hs.Config.ConnState = conns.track
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL, &conns
}

// A call's context ends as soon as its result is in (a gateway's does: its client
// has been answered). That used to cost the connection whenever the end of the
// result's event stream had not yet been read, so that calls kept dialling new
// ones: about one call in sixteen under concurrency, each leaving a socket in
// TIME_WAIT. Connections are now kept: 400 calls from 8 callers use a few. Not in
// parallel: how many a caller dials depends on how soon net/http's goroutines run.
func TestCallsKeepTheirConnections(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "echoes", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	url, conns := countedServer(t, server)
	s := start(t, config.Server{Name: "echoes", Transport: config.HTTP, URL: url}, testserver.Fast())
	const callers, calls = 8, 400
	opened := conns.opened.Load()
	echo := func(context.Context) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // at once with the result, as the gateway's does
		res, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"hi"}`))
		if err == nil && tool.Text(res) != "hi" {
			err = fmt.Errorf("echo = %q", tool.Text(res))
		}
		return err
	}
	if err := testenv.RunCalls(context.Background(), calls, testenv.Repeat(echo, callers)); err != nil {
		t.Fatal(err)
	}
	// Each caller needs a connection of its own at most, and the server's event
	// stream one; the pool keeps them all. A caller whose next call starts before its
	// last connection is back in the pool (net/http returns it on another goroutine)
	// dials one more now and then: 10 in about one run of eight under -race. Losing
	// connections, as before, opened 26 to 38.
	if n := conns.opened.Load() - opened; n > 2*callers {
		t.Errorf("%d calls from %d callers opened %d connections (%d closed)", calls, callers, n, conns.closed.Load())
	}
}

// A cancelled call whose server keeps its event stream open does not hold its
// connection for longer than the drain allows: the call returns at once, and the
// connection is closed while the tool still runs.
func TestCancelledStreamIsClosed(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "stubborn", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "stubborn"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		// A ping on the call's stream: the response has begun when the call is
		// cancelled, so the stream has to be drained or dropped.
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, nil, err
		}
		started <- struct{}{}
		<-release // ignores its cancellation
		return &mcp.CallToolResult{}, nil, nil
	})
	url, conns := countedServer(t, server)
	defer close(release) // before the server's Close, which waits for the tool
	s := start(t, config.Server{Name: "stubborn", Transport: config.HTTP, URL: url}, testserver.Fast())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "stubborn", json.RawMessage(`{}`))
		errc <- err
	}()
	<-started
	closed := conns.closed.Load()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	testenv.WaitFor(t, "the cancelled call's connection to close", 5*time.Second, func() bool {
		return conns.closed.Load() > closed
	})
}

// A request under way over HTTP ends with its connection: when the supervisor
// closes, and when a heartbeat finds the server hung. It used to wait for its answer
// (or its tool timeout, a minute here) after the connection had been given up, and
// the session's closing waited for it in turn. Both kinds of request: a tool call
// (Call) and any other (Do, here prompts/get). (Whether the server hears of the
// cancellation is the SDK's affair: it sends notifications/cancelled on a goroutine
// of its own, which a session already closing refuses.)
func TestRequestsEndWithTheirConnection(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"close", "hung server"} {
		t.Run(how, func(t *testing.T) {
			started := make(chan struct{}, 2)
			release := make(chan struct{}) // closed when the test ends
			// wait is the tool's and the prompt's handler.
			wait := func(ctx context.Context) error {
				started <- struct{}{}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-release:
					return nil
				}
			}
			server := mcp.NewServer(&mcp.Implementation{Name: "patient", Version: "1"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, wait(ctx)
			})
			server.AddPrompt(&mcp.Prompt{Name: "wait"}, func(ctx context.Context, _ *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, wait(ctx)
			})
			// frozen makes the server hang: every HTTP request waits until its client
			// gives up, or the test ends.
			var frozen atomic.Bool
			sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if frozen.Load() {
					select {
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				sdk.ServeHTTP(w, r)
			}))
			// At the end: release the handlers and the frozen requests, close the
			// server's sessions (which wait for the handlers), then the HTTP server
			// (which waits for its requests).
			t.Cleanup(hs.Close)
			t.Cleanup(func() {
				for ss := range server.Sessions() {
					ss.Close()
				}
			})
			t.Cleanup(func() { close(release) })
			opts := testserver.Fast()
			if how == "hung server" {
				opts.Heartbeat = 200 * time.Millisecond
			}
			s := start(t, config.Server{Name: "patient", Transport: config.HTTP, URL: hs.URL, ToolTimeout: time.Minute}, opts)
			errs := make(chan error, 2)
			go func() {
				_, err := s.Call(context.Background(), "wait", json.RawMessage(`{}`))
				errs <- err
			}()
			go func() {
				errs <- s.Do(context.Background(), func(ctx context.Context, cs *mcp.ClientSession) error {
					_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "wait"})
					return err
				})
			}()
			<-started
			<-started
			// The close ends them at once; a hung server after two missed heartbeats.
			within := 2 * time.Second
			switch how {
			case "close":
				go s.Close()
			case "hung server":
				frozen.Store(true)
				within = 10 * time.Second
			}
			for range 2 {
				select {
				case err := <-errs:
					if err == nil || !strings.Contains(err.Error(), "connection lost during the") {
						t.Errorf("request: err = %v, want the connection lost", err)
					}
				case <-time.After(within):
					t.Fatalf("a request still waits %s later", within)
				}
			}
		})
	}
}

// An HTTP server that dies leaves "ready" (issue 34): the heartbeat counts a request
// the transport could not deliver as a miss, and the server reconnects, with backoff,
// until one takes its place. The SDK hands a refused connection back as a JSON-RPC
// error ("rejected by transport"), which used to count as the server's reply: a
// killed server stayed ready for good. Each transport, and Streamable HTTP with and
// without a session (a stateless server has no GET stream to lose).
func TestKilledHTTPServerLeavesReady(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		transport config.Transport
		path      string
		flags     []string
	}{
		{"stateless", config.HTTP, "/mcp", []string{"--stateless"}},
		{"session", config.HTTP, "/mcp", nil},
		{"sse", config.SSE, "/sse", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := testserver.StartHTTPServer(t, tc.flags...)
			opts := testserver.Fast()
			opts.Heartbeat = 100 * time.Millisecond
			opts.RetryFailed = 100 * time.Millisecond
			s := start(t, config.Server{Name: "remote", Transport: tc.transport, URL: srv.URL + tc.path, InitTimeout: 5 * time.Second}, opts)
			if got := mustText(t, s, "echo", map[string]any{"text": "up"}); got != "up" {
				t.Fatalf("echo = %q", got)
			}
			srv.Kill()
			testenv.WaitFor(t, "the killed server to leave ready", 10*time.Second, func() bool {
				return s.State() != upstream.Ready
			})
			if st := s.Status(); st.LastError == "" {
				t.Errorf("status %+v says nothing of why", st)
			}
			testserver.StartHTTPServer(t, append(tc.flags, "--http", srv.Addr)...)
			testenv.WaitFor(t, "the server to come back", 15*time.Second, func() bool {
				return s.State() == upstream.Ready
			})
			if got := mustText(t, s, "echo", map[string]any{"text": "again"}); got != "again" {
				t.Fatalf("echo after the restart = %q", got)
			}
		})
	}
}

// A call to an HTTP server that died fails and takes the server out of "ready" at
// once, without a heartbeat: a refused connection gives the connection up (the call,
// which never left, waits for the reconnect, which fails here). It used to leave the
// server ready, every call refused.
func TestCallToKilledHTTPServer(t *testing.T) {
	t.Parallel()
	for _, stateless := range []bool{true, false} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			t.Parallel()
			var flags []string
			if stateless {
				flags = append(flags, "--stateless")
			}
			srv := testserver.StartHTTPServer(t, flags...)
			s := start(t, config.Server{Name: "remote", Transport: config.HTTP, URL: srv.URL + "/mcp", InitTimeout: 5 * time.Second}, testserver.Fast())
			srv.Kill()
			_, err := call(t, s, "echo", map[string]any{"text": "anyone?"})
			if err == nil || !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("call to the killed server: %v, want an error that says the connection was refused", err)
			}
			if st := s.Status(); st.State == upstream.Ready || st.Restarts != 1 {
				t.Errorf("after the call: %s, %d restarts (%s); want it out of ready, 1 restart", st.State, st.Restarts, st.LastError)
			}
		})
	}
}
