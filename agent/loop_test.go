package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// storedSignal is a Store that closes a call's channel once its result is appended.
type storedSignal struct {
	session.Store
	mu     sync.Mutex
	stored map[string]chan struct{}
}

func (s *storedSignal) of(callID string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stored[callID] == nil {
		s.stored[callID] = make(chan struct{})
	}
	return s.stored[callID]
}

func (s *storedSignal) Append(ctx context.Context, id string, usage llm.Usage, msgs ...llm.Message) error {
	err := s.Store.Append(ctx, id, usage, msgs...)
	for _, m := range msgs {
		if m.Role == llm.RoleTool && err == nil {
			close(s.of(m.CallID))
		}
	}
	return err
}

// TestThreeStepTurn: two steps of calls and an answer. The three calls of the first
// step each wait until all three have started (run one by one they would never
// finish), and each waits for the next one's result to be stored before it returns;
// the next request carries their results in call order, while the store keeps them
// in the order they completed.
func TestThreeStepTurn(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		store := &storedSignal{Store: newStore(t), stored: map[string]chan struct{}{}}
		local := tool.NewLocal()
		var mu sync.Mutex
		n := 0
		allStarted := make(chan struct{})
		addTool(t, local, "wait", func(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
			var in struct{ ID, Next string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			mu.Lock()
			if n++; n == 3 {
				close(allStarted)
			}
			mu.Unlock()
			waits := []chan struct{}{allStarted}
			if in.Next != "" {
				waits = append(waits, store.of("call_"+in.Next))
			}
			for _, ch := range waits {
				select {
				case <-ch:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return tool.TextResult("done " + in.ID), nil
		})
		addTool(t, local, "echo", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(string(args)), nil
		})
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Text: "Waiting.", Calls: []fakellm.Call{
				{ID: "call_a", Name: "wait", Arguments: `{"id":"a","next":"b"}`},
				{ID: "call_b", Name: "wait", Arguments: `{"id":"b","next":"c"}`},
				{ID: "call_c", Name: "wait", Arguments: `{"id":"c"}`},
			}},
			fakellm.Reply{Calls: []fakellm.Call{
				{ID: "call_d", Name: "echo", Arguments: `{"n": 1}`},
				{ID: "call_e", Name: "echo", Arguments: `{"n": 2}`},
			}},
			fakellm.Reply{Text: "All three are done, and both echoes came back.", Chunks: 5},
		))
		id := newSession(t, store)
		var rec recorder
		a := agent.New(model, store, &agent.Options{Tools: local, System: "Be brief.", OnEvent: rec.on})

		turn, err := a.Run(ctx, id, "Wait for a, b and c.")
		if err != nil {
			t.Fatal(err)
		}
		const answer = "All three are done, and both echoes came back."
		if turn.Answer != answer || len(turn.Steps) != 3 {
			t.Fatalf("turn: answer %q with %d steps, want %q with 3", turn.Answer, len(turn.Steps), answer)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("the model got %d requests, want 3", len(reqs))
		}
		if reqs[0].System != "Be brief." || !reflect.DeepEqual(toolNames(reqs[0]), []string{"wait", "echo"}) {
			t.Errorf("first request: system %q, tools %v", reqs[0].System, toolNames(reqs[0]))
		}
		res := toolMsgs(reqs[1])
		if got := callIDs(res); !reflect.DeepEqual(got, []string{"call_a", "call_b", "call_c"}) {
			t.Errorf("second request's results: %v, want call order", got)
		}
		for i, m := range res {
			if want := "done " + string("abc"[i]); m.Text != want || m.IsError {
				t.Errorf("result %d: %q (error %v), want %q", i, m.Text, m.IsError, want)
			}
		}
		if got := callIDs(toolMsgs(reqs[2])); !reflect.DeepEqual(got, []string{"call_d", "call_e"}) {
			t.Errorf("third request's results: %v", got)
		}
		if got := toolMsgs(reqs[2]); len(got) == 2 && got[0].Text != `{"n":1}` {
			t.Errorf("echo got %q, want the compacted arguments", got[0].Text)
		}

		stored := history(t, store, id)
		if got := storedCallIDs(stored)[:3]; !reflect.DeepEqual(got, []string{"call_c", "call_b", "call_a"}) {
			t.Errorf("stored results of step 1: %v, want completion order c, b, a", got)
		}
		if len(stored) != 9 || stored[0].Text != "Wait for a, b and c." || stored[8].Text != answer {
			t.Errorf("stored %d messages (first %q, last %q), want 9 from the question to the answer", len(stored), stored[0].Text, stored[len(stored)-1].Text)
		}
		if got := storedCallIDs(turn.Steps[0].Results); !reflect.DeepEqual(got, []string{"call_a", "call_b", "call_c"}) {
			t.Errorf("turn's step 1 results: %v, want call order", got)
		}

		var text strings.Builder
		for _, e := range rec.of(agent.TextDelta) {
			text.WriteString(e.Text)
		}
		if deltas := len(rec.of(agent.TextDelta)); text.String() != "Waiting."+answer || deltas < 3 {
			t.Errorf("text deltas (%d) make %q", deltas, text.String())
		}
		started, done := rec.of(agent.ToolStarted), rec.of(agent.ToolFinished)
		if len(started) != 5 || len(done) != 5 {
			t.Fatalf("%d calls started and %d finished, want 5", len(started), len(done))
		}
		for _, e := range done {
			if e.IsError || e.Name == "" || e.Arguments == "" || e.Duration <= 0 || e.Session != id {
				t.Errorf("finished event %+v", e)
			}
			if e.CallID == "call_b" && (e.Result != "done b" || e.Arguments != `{"id":"b","next":"c"}` || e.Step != 1) {
				t.Errorf("call_b finished as %+v", e)
			}
		}
		if got := rec.of(agent.Answer); len(got) != 1 || got[0].Text != answer || got[0].Step != 3 {
			t.Errorf("answer events: %+v", got)
		}
	})
}

