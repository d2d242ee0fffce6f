package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestRunTurnInMemory: a turn over a session held in memory (TurnOptions.Session)
// reads its history and system message there and adds the turn to it in place,
// usage included; the agent's store is never asked (it has no such session). The
// events of a call name the tool's server.
func TestRunTurnInMemory(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	local := tool.NewLocal()
	addTool(t, local, "date", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("today"), nil
	})
	model, srv := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "date", Arguments: `{}`}}, InputTokens: 3, OutputTokens: 2},
		fakellm.Reply{Text: "It is today.", InputTokens: 5, OutputTokens: 4},
	))
	store := newStore(t)
	events := &recorder{}
	a := agent.New(model, store, &agent.Options{Tools: local, OnEvent: events.on})
	sess := &session.Session{System: "Be brief.", Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "hello"}, {Role: llm.RoleAssistant, Text: "Hi."}}}
	turn, err := a.RunTurn(ctx, "req-1", &agent.TurnOptions{User: "what day is it?", Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "It is today." || sess.ID != "req-1" {
		t.Fatalf("answer %q, session id %q", turn.Answer, sess.ID)
	}
	// hello, Hi., the question, the call, its result, the answer.
	if len(sess.Messages) != 6 || sess.Messages[2].Text != "what day is it?" || sess.Messages[4].Role != llm.RoleTool || sess.Messages[5].Text != "It is today." {
		t.Fatalf("history %+v", sess.Messages)
	}
	if sess.Usage.InputTokens != 8 || sess.Usage.OutputTokens != 6 {
		t.Fatalf("usage %+v", sess.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].System != "Be brief." || len(reqs[0].Messages) != 3 {
		t.Fatalf("requests %+v", reqs)
	}
	if ids, err := store.List(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("the agent's store has %v (%v)", ids, err)
	}
	for _, kind := range []agent.EventKind{agent.ToolStarted, agent.ToolFinished} {
		if evs := events.of(kind); len(evs) != 1 || evs[0].Server != tool.LocalServer || evs[0].Session != "req-1" {
			t.Fatalf("%s events %+v", kind, evs)
		}
	}
}
