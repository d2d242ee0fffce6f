//go:build linux

package upstream_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// hostChildEnv makes this test binary act as a host: it starts one supervised server
// (the test server binary named by the variable), prints "ready", and waits to be
// killed.
const hostChildEnv = "UPSTREAM_TEST_HOST"

func init() {
	bin := os.Getenv(hostChildEnv)
	if bin == "" {
		return
	}
	s := upstream.New(config.Server{
		Name: "orphan-candidate", Transport: config.Stdio, Command: bin, InheritEnv: true,
		Args: []string{"--pidfile", os.Getenv(hostChildEnv + "_PIDFILE"), "--ignore-stdin-eof"},
	}, nil)
	s.Start()
	<-s.Settled()
	fmt.Println("ready", s.State())
	select {} // until SIGKILL
}

// When the host dies by SIGKILL it runs no cleanup at all; the kernel's parent-death
// signal (Pdeathsig) must still take the child down.
func TestChildDiesWithKilledHost(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pid")
	host := startHost(t, hostChildEnv+"="+testserver.Build(t), hostChildEnv+"_PIDFILE="+pidfile)
	child := testserver.ReadPID(t, pidfile)
	if !testserver.ProcessAlive(child) {
		t.Fatal("child not running before the host is killed")
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	t.Cleanup(func() {
		if testserver.ProcessAlive(child) {
			syscall.Kill(child, syscall.SIGKILL)
		}
	})
	testenv.WaitFor(t, fmt.Sprintf("child %d to die with its SIGKILLed host", child), 5*time.Second, func() bool {
		return !testserver.ProcessAlive(child)
	})
}
