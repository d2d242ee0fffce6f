//go:build unix

package hub_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestObserveCalls: every call routed to a server is reported once with its server,
// original and exposed names and outcome (a tool's own error and the hub's own, a
// server that died, alike); an unknown tool is not; cancel stops the reports.
func TestObserveCalls(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "a"), testserver.Stdio(t, "b")), nil)
	var mu sync.Mutex
	var got []hub.CallEvent
	cancel := h.ObserveCalls(func(e hub.CallEvent) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	})
	callText(t, h, "echo", map[string]any{"text": "x"})
	callError(t, h, "b__fail", map[string]any{})
	callError(t, h, "b__crash", map[string]any{})
	callError(t, h, "no_such_tool", nil)
	mu.Lock()
	events := slices.Clone(got)
	mu.Unlock()
	type key struct {
		server, tool, name string
		isError            bool
	}
	var keys []key
	for _, e := range events {
		if e.Duration <= 0 {
			t.Errorf("%+v: no duration", e)
		}
		keys = append(keys, key{e.Server, e.Tool, e.Name, e.IsError})
	}
	want := []key{{"a", "echo", "echo", false}, {"b", "fail", "b__fail", true}, {"b", "crash", "b__crash", true}}
	if !slices.Equal(keys, want) {
		t.Errorf("reported %+v, want %+v", keys, want)
	}

	cancel()
	callText(t, h, "echo", map[string]any{"text": "y"})
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(events) {
		t.Errorf("reported after cancel: %+v", got[len(events):])
	}
}
