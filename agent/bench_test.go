package agent_test

// Benchmarks of the loop against the direct path measured in the same run. Timings
// are reported, never asserted; the targets from the issue are in each comment.
//
//	go test -run=NONE -bench=. -benchtime=200x ./agent/

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// clockCalls are the four calls of each tool step of the benchmark turn.
var clockCalls = []fakellm.Call{
	{Name: "current_time", Arguments: `{"zone":"Asia/Tokyo"}`},
	{Name: "current_time", Arguments: `{"zone":"Europe/Paris"}`},
	{Name: "convert_time", Arguments: `{"time":"2026-11-21T09:56:31+01:00","to":"America/New_York"}`},
	{Name: "add_duration", Arguments: `{"time":"2026-11-21T09:56:31Z","duration":"1d12h"}`},
}

// threeSteps is a model that answers any conversation the same way: two steps of the
// four clock calls, then a text answer. The step is read from the request (assistant
// messages since the last user message), so that turns of either path may interleave.
func threeSteps(r fakellm.Request) fakellm.Reply {
	step := 0
	for _, m := range r.Messages {
		switch m.Role {
		case "user":
			step = 0
		case "assistant":
			step++
		}
	}
	if step >= 2 {
		return fakellm.Reply{Text: "Tokyo is ahead of Paris; New York is behind.", InputTokens: 50, OutputTokens: 10}
	}
	calls := make([]fakellm.Call, len(clockCalls))
	for i, c := range clockCalls {
		c.ID = fmt.Sprintf("call_%d_%d", step, i)
		calls[i] = c
	}
	return fakellm.Reply{Calls: calls, InputTokens: 50, OutputTokens: 10}
}

// startClockHub runs the demo clock server (this test binary, see TestMain) in a hub.
func startClockHub(b *testing.B) *hub.Hub {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cfg := demo.Config(exe)
	cfg.Servers = cfg.Servers[:1] // clock
	h := hub.New(cfg, &hub.Options{Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		b.Fatal(err)
	}
	return h
}

// handLoop is the minimal loop the agent is measured against: the same requests and
// the same calls (concurrently), no store, no events, no checks.
func handLoop(ctx context.Context, model llm.Model, tools tool.Toolset, text string) (string, error) {
	msgs := []llm.Message{{Role: llm.RoleUser, Text: text}}
	for {
		res, err := model.Generate(ctx, &llm.Request{Messages: msgs, Tools: tools.Tools()}, nil)
		if err != nil {
			return "", err
		}
		msgs = append(msgs, res.Message)
		calls := res.Message.Calls
		if len(calls) == 0 {
			return res.Message.Text, nil
		}
		results := make([]llm.Message, len(calls))
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := tools.Call(ctx, c.Name, json.RawMessage(c.Arguments))
				if err != nil {
					r = tool.ErrorResult("%v", err)
				}
				results[i] = llm.Message{Role: llm.RoleTool, CallID: c.ID, Name: c.Name, Result: r}
			}()
		}
		wg.Wait()
		msgs = append(msgs, results...)
	}
}

// BenchmarkLoopOverhead: a turn of 3 steps × 4 calls of the demo clock server against
// the fake OpenAI server, through the agent (memory store) and through handLoop,
// alternating within each iteration; the median ratio of the pairs. Target: x-hand ≤ 1.05.
func BenchmarkLoopOverhead(b *testing.B) {
	h := startClockHub(b)
	model, _ := backends[0].start(b, threeSteps)
	store := newStore(b)
	a := agent.New(model, store, &agent.Options{Tools: h})
	ctx := context.Background()
	var agentTimes, handTimes []float64 // µs per turn
	turn := func(i int) {
		id := fmt.Sprintf("bench-%d", i)
		if err := store.Create(ctx, &session.Session{ID: id}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		t, err := a.Run(ctx, id, "What time is it?")
		agentTimes = append(agentTimes, float64(time.Since(start).Microseconds()))
		if err != nil || len(t.Steps) != 3 {
			b.Fatalf("agent turn: %v", err)
		}
	}
	hand := func() {
		start := time.Now()
		_, err := handLoop(ctx, model, h, "What time is it?")
		handTimes = append(handTimes, float64(time.Since(start).Microseconds()))
		if err != nil {
			b.Fatalf("hand turn: %v", err)
		}
	}
	turn(-1) // warm both paths: connections, zone data
	hand()
	agentTimes, handTimes = nil, nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			turn(i)
			hand()
		} else {
			hand()
			turn(i)
		}
	}
	b.StopTimer()
	// Medians, and the ratio as the median of each iteration's pair: on a shared
	// machine a few turns stall and the load drifts, on either path.
	ratios := make([]float64, len(agentTimes))
	for i := range ratios {
		ratios[i] = agentTimes[i] / handTimes[i]
	}
	b.ReportMetric(testenv.Median(agentTimes), "agent-µs/turn")
	b.ReportMetric(testenv.Median(handTimes), "hand-µs/turn")
	b.ReportMetric(testenv.Median(ratios), "x-hand")
}

// BenchmarkParallelCalls: a turn whose one step makes 8 calls of a 100 ms tool against
// one whose step makes 1, through the agent; medians. Target: x-one ≤ 1.3.
func BenchmarkParallelCalls(b *testing.B) {
	local := tool.NewLocal()
	addTool(b, local, "slow", func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		t := time.NewTimer(100 * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return tool.TextResult("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	model, _ := backends[0].start(b, func(r fakellm.Request) fakellm.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role != "user" {
			return fakellm.Reply{Text: "done"}
		}
		var n int
		fmt.Sscan(last.Text, &n)
		calls := make([]fakellm.Call, n)
		for i := range calls {
			calls[i] = fakellm.Call{ID: fmt.Sprintf("call_%d", i), Name: "slow", Arguments: `{}`}
		}
		return fakellm.Reply{Calls: calls}
	})
	store := newStore(b)
	a := agent.New(model, store, &agent.Options{Tools: local})
	ctx := context.Background()
	timeTurn := func(id string, calls int) time.Duration {
		if err := store.Create(ctx, &session.Session{ID: id}); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		t, err := a.Run(ctx, id, fmt.Sprint(calls))
		d := time.Since(start)
		if err != nil || len(t.Steps[0].Results) != calls {
			b.Fatalf("turn of %d calls: %v", calls, err)
		}
		return d
	}
	var ones, eights, ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		one := timeTurn(fmt.Sprintf("one-%d", i), 1)
		eight := timeTurn(fmt.Sprintf("eight-%d", i), 8)
		ones = append(ones, float64(one.Microseconds())/1000)
		eights = append(eights, float64(eight.Microseconds())/1000)
		ratios = append(ratios, float64(eight)/float64(one))
	}
	b.StopTimer()
	b.ReportMetric(testenv.Median(ones), "one-ms/turn")
	b.ReportMetric(testenv.Median(eights), "eight-ms/turn")
	b.ReportMetric(testenv.Median(ratios), "x-one")
}
