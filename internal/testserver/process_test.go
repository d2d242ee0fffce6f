//go:build unix

package testserver

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n"

// rawPeer is a test server started with plain pipes, no MCP client.
type rawPeer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout lines; closed at EOF
	stderr *testenv.Buffer
	done   chan struct{} // closed when Wait returned
	err    error         // Wait's result, valid after done
}

// startRaw starts the test server with args. Cleanup kills it if still running.
func startRaw(t *testing.T, args ...string) *rawPeer {
	t.Helper()
	p := &rawPeer{
		cmd:    Command(t, args...),
		lines:  make(chan string, 100),
		stderr: &testenv.Buffer{},
		done:   make(chan struct{}),
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = pw
	p.cmd.Stderr = p.stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		defer close(p.lines)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 64<<20) // room for the 20 MB big result
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("test server stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// nextLine returns the next stdout line, failing after 5s or at EOF.
func (p *rawPeer) nextLine(t *testing.T) string {
	t.Helper()
	return p.lineWithin(t, 5*time.Second)
}

// lineWithin is nextLine with its own bound, for a line that takes long to make.
func (p *rawPeer) lineWithin(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		return l
	case <-time.After(d):
		t.Fatalf("no stdout line within %s", d)
	}
	return ""
}

// wait waits up to d for the process to exit and returns its exit code
// (-1 for death by signal); it fails the test on timeout.
func (p *rawPeer) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return exitCode(p.err)
	case <-time.After(d):
		t.Fatalf("process still running after %v", d)
	}
	return 0
}

// running reports whether the process is still running after d.
func (p *rawPeer) running(d time.Duration) bool {
	select {
	case <-p.done:
		return false
	case <-time.After(d):
		return true
	}
}

func TestCrashAtStart(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	cmd := Command(t, "--crash-at-start", "--pidfile", pidfile)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if got := exitCode(err); got != ExitCrashAtStart {
		t.Errorf("exit code = %d (%v), want %d", got, err, ExitCrashAtStart)
	}
	if !strings.Contains(stderr.String(), "fatal: crash requested") || strings.Count(stderr.String(), "\n") < 2 {
		t.Errorf("stderr = %q", stderr.String())
	}
	if pid := ReadPID(t, pidfile); pid != cmd.Process.Pid {
		t.Errorf("pidfile = %d, want %d", pid, cmd.Process.Pid)
	}
}

func TestExitOnStdinEOF(t *testing.T) {
	p := startRaw(t)
	p.stdin.Close()
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestGrandchild(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	p := startRaw(t, "--grandchild", "--pidfile", pidfile)
	if pid := ReadPID(t, pidfile); pid != p.cmd.Process.Pid {
		t.Errorf("pidfile = %d, want %d", pid, p.cmd.Process.Pid)
	}
	gc := ReadPID(t, pidfile+".grandchild")
	t.Cleanup(func() { _ = syscall.Kill(gc, syscall.SIGKILL) })
	if !ProcessAlive(gc) {
		t.Fatal("grandchild not alive")
	}
	// Same process group as the server.
	if gcg, sg := mustPgid(t, gc), mustPgid(t, p.cmd.Process.Pid); gcg != sg {
		t.Errorf("grandchild pgid = %d, want the server's group %d", gcg, sg)
	}
	p.stdin.Close()
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	// The server is gone; its grandchild is orphaned but alive.
	if !ProcessAlive(gc) {
		t.Error("grandchild died with the server")
	}
	if err := syscall.Kill(gc, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ProcessAlive(gc) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ProcessAlive(gc) {
		t.Error("grandchild alive after SIGKILL")
	}
}

func mustPgid(t *testing.T, pid int) int {
	t.Helper()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatalf("getpgid(%d): %v", pid, err)
	}
	return pgid
}

func TestProcessAlive(t *testing.T) {
	if !ProcessAlive(os.Getpid()) {
		t.Error("self not alive")
	}
	if ProcessAlive(0) || ProcessAlive(-1) || ProcessAlive(1<<30) {
		t.Error("bogus pid alive")
	}
	// An unreaped child is a zombie: not alive.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for ProcessAlive(cmd.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ProcessAlive(cmd.Process.Pid) {
		t.Error("exited (zombie) child reported alive")
	}
}

func TestHangInit(t *testing.T) {
	p := startRaw(t, "--hang-init")
	if _, err := io.WriteString(p.stdin, initializeRequest); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-p.lines:
		t.Fatalf("hung server wrote %q", l)
	case <-time.After(300 * time.Millisecond):
	}
	if !p.running(0) {
		t.Fatal("hung server exited")
	}
	p.stdin.Close()
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestGarbage(t *testing.T) {
	p := startRaw(t, "--garbage")
	if l := p.nextLine(t); l != "Server starting..." {
		t.Errorf("first line = %q", l)
	}
	if _, err := io.WriteString(p.stdin, initializeRequest); err != nil {
		t.Fatal(err)
	}
	if l := p.nextLine(t); l != "debug: garbage" {
		t.Errorf("line before response = %q", l)
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	l := p.nextLine(t)
	if err := json.Unmarshal([]byte(l), &resp); err != nil || resp.ID != 1 || resp.Result.ProtocolVersion != "2025-11-25" {
		t.Errorf("response = %q (%v)", l, err)
	}
	p.stdin.Close()
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestIgnoreSigterm(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	p := startRaw(t, "--ignore-sigterm", "--pidfile", pidfile)
	ReadPID(t, pidfile) // the disposition is set before the pidfile is written
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !p.running(300 * time.Millisecond) {
		t.Fatalf("server died on SIGTERM: %v", p.err)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 5*time.Second)
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("process state = %v, want killed by SIGKILL", p.cmd.ProcessState)
	}
}

func TestIgnoreStdinEOF(t *testing.T) {
	p := startRaw(t, "--ignore-stdin-eof")
	p.stdin.Close()
	if !p.running(300 * time.Millisecond) {
		t.Fatalf("server exited on stdin EOF: %v", p.err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 5*time.Second)
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGTERM {
		t.Errorf("process state = %v, want killed by SIGTERM", p.cmd.ProcessState)
	}
}

// The SDK client caps inbound stdio frames at 16 MiB, so the 20 MB result
// Switchboard must handle is checked with raw JSON-RPC.
func TestBig20MBRaw(t *testing.T) {
	const n = 20 << 20
	p := startRaw(t)
	msgs := initializeRequest +
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{"bytes":20971520}}}` + "\n"
	if _, err := io.WriteString(p.stdin, msgs); err != nil {
		t.Fatal(err)
	}
	p.nextLine(t) // initialize result
	// Making, writing and reading 20 MB under -race took over 5 s on a busy 2-core machine.
	l := p.lineWithin(t, time.Minute)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(l), &resp); err != nil {
		t.Fatalf("decoding %d-byte response: %v", len(l), err)
	}
	if resp.ID != 2 || len(resp.Result.Content) != 1 || len(resp.Result.Content[0].Text) != n {
		t.Errorf("big: id %d, %d blocks, line %d bytes; want one %d-byte text", resp.ID, len(resp.Result.Content), len(l), n)
	}
	p.stdin.Close()
	if code := p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}
