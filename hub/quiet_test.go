//go:build unix

package hub_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestNilLoggerIsQuiet: a hub given no logger writes nothing through the process's
// default logger (slog.Default, and the log package, which it also takes over): a
// library stays quiet unless given a logger. It logged INFO lines to stderr before.
// Not parallel: it replaces the process-wide default logger for its duration.
func TestNilLoggerIsQuiet(t *testing.T) {
	out := testenv.CaptureDefaultLog(t)

	// A healthy server, one whose command is missing (a warning), and a tool call that
	// writes to the server's stderr (an info line per stderr line when logged).
	cfg := cfgOf(
		testserver.Stdio(t, "ok"),
		config.Server{Name: "ghost", Transport: config.Stdio, Command: "no-such-command-xyz", InheritEnv: true},
	)
	h := hub.New(cfg, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		h.Close()
		t.Fatalf("Start: %v", err)
	}
	args, _ := json.Marshal(map[string]any{"text": "a line on stderr"})
	if _, err := h.Call(ctx, "stderr", args); err != nil {
		t.Errorf("call stderr: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if s := out.String(); s != "" {
		t.Errorf("hub.New(cfg, nil) logged through the default logger:\n%s", s)
	}
}
