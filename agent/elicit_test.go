package agent_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// askingHub is a hub over the test server with its ask tool, telling it that its
// client can be asked (form and URL mode), with reqs as its peer.
func askingHub(t *testing.T, reqs *agent.ServerRequests) *hub.Hub {
	t.Helper()
	h := hub.New(&config.Config{Servers: []config.Server{testserver.Stdio(t, "ts", "--ask")}}, &hub.Options{
		Logger: slog.New(slog.DiscardHandler), Upstream: testserver.Fast(), Naming: config.NamingAlways,
	})
	t.Cleanup(func() { h.Close() })
	h.SetCapabilities(&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}})
	link := h.AddPeer(reqs)
	t.Cleanup(link.Remove)
	if err := h.Start(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTurnElicit: a server's question during a turn's call goes to that turn's own
// Elicit, which learns the session, the server and the call; its answer goes back
// to the server (content only with accept in form mode) and its note to the model
// with the call's result. A turn without one, with no Elicit on the ServerRequests,
// declines; a call made around the agent is left to the hub's other peers.
func TestTurnElicit(t *testing.T) {
	t.Parallel()
	h := askingHub(t, &agent.ServerRequests{})
	model, srv := backends[0].start(t, func(r fakellm.Request) fakellm.Reply {
		if res := toolMsgs(r); len(res) > 0 {
			return fakellm.Reply{Text: "done"}
		}
		return fakellm.Reply{Calls: []fakellm.Call{{ID: "call_ask", Name: "ts__ask", Arguments: lastUser(r)}}}
	})
	store := newStore(t)
	a := agent.New(model, store, &agent.Options{Tools: h})
	var (
		mu  sync.Mutex
		got []agent.Elicitation
	)
	answer := func(reply agent.ElicitReply) agent.Eliciter {
		return func(ctx context.Context, e agent.Elicitation) agent.ElicitReply {
			mu.Lock()
			got = append(got, e)
			mu.Unlock()
			if _, ok := ctx.Deadline(); !ok {
				t.Errorf("the question's context has no deadline: want the call's")
			}
			return reply
		}
	}
	for _, tc := range []struct {
		name, args string
		elicit     agent.Eliciter
		mode, want string
	}{
		{"form accepted", `{}`, answer(agent.ElicitReply{Result: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}}),
			"form", `action=accept content={"name":"ada"}`},
		{"declined with a note", `{"message": "Your name?"}`, answer(agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline", Content: map[string]any{"name": "x"}}, Note: "nobody here to ask"}),
			"form", "action=decline content=null\n[nobody here to ask]"},
		{"url accepted", `{"url": "https://example.com/connect"}`, answer(agent.ElicitReply{Result: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"x": 1}}}),
			"url", "action=accept content=null"},
		{"no answer cancels", `{}`, answer(agent.ElicitReply{}), "form", "action=cancel content=null"},
		{"no hook declines", `{}`, nil, "", "action=decline content=null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			id := newSessionID(t, store, "s-"+strings.ReplaceAll(tc.name, " ", "-"))
			n := len(srv.Requests())
			if _, err := a.RunTurn(testCtx(t), id, &agent.TurnOptions{User: tc.args, Elicit: tc.elicit}); err != nil {
				t.Fatal(err)
			}
			res := toolMsgs(srv.Requests()[n+1])
			if len(res) != 1 || res[0].IsError || res[0].Text != tc.want {
				t.Fatalf("the model got %+v, want the result %q", res, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.elicit == nil {
				return
			}
			if len(got) != 1 {
				t.Fatalf("the turn's Elicit was asked %d times, want once", len(got))
			}
			e := got[0]
			if e.Session != id || e.Server != "ts" || e.CallID != "call_ask" || e.Tool != "ts__ask" || e.Params.Mode != tc.mode || e.Params.Message == "" {
				t.Errorf("the question: %+v %+v", e, e.Params)
			}
			if tc.mode == "url" && (e.Params.URL != "https://example.com/connect" || e.Params.ElicitationID == "") {
				t.Errorf("the URL question: %+v", e.Params)
			}
		})
	}

	// A call made around the agent: nobody here to ask, and no other peer takes it.
	res, err := h.Call(testCtx(t), "ts__ask", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(tool.Text(res), "nobody to ask here") {
		t.Errorf("a question during a call of no turn: %q (error %v), want refused", tool.Text(res), res.IsError)
	}
}

// TestServerRequestsElicitFallback: a turn without an Elicit of its own is asked
// through the ServerRequests' Elicit (chat's terminal), with the mode set.
func TestServerRequestsElicitFallback(t *testing.T) {
	t.Parallel()
	var mode string
	h := askingHub(t, &agent.ServerRequests{Elicit: func(_ context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		mode = p.Mode
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "from " + server}}, nil
	}})
	model, srv := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "ts__ask", Arguments: `{}`}}},
		fakellm.Reply{Text: "done"},
	))
	store := newStore(t)
	id := newSession(t, store)
	if _, err := agent.New(model, store, &agent.Options{Tools: h}).Run(testCtx(t), id, "ask me"); err != nil {
		t.Fatal(err)
	}
	if res := toolMsgs(srv.Requests()[1]); len(res) != 1 || res[0].Text != `action=accept content={"name":"from ts"}` || mode != "form" {
		t.Errorf("the model got %+v (mode %q)", res, mode)
	}
}

// lastUser is the text of the request's last user message.
func lastUser(r fakellm.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}
