package agent_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// startTestHub starts a hub over test servers (tests only: the agent package itself
// never imports hub) with every tool named server__tool.
func startTestHub(t *testing.T, servers ...config.Server) *hub.Hub {
	t.Helper()
	h := hub.New(&config.Config{Servers: servers}, &hub.Options{
		Logger: slog.New(slog.DiscardHandler), Upstream: testserver.Fast(), Naming: config.NamingAlways,
	})
	t.Cleanup(func() { h.Close() })
	if err := h.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestServerFailuresAreResults: a server that dies during a call and one that hangs
// past its toolTimeout are answered with error results; the turn completes, and the
// other server's call succeeds.
func TestServerFailuresAreResults(t *testing.T) {
	hung := testserver.Stdio(t, "hung")
	hung.ToolTimeout = 500 * time.Millisecond
	h := startTestHub(t, testserver.Stdio(t, "dead"), hung, testserver.Stdio(t, "fine"))
	model, srv := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{
			{ID: "call_dead", Name: "dead__crash", Arguments: `{}`},
			{ID: "call_hung", Name: "hung__sleep", Arguments: `{"ms": 600000}`},
			{ID: "call_fine", Name: "fine__echo", Arguments: `{"text":"hello"}`},
		}},
		fakellm.Reply{Text: "Two servers failed."},
	))
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(agent.Options{Model: model, Tools: h, Store: store})
	turn, err := a.Run(testCtx(t), id, "call them all")
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "Two servers failed." {
		t.Errorf("answer %q", turn.Answer)
	}
	res := toolMsgs(srv.Requests()[1])
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	for i, want := range []string{"connection lost during the call", "timed out after 500ms"} {
		if !res[i].IsError || !strings.Contains(res[i].Text, want) {
			t.Errorf("%s: %q (error %v), want an error containing %q", res[i].CallID, res[i].Text, res[i].IsError, want)
		}
	}
	if res[2].IsError || res[2].Text != "hello" {
		t.Errorf("the working server's call: %q (error %v)", res[2].Text, res[2].IsError)
	}
}
