package prom_test

import (
	"os"

	"github.com/switchboard-mcp/switchboard/prom"
)

func Example() {
	reg := prom.NewRegistry()
	calls := prom.NewCounterVec("app_calls_total", "Calls, by tool and outcome.", "tool", "outcome")
	took := prom.NewHistogramVec("app_call_seconds", "How long calls took.", []float64{0.1, 1}, "tool")
	reg.MustRegister(calls, took)

	calls.With("search", "ok").Inc()
	took.With("search").Observe(0.25)

	reg.WriteText(os.Stdout) // what GET /metrics answers when reg is the handler
	// Output:
	// # HELP app_call_seconds How long calls took.
	// # TYPE app_call_seconds histogram
	// app_call_seconds_bucket{tool="search",le="0.1"} 0
	// app_call_seconds_bucket{tool="search",le="1"} 1
	// app_call_seconds_bucket{tool="search",le="+Inf"} 1
	// app_call_seconds_sum{tool="search"} 0.25
	// app_call_seconds_count{tool="search"} 1
	// # HELP app_calls_total Calls, by tool and outcome.
	// # TYPE app_calls_total counter
	// app_calls_total{outcome="ok",tool="search"} 1
}
