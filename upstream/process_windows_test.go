package upstream_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// The Windows counterparts of the Unix process-group tests. The server is a tree like
// npx's: the test server, proxying the server that a batch file starts through
// cmd.exe, which writes its pid and ignores EOF on stdin, so that only the Job Object
// can end it.

// winHostEnv makes this test binary act as a host: it runs the tree named by the
// variable ("TESTSERVER|BATCHFILE"), prints "ready", and waits to be killed.
const winHostEnv = "UPSTREAM_TEST_WINHOST"

func init() {
	spec := os.Getenv(winHostEnv)
	if spec == "" {
		return
	}
	bin, batch, _ := strings.Cut(spec, "|")
	s := upstream.New(treeServer(bin, batch), nil)
	s.Start()
	<-s.Settled()
	fmt.Println("ready", s.State())
	select {} // until killed
}

func treeServer(bin, batch string) config.Server {
	return config.Server{Name: "tree", Transport: config.Stdio, Command: bin, Args: []string{"--proxy", batch},
		InheritEnv: true, InitTimeout: 10 * time.Second}
}

// writeTree writes the batch file that starts the innermost server, and returns it
// with the file that server writes its pid to.
func writeTree(t *testing.T, bin string) (batch, pidfile string) {
	t.Helper()
	dir := t.TempDir()
	batch, pidfile = filepath.Join(dir, "inner.cmd"), filepath.Join(dir, "inner.pid")
	body := fmt.Sprintf("@\"%s\" --ignore-stdin-eof --pidfile \"%s\"\r\n", bin, pidfile)
	if err := os.WriteFile(batch, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return batch, pidfile
}

func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false // no such process
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}

func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// Closing the supervisor ends the whole tree, the great-grandchild that ignores EOF
// on stdin included.
func TestJobEndsTreeOnClose(t *testing.T) {
	bin := testserver.Build(t)
	batch, pidfile := writeTree(t, bin)
	s := upstream.New(treeServer(bin, batch), testserver.Fast())
	s.Start()
	<-s.Settled()
	if st := s.State(); st != upstream.Ready {
		t.Fatalf("state %s: %s", st, s.Status().LastError)
	}
	inner := testserver.ReadPID(t, pidfile)
	t.Cleanup(func() { killPID(inner) })
	s.Close()
	testenv.WaitFor(t, fmt.Sprintf("process %d to end with its job", inner), 10*time.Second, func() bool {
		return !processAlive(inner)
	})
}

// When the host is killed (TerminateProcess: no cleanup runs) the kernel closes its
// handle to the job, and kill-on-close ends the tree.
func TestJobEndsTreeWithKilledHost(t *testing.T) {
	bin := testserver.Build(t)
	batch, pidfile := writeTree(t, bin)
	host := startHost(t, winHostEnv+"="+bin+"|"+batch)
	inner := testserver.ReadPID(t, pidfile)
	t.Cleanup(func() { killPID(inner) })
	if !processAlive(inner) {
		t.Fatal("innermost server not running before the host is killed")
	}
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	testenv.WaitFor(t, fmt.Sprintf("process %d to end with its killed host", inner), 10*time.Second, func() bool {
		return !processAlive(inner)
	})
}
