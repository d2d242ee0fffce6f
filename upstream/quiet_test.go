//go:build unix

package upstream_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestNilLoggerIsQuiet: a supervisor given no logger writes nothing through the
// process's default logger; it logged its state changes and the server's stderr there.
func TestNilLoggerIsQuiet(t *testing.T) {
	out := testenv.CaptureDefaultLog(t)
	opts := testserver.Fast() // no Logger
	s := start(t, testserver.Stdio(t, "ts"), opts)
	mustText(t, s, "stderr", map[string]any{"text": "a line on stderr"})
	s.Close()
	if got := out.String(); got != "" {
		t.Errorf("a supervisor without a logger logged through the default logger:\n%s", got)
	}
}
