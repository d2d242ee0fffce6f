package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestRunTurnClientTools: a turn on a store of its own, with tools of the caller's.
// The model sees the agent's tools and the caller's (whose "ls" hides the agent's);
// a step that calls both runs the agent's own call, then ends the turn with the
// caller's calls unanswered in ClientCalls. The next turn, given their results and
// no user message, continues the history to the answer. The agent's own store and
// hooks are not used; the turn's MaxTokens is.
func TestRunTurnClientTools(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		local := tool.NewLocal()
		ran := map[string]int{}
		for _, name := range []string{"date", "ls"} {
			addTool(t, local, name, func(context.Context, json.RawMessage) (*tool.Result, error) {
				ran[name]++
				return tool.TextResult(name + " ran"), nil
			})
		}
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Text: "Looking.", Calls: []fakellm.Call{
				{ID: "call_date", Name: "date", Arguments: `{}`},
				{ID: "call_ls", Name: "ls", Arguments: `{"dir": "/"}`},
			}},
			fakellm.Reply{Text: "Done."},
		))
		agentStore, store := newStore(t), newStore(t)
		agentEvents := &recorder{}
		a := agent.New(model, agentStore, &agent.Options{Tools: local, OnEvent: agentEvents.on})
		id := newSession(t, store)
		events := &recorder{}
		client := []tool.Tool{{Name: "ls", Description: "the client's ls", InputSchema: json.RawMessage(`{"type":"object"}`)}}
		turn, err := a.RunTurn(ctx, id, &agent.TurnOptions{User: "list it", Store: store, OnEvent: events.on, ClientTools: client, MaxTokens: 77})
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.Call{{ID: "call_ls", Name: "ls", Arguments: `{"dir": "/"}`}}
		if !reflect.DeepEqual(turn.ClientCalls, want) || turn.Answer != "Looking." || ran["date"] != 1 || ran["ls"] != 0 {
			t.Fatalf("client calls %+v, answer %q, ran %v", turn.ClientCalls, turn.Answer, ran)
		}
		if len(turn.Steps) != 1 || len(turn.Steps[0].Results) != 1 || turn.Steps[0].Results[0].CallID != "call_date" {
			t.Fatalf("steps %+v", turn.Steps)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || reqs[0].MaxTokens != 77 {
			t.Fatalf("%d requests, max tokens %d", len(reqs), reqs[0].MaxTokens)
		}
		var desc []string
		for _, tl := range reqs[0].Tools {
			desc = append(desc, tl.Name+": "+tl.Description)
		}
		if !reflect.DeepEqual(desc, []string{"date: test tool date", "ls: the client's ls"}) {
			t.Errorf("tools sent %v", desc)
		}
		if len(events.of(agent.ToolStarted)) != 1 || len(events.of(agent.Answer)) != 1 || len(agentEvents.events) != 0 {
			t.Errorf("turn's events %+v, agent's %+v", events.events, agentEvents.events)
		}

		// The caller answers its call; the next turn adds no user message.
		if err := store.Append(ctx, id, llm.Usage{}, llm.Message{Role: llm.RoleTool, CallID: "call_ls", Name: "ls", Result: tool.TextResult("a.txt")}); err != nil {
			t.Fatal(err)
		}
		turn, err = a.RunTurn(ctx, id, &agent.TurnOptions{Store: store, ClientTools: client})
		if err != nil {
			t.Fatal(err)
		}
		if turn.Answer != "Done." || turn.ClientCalls != nil {
			t.Fatalf("answer %q, client calls %+v", turn.Answer, turn.ClientCalls)
		}
		reqs = srv.Requests()
		last := reqs[len(reqs)-1].Messages
		var roles []string
		for _, m := range last {
			roles = append(roles, m.Role)
		}
		if !reflect.DeepEqual(roles, []string{"user", "assistant", "tool", "tool"}) || resultText(last[3]).Text != "a.txt" {
			t.Errorf("second request's messages %+v", last)
		}
		if list, _ := agentStore.List(ctx); len(list) != 0 {
			t.Errorf("the agent's store got sessions: %+v", list)
		}
	})
}

// TestRunTurnOutput: TurnOptions.Output reaches every request of the turn (a step
// that calls a tool, and the answer after it) in the backend's form, and none of
// the agent's next turn without it; a model that cannot give it fails the turn's
// first request, before anything is sent, with an *llm.UnsupportedError.
func TestRunTurnOutput(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		local := tool.NewLocal()
		addTool(t, local, "date", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("Friday"), nil
		})
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_date", Name: "date", Arguments: `{}`}}},
			fakellm.Reply{Text: `{"day":"Friday"}`},
			fakellm.Reply{Text: "plain"},
		))
		store := newStore(t)
		a := agent.New(model, store, &agent.Options{Tools: local})
		id := newSession(t, store)
		out := &llm.Output{Schema: json.RawMessage(`{"type":"object","properties":{"day":{"type":"string"}},"required":["day"],"additionalProperties":false}`), Name: "day"}
		turn, err := a.RunTurn(ctx, id, &agent.TurnOptions{User: "which day?", Output: out})
		if err != nil {
			t.Fatal(err)
		}
		if turn.Answer != `{"day":"Friday"}` {
			t.Errorf("answer %q", turn.Answer)
		}
		if _, err := a.Run(ctx, id, "thanks"); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 || reqs[0].Format == nil || reqs[1].Format == nil || reqs[0].Format.Type != "json_schema" || reqs[2].Format != nil {
			t.Errorf("formats sent: %+v", reqs)
		}
		if b.name != "anthropic" {
			return
		}
		_, err = a.RunTurn(ctx, id, &agent.TurnOptions{User: "any JSON", Output: &llm.Output{}})
		var ue *llm.UnsupportedError
		if !errors.As(err, &ue) || len(srv.Requests()) != 3 {
			t.Errorf("err %v after %d requests, want an UnsupportedError before the 4th", err, len(srv.Requests()))
		}
	})
}
