//go:build unix

package upstream_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// TestCloseServerStuckInStartup: a server that never answers initialize and
// ignores its closed stdin gets SIGTERM soon after the close, not after the
// whole StopGrace; switchboard call used to exit StopGrace late when another
// server of the config hung in start-up. A server with a session still gets
// the whole grace (TestGracefulStdinClose and the proof tests).
func TestCloseServerStuckInStartup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	cfg := config.Server{
		Name: "mute", Transport: config.Stdio, Command: "sh", InheritEnv: true,
		// Never reads stdin, never answers; SIGTERM ends it.
		Args:        []string{"-c", `echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600`, pidFile},
		InitTimeout: time.Minute,
	}
	opts := testserver.Fast()
	const grace = 30 * time.Second
	opts.StopGrace = grace
	s := upstream.New(cfg, opts)
	t.Cleanup(func() { s.Close() })
	s.Start()
	var pid int
	for deadline := time.Now().Add(15 * time.Second); pid == 0; {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start: %+v", s.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := s.State(); st != upstream.Connecting {
		t.Fatalf("state = %s, want connecting", st)
	}
	began := time.Now()
	s.Close()
	// Not a speed figure: the old sequence waited the whole grace (30 s) before
	// SIGTERM, the new one a fraction of a second.
	if el := time.Since(began); el > grace/3 {
		t.Errorf("Close took %s: the server stuck in start-up waited the whole stop grace before SIGTERM", el)
	}
	if testserver.ProcessAlive(pid) {
		t.Errorf("process %d still alive after Close", pid)
	}
}
