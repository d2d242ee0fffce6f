//go:build unix

package hub_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestWaitTool: after Launch, WaitTool returns a tool as soon as its server is ready,
// while another server listed after it hangs in initialize (with an init timeout long
// past the test's deadline); Pending names the hung one; a name nobody offers is an
// UnknownToolError once every server has settled.
func TestWaitTool(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	hung := testserver.Stdio(t, "hung", "--hang-init")
	hung.InitTimeout = 10 * time.Minute
	// hung is listed after ts: one listed before would own "echo", which both offer,
	// and is waited for (TestWaitToolSharedName).
	h, logs := newHub(t, cfgOf(testserver.Stdio(t, "ts"), hung), nil)
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	got, err := h.WaitTool(ctx, "echo")
	if err != nil || got.Server != "ts" {
		t.Fatalf("WaitTool(echo) = %+v, %v\n%s", got, err, logs)
	}
	if text := callText(t, h, "echo", map[string]any{"text": "now"}); text != "now" {
		t.Errorf("echo = %q", text)
	}
	if p := h.Pending(); len(p) != 1 || p[0].Name != "hung" {
		t.Errorf("Pending = %+v, want hung only", p)
	}
	if why := h.NotReadyReason(h.Pending()[0]); why != "still connecting, within its 10m0s init timeout" {
		t.Errorf("NotReadyReason = %q", why)
	}

	// The unknown name would wait 10 minutes for hung: give up on ctx instead.
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stop()
	if _, err := h.WaitTool(short, "ecoh"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitTool(ecoh) with hung pending = %v, want the context's deadline", err)
	}

	settled, _ := newHub(t, cfgOf(testserver.Stdio(t, "ts")), nil)
	if err := settled.Launch(); err != nil {
		t.Fatal(err)
	}
	_, err = settled.WaitTool(ctx, "ecoh")
	var unknown *hub.UnknownToolError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), `unknown tool "ecoh" (did you mean echo`) {
		t.Errorf("WaitTool(ecoh) = %v, want an UnknownToolError suggesting echo", err)
	}
}

// TestWaitToolSharedName: a name two servers share resolves as the start-up's
// catalog has it, whichever server is ready first (issue 34): "echo" is the slow
// first server's, and the fast later one's is "fast__echo". WaitTool used to return
// the fast server's "echo", the only one listed at that moment, so that a one-shot
// 'switchboard call echo' ran another tool than 'switchboard tools' showed as "echo".
func TestWaitToolSharedName(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	slow := testserver.Stdio(t, "slow", "--init-delay", "2s")
	slow.InitTimeout = time.Minute
	h, logs := newHub(t, cfgOf(slow, testserver.Stdio(t, "fast")), nil)
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	got, err := h.WaitTool(ctx, "echo")
	if err != nil || got.Server != "slow" || got.OriginalName != "echo" {
		t.Fatalf("WaitTool(echo) = %s of %s, %v; want slow's echo\n%s", got.OriginalName, got.Server, err, logs)
	}
	got, err = h.WaitTool(ctx, "fast__echo")
	if err != nil || got.Server != "fast" {
		t.Fatalf("WaitTool(fast__echo) = %s of %s, %v; want fast's echo\n%s", got.OriginalName, got.Server, err, logs)
	}
}
