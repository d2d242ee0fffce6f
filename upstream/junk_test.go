package upstream

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// The summary of the lines left out comes on its own, once per interval, without
// waiting for more junk or for close; and after a quiet interval a new burst is shown
// line by line again.
func TestJunkLogSummaryPerInterval(t *testing.T) {
	var out testenv.Buffer
	j := newJunkLog(slog.New(slog.NewTextHandler(&out, nil)), 2, 50*time.Millisecond)
	t.Cleanup(j.close)
	for _, l := range []string{"a", "b", "c", "d", "e"} {
		j.drop([]byte(l), "not JSON")
	}
	testenv.WaitFor(t, "the summary", 10*time.Second, func() bool {
		return strings.Contains(out.String(), "dropped more lines that are not JSON-RPC\" count=3 last=e")
	})
	time.Sleep(100 * time.Millisecond) // a quiet interval
	j.drop([]byte("f"), "not JSON")
	if !strings.Contains(out.String(), "line=f") {
		t.Errorf("after a quiet interval a line is logged one by one again:\n%s", out.String())
	}
	j.close()
	j.drop([]byte("g"), "not JSON")
	if n := strings.Count(out.String(), "\n"); n != 5 || strings.Contains(out.String(), "line=g") {
		t.Errorf("want a, b, the notice that more are counted, the summary and f, nothing after close:\n%s", out.String())
	}
}