// TestParallelToolsBound: no more than ParallelTools calls run at once.
func TestParallelToolsBound(t *testing.T) {
	t.Parallel()
	if peak := peakCalls(t, 2, 2, 6); peak != 2 {
		t.Errorf("at most %d calls ran at once, want 2 (ParallelTools)", peak)
	}
}

// peakCalls runs a turn of n calls on an agent with ParallelTools parallel and
// returns the most calls that ran at once. Each call waits until want+1 have
// started or, once want have, for a grace in which one more would start if the
// bound allowed it: with the bound at want, the calls run want at a time (with a
// lower bound they never return, and the turn fails at the test's timeout).
func peakCalls(t *testing.T, parallel, want, n int) int {
	t.Helper()
	local := tool.NewLocal()
	var mu sync.Mutex
	running, peak, started := 0, 0, 0
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	addTool(t, local, "work", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		switch started++; started {
		case want:
			time.AfterFunc(300*time.Millisecond, open) // the grace
		case want + 1:
			open()
		}
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return tool.TextResult("ok"), nil
	})
	var calls []fakellm.Call
	for i := range n {
		calls = append(calls, fakellm.Call{ID: fmt.Sprintf("call_%d", i), Name: "work", Arguments: `{}`})
	}
	model, srv := backends[0].start(t, fakellm.Queue(fakellm.Reply{Calls: calls}, fakellm.Reply{Text: "done"}))
	store := newStore(t)
	a := agent.New(model, store, &agent.Options{Tools: local, ParallelTools: parallel})
	if _, err := a.Run(testCtx(t), newSession(t, store), "work"); err != nil {
		t.Fatal(err)
	}
	res := toolMsgs(srv.Requests()[1])
	if len(res) != n {
		t.Fatalf("%d results, want %d", len(res), n)
	}
	for _, m := range res {
		if m.IsError || m.Text != "ok" {
			t.Errorf("%s: %q (error %v)", m.CallID, m.Text, m.IsError)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return peak
}

// panicky is a Toolset (not a tool.Local, which recovers its functions' panics itself)
// whose tool "explodes" panics in Call.
type panicky struct{ tool.Toolset }

func (p panicky) Tools() []tool.Tool {
	return append([]tool.Tool{{Name: "explodes", InputSchema: json.RawMessage(`{"type":"object"}`)}}, p.Toolset.Tools()...)
}

func (p panicky) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Result, error) {
	if name == "explodes" {
		panic("kaboom")
	}
	return p.Toolset.Call(ctx, name, args)
}

