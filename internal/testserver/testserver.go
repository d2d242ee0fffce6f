// Package testserver builds and drives the misbehaving MCP test server in
// ./cmd/testserver, for use by Switchboard's tests.
//
// Typical use:
//
//	bin := testserver.Build(t)
//	cmd := exec.Command(bin, "--die-after", "2")
//
//	base := testserver.StartHTTP(t, "--require-header", "X-Token=s3cret")
//	endpoint := base + "/mcp" // or base + "/sse" for legacy SSE
//
// The binary is built once per test process into a shared temporary
// directory named after the test process's pid. A package's TestMain that runs
// testenv.Main removes it; otherwise a later Build removes it once the owning
// process has exited.
package testserver

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// ImportPath is the import path of the test server's main package.
const ImportPath = "github.com/switchboard-mcp/switchboard/internal/testserver/cmd/testserver"

// Exit codes of the test server binary.
const (
	ExitCrashAtStart = 2 // --crash-at-start
	ExitCrashTool    = 3 // the crash tool
	ExitDieAfter     = 4 // --die-after N
)

// ListeningPrefix starts the first stdout line of the server in --http mode.
const ListeningPrefix = "LISTENING "

// Build compiles the test server (once per test process, through testenv) and
// returns the path of the binary. It calls tb.Fatal if the build fails.
func Build(tb testing.TB) string {
	tb.Helper()
	return testenv.Build(tb, ImportPath, "testserver")
}

// Command returns an unstarted command running the test server with args.
func Command(tb testing.TB, args ...string) *exec.Cmd {
	tb.Helper()
	return exec.Command(Build(tb), args...)
}

// StartHTTP starts the test server with --http 127.0.0.1:0 plus args, waits
// for its LISTENING line and returns the base URL (http://127.0.0.1:PORT).
// Streamable HTTP is served at base+"/mcp", legacy SSE at base+"/sse".
//
// A tb.Cleanup stops the server: SIGTERM, up to 5s of waiting, then SIGKILL.
// The server's stderr is logged if the test failed.
func StartHTTP(tb testing.TB, args ...string) (baseURL string) {
	tb.Helper()
	return StartHTTPServer(tb, args...).URL
}

// HTTPServer is a test server started by StartHTTPServer.
type HTTPServer struct {
	URL  string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT: "--http", Addr in the args of another one serves there
	cmd  *exec.Cmd
	done chan error // Wait's result, once
}

// Kill ends the server at once (SIGKILL), as a crash or an OOM kill does, and waits
// for it to exit. Once.
func (s *HTTPServer) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
	s.done <- nil // for the cleanup's stop
}

// StartHTTPServer is StartHTTP returning the server itself, which a test may kill.
// A later "--http ADDR" in args wins over the first: StartHTTPServer(tb, "--http",
// killed.Addr) starts a server where a killed one was.
func StartHTTPServer(tb testing.TB, args ...string) *HTTPServer {
	tb.Helper()
	bin := Build(tb)
	cmd := exec.Command(bin, append([]string{"--http", "127.0.0.1:0"}, args...)...)

	// Use an explicit pipe rather than cmd.StdoutPipe so the reader may keep
	// draining after Wait without racing it.
	pr, pw, err := os.Pipe()
	if err != nil {
		tb.Fatalf("pipe: %v", err)
	}
	stderr := &testenv.Buffer{}
	cmd.Stdout = pw
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		tb.Fatalf("starting test server: %v", err)
	}
	pw.Close()

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	tb.Cleanup(func() {
		stop(cmd, waitErr)
		if tb.Failed() {
			tb.Logf("test server (--http) stderr:\n%s", stderr.String())
		}
	})

	lines := make(chan string, 1)
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), ListeningPrefix) {
				lines <- strings.TrimPrefix(sc.Text(), ListeningPrefix)
				sent = true
			}
			// Keep draining so the server never blocks on stdout.
		}
		if !sent {
			close(lines)
		}
		_, _ = io.Copy(io.Discard, pr) // in case a line was too long to scan
	}()

	select {
	case u, ok := <-lines:
		if !ok {
			tb.Fatalf("test server exited before listening; stderr:\n%s", stderr.String())
		}
		u = strings.TrimSpace(u)
		return &HTTPServer{URL: u, Addr: strings.TrimPrefix(u, "http://"), cmd: cmd, done: waitErr}
	case <-time.After(10 * time.Second):
		tb.Fatalf("test server did not print %q within 10s; stderr:\n%s", ListeningPrefix, stderr.String())
	}
	return nil
}

// stop sends SIGTERM, waits up to 5s, then SIGKILLs and waits again.
func stop(cmd *exec.Cmd, waitErr <-chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-waitErr:
		return
	case <-time.After(5 * time.Second):
	}
	_ = cmd.Process.Kill()
	select {
	case <-waitErr:
	case <-time.After(5 * time.Second):
	}
}

// ProcessAlive reports whether process pid exists and is not a zombie,
// according to /proc (Linux only).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Format: "PID (COMM) STATE ...". COMM may contain spaces and
	// parentheses, so the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) == 0 {
		return false
	}
	switch fields[0] {
	case "Z", "X", "x": // zombie or dead
		return false
	}
	return true
}

// ReadPID polls (up to 5s) until path exists and holds a pid, and returns it.
// It calls tb.Fatal on timeout.
func ReadPID(tb testing.TB, path string) int {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); perr == nil && pid > 0 {
				return pid
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no pid in %s after 5s (last error: %v, content %q)", path, err, data)
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stdio is the config of a stdio server that runs the test server with args, with an
// init timeout of 5 s and a tool timeout of 10 s.
func Stdio(tb testing.TB, name string, args ...string) config.Server {
	tb.Helper()
	return config.Server{
		Name:        name,
		Transport:   config.Stdio,
		Command:     Build(tb),
		Args:        args,
		InheritEnv:  true,
		InitTimeout: 5 * time.Second,
		ToolTimeout: 10 * time.Second,
	}
}

// Fast are supervisor options that make a test's lifecycle quick: short backoff,
// no heartbeats, no retries of failed servers, a short grace at stop. Callers
// adjust the copy they get.
func Fast() *upstream.Options {
	return &upstream.Options{
		BackoffBase: 50 * time.Millisecond,
		BackoffMax:  200 * time.Millisecond,
		Heartbeat:   -1,
		RetryFailed: -1,
		StopGrace:   500 * time.Millisecond,
	}
}
