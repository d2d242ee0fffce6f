package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestAgentAsks: "an agent asks" before it calls a tool that its server lists under
// "approve" (docs/config.md). The Host's agent alone has nobody to ask and denies
// the call, saying so; a turn through the Host's Conversations waits for a person's
// decision in its stream.
func TestAgentAsks(t *testing.T) {
	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Qa2")
	call := fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "echo", Arguments: `{"text": "hi"}`}}}
	fake := fakellm.StartOpenAI(t, fakellm.Queue(call, fakellm.Reply{Text: "Refused."}, call, fakellm.Reply{Text: "Echoed."}))
	srv := testserver.Stdio(t, "ts")
	srv.Approve = []string{"ech*"}
	h := host.New(&config.Config{Servers: []config.Server{srv}}, &host.Options{
		Model:    &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
		Sessions: &config.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	a, err := h.Agent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	janitor, err := h.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"alone", "watched"} {
		if err := janitor.Store().Create(ctx, &session.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	turn, err := a.Run(ctx, "alone", "echo hi")
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.Text(turn.Steps[0].Results[0].Result); got != `the call to "echo" was denied: the user must approve echo and nobody was there to ask` {
		t.Fatalf("the agent alone: %q", got)
	}

	watched := h.Conversations(a, nil).Start(ctx, &conversation.Request{Session: "watched", User: "echo hi"})
	for e := range watched.Events() {
		if e.Kind == conversation.ApprovalRequired {
			if e.Approval.Server != "ts" {
				t.Errorf("approval %+v", e.Approval)
			}
			if _, err := watched.Decide(e.CallID, true, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := watched.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Steps[0].Results[0].Result; r.IsError || tool.Text(r) != "hi" {
		t.Fatalf("the watched turn's call: %q", tool.Text(r))
	}
}
