package agent_test

import (
	"strconv"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// direct is searcher's counterpart for a model shown the whole catalog: it calls
// the weather tool at once.
func direct(r fakellm.Request) fakellm.Reply {
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "user" {
		return fakellm.Reply{Calls: []fakellm.Call{{ID: "c2", Name: "weather_get_forecast", Arguments: `{"city": "Paris"}`}}}
	}
	return fakellm.Reply{Text: "Answer: " + last.Text}
}

// BenchmarkDeferredTurn: one turn over 1,000 tools, with the whole catalog in every
// request (the model calls the tool at once: 2 requests) and in deferred mode (a
// search first: 3 requests). req-KB is what the turn sent the model; the time is the
// turn's on loopback against the fake OpenAI server.
//
//	go test -run=NONE -bench=DeferredTurn ./agent/
func BenchmarkDeferredTurn(b *testing.B) {
	for _, c := range []struct {
		name   string
		script fakellm.Script
		policy *deferred.Policy
	}{
		{"all-tools", direct, nil},
		{"deferred", searcher, &deferred.Policy{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			model, srv := startOpenAI(b, c.script)
			store := newStore(b)
			a := agent.New(model, store, &agent.Options{Tools: bigCatalog(b, 1000), Deferred: c.policy})
			ctx := testCtx(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				id := newSessionID(b, store, "s"+strconv.Itoa(i))
				b.StartTimer()
				turn, err := a.Run(ctx, id, "What is the weather forecast for Paris?")
				if err != nil || turn.Answer != `Answer: weather_get_forecast ran with {"city":"Paris"}` {
					b.Fatalf("turn: %v, answer %q", err, turn.Answer)
				}
			}
			b.StopTimer()
			sent := 0
			for _, r := range srv.Requests() {
				sent += len(r.Raw)
			}
			b.ReportMetric(float64(sent)/1024/float64(b.N), "req-KB/turn")
		})
	}
}
