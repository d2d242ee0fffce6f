package agent_test

import (
	"log/slog"
	"slices"
	"strings"
	"sync"
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
	t.Parallel()
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
	a := agent.New(model, store, &agent.Options{Tools: h})
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

// TestToolJoinsMidTurn: a tool that a server registers during a turn (its
// tools/list_changed reaching the hub) is listed to the model and runs in the same
// turn. Step 1 calls grow's add_tool; the model answers step 2, once the hub lists
// the new tool, by calling it; step 3's request lists it, so the tools were read
// again between steps, and the call was looked up afresh.
func TestToolJoinsMidTurn(t *testing.T) {
	t.Parallel()
	h := startTestHub(t, testserver.Stdio(t, "grow"))
	const added = "grow__brand_new"
	var (
		mu    sync.Mutex
		steps int
	)
	model, srv := backends[0].start(t, func(r fakellm.Request) fakellm.Reply {
		mu.Lock()
		steps++
		step := steps
		mu.Unlock()
		switch step {
		case 1:
			return fakellm.Reply{Calls: []fakellm.Call{{ID: "call_add", Name: "grow__add_tool", Arguments: `{"name":"brand_new"}`}}}
		case 2:
			// As a model that saw the list change would: the hub has the tool now.
			timeout := time.After(testTimeout)
			for {
				changed := h.Changed()
				if _, ok := h.Lookup(added); ok {
					break
				}
				select {
				case <-changed:
				case <-timeout:
					return fakellm.Reply{Status: 500, ErrorMessage: "the hub never listed " + added}
				}
			}
			return fakellm.Reply{Calls: []fakellm.Call{{ID: "call_new", Name: added, Arguments: `{"text":"fresh"}`}}}
		}
		return fakellm.Reply{Text: "The new tool said fresh."}
	})
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(model, store, &agent.Options{Tools: h})
	turn, err := a.Run(testCtx(t), id, "add a tool and use it")
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "The new tool said fresh." || len(turn.Steps) != 3 {
		t.Fatalf("answer %q after %d steps", turn.Answer, len(turn.Steps))
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if slices.Contains(toolNames(reqs[0]), added) {
		t.Fatalf("the first request already listed %s: %v", added, toolNames(reqs[0]))
	}
	if !slices.Contains(toolNames(reqs[2]), added) {
		t.Errorf("the third request does not list %s, which joined in step 1: %v", added, toolNames(reqs[2]))
	}
	if res := toolMsgs(reqs[1]); len(res) != 1 || res[0].IsError || res[0].Text != "added brand_new" {
		t.Errorf("add_tool: %+v", res)
	}
	if res := toolMsgs(reqs[2]); len(res) != 1 || res[0].CallID != "call_new" || res[0].IsError || res[0].Text != "fresh" {
		t.Errorf("the new tool's call: %+v, want %q", res, "fresh")
	}
}
