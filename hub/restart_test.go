//go:build unix

package hub_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestRestart: Restart runs a new process of the same server, which keeps its place
// in the order (Status, the catalog) and comes back with its tools; an unknown name
// is an error.
func TestRestart(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "a"), testserver.Stdio(t, "b")), nil)
	before := pidOf(t, h, "b__pid")
	if err := h.Restart("b"); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	waitTools(t, h, "b's tools back", func(m map[string]tool.Tool) bool {
		_, ok := m["b__pid"]
		return ok && stateOf(h, "b") == "ready"
	})
	if after := pidOf(t, h, "b__pid"); after == before {
		t.Errorf("b's pid is %d after Restart, as before: no new process", after)
	}
	var order []string
	for _, st := range h.Status() {
		order = append(order, st.Name)
	}
	if got := strings.Join(order, " "); got != "a b" {
		t.Errorf("server order after Restart = %s, want a b", got)
	}
	if err := h.Restart("nope"); err == nil || !strings.Contains(err.Error(), `no server "nope"`) {
		t.Errorf("Restart of an unknown server: %v", err)
	}
}