// TestFailuresAreResults: every way a call can fail is answered with an error result
// that says what went wrong, in call order, and the turn goes on to its answer.
func TestFailuresAreResults(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		local := tool.NewLocal()
		addTool(t, local, "echo", func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(string(args)), nil
		})
		addTool(t, local, "fails", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return nil, errors.New("disk full")
		})
		addTool(t, local, "panics", func(context.Context, json.RawMessage) (*tool.Result, error) {
			panic("boom")
		})
		addTool(t, local, "quota", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.ErrorResult("quota exceeded, retry tomorrow"), nil
		})
		addTool(t, local, "hangs", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		if err := tool.Func(local, "typed", "needs a number", func(_ context.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			return "fine", nil
		}); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name, args string
			want       string // in the result's text
		}{
			{"nope", `{}`, `unknown tool "nope"; the tools available are: explodes, echo, fails`},
			{"echo", `{"text":`, `arguments for tool "echo" are not valid JSON`},
			{"echo", `[1, 2]`, `arguments for tool "echo" must be a JSON object, got a JSON array`},
			{"typed", `{"n":"seven"}`, `invalid arguments for tool "typed"`},
			{"fails", `{}`, `disk full`},
			{"panics", `{}`, `tool "panics" panicked: boom`},
			{"explodes", `{}`, `tool "explodes" panicked: kaboom`},
			{"quota", `{}`, `quota exceeded, retry tomorrow`},
			{"hangs", `{}`, `tool "hangs" timed out after 200ms`},
		}
		var calls []fakellm.Call
		for i, c := range cases {
			calls = append(calls, fakellm.Call{ID: "call_" + string(rune('a'+i)), Name: c.name, Arguments: c.args})
		}
		calls = append(calls, fakellm.Call{ID: "call_ok", Name: "echo", Arguments: `{"text":"still here"}`})
		model, srv := b.start(t, fakellm.Queue(fakellm.Reply{Calls: calls}, fakellm.Reply{Text: "I saw the errors."}))
		store := newStore(t)
		id := newSession(t, store)
		var rec recorder
		a := agent.New(model, store, &agent.Options{Tools: panicky{local}, ToolTimeout: 200 * time.Millisecond, OnEvent: rec.on})
		turn, err := a.Run(ctx, id, "try everything")
		if err != nil {
			t.Fatal(err)
		}
		if turn.Answer != "I saw the errors." {
			t.Errorf("answer %q", turn.Answer)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		res := toolMsgs(reqs[1])
		if len(res) != len(calls) {
			t.Fatalf("%d results, want %d", len(res), len(calls))
		}
		for i, c := range cases {
			if res[i].CallID != calls[i].ID || !res[i].IsError || !strings.Contains(res[i].Text, c.want) {
				t.Errorf("%s(%s): result %s %q (error %v), want an error containing %q", c.name, c.args, res[i].CallID, res[i].Text, res[i].IsError, c.want)
			}
		}
		if last := res[len(res)-1]; last.IsError || last.Text != `{"text":"still here"}` {
			t.Errorf("the call that works: %q (error %v)", last.Text, last.IsError)
		}
		errs := 0
		for _, e := range rec.of(agent.ToolFinished) {
			if e.IsError {
				errs++
			}
		}
		if errs != len(cases) {
			t.Errorf("%d finished events report an error, want %d", errs, len(cases))
		}
	})
}

// TestMaxSteps: a model that keeps calling gets MaxSteps requests with tools
// (DefaultMaxSteps, 10, when 0), then one without; calls it makes in that last
// reply are answered, not run, so that the stored history stays one a provider
// accepts.
func TestMaxSteps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ maxSteps, want int }{{3, 3}, {0, 10}} {
		t.Run(fmt.Sprintf("MaxSteps %d", tc.maxSteps), func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, b backend) { checkMaxSteps(t, b, tc.maxSteps, tc.want) })
		})
	}
}

