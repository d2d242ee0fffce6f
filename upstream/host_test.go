//go:build linux || windows

package upstream_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// startHost runs this test binary as a host process with env added (its init acts on
// the variable the test sets), and returns once the host has printed that its server
// is ready. The host is killed and reaped at cleanup if the test has not done it.
func startHost(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), env...)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready ready") {
		t.Fatalf("host said %q (%v)", line, err)
	}
	return host
}
