package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// runAsync starts a turn and returns a channel that gets its error.
func runAsync(ctx context.Context, a *agent.Agent, id, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := a.Run(ctx, id, text)
		done <- err
	}()
	return done
}

func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(testTimeout):
		t.Fatal("the turn did not end")
		return nil
	}
}

// TestCancelMidTool: cancelling the turn while a call runs cancels the call; Run
// returns ctx's error with the finished call's result stored and the cut one's
// answered as interrupted, then and there (the next turn did it before, and a service
// shutting down answered its client with the history still owing a result); the next
// turn sends both. No goroutine outlives Run: goleak looks at the whole process, so
// this test and TestCancelMidStream do not run in parallel with others.
func TestCancelMidTool(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		local := tool.NewLocal()
		started := make(chan struct{})
		stopped := make(chan struct{})
		addTool(t, local, "block", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
			close(started)
			<-ctx.Done()
			close(stopped)
			return nil, ctx.Err()
		})
		addTool(t, local, "quick", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("quick done"), nil
		})
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{
				{ID: "call_block", Name: "block", Arguments: `{}`},
				{ID: "call_quick", Name: "quick", Arguments: `{}`},
			}},
			fakellm.Reply{Text: "Sorry about that."},
		))
		store := newStore(t)
		id := newSession(t, store)
		var rec recorder
		a := agent.New(model, store, &agent.Options{Tools: local, OnEvent: rec.on})
		before := goleak.IgnoreCurrent()

		ctx, cancel := context.WithCancel(context.Background())
		done := runAsync(ctx, a, id, "block")
		<-started
		// The quick call's result stored, not only its tool_finished event: the event
		// goes out before the store, and a cancel in between let the cut call's
		// result be stored first.
		testenv.WaitFor(t, "the quick call's result to be stored", testTimeout, func() bool {
			return len(storedCallIDs(history(t, store, id))) == 1
		})
		cancel()
		if err := wait(t, done); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		select {
		case <-stopped:
		default:
			t.Error("Run returned before the cancelled call did")
		}
		if err := goleak.Find(append(httpConns, before)...); err != nil {
			t.Errorf("goroutines left by the cancelled turn: %v", err)
		}
		h := history(t, store, id)
		if got := storedCallIDs(h); !reflect.DeepEqual(got, []string{"call_quick", "call_block"}) {
			t.Errorf("stored results %v, want the finished call's, then the cut one's", got)
		} else if cut := h[len(h)-1]; !cut.Result.IsError || tool.Text(cut.Result) != agent.InterruptedText {
			t.Errorf("the cut call's stored result %+v, want %q", cut.Result, agent.InterruptedText)
		}
		if fin := rec.of(agent.ToolFinished); len(fin) != 2 || fin[1].Name != "block" || !fin[1].IsError || fin[1].Result != agent.InterruptedText {
			t.Errorf("tool_finished events %+v, want the cut call's with %q", fin, agent.InterruptedText)
		}

		if _, err := a.Run(testCtx(t), id, "what happened?"); err != nil {
			t.Fatal(err)
		}
		req := srv.Requests()[1]
		res := []fakellm.Message{resultText(req.Messages[2]), resultText(req.Messages[3])}
		if res[0].CallID != "call_block" || !res[0].IsError || res[0].Text != agent.InterruptedText ||
			res[1].CallID != "call_quick" || res[1].Text != "quick done" {
			t.Errorf("the next turn sent the results %+v", res)
		}
	})
}

// TestCancelMidStream: cancelling while the model answers ends its request; Run
// returns ctx's error, the user's message stays stored, no goroutine outlives Run
// (not in parallel: see TestCancelMidTool).
func TestCancelMidStream(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		model, srv := b.start(t, fakellm.Queue(fakellm.Reply{Text: "too late", Delay: time.Hour}))
		store := newStore(t)
		id := newSession(t, store)
		a := agent.New(model, store, nil)
		before := goleak.IgnoreCurrent()

		ctx, cancel := context.WithCancel(context.Background())
		done := runAsync(ctx, a, id, "hello?")
		testenv.WaitFor(t, "the model's request", testTimeout, func() bool { return len(srv.Requests()) == 1 })
		cancel()
		if err := wait(t, done); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		if err := goleak.Find(append(httpConns, before)...); err != nil {
			t.Errorf("goroutines left by the cancelled turn: %v", err)
		}
		if h := history(t, store, id); len(h) != 1 || h[0].Text != "hello?" {
			t.Errorf("stored %+v, want the user's message only", h)
		}
	})
}

// TestSessionBusy: a second turn on a session whose turn is running is refused at
// once with session.ErrBusy; the session is free again when the first ends.
func TestSessionBusy(t *testing.T) {
	t.Parallel()
	local := tool.NewLocal()
	started, release := make(chan struct{}), make(chan struct{})
	addTool(t, local, "block", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		close(started)
		<-release
		return tool.TextResult("released"), nil
	})
	model, _ := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "block", Arguments: `{}`}}},
		fakellm.Reply{Text: "first"},
		fakellm.Reply{Text: "third"},
	))
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(model, store, &agent.Options{Tools: local})
	ctx := testCtx(t)
	done := runAsync(ctx, a, id, "one")
	<-started
	_, err := a.Run(ctx, id, "two")
	if !errors.Is(err, session.ErrBusy) || !strings.Contains(err.Error(), id) {
		t.Errorf("a concurrent turn: %v, want session.ErrBusy naming the session", err)
	}
	close(release)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	turn, err := a.Run(ctx, id, "three")
	if err != nil || turn.Answer != "third" {
		t.Fatalf("the turn after: %v, %v", turn, err)
	}
	for _, m := range history(t, store, id) {
		if m.Text == "two" {
			t.Error("the refused turn's message was stored")
		}
	}
}