func checkMaxSteps(t *testing.T, b backend, maxSteps, want int) {
	t.Helper()
	local := tool.NewLocal()
	ran := 0
	addTool(t, local, "again", func(context.Context, json.RawMessage) (*tool.Result, error) {
		ran++
		return tool.TextResult("once more"), nil
	})
	step := 0
	model, srv := b.start(t, func(r fakellm.Request) fakellm.Reply {
		step++
		call := []fakellm.Call{{ID: fmt.Sprintf("call_%d", step), Name: "again", Arguments: `{}`}}
		if len(r.Tools) == 0 {
			return fakellm.Reply{Text: "Giving up.", Calls: call} // calls though it was given no tools
		}
		return fakellm.Reply{Calls: call}
	})
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(model, store, &agent.Options{Tools: local, MaxSteps: maxSteps})
	turn, err := a.Run(testCtx(t), id, "loop")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != want+1 || ran != want {
		t.Fatalf("%d requests and %d calls run, want %d and %d", len(reqs), ran, want+1, want)
	}
	for i, r := range reqs {
		if withTools := len(r.Tools) > 0; withTools != (i < want) {
			t.Errorf("request %d: tools %v", i+1, toolNames(r))
		}
	}
	if turn.Answer != "Giving up." || len(turn.Steps) != want+1 {
		t.Errorf("answer %q after %d steps", turn.Answer, len(turn.Steps))
	}
	stored := history(t, store, id)
	last := stored[len(stored)-1]
	if last.Role != llm.RoleTool || last.CallID != fmt.Sprintf("call_%d", want+1) || !last.Result.IsError ||
		!strings.Contains(tool.Text(last.Result), "step limit") {
		t.Errorf("the last reply's call is answered with %+v", last)
	}
}

// TestDefaults: an agent given no ParallelTools runs at most 8 calls of a step at
// once, as the issue promises (12 calls, see peakCalls); TestMaxSteps checks the
// default of MaxSteps, 10.
func TestDefaults(t *testing.T) {
	t.Parallel()
	if agent.DefaultParallelTools != 8 || agent.DefaultMaxSteps != 10 {
		t.Fatalf("defaults: %d calls at once, %d steps; want 8 and 10", agent.DefaultParallelTools, agent.DefaultMaxSteps)
	}
	t.Run("parallel tools", func(t *testing.T) {
		if peak := peakCalls(t, 0, 8, 12); peak != 8 {
			t.Errorf("at most %d calls ran at once, want 8", peak)
		}
	})
}

// TestApprovalDeny: a denied call does not run, and the model reads the reason.
func TestApprovalDeny(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		local := tool.NewLocal()
		removed := false
		addTool(t, local, "rm", func(context.Context, json.RawMessage) (*tool.Result, error) {
			removed = true
			return tool.TextResult("removed"), nil
		})
		addTool(t, local, "ls", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("a.txt"), nil
		})
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{
				{ID: "call_rm", Name: "rm", Arguments: `{ "path": "/" }`},
				{ID: "call_ls", Name: "ls", Arguments: `{}`},
			}},
			fakellm.Reply{Text: "I may not remove it."},
		))
		store := newStore(t)
		id := newSession(t, store)
		var mu sync.Mutex
		var asked []agent.Call
		a := agent.New(model, store, &agent.Options{Tools: local,
			Approve: func(_ context.Context, c agent.Call) agent.Decision {
				mu.Lock()
				asked = append(asked, c)
				mu.Unlock()
				if c.Name == "rm" {
					return agent.Deny("the user declined to delete files")
				}
				return agent.Allow()
			}})
		if _, err := a.Run(ctx, id, "clean up"); err != nil {
			t.Fatal(err)
		}
		if removed {
			t.Error("the denied call ran")
		}
		res := toolMsgs(srv.Requests()[1])
		if len(res) != 2 || !res[0].IsError || res[0].Text != `the call to "rm" was denied: the user declined to delete files` ||
			res[1].IsError || res[1].Text != "a.txt" {
			t.Errorf("results: %+v", res)
		}
		if len(asked) != 2 {
			t.Fatalf("the hook was asked %d times, want 2", len(asked))
		}
		for _, c := range asked {
			if c.Name == "rm" && (string(c.Arguments) != `{"path":"/"}` || c.Tool.Name != "rm" || c.Session != id || c.Step != 1 || c.ID != "call_rm") {
				t.Errorf("the hook saw %+v", c)
			}
		}
	})
}

