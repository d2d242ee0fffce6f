package upstream_test

import (
	"bytes"
	"log"
	"log/slog"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// lockedBuffer is a bytes.Buffer safe for the supervisor's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestNilLoggerIsQuiet: a supervisor given no logger writes nothing through the
// process's default logger; it logged its state changes and the server's stderr there.
func TestNilLoggerIsQuiet(t *testing.T) {
	var out lockedBuffer
	prev, prevOut, prevFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() {
		// SetDefault with the original handler does not give the log package its
		// writer back.
		slog.SetDefault(prev)
		log.SetOutput(prevOut)
		log.SetFlags(prevFlags)
	})
	opts := testserver.Fast() // no Logger
	s := start(t, testserver.Stdio(t, "ts"), opts)
	mustText(t, s, "stderr", map[string]any{"text": "a line on stderr"})
	s.Close()
	if got := out.String(); got != "" {
		t.Errorf("a supervisor without a logger logged through the default logger:\n%s", got)
	}
}