// TestInterruptedCallsRepaired: a session whose process died mid-step (an assistant
// message whose calls have no results, one result stored) is repaired by the next
// turn before its message: each lost call gets InterruptedText, stored and sent, in
// call order.
func TestInterruptedCallsRepaired(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		model, srv := b.start(t, fakellm.Queue(fakellm.Reply{Text: "Let us try again."}))
		store := newStore(t)
		id := newSession(t, store,
			llm.Message{Role: llm.RoleUser, Text: "three things"},
			llm.Message{Role: llm.RoleAssistant, Calls: []llm.Call{
				{ID: "call_1", Name: "one", Arguments: `{}`},
				{ID: "call_2", Name: "two", Arguments: `{}`},
				{ID: "call_3", Name: "three", Arguments: `{}`},
			}},
			llm.Message{Role: llm.RoleTool, CallID: "call_2", Name: "two", Result: tool.TextResult("two done")},
		)
		a := agent.New(model, store, nil)
		if _, err := a.Run(testCtx(t), id, "again"); err != nil {
			t.Fatal(err)
		}
		msgs := srv.Requests()[0].Messages
		var got []string
		for _, m := range msgs {
			m = resultText(m)
			got = append(got, m.Role+":"+m.CallID+":"+m.Text)
		}
		want := []string{"user::three things", "assistant::", "tool:call_1:" + agent.InterruptedText,
			"tool:call_2:two done", "tool:call_3:" + agent.InterruptedText, "user::again"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !msgs[2].IsError || msgs[3].IsError || !msgs[4].IsError {
			t.Errorf("error flags: %v %v %v, want true false true", msgs[2].IsError, msgs[3].IsError, msgs[4].IsError)
		}
		stored := history(t, store, id)
		if got := storedCallIDs(stored); !reflect.DeepEqual(got, []string{"call_2", "call_1", "call_3"}) {
			t.Errorf("stored results %v, want the one stored, then the repairs", got)
		} else if stored[5].Text != "again" {
			t.Errorf("stored after the repairs: %+v, want the new message", stored[5])
		}
	})
}

// TestUsageSummed: each step's usage is reported and stored, and the turn's is
// their sum.
func TestUsageSummed(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		local := tool.NewLocal()
		addTool(t, local, "echo", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(string(args)), nil
		})
		model, _ := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "echo", Arguments: `{}`}}, InputTokens: 100, OutputTokens: 7},
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_2", Name: "echo", Arguments: `{}`}}, InputTokens: 120, OutputTokens: 9},
			fakellm.Reply{Text: "done", InputTokens: 140, OutputTokens: 3},
		))
		store := newStore(t)
		id := newSession(t, store)
		var rec recorder
		a := agent.New(model, store, &agent.Options{Tools: local, OnEvent: rec.on})
		turn, err := a.Run(testCtx(t), id, "count")
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Usage{InputTokens: 360, OutputTokens: 19}
		if turn.Usage != want {
			t.Errorf("turn usage %+v, want %+v", turn.Usage, want)
		}
		var steps []llm.Usage
		for _, e := range rec.of(agent.StepUsage) {
			steps = append(steps, e.Usage)
		}
		if !reflect.DeepEqual(steps, []llm.Usage{{InputTokens: 100, OutputTokens: 7}, {InputTokens: 120, OutputTokens: 9}, {InputTokens: 140, OutputTokens: 3}}) {
			t.Errorf("step usage events: %+v", steps)
		}
		if got := rec.of(agent.TurnUsage); len(got) != 1 || got[0].Usage != want {
			t.Errorf("turn usage events: %+v", got)
		}
		s, err := store.Get(context.Background(), id)
		if err != nil || s.Usage != want {
			t.Errorf("stored usage %+v (%v), want %+v", s.Usage, err, want)
		}
	})
}

// TestModelError: the model's failure ends the turn with its *llm.Error; what was
// stored before stays.
func TestModelError(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		local := tool.NewLocal()
		addTool(t, local, "echo", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(string(args)), nil
		})
		model, _ := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "echo", Arguments: `{"a":1}`}}},
			fakellm.Reply{Status: 400, ErrorMessage: "prompt is too long"},
		))
		store := newStore(t)
		id := newSession(t, store)
		a := agent.New(model, store, &agent.Options{Tools: local})
		turn, err := a.Run(testCtx(t), id, "go")
		var le *llm.Error
		if !errors.As(err, &le) || le.Status != 400 || !strings.Contains(err.Error(), "prompt is too long") || !strings.Contains(err.Error(), "step 2") {
			t.Fatalf("Run = %v, want the model's HTTP 400 at step 2", err)
		}
		if turn == nil || len(turn.Steps) != 1 {
			t.Errorf("the turn so far: %+v, want its first step", turn)
		}
		h := history(t, store, id)
		if len(h) != 3 || h[0].Text != "go" || len(h[1].Calls) != 1 || h[2].CallID != "call_1" {
			t.Errorf("stored %+v, want the question, the call and its result", h)
		}
	})
}
