//go:build unix

package proof

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// nodeEnv is the environment of a subprocess in sb: built from scratch (nothing such as
// SWITCHBOARD_CONFIG or CI leaks in from the test's own; see [testenv.Sandbox.Env]),
// with node 22 first on PATH.
func nodeEnv(sb *testenv.Sandbox, node22 string) []string {
	return testenv.Node22Env(node22, sb.Env())
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// server is an HTTP server subprocess (the gateway or the everything-server).
type server struct {
	t    *testing.T
	name string
	addr string // host:port it listens on
	cmd  *exec.Cmd
	out  testenv.Buffer // stdout and stderr
	done chan struct{}
	err  error // the result of Wait, once done is closed
}

// url is the server's Streamable HTTP endpoint.
func (s *server) url() string { return "http://" + s.addr + "/mcp" }

// startServer starts a server subprocess listening on a free loopback port (argv(addr)
// is its command line) and waits until it answers HTTP. A server that exits before it
// serves because another process took the port is started again on another one. The
// server is stopped when the test ends.
func startServer(t *testing.T, name, dir string, env []string, argv func(addr string) []string) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s := &server{t: t, name: name, addr: freeAddr(t), done: make(chan struct{})}
		args := argv(s.addr)
		s.cmd = exec.Command(args[0], args[1:]...)
		s.cmd.Dir, s.cmd.Env = dir, env
		s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		go func() {
			s.err = s.cmd.Wait()
			close(s.done)
		}()
		testenv.WaitFor(t, name+" to serve HTTP on "+s.addr, 30*time.Second, func() bool {
			return s.exited() || answers(s.url())
		})
		if !s.exited() {
			t.Cleanup(s.stop)
			return s
		}
		out := s.out.String()
		if attempt < 3 && strings.Contains(out, "address already in use") {
			continue
		}
		t.Fatalf("%s exited before serving on %s: %v\n%s", name, s.addr, s.err, tail(out, 40))
	}
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop sends the server SIGTERM and waits for it to exit; after 15 s it kills the
// server's process group and fails the test. A server that exited on its own during the
// test fails it too.
func (s *server) stop() {
	t := s.t
	if s.exited() {
		t.Errorf("%s exited during the test: %v\n%s", s.name, s.err, tail(s.out.String(), 40))
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(15 * time.Second)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-timer.C:
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		t.Errorf("%s did not exit within 15s of SIGTERM; killed its process group", s.name)
	}
	if t.Failed() {
		t.Logf("%s output:\n%s", s.name, tail(s.out.String(), 60))
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// answers reports whether an HTTP server answers a GET of url with any status.
func answers(url string) bool {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return true
}

// result is the outcome of one run of a command-line tool.
type result struct {
	argv           []string
	stdout, stderr string
	code           int // exit code; -1 when it did not exit normally
	err            error
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("%s: exit %d (%v) after %s\nstderr:\n%s\nstdout:\n%s",
		strings.Join(r.argv, " "), r.code, r.err, r.elapsed.Round(time.Millisecond), tail(r.stderr, 40), tail(r.stdout, 40))
}

// run runs a tool to completion in dir with env, in its own process group, which is
// killed when ctx ends or after timeout.
func run(ctx context.Context, dir string, env []string, timeout time.Duration, argv ...string) result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{argv: argv, stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode(), err: err, elapsed: time.Since(start)}
	if ctx.Err() != nil {
		r.err = fmt.Errorf("killed after %s: %w (%v)", timeout, ctx.Err(), err)
	}
	return r
}

// processesOf returns the live processes whose executable is exe (on Linux, from
// /proc; ok is false where there is no /proc).
func processesOf(exe string) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil { // gone, a zombie, or not ours to read
			continue
		}
		if strings.TrimSuffix(target, " (deleted)") == exe {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// noProcessesLeft fails the test if any process still runs exe 10 s after the test's
// own processes were stopped, and kills them. exe must be a binary that only this test
// process starts (one that testenv built).
func noProcessesLeft(t *testing.T, exe, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, ok := processesOf(exe)
		if !ok || len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("orphans: %d %s process(es) still running 10s after the test stopped them: pids %v (killed now)", len(pids), what, pids)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
