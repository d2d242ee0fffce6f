//go:build unix

package upstream_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// TestNilLoggerIsQuiet: a supervisor given no logger writes nothing through the
// process's default logger; it logged its state changes and the server's stderr there.
// Not in parallel: the default logger is the process's.
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

// TestCloseBeforeStartIsQuiet: closing a supervisor that never started logs its end
// at debug only; at info, "connecting → closed" said a server had been started
// (switchboard mcp printed it for every server when a client sent junk first).
func TestCloseBeforeStartIsQuiet(t *testing.T) {
	t.Parallel()
	for _, started := range []bool{false, true} {
		var out testenv.Buffer
		opts := testserver.Fast()
		opts.Logger = slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
		s := upstream.New(testserver.Stdio(t, "ts"), opts)
		if started {
			s.Start()
		}
		s.Close()
		logged := strings.Contains(out.String(), "→ closed")
		if logged != started {
			t.Errorf("started %v: the info log has the close %v, want %v:\n%s", started, logged, started, out.String())
		}
	}
}
