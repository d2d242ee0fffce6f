//go:build linux || windows

package upstream_test

import (
	"os/exec"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// startHost runs this test binary as a host process with env added (its init acts on
// the variable the test sets), and returns once the host has printed that its server
// is ready. The host is killed and reaped at cleanup if the test has not done it.
func startHost(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	return testenv.StartChild(t, "ready ready", env...)
}
