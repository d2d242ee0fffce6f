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

// TestAttended: the turns of a person at a terminal wait for their decision with no
// bound (the Approval says 0, where Conversations' default has one), under the
// servers' approve policy, and a call that comes back as an error is told to
// signInAgain with its server (StepUp's catalog) before the model reads it.
func TestAttended(t *testing.T) {
	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Vt4")
	calls := fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "echo", Arguments: `{"text": "hi"}`}, {ID: "c2", Name: "fail", Arguments: `{}`}}}
	fake := fakellm.StartOpenAI(t, fakellm.Queue(calls, fakellm.Reply{Text: "Done."}))
	srv := testserver.Stdio(t, "ts")
	srv.Approve = []string{"echo"}
	h := host.New(&host.Config{Servers: []host.ConfigServer{srv}}, &host.Options{
		Model:    &host.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
		Sessions: &host.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var asked []string
	conv, err := h.Attended(ctx, func(_ context.Context, server string) bool {
		asked = append(asked, server)
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	janitor, err := h.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := janitor.Store().Create(ctx, &host.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	turn := conv.Start(ctx, &host.TurnRequest{Session: "s", User: "go"})
	approvals := 0
	for e := range turn.Events() {
		if e.Kind != host.ApprovalRequired {
			continue
		}
		approvals++
		if e.Name != "echo" || e.Approval.Timeout != 0 {
			t.Errorf("approval of %s waits at most %v; want echo's, with no bound", e.Name, e.Approval.Timeout)
		}
		if _, err := turn.Decide(e.CallID, true, ""); err != nil {
			t.Fatal(err)
		}
	}
	res, err := turn.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if approvals != 1 || res.Answer != "Done." {
		t.Errorf("%d approvals asked, answer %q; want 1 and Done.", approvals, res.Answer)
	}
	if len(asked) != 1 || asked[0] != "ts" {
		t.Errorf("signInAgain asked about %v; want the failed call's server, ts, once", asked)
	}
}
