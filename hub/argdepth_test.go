//go:build unix

package hub_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// deepArgs is an arguments object whose "n" nests depth-1 arrays, depth levels in all.
func deepArgs(depth int) json.RawMessage {
	return json.RawMessage(`{"text":"deep","n":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
}

// TestDeepArgumentsRefused: arguments nested past the bound are refused at the hub with
// a result that says so, and nothing reaches the server. A stdio server given 1,000
// levels died (the SDK's decoder stops there) and took another caller's call with it
// ("connection lost during the call").
func TestDeepArgumentsRefused(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "ts")), nil)
	pid := pidOf(t, h, "pid")

	// Another caller's call under way while the deep one is made.
	other := make(chan *tool.Result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, _ := h.Call(ctx, "sleep", json.RawMessage(`{"ms":1500}`))
		other <- res
	}()

	for _, depth := range []int{65, 998, 1000, 5000} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := h.Call(ctx, "echo", deepArgs(depth))
		cancel()
		if err != nil {
			t.Fatalf("depth %d: Go error %v", depth, err)
		}
		if msg := tool.Text(res); !res.IsError || !strings.Contains(msg, "nested deeper than 64 levels") {
			t.Errorf("depth %d: %q (isError %v), want it refused for its nesting", depth, msg, res.IsError)
		}
	}
	// 64 levels reach the server, whose schema for echo has no "n": its answer shows
	// that the call went through.
	if got := callError(t, h, "echo", deepArgs(64)); !strings.Contains(got, `additional properties ["n"]`) {
		t.Errorf("64 levels: %q, want the server's own answer", got)
	}
	if res := <-other; res == nil || res.IsError || tool.Text(res) != "slept" {
		t.Errorf("the other caller's call: %+v, want it answered", res)
	}
	if st, _ := status(h, "ts"); st.Restarts != 0 || pidOf(t, h, "pid") != pid {
		t.Errorf("the server restarted (%d restarts): deep arguments reached it", st.Restarts)
	}
}

// TestArgumentDepthSetting: the bound is the config's "maxArgumentDepth" (a reload's
// too), unless Options fixed it.
func TestArgumentDepthSetting(t *testing.T) {
	t.Parallel()
	refused := func(t *testing.T, h *hub.Hub, depth int) bool {
		t.Helper()
		msg := callError(t, h, "echo", deepArgs(depth)) // forwarded: the server refuses "n"
		return strings.Contains(msg, "nested deeper than")
	}
	ts := testserver.Stdio(t, "ts")
	cfg := cfgOf(ts)
	cfg.Settings.MaxArgumentDepth = 8
	h, _ := startHub(t, cfg, nil)
	if !refused(t, h, 9) || refused(t, h, 8) {
		t.Errorf("maxArgumentDepth 8: 9 levels must be refused, 8 sent")
	}
	if err := h.CheckArguments(deepArgs(9)); err == nil || !strings.Contains(err.Error(), "deeper than 8 levels") {
		t.Errorf("CheckArguments(9 levels) = %v", err)
	}
	if err := h.Reload(cfgOf(ts)); err != nil {
		t.Fatal(err)
	}
	if refused(t, h, 64) || !refused(t, h, 65) {
		t.Errorf("after a reload without the setting: the default 64 must hold")
	}

	fixed, _ := startHub(t, cfg, &hub.Options{MaxArgumentDepth: 4})
	if !refused(t, fixed, 5) || refused(t, fixed, 4) {
		t.Errorf("Options.MaxArgumentDepth 4 must win over the config's 8")
	}
}