// TestDurationExcludesApproval: a call's reported duration is the tool's, not the
// time its approval took. The hook waits 300 ms; the tool returns at once.
func TestDurationExcludesApproval(t *testing.T) {
	t.Parallel()
	const wait = 300 * time.Millisecond
	local := tool.NewLocal()
	addTool(t, local, "fast", func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("done"), nil
	})
	model, _ := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "fast", Arguments: `{}`}}},
		fakellm.Reply{Text: "Done."},
	))
	store := newStore(t)
	var rec recorder
	a := agent.New(model, store, &agent.Options{Tools: local, OnEvent: rec.on,
		Approve: func(ctx context.Context, _ agent.Call) agent.Decision {
			select { // a person thinking it over
			case <-time.After(wait):
				return agent.Allow()
			case <-ctx.Done():
				return agent.Deny("cancelled")
			}
		}})
	if _, err := a.Run(testCtx(t), newSession(t, store), "go"); err != nil {
		t.Fatal(err)
	}
	done := rec.of(agent.ToolFinished)
	if len(done) != 1 || done[0].IsError {
		t.Fatalf("finished events: %+v", done)
	}
	if d := done[0].Duration; d <= 0 || d >= wait {
		t.Errorf("duration %s: want the tool's own, under the hook's %s", d, wait)
	}
}

// TestToolsRecomputedMidTurn: a tool added while the turn runs (by a call of its first
// step) is offered in the next request and can be called in the same turn.
func TestToolsRecomputedMidTurn(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		local := tool.NewLocal()
		addTool(t, local, "install", func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("installed"), local.AddRaw("weather", "today's weather", json.RawMessage(`{"type":"object"}`),
				func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("sunny"), nil })
		})
		model, srv := b.start(t, fakellm.Queue(
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "install", Arguments: `{}`}}},
			fakellm.Reply{Calls: []fakellm.Call{{ID: "call_2", Name: "weather", Arguments: `{}`}}},
			fakellm.Reply{Text: "It is sunny."},
		))
		store := newStore(t)
		id := newSession(t, store)
		union := tool.Union("", local)
		t.Cleanup(func() { union.Close() })
		a := agent.New(model, store, &agent.Options{Tools: union})
		if _, err := a.Run(ctx, id, "weather?"); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		if got := toolNames(reqs[0]); !reflect.DeepEqual(got, []string{"install"}) {
			t.Errorf("first request's tools: %v", got)
		}
		if got := toolNames(reqs[1]); !reflect.DeepEqual(got, []string{"install", "weather"}) {
			t.Errorf("second request's tools: %v, want the new tool too", got)
		}
		if res := toolMsgs(reqs[2]); len(res) != 1 || res[0].IsError || res[0].Text != "sunny" {
			t.Errorf("the new tool's result: %+v", res)
		}
	})
}

// TestApprovalHookPanics: a hook that panics denies the call instead of ending the
// process, and the model is told.
func TestApprovalHookPanics(t *testing.T) {
	t.Parallel()
	local := tool.NewLocal()
	ran := false
	addTool(t, local, "rm", func(context.Context, json.RawMessage) (*tool.Result, error) {
		ran = true
		return tool.TextResult("removed"), nil
	})
	model, srv := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "rm", Arguments: `{}`}}},
		fakellm.Reply{Text: "Not removed."},
	))
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(model, store, &agent.Options{Tools: local,
		Approve: func(context.Context, agent.Call) agent.Decision { panic("no terminal") }})
	if _, err := a.Run(testCtx(t), id, "rm"); err != nil {
		t.Fatal(err)
	}
	res := toolMsgs(srv.Requests()[1])
	if ran || len(res) != 1 || !res[0].IsError || res[0].Text != `the call to "rm" was not approved: the approval hook failed` {
		t.Errorf("ran %v; results %+v", ran, res)
	}
}

// TestNoTools: an agent without tools answers a call the model makes anyway with an
// error result, so that the history stays one a provider accepts and the model can
// answer without it.
func TestNoTools(t *testing.T) {
	t.Parallel()
	model, srv := backends[0].start(t, fakellm.Queue(
		fakellm.Reply{Text: "Let me look.", Calls: []fakellm.Call{{ID: "call_1", Name: "search", Arguments: `{}`}}},
		fakellm.Reply{Text: "I cannot look it up."},
	))
	store := newStore(t)
	id := newSession(t, store)
	a := agent.New(model, store, nil)
	turn, err := a.Run(testCtx(t), id, "look it up")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if turn.Answer != "I cannot look it up." || len(reqs) != 2 || len(reqs[0].Tools) != 0 {
		t.Fatalf("answer %q after %d requests; tools sent %v", turn.Answer, len(reqs), toolNames(reqs[0]))
	}
	if res := toolMsgs(reqs[1]); len(res) != 1 || !res[0].IsError || res[0].Text != "no tools are available; answer without them" {
		t.Errorf("the call was answered with %+v", res)
	}
}
